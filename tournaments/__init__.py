"""Tournaments, installed as ``pyanitsa.tournaments``.

Paired games between agents, per-game records, aggregate statistics and reports. From Python:
:func:`run` plays a tournament from a config (a mapping, a YAML path or a ``TournamentConfig``)
and returns a :class:`Summary`; :func:`match` plays a duplicate match of two agent specs and
returns a :class:`MatchResult`.
"""

from __future__ import annotations

from typing import Any

_LAZY = {"run": "api", "Summary": "api", "Standing": "api", "match": "matches",
         "MatchResult": "matches", "TournamentConfig": "config"}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    # lazily, so that importing one submodule (config, say) does not load the runner
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"pyanitsa.tournaments.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'pyanitsa.tournaments' has no attribute {name!r}")
