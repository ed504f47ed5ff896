"""Tournaments, installed as ``pyanitsa.tournaments``.

Paired games between agents, per-game records, aggregate statistics and reports.
"""
