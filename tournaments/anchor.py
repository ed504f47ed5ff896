"""A tournament's anchor agent (``anchor: NAME`` in a config, ``--anchor`` for a match): its
index for :func:`pyanitsa.ratings.plackett_luce.rate`, which says what anchoring does, and how
the reports name the scale."""

from __future__ import annotations

from pyanitsa.tournaments.config import TournamentConfig


def anchor_index(config: TournamentConfig) -> int | None:
    """The anchor's index in ``config.agents``, or None without an anchor."""
    return None if config.anchor is None else config.names.index(config.anchor)


def scale_label(config: TournamentConfig) -> str:
    """How to read the ratings: ``Elo (random = 0)`` or ``Elo (mean 0)``."""
    return "Elo (mean 0)" if config.anchor is None else f"Elo ({config.anchor} = 0)"
