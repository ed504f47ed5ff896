"""The tactical order search of ``mc_search`` (and of ``best_response``): starts, steepest
ascent over swaps and moves, restarts, or every order of a small hand, scored exactly on sampled
worlds by the compiled kernels (:mod:`pyanitsa.agents.kernels`). :mod:`pyanitsa.agents.search`
documents the method and re-exports :class:`OrderSearch`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules

kernels = lazy_module("pyanitsa.agents.kernels")
batch = lazy_module("pyanitsa.batch")

OBJECTIVES = {"blend": (1.0, 0.02, 0.0), "win": (1.0, 1e-4, 0.0), "margin": (0.0, 1.0, 0.0),
              "score": (0.0, 0.0, 1.0)}
"""Objective name -> weights ``(win, margin, score)`` of :mod:`pyanitsa.agents.kernels`."""

_IMPROVE = 1e-12
COARSE_SHARE = 4
COARSE_MIN = 16
"""The local search first climbs on ``1 / COARSE_SHARE`` of the distinct samples (at least
``COARSE_MIN``), then on all of them."""


# -- tactical order search -------------------------------------------------------------------------


class OrderSearch:
    """Optimise one rank order against fixed sampled opponent orders (exact simulation)."""

    def __init__(self, rules: Rules, ranks: np.ndarray, opp: np.ndarray, lens: np.ndarray,
                 weights: np.ndarray, objective: str, deadline: float | None) -> None:
        table = rank_table(rules)
        self.ranks = np.sort(ranks).astype(np.int8)
        self.n = len(ranks)
        self.all = (np.ascontiguousarray(opp, np.int8), lens,
                    np.ascontiguousarray(weights, np.float64))
        self.opp, self.lens, self.weights = self.all
        self.cw, self.cm, self.cs = OBJECTIVES[objective]
        self.two = opp.shape[1] == 1
        self.cmp = kernels.cmp_table(table)
        self.misere = rules.misere
        self.prm = kernels.params(rules)
        self.deadline = deadline
        self.evaluations = 0
        self.passes = 0
        self.restarts_done = 0
        self.stopped = "local_optimum"

    def focus(self, rows: int | None) -> None:
        """Score against the first ``rows`` distinct samples only (reweighted), or all."""
        opp, lens, weights = self.all
        if rows is None or rows >= len(weights):
            self.opp, self.lens, self.weights = opp, lens, weights
        else:
            w = weights[:rows]
            self.opp, self.lens, self.weights = opp[:rows], lens[:rows], w / w.sum()

    def evaluate(self, cands: np.ndarray) -> np.ndarray:
        cands = np.ascontiguousarray(cands, np.int8)
        self.evaluations += len(cands) * len(self.weights)
        if self.two:
            return kernels.evaluate2(cands, self.n, self.opp[:, 0], int(self.lens[0, 0]),
                                     self.weights, self.prm, self.cw, self.cm, self.cs)
        return kernels.evaluate_many(cands, self.n, self.opp, self.lens, self.weights,
                                     self.prm, self.cw, self.cm, self.cs)

    def out_of_time(self) -> bool:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.stopped = "budget"
            return True
        return False

    def assignment_start(self) -> np.ndarray:
        """Each card to a position, maximising the summed one-showdown results (+1 / -1)."""
        from scipy.optimize import linear_sum_assignment

        n = self.n
        width = min(n, self.opp.shape[2])
        gain = np.zeros((n, n))
        cmp = self.cmp.astype(np.float64)
        for j in range(self.opp.shape[1]):
            pos = self.opp[:, j, :width].astype(np.int64)  # [samples, width]
            # gain[i, t] += sum_s w_s * cmp[my rank i, opp_s[t]]
            per_rank = cmp[:, pos]  # [R, samples, width]
            gain[:, :width] += np.einsum("s,rst->rt", self.weights, per_rank)[self.ranks]
        rows, cols = linear_sum_assignment(-gain)
        order = np.empty(n, np.int8)
        order[cols] = self.ranks[rows]
        return order

    def neighbours(self, cur: np.ndarray) -> np.ndarray:
        """Every distinct order one swap or one move away (no-ops left out)."""
        n = self.n
        out = []
        i_idx, j_idx = np.triu_indices(n, 1)
        keep = cur[i_idx] != cur[j_idx]
        if keep.any():
            sw = np.repeat(cur[None], int(keep.sum()), axis=0)
            ii, jj = i_idx[keep], j_idx[keep]
            r = np.arange(len(ii))
            sw[r, ii] = cur[jj]
            sw[r, jj] = cur[ii]
            out.append(sw)
        for i in range(n):
            rest = np.delete(cur, i)
            for j in range(n):
                if abs(i - j) <= 1:
                    continue  # j == i is a no-op, |i - j| == 1 is a swap
                moved = np.insert(rest, j, cur[i])
                out.append(moved[None])
        if not out:
            return np.empty((0, n), np.int8)
        allc = np.unique(np.concatenate(out), axis=0)
        return allc[(allc != cur).any(axis=1)]

    def best_neighbour(self, cur: np.ndarray) -> tuple[np.ndarray | None, float]:
        """The best order one swap or one move away (None if there is none)."""
        if self.two:
            nb, value, count = kernels.best_neighbour2(
                cur, self.n, self.opp[:, 0], int(self.lens[0, 0]), self.weights, self.cmp,
                self.misere, self.cw, self.cm, self.cs)
            self.evaluations += count * len(self.weights)
            return (nb, float(value)) if count else (None, 0.0)
        nbs = self.neighbours(cur)
        if len(nbs) == 0:
            return None, 0.0
        vals = self.evaluate(nbs)
        k = int(np.argmax(vals))
        return nbs[k].copy(), float(vals[k])

    def climb(self, cur: np.ndarray, value: float) -> tuple[np.ndarray, float]:
        while True:
            if self.out_of_time():
                return cur, value
            nb, nb_value = self.best_neighbour(cur)
            self.passes += 1
            if nb is None or nb_value <= value + _IMPROVE:
                return cur, value
            cur, value = nb, nb_value

    def run(self, rng: np.random.Generator, restarts: int, *, exhaustive: int = 0,
            starts: Sequence[np.ndarray] = ()) -> tuple[np.ndarray, float]:
        """Climb from the best of ``starts`` (more start orders of the caller's) and the
        assignment, ascending and descending orders."""
        if kernels.count_orders(self.ranks) <= exhaustive:
            return self.run_exhaustive()
        starts = np.stack([self.assignment_start(), self.ranks, self.ranks[::-1],
                           *(np.asarray(s, np.int8) for s in starts)])
        total = len(self.all[2])
        coarse = max(COARSE_MIN, total // COARSE_SHARE)
        if coarse < total:
            # Most passes happen far from the optimum, where a quarter of the samples tells
            # good moves from bad ones as well as all of them: climb there first.
            self.focus(coarse)
            vals = self.evaluate(starts)
            k = int(np.argmax(vals))
            cur, _ = self.climb(starts[k].copy(), float(vals[k]))
            self.focus(None)
            starts = np.concatenate([cur[None], starts])
        vals = self.evaluate(starts)
        k = int(np.argmax(vals))
        best, best_value = self.climb(starts[k].copy(), float(vals[k]))
        n = self.n
        for _ in range(restarts):
            if self.out_of_time():
                break
            cur = best.copy()
            for _ in range(max(2, n // 6)):
                i, j = rng.choice(n, 2, replace=False)
                cur[i], cur[j] = cur[j], cur[i]
            value = float(self.evaluate(cur[None])[0])
            cur, value = self.climb(cur, value)
            self.restarts_done += 1
            if value > best_value + _IMPROVE:
                best, best_value = cur, value
        return best, best_value


    def run_exhaustive(self, chunk: int = 2048) -> tuple[np.ndarray, float]:
        """Score every distinct order (the exact best response on the samples)."""
        orders = kernels.distinct_orders(self.ranks)
        best, best_value = orders[0], -np.inf
        for lo in range(0, len(orders), chunk):
            vals = self.evaluate(orders[lo:lo + chunk])
            k = int(np.argmax(vals))
            if vals[k] > best_value + _IMPROVE:
                best, best_value = orders[lo + k], float(vals[k])
            if self.out_of_time():
                break
        else:
            self.stopped = "exhaustive"
        return best.copy(), best_value
