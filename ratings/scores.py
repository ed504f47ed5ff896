"""Statistics of mean scores: the one 95% interval of a mean, the likelihood of superiority,
and the counts of duplicate pairs.

Plain inputs: a list of scores, each the mean of one independent unit (a duplicate pair, a
block of rotations of one deal), in [0, 1] with 1/2 even. The tournament's head-to-head
scores and a match's score take the Student-t interval (clipped to [0, 1]); the duplicate
evaluation that training logs (:func:`pyanitsa.solvers.duplicate.duplicate_match`) the
normal approximation with the customary 1.96 (its intervals are reported as ``score ±
half_width``, unclipped).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats as sps

Spread = Literal["student", "normal"]
"""The quantile of an interval: Student's t with n - 1 degrees of freedom, or the normal one
rounded to two decimals as tables print it (1.96 at 95%)."""


def mean_var(scores: Sequence[float]) -> tuple[float, float]:
    """The mean of scores and their sample variance (0 for one score)."""
    n = len(scores)
    mean = sum(scores) / n
    return mean, sum((p - mean) ** 2 for p in scores) / max(1, n - 1)


def half_width(scores: Sequence[float], level: float = 0.95, *, spread: Spread = "student"
               ) -> float | None:
    """Half-width of the ``level`` interval of the mean of ``scores`` (None for fewer than
    two: one score says nothing of the spread)."""
    arr = np.asarray(scores, dtype=float)
    n = len(arr)
    if n < 2:
        return None
    q = 0.5 + level / 2
    quantile = sps.t.ppf(q, n - 1) if spread == "student" else round(float(sps.norm.ppf(q)), 2)
    return float(quantile * arr.std(ddof=1) / math.sqrt(n))


def mean_interval(scores: Sequence[float], level: float = 0.95
                  ) -> tuple[float, float | None, float | None]:
    """The mean with its Student-t interval clipped to [0, 1] (None for fewer than two
    values)."""
    mean = float(np.asarray(scores, dtype=float).mean())
    half = half_width(scores, level)
    if half is None:
        return mean, None, None
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def likelihood_of_superiority(scores: Sequence[float]) -> float | None:
    """``Phi((mean - 1/2) / se)`` over pair scores; a certain 1 or 0 when every pair scored
    the same (no spread), 1/2 for exactly even; None for fewer than two pairs."""
    n = len(scores)
    if n < 2:
        return None
    mean, var = mean_var(scores)
    if var == 0.0:
        return 0.5 if mean == 0.5 else float(mean > 0.5)
    return float(sps.norm.cdf((mean - 0.5) / math.sqrt(var / n)))


@dataclass(frozen=True)
class PairCounts:
    """The first agent's duplicate pairs: won (pair score above 1/2), drawn, lost."""

    wins: int
    draws: int
    losses: int
    pentanomial: tuple[int, int, int, int, int]
    """Pairs scoring 0, 1/4, 1/2, 3/4 and 1 (a pair is two games: halves come from draws)."""

    @classmethod
    def of(cls, scores: Sequence[float]) -> PairCounts:
        penta = [0] * 5
        for s in scores:
            penta[min(4, max(0, round(4 * s)))] += 1
        return cls(sum(s > 0.5 for s in scores), sum(s == 0.5 for s in scores),
                   sum(s < 0.5 for s in scores),
                   (penta[0], penta[1], penta[2], penta[3], penta[4]))
