"""``equilibrium``: the exact zero-sum game of a two-player tactical deal, solved by LP.

A two-player tactical deal is a one-shot simultaneous game: each seat picks an order of its hand.
Suits never matter, so a strategy is a *distinct rank order* of the hand; a hand with ``c_r``
cards of rank ``r`` has ``n! / prod(c_r!)`` of them (:func:`count_orders`), enumerated by
:func:`distinct_orders`.

The game we solve is zero-sum in the **score difference**: the payoff to seat 0 is seat 0's score
minus seat 1's (``objective="margin"``, the default), or its sign (``objective="win"``: +1 a
win, 0 a shared win, -1 a loss); under misère the lowest score wins, so the payoff flips sign.
With two players no card ever leaves the game (a split pot is even and a void cycle needs three
contenders), so the scores always sum to the cards dealt ``T`` and under the margin objective
each seat's expected score at equilibrium is unique: ``(T + v) / 2`` and ``(T - v) / 2`` for the
game value ``v``. :class:`Solution` reports them computed from the mixes.

Solving: a small game (at most :data:`LP_MAX_CELLS` cells) gets its payoff matrix from the
compiled kernel (:func:`payoff_matrix`) and one linear program (scipy's HiGHS; the column player's
mix is the LP's dual). A larger one is never built as a matrix (it is 13 bytes a cell: 8 distinct
cards a player would take 21 GB): the *double oracle* (:func:`solve_streaming`) solves the game
restricted to a few orders of each seat, then scores *every* distinct order of each seat against
the other's restricted mix, streaming the orders through a compiled kernel
(:func:`pyanitsa.agents.kernels.order_values2`), adds the best ones, drops orders long out of the
support, and repeats until neither seat's best response over all its orders gains more than
:data:`ORACLE_TOLERANCE`. The restricted equilibrium is then an equilibrium of the whole game, and
:attr:`Solution.gap` says by how little a best response beats it.

The agent plays the equilibrium mix of its seat. It needs the opponent's hand: in a two-player
deal with nothing set aside the unseen cards *are* the opponent's hand. Otherwise (cards set
aside, more than two players, or more distinct orders than ``max_orders``) it falls back to
``mc_search`` and says why in :attr:`EquilibriumAgent.last_info`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.agents.protocol import BaseAgent, HandView
from pyanitsa.agents.search import cards_for_ranks
from pyanitsa.agents.specs import make_agent, register
from pyanitsa.cards import Card
from pyanitsa.errors import PyanitsaError
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules

DEFAULT_MAX_ORDERS = 5040
"""Distinct rank orders per player above which the agent does not solve the game (7! = 5,040):
it has to decide fast."""

SOLVE_MAX_ORDERS = 3_628_800
"""The ``solve`` command's bound: 10! = 3,628,800 distinct rank orders a player, so every hand
of up to ten cards is allowed (nine distinct cards have 362,880 orders, nine with two pairs
90,720); more is refused in one line."""

MEMORY_BUDGET = 2 * 1024**3
"""Bytes the streaming double oracle may hold for both seats' orders, values and mixes; a game
that needs more is refused (GameTooLargeError), whatever the order bound."""

LP_MAX_CELLS = 600_000
"""Matrices up to this many cells go to one LP; larger ones to the double oracle."""

TOLERANCE = 1e-9
"""How much a best response may gain over the value before the double oracle goes on."""

ORACLE_TOLERANCE = 1e-9
"""The streaming double oracle stops when neither seat's best response over all its orders gains
more than this against the other's mix."""

OBJECTIVES = ("margin", "win")

kernels = lazy_module("pyanitsa.agents.kernels")


class GameTooLargeError(PyanitsaError):
    """A hand with more distinct rank orders than the bound allows."""


def payoff_matrix(rules: Rules, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``out[i, j]`` = seat 0's score minus seat 1's when seat 0 plays ``rows[i]`` and seat 1
    ``cols[j]`` (rank orders; ``int16``)."""
    pair = kernels.pair_judge(rank_table(rules))
    rows = np.ascontiguousarray(rows, np.int8)
    cols = np.ascontiguousarray(cols, np.int8)
    return kernels.margin_matrix2(rows, rows.shape[1], cols, cols.shape[1], *pair)


def zero_sum_payoff(margin: np.ndarray, objective: str, misere: bool) -> np.ndarray:
    """Seat 0's payoff from the margin matrix: the margin or its sign, negated under misère."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}: one of {', '.join(OBJECTIVES)}")
    pay = margin.astype(np.float64) if objective == "margin" else np.sign(margin).astype(
        np.float64)
    return -pay if misere else pay


# -- matrix games --------------------------------------------------------------------------------


def solve_lp(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal mixes ``(v, x, y)`` of the zero-sum game ``payoff`` (row maximises).

    One LP: maximise ``v`` subject to ``x @ payoff[:, j] >= v`` for every column, ``sum x = 1``,
    ``x >= 0``. The column player's optimal mix is the dual of the column constraints.
    """
    from scipy.optimize import linprog

    k, m = payoff.shape
    c = np.zeros(k + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-payoff.T, np.ones((m, 1))])
    a_eq = np.zeros((1, k + 1))
    a_eq[0, :k] = 1.0
    bounds = [(0, None)] * k + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(m), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                  method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                           "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise RuntimeError(f"LP failed: {res.message}")
    x = np.clip(res.x[:k], 0.0, None)
    x /= x.sum()
    y = np.clip(-res.ineqlin.marginals, 0.0, None)
    y /= y.sum()
    return float(res.x[-1]), x, y


def solve_double_oracle(payoff: np.ndarray, tol: float = TOLERANCE
                        ) -> tuple[float, np.ndarray, np.ndarray, int]:
    """Like :func:`solve_lp` on a large matrix, growing restricted games by best responses.

    Returns ``(v, x, y, iterations)``; stops when neither side's best response to the other's
    restricted mix beats ``v`` by more than ``tol``.
    """
    k, m = payoff.shape
    rows = [int(np.argmax(payoff.mean(axis=1)))]
    cols = [int(np.argmin(payoff[rows[0]]))]
    it = 0
    while True:
        it += 1
        v, xs, ys = solve_lp(payoff[np.ix_(rows, cols)])
        row_gain = payoff[:, cols] @ ys
        col_gain = xs @ payoff[rows, :]
        # Add the best responses, and with them up to half as many more improving orders
        # again as each side has (large supports then take a few rounds, not hundreds).
        grow = False
        for gain, chosen, sign in ((row_gain, rows, 1.0), (col_gain, cols, -1.0)):
            better = np.flatnonzero(sign * (gain - v) > tol)
            if len(better):
                take = better[np.argsort(-sign * gain[better], kind="stable")]
                have = set(chosen)
                fresh = [int(i) for i in take if int(i) not in have][:max(1, len(chosen) // 2)]
                if fresh:
                    chosen.extend(fresh)
                    grow = True
        if not grow:
            x = np.zeros(k)
            y = np.zeros(m)
            x[rows] = xs
            y[cols] = ys
            return v, x, y, it


def solve_matrix_game(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, str]:
    """``(v, x, y, method)``: one LP for small matrices, the double oracle for large ones."""
    if payoff.size <= LP_MAX_CELLS:
        v, x, y = solve_lp(payoff)
        return v, x, y, "lp"
    v, x, y, it = solve_double_oracle(payoff)
    return v, x, y, f"double_oracle({it} rounds)"


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


def solve_streaming(game: StreamedGame, tol: float = ORACLE_TOLERANCE
                    ) -> tuple[float, np.ndarray, np.ndarray, int, float]:
    """The double oracle with best responses streamed over every order of each seat.

    Returns ``(v, x, y, rounds, gap)``: ``x`` and ``y`` over all of each seat's orders (zero off
    the support), ``gap`` the most either seat's best response over *all* its orders gains
    against the other's mix (at most ``tol``, or the LP's accuracy if that is coarser).
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
        count = min(ORACLE_GROWTH[1], max(ORACLE_GROWTH[0], int(max(sx.sum(), sy.sum())) // ORACLE_GROWTH[2]))
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


# -- deals ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """The solved game of one two-player deal (seat 0 = the row player)."""

    value: float
    """Seat 0's equilibrium payoff in the zero-sum game (``objective``; misère flipped)."""
    objective: str
    orders: tuple[np.ndarray, np.ndarray]
    """Each seat's distinct rank orders (rows of ``int8`` rank indices)."""
    mixes: tuple[np.ndarray, np.ndarray]
    """Each seat's equilibrium probabilities over its orders."""
    expected_scores: tuple[float, float]
    """Each seat's expected score when both play their equilibrium mixes."""
    seconds: float
    """Time to build the payoff matrix and solve it."""
    method: str
    """``lp`` or ``double_oracle(N rounds, streamed)``."""
    gap: float = 0.0
    """The most either seat's best response over all its orders gains against the other's mix
    (0 for an exact equilibrium; the double oracle stops at :data:`ORACLE_TOLERANCE`)."""

    def support(self, seat: int, eps: float = 1e-12) -> list[tuple[np.ndarray, float]]:
        """``(order, probability)`` of a seat's orders played with positive probability,
        most likely first."""
        mix = self.mixes[seat]
        idx = [int(i) for i in np.argsort(-mix, kind="stable") if mix[i] > eps]
        return [(self.orders[seat][i], float(mix[i])) for i in idx]


def warm_up() -> float:
    """Load the compiled kernels and scipy's LP once (seconds taken): a process's first solve
    otherwise pays for it."""
    start = time.perf_counter()
    import scipy.optimize  # noqa: F401

    one = np.zeros((1, 1), np.int8)
    kernels.margin_matrix2(one, 1, one, 1, 0, 0, 0)
    kernels.scores2(one, 1, one, 1, 0, 0, 0)
    kernels.distinct_orders([0])
    kernels.order_values2(one, np.zeros((1, 1, 1), np.int8), np.ones(1), 0, False, 1.0,
                          STREAM_CHUNK)
    solve_lp(np.zeros((1, 1)))
    return time.perf_counter() - start


def check_size(ranks: Sequence[int], max_orders: int, what: str) -> int:
    """A hand's distinct rank orders; GameTooLargeError naming them if over ``max_orders``."""
    count = kernels.count_orders(ranks)
    if count > max_orders:
        raise GameTooLargeError(f"{what} has {count:,} distinct rank orders, over the bound "
                                f"of {max_orders:,}")
    return count


def check_memory(counts: tuple[int, int], lengths: tuple[int, int]) -> None:
    """Refuse a game whose order lists, values and mixes would not fit :data:`MEMORY_BUDGET`
    (the order bound can be raised past what memory holds)."""
    need = sum(c * (n + 24) for c, n in zip(counts, lengths, strict=True))
    if need > MEMORY_BUDGET:
        raise GameTooLargeError(f"{counts[0]:,} x {counts[1]:,} distinct rank orders: solving "
                                f"needs about {need / 2**30:.1f} GB, over the budget of "
                                f"{MEMORY_BUDGET / 2**30:.0f} GB")


def solve_deal(rules: Rules, ranks0: Sequence[int], ranks1: Sequence[int], *,
               max_orders: int = DEFAULT_MAX_ORDERS, objective: str = "margin") -> Solution:
    """Solve the deal where seat 0 holds ranks ``ranks0`` and seat 1 ``ranks1``: one LP when
    the payoff matrix has at most :data:`LP_MAX_CELLS` cells, else the streaming double oracle.

    Raises :class:`GameTooLargeError` (naming the size) when a hand has more than
    ``max_orders`` distinct rank orders or the game would not fit :data:`MEMORY_BUDGET`.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}: one of {', '.join(OBJECTIVES)}")
    key0 = tuple(sorted(int(r) for r in ranks0))
    key1 = tuple(sorted(int(r) for r in ranks1))
    counts = (check_size(key0, max_orders, "seat 0's hand"),
              check_size(key1, max_orders, "seat 1's hand"))
    if counts[0] * counts[1] <= LP_MAX_CELLS:
        return _solve_cached(rules, key0, key1, objective)
    check_memory(counts, (len(key0), len(key1)))
    return _solve_streamed(rules, key0, key1, objective)


@lru_cache(maxsize=256)
def _solve_cached(rules: Rules, ranks0: tuple[int, ...], ranks1: tuple[int, ...],
                  objective: str) -> Solution:
    start = time.perf_counter()
    a = kernels.distinct_orders(ranks0)
    b = kernels.distinct_orders(ranks1)
    pay = zero_sum_payoff(payoff_matrix(rules, a, b), objective, rules.misere)
    v, x, y = solve_lp(pay)
    gap = max(float((pay @ y).max()) - v, v - float((x @ pay).min()), 0.0)
    del pay
    exp = expected_scores(rules, a, x, b, y)
    return Solution(v, objective, (a, b), (x, y), exp, time.perf_counter() - start, "lp", gap)


@lru_cache(maxsize=2)
def _solve_streamed(rules: Rules, ranks0: tuple[int, ...], ranks1: tuple[int, ...],
                    objective: str) -> Solution:
    """The big path; a small cache, since a solution holds every order of both seats."""
    start = time.perf_counter()
    game = StreamedGame.of(rules, kernels.distinct_orders(ranks0),
                           kernels.distinct_orders(ranks1), objective)
    v, x, y, rounds, gap = solve_streaming(game)
    exp = streamed_expected_scores(game, x, y)
    return Solution(v, objective, game.orders, (x, y), exp, time.perf_counter() - start,
                    f"double_oracle({rounds} rounds, streamed)", gap)


def streamed_expected_scores(game: StreamedGame, x: np.ndarray, y: np.ndarray
                             ) -> tuple[float, float]:
    """Like :func:`expected_scores` from the streaming kernel: seat 0's expected margin over
    its support; with two players the scores sum to the cards dealt, which fixes both."""
    a, b = game.orders
    ia = np.flatnonzero(x > 0)
    ib = np.flatnonzero(y > 0)
    n, m = a.shape[1], b.shape[1]
    tab = kernels.support_table(game.cmp, b[ib], min(n, m))
    margins = kernels.order_values2(np.ascontiguousarray(a[ia]), tab, y[ib], n - m, False, 1.0,
                                    STREAM_CHUNK)
    margin = float(x[ia] @ margins)
    return (n + m + margin) / 2, (n + m - margin) / 2


def expected_scores(rules: Rules, a: np.ndarray, x: np.ndarray, b: np.ndarray,
                    y: np.ndarray) -> tuple[float, float]:
    """Each seat's expected score when seat 0 mixes ``x`` over ``a`` and seat 1 ``y`` over
    ``b``."""
    ia = np.flatnonzero(x > 0)
    ib = np.flatnonzero(y > 0)
    rows = np.repeat(a[ia], len(ib), axis=0)
    cols = np.tile(b[ib], (len(ia), 1))
    pair = kernels.pair_judge(rank_table(rules))
    s0, s1 = kernels.scores2(np.ascontiguousarray(rows), a.shape[1],
                             np.ascontiguousarray(cols), b.shape[1], *pair)
    w = np.outer(x[ia], y[ib]).ravel()
    return float(w @ s0), float(w @ s1)


# -- the agent -------------------------------------------------------------------------------------


@register("equilibrium")
class EquilibriumAgent(BaseAgent):
    """Plays the exact equilibrium mix over rank orders of a two-player deal (LP, HiGHS);
    falls back to mc_search when the opponent's hand is unknown or the game is too large.

    Parameters: ``max_orders`` distinct rank orders per player it solves up to; ``objective``
    ``margin`` (score difference) or ``win`` (its sign); ``fallback`` the agent spec it uses
    otherwise.
    """

    def __init__(self, *, max_orders: int = DEFAULT_MAX_ORDERS, objective: str = "margin",
                 fallback: str = "mc_search") -> None:
        if max_orders < 1:
            raise ValueError(f"max_orders={max_orders}: must be at least 1")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective={objective!r}: one of {', '.join(OBJECTIVES)}")
        self.max_orders = max_orders
        self.objective = objective
        self.fallback_spec = fallback
        self._fallback: Any = None
        self.last_info: dict[str, Any] = {}
        """What the last decision did: the solved value and support, or why it fell back."""

    def why_not(self, view: HandView) -> str | None:
        """Why this view cannot be solved exactly (None if it can)."""
        if view.players != 2:
            return f"{view.players} players: the exact game is two-player only"
        if view.set_aside:
            return (f"{view.set_aside} cards set aside: the opponent's hand is not determined "
                    "by the view")
        opp = [r for r, c in enumerate(view.unseen) for _ in range(c)]
        for what, ranks in (("my hand", view.hand_ranks()), ("the opponent's hand", opp)):
            count = kernels.count_orders(ranks)
            if count > self.max_orders:
                return (f"{what} has {count:,} distinct rank orders, over max_orders="
                        f"{self.max_orders:,}")
        return None

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        start = time.perf_counter()
        reason = self.why_not(view)
        if reason is not None:
            if self._fallback is None:
                self._fallback = make_agent(self.fallback_spec)
            order = list(self._fallback.order_hand(view, rng))
            self.last_info = {"agent": "equilibrium", "solved": False,
                              "fallback": self.fallback_spec, "reason": reason,
                              "fallback_info": dict(getattr(self._fallback, "last_info", {})),
                              "ms": (time.perf_counter() - start) * 1000.0}
            return order
        mine = view.hand_ranks()
        opp = [r for r, c in enumerate(view.unseen) for _ in range(c)]
        sol = solve_deal(view.rules, mine, opp, max_orders=self.max_orders,
                         objective=self.objective)
        x = sol.mixes[0]
        k = int(rng.choice(len(x), p=x))
        order = sol.orders[0][k]
        self.last_info = {"agent": "equilibrium", "solved": True, "value": sol.value,
                          "objective": self.objective,
                          "expected_scores": list(sol.expected_scores),
                          "orders": [len(sol.orders[0]), len(sol.orders[1])],
                          "support": int((x > 1e-12).sum()), "method": sol.method,
                          "solve_seconds": sol.seconds,
                          "ms": (time.perf_counter() - start) * 1000.0}
        return cards_for_ranks(view.hand, order, view.ranks)

    def mix(self, view: HandView) -> list[tuple[tuple[Card, ...], float]] | None:
        """The equilibrium mix of my seat (None where it falls back and cannot list it)."""
        if self.why_not(view) is not None:
            return None
        opp = [r for r, c in enumerate(view.unseen) for _ in range(c)]
        sol = solve_deal(view.rules, view.hand_ranks(), opp, max_orders=self.max_orders,
                         objective=self.objective)
        return [(tuple(cards_for_ranks(view.hand, o, view.ranks)), p)
                for o, p in sol.support(0)]
