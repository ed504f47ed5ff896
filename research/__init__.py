"""Research tooling, installed as ``pyanitsa.research``: exhaustive enumeration of small decks,
the hunt for long games and natural cycles, the positions one round earlier, their SQLite
stores and their Ray drivers (``pyanitsa enumerate``, ``pyanitsa hunt``).

It sits just above the core and plays through the core's batch engine; nothing below it
imports it. Nothing is imported here: the drivers load numba and, on request, Ray.
"""
