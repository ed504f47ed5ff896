"""Players, installed as ``pyanitsa.agents``.

Scripted, search-based and learned agents that play through the rules core.
"""
