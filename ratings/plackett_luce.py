"""Ratings from places: Plackett–Luce (Bradley–Terry for two seats) maximum likelihood on
Elo's scale, anchored or mean 0, with bootstrap intervals over independent blocks of games.

Plain inputs (each game's agents and places, each game's block, the blocks of each stratum);
:mod:`pyanitsa.tournaments.stats` turns a tournament's rows into them. :func:`bradley_terry`
is the quick pairwise fit of the live standings during a run (a matrix of wins, no bootstrap).

An anchor (``anchor: NAME`` in a tournament config, ``--anchor`` for a match): the fit only
fixes rating differences; with its prior it comes out with mean 0 over the field, so an
agent's number moves whenever the field changes. With an anchor the anchor is 0 and every
other rating is its difference from the anchor. The intervals are those of the differences:
each bootstrap refit is shifted by its own anchor rating before the quantiles are taken, so
the anchor's interval is [0, 0] and the others' include the anchor's uncertainty. The
likelihood of superiority does not change (a common shift keeps every order).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import optimize, sparse

from pyanitsa.rng import derive_seed

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural log-strength: P(i beats j) = 1 / (1 + 10^(-(Ri - Rj)/400))."""
PRIOR_SD_ELO = 1000.0
_BOOTSTRAP_STREAM = 0xB007


# -- Plackett–Luce / Bradley–Terry ------------------------------------------------------------------------


@dataclass
class RankingData:
    """Every game's places as the terms of the Plackett–Luce log-likelihood.

    ``LL(theta; w) = (A^T w) . theta - sum_t (T w)_t log(sum_{i in set_t} exp(theta_i))``: ``A``
    (games x agents) holds the numerator coefficients, ``T`` (terms x games) the weights of the
    denominators, ``M`` (terms x agents) which agents each denominator sums over. Game weights
    ``w`` are 1, or bootstrap counts.
    """

    n_agents: int
    A: np.ndarray
    T: sparse.csr_matrix
    M: np.ndarray

    @classmethod
    def build(cls, n_agents: int, games: Sequence[tuple[Sequence[int], Sequence[int]]]
              ) -> RankingData:
        """``games``: (agent in each seat, place of each seat) per game."""
        A = np.zeros((len(games), n_agents))
        # a denominator's agents as a sorted tuple: a table may seat an agent twice (copies)
        term_ids: dict[tuple[int, ...], int] = {}
        t_rows: list[int] = []
        t_cols: list[int] = []
        t_vals: list[float] = []
        for g, (agents, places) in enumerate(games):
            remaining = Counter(agents)
            for place in sorted(set(places)):
                group = [agents[s] for s in range(len(agents)) if places[s] == place]
                for i in group:
                    A[g, i] += 1.0
                size = len(group)
                # Expected log-likelihood over the orders breaking the tie: the m-th pick of
                # the group divides by the remaining strength minus m already-picked members.
                for m in range(size):
                    weight = 1.0 / math.comb(size, m)
                    for picked in itertools.combinations(group, m):
                        members = tuple(sorted((remaining - Counter(picked)).elements()))
                        if len(members) == 1:
                            (j,) = members
                            A[g, j] -= weight
                            continue
                        tid = term_ids.setdefault(members, len(term_ids))
                        t_rows.append(tid)
                        t_cols.append(g)
                        t_vals.append(weight)
                remaining -= Counter(group)
        T = sparse.csr_matrix((t_vals, (t_rows, t_cols)), shape=(len(term_ids), len(games)))
        M = np.zeros((len(term_ids), n_agents))
        for members, tid in term_ids.items():
            np.add.at(M[tid], list(members), 1.0)
        return cls(n_agents, A, T, M)

    def log_likelihood(self, elo: np.ndarray, weights: np.ndarray | None = None) -> float:
        """The log-likelihood of ratings ``elo`` (no prior)."""
        w = np.ones(self.A.shape[0]) if weights is None else np.asarray(weights, dtype=float)
        theta = np.asarray(elo, dtype=float) / ELO_PER_NAT
        return float((self.A.T @ w) @ theta - (self.T @ w) @ np.log(self.M @ np.exp(theta)))

    def fit(self, weights: np.ndarray | None = None, *, prior_sd: float | None = PRIOR_SD_ELO,
            start: np.ndarray | None = None) -> np.ndarray:
        """Maximum-likelihood (MAP with the prior) ratings in Elo, mean 0.

        The negative log-likelihood is convex; it is minimised by scipy's trust-region Newton
        method with the exact gradient and Hessian.
        """
        w = np.ones(self.A.shape[0]) if weights is None else np.asarray(weights, dtype=float)
        a = self.A.T @ w
        c = self.T @ w
        M = self.M
        inv_var = 0.0 if prior_sd is None else (ELO_PER_NAT / prior_sd) ** 2
        eye = np.eye(self.n_agents)

        def share(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
            top = theta.max()
            e = np.exp(theta - top)
            s = M @ e
            return M * (e / s[:, None]), s, top

        def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
            P, s, top = share(theta)
            value = -(a @ theta) + c @ (np.log(s) + top) + 0.5 * inv_var * (theta @ theta)
            return float(value), -a + P.T @ c + inv_var * theta

        def hess(theta: np.ndarray) -> np.ndarray:
            P, _, _ = share(theta)
            return np.diag(P.T @ c) - (P.T * c) @ P + inv_var * eye

        x0 = np.zeros(self.n_agents) if start is None else np.asarray(start) / ELO_PER_NAT
        res = optimize.minimize(nll, x0, jac=True, hess=hess, method="trust-exact",
                                options={"gtol": 1e-8, "maxiter": 500})
        theta = res.x - res.x.mean()
        return theta * ELO_PER_NAT


@dataclass
class Ratings:
    elo: list[float]
    low: list[float] | None
    high: list[float] | None
    los: list[list[float]] | None
    """``los[i][j]``: the share of bootstrap fits in which i is rated above j."""
    bootstrap: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def anchored(elo: np.ndarray, anchor: int | None) -> np.ndarray:
    """Ratings (one row, or one row per bootstrap refit) minus the rating of agent ``anchor``
    in the same row; unchanged without an anchor."""
    elo = np.asarray(elo, dtype=float)
    return elo if anchor is None else elo - elo[..., anchor:anchor + 1]


Game = tuple[Sequence[int], Sequence[int]]
"""One game: the agent in each seat, the place of each seat (1 is first; equal places tie)."""


def rate(n_agents: int, games: Sequence[Game], *, anchor: int | None = None,
         bootstrap: int = 0, game_block: Sequence[int] = (),
         strata: Sequence[Sequence[int]] = (), seed: int = 0) -> Ratings:
    """The ratings of agents ``0..n_agents-1`` from ``games``, with ``bootstrap`` refits.

    A refit resamples blocks with replacement within each stratum (``strata``: the block ids
    of each, in order), a game weighing as many times as its block (``game_block[g]``) was
    drawn; the generator is seeded from ``seed``, so the intervals are reproducible.
    """
    data = RankingData.build(n_agents, games)
    elo = anchored(data.fit(), anchor)
    if bootstrap == 0:
        return Ratings(list(map(float, elo)), None, None, None, 0)
    blocks = np.asarray(game_block)
    n_blocks = 1 + max(max(ids) for ids in strata)
    rng = np.random.default_rng(derive_seed(seed, _BOOTSTRAP_STREAM))
    samples = np.empty((bootstrap, n_agents))
    for k in range(bootstrap):
        counts = np.zeros(n_blocks)
        for ids in strata:
            picks = rng.integers(0, len(ids), size=len(ids))
            np.add.at(counts, np.asarray(ids)[picks], 1.0)
        samples[k] = data.fit(counts[blocks], start=elo)
    low, high = np.percentile(anchored(samples, anchor), [2.5, 97.5], axis=0)
    greater = (samples[:, :, None] > samples[:, None, :]).mean(axis=0)
    equal = (samples[:, :, None] == samples[:, None, :]).mean(axis=0)
    los = greater + 0.5 * equal
    np.fill_diagonal(los, 0.5)
    return Ratings(list(map(float, elo)), list(map(float, low)), list(map(float, high)),
                   [list(map(float, r)) for r in los], bootstrap)


# -- live standings: a fit cheap enough to run every few seconds during a run ----------------

def bradley_terry(wins: list[list[float]], met: list[list[int]], iterations: int = 500
                  ) -> list[float | None]:
    """Elo ratings (mean 0) of a matrix of pairwise wins (``wins[i][j]``, draws as halves)
    out of ``met[i][j]`` games, by Hunter's MM iteration with one virtual draw per pair that
    met; None for an agent that met nobody."""
    n = len(wins)
    played = [i for i in range(n) if any(met[i])]
    w = [[wins[i][j] + 0.5 if met[i][j] else 0.0 for j in range(n)] for i in range(n)]
    m = [[met[i][j] + 1 if met[i][j] else 0 for j in range(n)] for i in range(n)]
    gamma = [1.0] * n
    for _ in range(iterations):
        new = list(gamma)
        for i in played:
            denominator = sum(m[i][j] / (gamma[i] + gamma[j]) for j in played if m[i][j])
            new[i] = sum(w[i]) / denominator
        mean_log = sum(math.log(new[i]) for i in played) / len(played)
        new = [g / math.exp(mean_log) for g in new]
        done = max(abs(new[i] - gamma[i]) / gamma[i] for i in played) < 1e-9
        gamma = new
        if done:
            break
    return [400.0 * math.log10(gamma[i]) if i in played else None for i in range(n)]
