"""α-Rank of a symmetric empirical game of any table size (Omidshafiei et al. 2019, "α-Rank:
Multi-agent evaluation by evolution"; OpenSpiel's ``egt/alpharank.py`` is the reference, for
two-player tables).

A population of ``m`` players all play one agent; now and then one of them switches to another
agent (each other agent equally likely), and that mutant either dies out or takes over the
population. It takes over with the fixation probability of the Fermi process of selection
intensity ``α``:

    ρ(r invades s) = 1 / sum over l = 0..m-1 of prod over i = 1..l of exp(-α (f_r(i) - f_s(i)))

where ``f_r(i)`` and ``f_s(i)`` are the mean payoffs of an ``r`` player and an ``s`` player
when ``i`` of the ``m`` play ``r``. At a table of ``k`` seats a player's ``k - 1`` table mates
are drawn from the other ``m - 1`` without replacement (hypergeometric), so only tables of
``r`` and ``s`` alone enter: for ``k = 2`` this is OpenSpiel's single-population fitness.
The stationary distribution of the chain over the monomorphic populations ranks the agents: as
``α`` grows it puts its mass on the agents that, once they hold the population, no mutant
invades (a dominant agent gets all of it; rock, paper and scissors share it evenly).

The chain's tiny probabilities are kept as logarithms, and its stationary distribution comes
from the Grassmann–Taksar–Heyman elimination, which only adds, multiplies and divides positive
numbers, so a probability of ``exp(-4000)`` counts exactly as much as it should.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy import special, stats

ALPHA = 100.0
"""Selection intensity (per unit of payoff: payoffs are points, 0..1 a game)."""
POPULATION = 50
"""``m``, the population size (OpenSpiel's examples use 50)."""

Payoff = Callable[[int, int, int], float | None]
"""``payoff(r, s, j)``: the mean payoff of an ``r`` seat at a table of ``j`` ``r`` seats and
``k - j`` ``s`` seats (``1 <= j <= k``), None if that table was never played."""


def log_fixation(ur: Sequence[float], us: Sequence[float], *, players: int, alpha: float,
                 population: int) -> float:
    """log ρ(r invades s). ``ur[j]``: an ``r`` seat's payoff with ``j`` other ``r`` seats at
    its table; ``us[j]``: an ``s`` seat's with ``j`` ``r`` seats (``j = 0..k-1``)."""
    m, mates = population, players - 1
    i = np.arange(1, m)
    j = np.arange(players)[:, None]
    # table mates drawn from the other m - 1 players: i - 1 (for r) or i (for s) of them r
    f_r = stats.hypergeom.pmf(j, m - 1, i - 1, mates).T @ np.asarray(ur, float)
    f_s = stats.hypergeom.pmf(j, m - 1, i, mates).T @ np.asarray(us, float)
    terms = np.concatenate([[0.0], np.cumsum(-alpha * (f_r - f_s))])
    return -float(special.logsumexp(terms))


def log_stationary(log_rates: np.ndarray) -> np.ndarray:
    """The stationary distribution (as logs) of the chain with off-diagonal transition
    probabilities ``exp(log_rates)`` (the diagonal is ignored), every one of them positive:
    Grassmann–Taksar–Heyman elimination carried out on logarithms."""
    P = np.array(log_rates, dtype=float)
    n = len(P)
    np.fill_diagonal(P, -np.inf)
    for k in range(n - 1, 0, -1):
        P[:k, k] -= special.logsumexp(P[k, :k])
        P[:k, :k] = np.logaddexp(P[:k, :k], P[:k, k][:, None] + P[k, :k][None, :])
    out = np.zeros(n)
    for k in range(1, n):
        out[k] = special.logsumexp(out[:k] + P[:k, k])
    return out - special.logsumexp(out)


def alpha_rank(n: int, players: int, payoff: Payoff, *, alpha: float = ALPHA,
               population: int = POPULATION) -> np.ndarray | None:
    """The α-Rank distribution over ``n`` agents of a symmetric ``players``-seat game, or
    None when a table of two agents it needs was never played."""
    if n < 2:
        return np.ones(n)
    k = players
    log_rates = np.full((n, n), -np.inf)
    for s in range(n):
        for r in range(n):
            if r == s:
                continue
            ur = [payoff(r, s, j + 1) for j in range(k)]
            us = [payoff(s, r, k - j) for j in range(k)]
            if any(x is None for x in (*ur, *us)):
                return None
            log_rates[s, r] = -np.log(n - 1) + log_fixation(
                ur, us, players=k, alpha=alpha, population=population)  # type: ignore[arg-type]
    return np.exp(log_stationary(log_rates))


def seating_alpha_rank(n: int, players: int, points: Mapping[tuple[int, ...], Mapping[int, float]],
                       ) -> np.ndarray | None:
    """α-Rank of agents ``0..n-1`` from a table of results per seating: ``points[seating][r]``
    is agent ``r``'s mean points a seat at the table of the agents ``seating`` (sorted, an
    agent once per seat). A table of one agent alone needs no entry: its seats share the
    game's 1 point evenly."""

    def payoff(r: int, s: int, count: int) -> float | None:
        if count == players:
            return 1.0 / players
        at = points.get(tuple(sorted([r] * count + [s] * (players - count))))
        return None if at is None else at.get(r)

    return alpha_rank(n, players, payoff)
