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
:data:`~pyanitsa.solvers.lp.ORACLE_TOLERANCE` (:mod:`pyanitsa.solvers.lp` holds
the LP and the oracle). The restricted equilibrium is then an equilibrium of the whole game, and
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
from pyanitsa.agents.search import cards_for_ranks, deal_reason
from pyanitsa.agents.specs import register
from pyanitsa.agents.warm import FallingBack
from pyanitsa.cards import Card
from pyanitsa.errors import PyanitsaError
from pyanitsa.protocol import BaseAgent, HandView
from pyanitsa.rules import Rules
from pyanitsa.solvers.lp import (
    OBJECTIVES,
    STREAM_CHUNK,
    Progress,
    StreamedGame,
    payoff_matrix,
    solve_lp,
    solve_streaming,
    zero_sum_payoff,
)

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

kernels = lazy_module("pyanitsa.agents.kernels")


class GameTooLargeError(PyanitsaError):
    """A hand with more distinct rank orders than the bound allows."""


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
    (0 for an exact equilibrium; the double oracle stops at
    :data:`~pyanitsa.solvers.lp.ORACLE_TOLERANCE`)."""

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
    prm = kernels.params(Rules.default("tactical"))
    kernels.margin_matrix2(one, 1, one, 1, prm)
    kernels.scores2(one, 1, one, 1, prm)
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
               max_orders: int = DEFAULT_MAX_ORDERS, objective: str = "margin",
               progress: Progress | None = None) -> Solution:
    """Solve the deal where seat 0 holds ranks ``ranks0`` and seat 1 ``ranks1``: one LP when
    the payoff matrix has at most :data:`LP_MAX_CELLS` cells, else the streaming double oracle
    (``progress`` hears of each of its rounds).

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
    return _solve_streamed(rules, key0, key1, objective, progress)


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


_STREAMED: dict[tuple[Any, ...], Solution] = {}
"""The last solutions of the big path; only two, since one holds every order of both seats."""


def _solve_streamed(rules: Rules, ranks0: tuple[int, ...], ranks1: tuple[int, ...],
                    objective: str, progress: Progress | None) -> Solution:
    key = (rules, ranks0, ranks1, objective)
    if key in _STREAMED:
        return _STREAMED[key]
    start = time.perf_counter()
    game = StreamedGame.of(rules, kernels.distinct_orders(ranks0),
                           kernels.distinct_orders(ranks1), objective)
    v, x, y, rounds, gap = solve_streaming(game, progress=progress)
    exp = streamed_expected_scores(game, x, y)
    sol = Solution(v, objective, game.orders, (x, y), exp, time.perf_counter() - start,
                   f"double_oracle({rounds} rounds, streamed)", gap)
    while len(_STREAMED) >= 2:
        del _STREAMED[next(iter(_STREAMED))]
    _STREAMED[key] = sol
    return sol


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
    s0, s1 = kernels.scores2(np.ascontiguousarray(rows), a.shape[1],
                             np.ascontiguousarray(cols), b.shape[1], kernels.params(rules))
    w = np.outer(x[ia], y[ib]).ravel()
    return float(w @ s0), float(w @ s1)


# -- the agent -------------------------------------------------------------------------------------


@register("equilibrium")
class EquilibriumAgent(FallingBack, BaseAgent):
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
        self.last_info: dict[str, Any] = {}
        """What the last decision did: the solved value and support, or why it fell back."""

    def warm(self, rules: Rules, players: int) -> None:
        if rules.mode != "tactical":
            return
        self.warm_fallback(rules, players)
        if players == 2:
            warm_up()

    def table_fallback(self, rules: Rules, players: int) -> str | None:
        if rules.mode != "tactical":
            return None
        if players != 2:
            return f"{players} players: the exact game is two-player only"
        return deal_reason(rules, players, _orders_of, self.max_orders,
                           f"max_orders={self.max_orders:,} distinct rank orders")

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
            order = self.fall_back("equilibrium", view, rng, reason)
            self.last_info = {"agent": "equilibrium", "solved": False,
                              "fallback": self.fallback_spec, "reason": reason,
                              "fallback_info": dict(getattr(self.fallback, "last_info", {})),
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


def _orders_of(counts: np.ndarray) -> int:
    return kernels.count_orders([r for r, c in enumerate(counts) for _ in range(int(c))])
