"""Compiled scoring for the n-player best response of :mod:`pyanitsa.solvers.exploitability_n`.

:func:`evaluate_table` is :func:`pyanitsa.agents.kernels.evaluate_many` (every candidate order
of seat 0 against weighted worlds of the other seats' orders) split over the cores: the
candidates are cut into slices, one slice a task, each scored by ``evaluate_many`` itself, so
the game and the payoff stay written once.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pyanitsa.agents.kernels import evaluate_many

SLICES = 64
"""Slices of the candidates (more than the cores, so a slow slice does not hold one back)."""


@njit(cache=True, parallel=True)
def evaluate_table(cands, n, opp, lens, weights, prm, cw, cm, cs):
    """Weighted mean value ``cw * win + cm * margin + cs * score`` of each candidate
    ``cands[k, :n]`` over the worlds ``opp[s, j, :lens[s, j]]`` (see ``evaluate_many``)."""
    k = cands.shape[0]
    parts = min(k, SLICES)
    out = np.empty(k, np.float64)
    for p in prange(parts):
        lo = p * k // parts
        hi = (p + 1) * k // parts
        out[lo:hi] = evaluate_many(cands[lo:hi], n, opp, lens, weights, prm, cw, cm, cs)
    return out
