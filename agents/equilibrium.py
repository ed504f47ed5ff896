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

Solving: the payoff matrix comes from the compiled kernel (:func:`payoff_matrix`); a small
matrix goes to one linear program (scipy's HiGHS; the column player's mix is the LP's dual), a
larger one is solved by the *double oracle* method on the full matrix: solve the game restricted
to a few orders, add each side's best response to the other's mix, repeat until neither best
response gains (then the restricted equilibrium is an equilibrium of the whole game, exactly as
the full LP would find, to the LP's tolerance).

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
"""Distinct rank orders per player above which the game is not solved (7! = 5,040)."""

LP_MAX_CELLS = 600_000
"""Matrices up to this many cells go to one LP; larger ones to the double oracle."""

TOLERANCE = 1e-9
"""How much a best response may gain over the value before the double oracle goes on."""

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
    """``lp`` or ``double_oracle(N rounds)``."""

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
    solve_lp(np.zeros((1, 1)))
    return time.perf_counter() - start


def check_size(ranks: Sequence[int], max_orders: int, what: str) -> int:
    count = kernels.count_orders(ranks)
    if count > max_orders:
        raise GameTooLargeError(f"{what} has {count:,} distinct rank orders, over the bound "
                                f"of {max_orders:,}")
    return count


def solve_deal(rules: Rules, ranks0: Sequence[int], ranks1: Sequence[int], *,
               max_orders: int = DEFAULT_MAX_ORDERS, objective: str = "margin") -> Solution:
    """Solve the deal where seat 0 holds ranks ``ranks0`` and seat 1 ``ranks1``."""
    return _solve_cached(rules, tuple(sorted(int(r) for r in ranks0)),
                         tuple(sorted(int(r) for r in ranks1)), max_orders, objective)


@lru_cache(maxsize=256)
def _solve_cached(rules: Rules, ranks0: tuple[int, ...], ranks1: tuple[int, ...],
                  max_orders: int, objective: str) -> Solution:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}: one of {', '.join(OBJECTIVES)}")
    check_size(ranks0, max_orders, "seat 0's hand")
    check_size(ranks1, max_orders, "seat 1's hand")
    start = time.perf_counter()
    a = kernels.distinct_orders(ranks0)
    b = kernels.distinct_orders(ranks1)
    margin = payoff_matrix(rules, a, b)
    pay = zero_sum_payoff(margin, objective, rules.misere)
    del margin
    v, x, y, method = solve_matrix_game(pay)
    del pay
    exp = expected_scores(rules, a, x, b, y)
    return Solution(v, objective, (a, b), (x, y), exp, time.perf_counter() - start, method)


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
