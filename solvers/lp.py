"""Two-player zero-sum deal games: payoff matrices, the LP, and the streaming double oracle.

:func:`solve_lp` solves a game given as a matrix; :func:`optimal_support` finds every row an
optimal mix plays (a tournament's meta-game is its Nash mixture). :func:`solve_streaming` solves
one too large to build: it keeps a restricted game (:class:`Restricted`, its LP grown and shrunk
in place by :class:`RestrictedLP`), scores *every* order of each seat against the other's
restricted mix through a compiled kernel (:class:`StreamedGame`), adds the orders that gain,
drops those long out of the support, and stops when no order of either seat gains more than the
tolerance. :mod:`pyanitsa.solvers.exact` chooses between the two and wraps the answer per deal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules

OBJECTIVES = ("margin", "win")

ORACLE_TOLERANCE = 1e-9
"""The streaming double oracle stops when neither seat's best response over all its orders gains
more than this against the other's mix."""

kernels = lazy_module("pyanitsa.agents.kernels")

Progress = Callable[[int, float, int, int], None]
"""Called after each round of the double oracle: ``(round, gap, support 0, support 1)``."""


def payoff_matrix(rules: Rules, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``out[i, j]`` = seat 0's score minus seat 1's when seat 0 plays ``rows[i]`` and seat 1
    ``cols[j]`` (rank orders; ``int16``)."""
    rows = np.ascontiguousarray(rows, np.int8)
    cols = np.ascontiguousarray(cols, np.int8)
    prm = kernels.params(rules)
    return kernels.margin_matrix2(rows, rows.shape[1], cols, cols.shape[1], prm)


def zero_sum_payoff(margin: np.ndarray, objective: str, misere: bool) -> np.ndarray:
    """Seat 0's payoff from the margin matrix: the margin or its sign, negated under misère."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}: one of {', '.join(OBJECTIVES)}")
    pay = margin.astype(np.float64) if objective == "margin" else np.sign(margin).astype(
        np.float64)
    return -pay if misere else pay


# -- matrix games --------------------------------------------------------------------------------


def _row_lp(payoff: np.ndarray, value: float | None, favour: int | None = None) -> Any:
    """The row player's LP over mixes ``x`` (``sum x = 1``, ``x >= 0``) that hold every column
    to at least ``v`` (``x @ payoff[:, j] >= v``): with ``value`` None it maximises ``v``;
    otherwise ``v`` is fixed at ``value`` and it maximises ``x[favour]``. scipy's result."""
    from scipy.optimize import linprog

    k, m = payoff.shape
    c = np.zeros(k + 1)
    if value is None:
        c[-1] = -1.0
    if favour is not None:
        c[favour] = -1.0
    a_ub = np.hstack([-payoff.T, np.ones((m, 1))])
    a_eq = np.zeros((1, k + 1))
    a_eq[0, :k] = 1.0
    bounds = [(0, None)] * k + [(None, None) if value is None else (value, value)]
    return linprog(c, A_ub=a_ub, b_ub=np.zeros(m), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                   method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                            "dual_feasibility_tolerance": 1e-10})


def solve_lp(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal mixes ``(v, x, y)`` of the zero-sum game ``payoff`` (row maximises).

    One LP: maximise ``v`` subject to ``x @ payoff[:, j] >= v`` for every column, ``sum x = 1``,
    ``x >= 0``. The column player's optimal mix is the dual of the column constraints.
    """
    k = payoff.shape[0]
    res = _row_lp(payoff, None)
    if res.status != 0:
        raise RuntimeError(f"LP failed: {res.message}")
    x = np.clip(res.x[:k], 0.0, None)
    x /= x.sum()
    y = np.clip(-res.ineqlin.marginals, 0.0, None)
    y /= y.sum()
    return float(res.x[-1]), x, y


def optimal_support(payoff: np.ndarray, value: float, tol: float = 1e-9
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows that some optimal mix of the row player plays, and an optimal mix that plays
    every one of them: ``(on, x)``, or None if no mix holds every column to ``value``.

    ``value`` is the game's value (0 for a symmetric game, ``solve_lp``'s otherwise). One LP
    per row maximises its probability over the mixes that guarantee ``value``; the mean of
    their answers guarantees it too (the set is convex) and is positive exactly on the union
    of the optimal supports (a probability above ``tol`` counts as positive).
    """
    k = payoff.shape[0]
    solutions = []
    for i in range(k):
        res = _row_lp(payoff, value, favour=i)
        if res.status == 0:
            solutions.append(np.clip(res.x[:k], 0.0, None))
    if not solutions:
        return None
    mean = np.mean(solutions, axis=0)
    on = np.max(solutions, axis=0) > tol
    mean[~on] = 0.0
    return on, mean / mean.sum()


# -- the streaming double oracle -----------------------------------------------------------------


def _highs_core() -> Any:
    """scipy's HiGHS bindings (``scipy.optimize._highspy._core``), or None where this scipy has
    none: they let the restricted LP grow and re-solve from the last basis."""
    try:
        from scipy.optimize._highspy import _core
    except ImportError:
        return None
    return _core if hasattr(_core, "_Highs") else None


class RestrictedLP:
    """The restricted game's LP, grown and shrunk in place: ``max 1'w s.t. Q w <= 1, w >= 0``
    with ``Q = payoff + shift > 0`` (one row per row order, one column per column order).

    Then ``y = w / sum w`` and ``x`` is the normalised dual. Each solve starts from the last
    basis: a round adds a few dozen orders to a game of hundreds, and a warm simplex takes a
    fraction of a cold one's pivots. Without scipy's HiGHS bindings (or if they do not take
    these calls) it solves the dense block, which it always keeps, with :func:`solve_lp`.
    """

    def __init__(self, shift: float) -> None:
        self.shift = shift
        self.pay = np.zeros((0, 0))
        self.core = _highs_core()
        self.highs: Any = None
        if self.core is not None:
            self.highs = self.core._Highs()
            for name, value in (("output_flag", False), ("primal_feasibility_tolerance", 1e-10),
                                ("dual_feasibility_tolerance", 1e-10)):
                self._call("setOptionValue", name, value)

    def _call(self, name: str, *args: Any) -> Any:
        """One HiGHS call; a binding that does not take it (another scipy) turns HiGHS off."""
        if self.highs is None:
            return None
        try:
            return getattr(self.highs, name)(*args)
        except (AttributeError, TypeError):
            self.highs = None
            return None

    def add_rows(self, block: np.ndarray) -> None:
        """New row orders: ``block`` is their payoff against every current column."""
        self.pay = np.vstack([self.pay, block])
        k, m = block.shape
        if k:
            q = np.ascontiguousarray(block + self.shift).ravel()
            self._call("addRows", k, np.full(k, -np.inf), np.ones(k), q.size,
                       np.arange(k, dtype=np.int32) * m, np.tile(np.arange(m, dtype=np.int32), k),
                       q)

    def add_cols(self, block: np.ndarray) -> None:
        """New column orders: ``block`` is every current row's payoff against them."""
        self.pay = np.hstack([self.pay, block])
        k, m = block.shape
        if m:
            q = np.ascontiguousarray((block + self.shift).T).ravel()
            self._call("addCols", m, np.full(m, -1.0), np.zeros(m), np.full(m, np.inf), q.size,
                       np.arange(m, dtype=np.int32) * k, np.tile(np.arange(k, dtype=np.int32), m),
                       q)

    def keep(self, rows: np.ndarray, cols: np.ndarray) -> None:
        """Keep only the rows and columns flagged True."""
        self.pay = self.pay[np.ix_(rows, cols)]
        for flags, name in ((rows, "deleteRows"), (cols, "deleteCols")):
            gone = np.flatnonzero(~flags).astype(np.int32)
            if len(gone):
                self._call(name, len(gone), gone)

    def _warm(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(x, y)`` unnormalised from the warm HiGHS model, or None if it has none."""
        self._call("run")
        status = self._call("getModelStatus")
        if status is None or status != self.core.HighsModelStatus.kOptimal:
            return None
        sol = self.highs.getSolution()
        x = np.clip(-np.asarray(sol.row_dual), 0.0, None)
        y = np.clip(np.asarray(sol.col_value), 0.0, None)
        return (x, y) if x.sum() > 0 and y.sum() > 0 else None

    def solve(self) -> tuple[float, np.ndarray, np.ndarray]:
        """``(v, x, y)`` of the restricted game; ``v`` is the mixes' payoff ``x' P y``."""
        warm = self._warm()
        x, y = warm if warm is not None else solve_lp(self.pay)[1:]
        x = x / x.sum()
        y = y / y.sum()
        return float(x @ self.pay @ y), x, y


@dataclass(frozen=True)
class StreamedGame:
    """The whole game of a deal without its matrix: every distinct order of each seat and how
    to score any of them against a mix of the other seat's."""

    rules: Rules
    orders: tuple[np.ndarray, np.ndarray]
    objective: str
    cmp: np.ndarray

    @classmethod
    def of(cls, rules: Rules, a: np.ndarray, b: np.ndarray, objective: str) -> StreamedGame:
        return cls(rules, (a, b), objective, kernels.cmp_table(rank_table(rules)))

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Seat 0's payoff of row orders ``rows`` against column orders ``cols`` (indices)."""
        margin = payoff_matrix(self.rules, self.orders[0][rows], self.orders[1][cols])
        return zero_sum_payoff(margin, self.objective, self.rules.misere)

    def values(self, seat: int, opp: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Seat ``seat``'s own payoff (seat 1's is minus seat 0's) of each of its orders against
        the other seat playing its orders ``opp`` (indices) with probabilities ``weights``."""
        mine = self.orders[seat]
        theirs = self.orders[1 - seat][opp]
        n, m = mine.shape[1], theirs.shape[1]
        tab = kernels.support_table(self.cmp, theirs, min(n, m))
        sign = -1.0 if self.rules.misere else 1.0
        return kernels.order_values2(mine, tab, np.ascontiguousarray(weights, np.float64), n - m,
                                     self.objective == "win", sign, STREAM_CHUNK)

    def shift(self) -> float:
        """A constant that makes every payoff positive (for :class:`RestrictedLP`)."""
        if self.objective == "win":
            return 2.0
        return 1.0 + self.orders[0].shape[1] + self.orders[1].shape[1]


STREAM_CHUNK = 2048
"""Orders per parallel block of the streaming kernel (each block replays its first order)."""

ORACLE_GROWTH = (64, 256, 4)
"""Orders added per seat and round: the seat's support over the third, within the first two
(large supports then take tens of rounds, not hundreds; tuned on 9-card deals)."""

ORACLE_AGE = 3
"""Rounds an order may stay out of its seat's support before the restricted game drops it."""

ORACLE_PRUNE_ROUNDS = 400
"""Rounds after which nothing is dropped any more (plain double oracle: it cannot cycle)."""


@dataclass
class Restricted:
    """The double oracle's restricted game: each seat's orders (indices into its order list), the
    round each was last in its seat's support, and the LP over them."""

    game: StreamedGame
    rows: np.ndarray
    cols: np.ndarray
    lp: RestrictedLP
    seen: list[np.ndarray]

    @classmethod
    def start(cls, game: StreamedGame) -> Restricted:
        """Seat 0's strongest-first order against seat 1's best response to it."""
        rows = np.array([len(game.orders[0]) - 1])
        cols = np.array([int(np.argmax(game.values(1, rows, np.ones(1))))])
        lp = RestrictedLP(game.shift())
        lp.add_rows(np.zeros((1, 0)))
        lp.add_cols(game.block(rows, cols))
        return cls(game, rows, cols, lp, [np.zeros(1, np.int64), np.zeros(1, np.int64)])

    def mark(self, rnd: int, x: np.ndarray, y: np.ndarray) -> None:
        self.seen[0][x > 0] = rnd
        self.seen[1][y > 0] = rnd

    def prune(self, rnd: int) -> None:
        """Drop the orders out of the support for :data:`ORACLE_AGE` rounds."""
        keep = [rnd - s < ORACLE_AGE for s in self.seen]
        if keep[0].all() and keep[1].all():
            return
        self.lp.keep(*keep)
        self.rows = self.rows[keep[0]]
        self.cols = self.cols[keep[1]]
        self.seen = [s[k] for s, k in zip(self.seen, keep, strict=True)]

    def grow(self, rnd: int, fresh_rows: np.ndarray, fresh_cols: np.ndarray) -> None:
        if len(fresh_cols):
            self.lp.add_cols(self.game.block(self.rows, fresh_cols))
            self.cols = np.concatenate([self.cols, fresh_cols])
            self.seen[1] = np.concatenate([self.seen[1], np.full(len(fresh_cols), rnd)])
        if len(fresh_rows):
            self.lp.add_rows(self.game.block(fresh_rows, self.cols))
            self.rows = np.concatenate([self.rows, fresh_rows])
            self.seen[0] = np.concatenate([self.seen[0], np.full(len(fresh_rows), rnd)])


def improving(values: np.ndarray, target: float, have: np.ndarray, count: int,
              tol: float) -> np.ndarray:
    """Up to ``count`` orders (indices, best first) whose value beats ``target`` by more than
    ``tol`` and that are not in ``have``."""
    better = np.flatnonzero(values > target + tol)
    want = count + len(have)
    if len(better) > want:
        better = better[np.argpartition(-values[better], want - 1)[:want]]
    better = better[np.argsort(-values[better], kind="stable")]
    return better[~np.isin(better, have)][:count]


def solve_streaming(game: StreamedGame, tol: float = ORACLE_TOLERANCE,
                    progress: Progress | None = None
                    ) -> tuple[float, np.ndarray, np.ndarray, int, float]:
    """The double oracle with best responses streamed over every order of each seat.

    Returns ``(v, x, y, rounds, gap)``: ``x`` and ``y`` over all of each seat's orders (zero off
    the support), ``gap`` the most either seat's best response over *all* its orders gains
    against the other's mix (at most ``tol``, or the LP's accuracy if that is coarser).
    ``progress`` hears of every round.
    """
    res = Restricted.start(game)
    rnd = 0
    while True:
        rnd += 1
        v, xs, ys = res.lp.solve()
        res.mark(rnd, xs, ys)
        sx, sy = xs > 0, ys > 0
        gains = (game.values(0, res.cols[sy], ys[sy]), game.values(1, res.rows[sx], xs[sx]))
        gap = max(float(gains[0].max()) - v, float(gains[1].max()) + v)
        if progress is not None:
            progress(rnd, max(gap, 0.0), int(sx.sum()), int(sy.sum()))
        support = int(max(sx.sum(), sy.sum()))
        count = min(ORACLE_GROWTH[1], max(ORACLE_GROWTH[0], support // ORACLE_GROWTH[2]))
        fresh = (improving(gains[0], v, res.rows, count, tol),
                 improving(gains[1], -v, res.cols, count, tol))
        if gap <= tol or not (len(fresh[0]) or len(fresh[1])):
            break
        if rnd < ORACLE_PRUNE_ROUNDS:
            res.prune(rnd)
        res.grow(rnd, *fresh)
    x = np.zeros(len(game.orders[0]))
    y = np.zeros(len(game.orders[1]))
    x[res.rows] = xs
    y[res.cols] = ys
    return v, x, y, rnd, max(gap, 0.0)
