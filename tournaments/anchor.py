"""Ratings relative to an anchor agent (``anchor: NAME`` in a config, ``--anchor`` for a match).

The maximum-likelihood fit only fixes rating differences; with its prior it comes out with
mean 0 over the field, so an agent's number moves whenever the field changes. With an anchor
the anchor is 0 and every other rating is its difference from the anchor. The intervals are
those of the differences: each bootstrap refit is shifted by its own anchor rating before the
quantiles are taken, so the anchor's interval is [0, 0] and the others' include the anchor's
uncertainty. The likelihood of superiority does not change (a common shift keeps every order).
"""

from __future__ import annotations

import numpy as np

from pyanitsa.tournaments.config import TournamentConfig


def anchor_index(config: TournamentConfig) -> int | None:
    """The anchor's index in ``config.agents``, or None without an anchor."""
    return None if config.anchor is None else config.names.index(config.anchor)


def anchored(config: TournamentConfig, elo: np.ndarray) -> np.ndarray:
    """Ratings (one row, or one row per bootstrap refit) minus the anchor's rating in the
    same row; unchanged without an anchor."""
    i = anchor_index(config)
    elo = np.asarray(elo, dtype=float)
    return elo if i is None else elo - elo[..., i:i + 1]


def scale_label(config: TournamentConfig) -> str:
    """How to read the ratings: ``Elo (random = 0)`` or ``Elo (mean 0)``."""
    return "Elo (mean 0)" if config.anchor is None else f"Elo ({config.anchor} = 0)"
