"""Best responses in two-player tactical deals, of any size.

A two-player tactical deal is a one-shot zero-sum game once both hands are known: each seat
fixes an order of its hand, and seat 0's payoff is its score minus seat 1's (``margin``) or the
sign of that (``win``), negated under misère. A best response is an order of my hand that
maximises my expected payoff against a distribution over the other seat's orders
(:class:`OrderMix`). Three engines, picked by :func:`best_response`, best first:

* ``dp``: against one fixed order, the exact dynamic programme of
  :mod:`pyanitsa.solvers.best_response_kernels` over the ranks I have left (any deal size up to
  :data:`DP_MAX_CELLS`);
* ``enumeration``: every distinct rank order of my hand scored against the mix (exact; for
  hands with few distinct orders);
* ``search``: local search (an assignment start, the dynamic programme's answer to each of the
  likeliest orders, steepest ascent over every swap and move, perturbation restarts) on the
  batch core's exact scoring of :class:`pyanitsa.agents.search.OrderSearch`. Its answer is a
  real order, so its payoff is a lower bound on the best response's.

Every payoff reported is the batch core's exact score of a real order against the mix
(:func:`expected_payoff`, :func:`pyanitsa.batch.tactical.play_pair` underneath); a mix that is
only a sample of an agent's orders gives an unbiased estimate of it on fresh samples, which is
how :mod:`pyanitsa.solvers.exploitability` keeps its lower bound honest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.agents.search import OrderSearch
from pyanitsa.errors import PyanitsaError
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules
from pyanitsa.solvers.mixes import OrderMix

kernels = lazy_module("pyanitsa.agents.kernels")
rk = lazy_module("pyanitsa.solvers.best_response_kernels")

OBJECTIVES = ("margin", "win")
DP_MAX_CELLS = 20_000_000
"""Largest dynamic programme (sub-multisets x margins tracked) run; 4 bytes a cell."""
ENUM_MAX_GAMES = 4_000_000
"""Enumerate my distinct orders when that many games (orders x mix support) or fewer."""
DP_STARTS = 8
"""Search starts from the dynamic programme's answer to this many of the likeliest orders."""
SEARCH_RESTARTS = 4
"""Perturbation restarts of the local search."""


@dataclass(frozen=True)
class BestResponse:
    order: np.ndarray
    """The responding order (rank indices)."""
    value: float
    """Its expected payoff against the mix it was fitted on."""
    method: str
    """``dp``, ``enumeration`` (both exact) or ``search`` (a lower bound)."""

    @property
    def exact(self) -> bool:
        return self.method != "search"


def _weights(objective: str) -> tuple[float, float, float, float]:
    """``(cw, cm, cs, shift)``: the kernels' value ``cw*win + cm*margin + cs*score`` plus
    ``shift`` is the payoff (``win``: 2 * share - 1, the sign of the margin)."""
    if objective == "margin":
        return 0.0, 1.0, 0.0, 0.0
    if objective == "win":
        return 2.0, 0.0, 0.0, -1.0
    raise ValueError(f"objective={objective!r}: one of {', '.join(OBJECTIVES)}")


def payoffs(rules: Rules, cands: np.ndarray, mix: OrderMix, objective: str = "margin"
            ) -> np.ndarray:
    """Each candidate order's exact expected payoff against ``mix``."""
    cw, cm, cs, shift = _weights(objective)
    cands = np.ascontiguousarray(np.atleast_2d(cands), np.int8)
    opp = np.ascontiguousarray(mix.orders, np.int8)
    out = kernels.evaluate2(cands, cands.shape[1], opp, opp.shape[1], mix.probs,
                            kernels.params(rules), cw, cm, cs)
    return out + shift


def expected_payoff(rules: Rules, order: Sequence[int], mix: OrderMix,
                    objective: str = "margin") -> float:
    return float(payoffs(rules, np.asarray(order, np.int8)[None], mix, objective)[0])


def dp_response(rules: Rules, ranks: Sequence[int], opp: Sequence[int],
                objective: str = "margin") -> tuple[float, np.ndarray]:
    """The exact best response to one fixed order ``opp``: ``(payoff, order)``."""
    table = rank_table(rules)
    counts = np.bincount(np.asarray(ranks, np.int64), minlength=table.num_ranks)
    if dp_cells(counts, len(opp), objective) > DP_MAX_CELLS:
        raise PyanitsaError(f"the dynamic programme needs {dp_cells(counts, len(opp), objective):,}"
                            f" cells, over {DP_MAX_CELLS:,}")
    sgn = -1 if rules.misere else 1
    value, order = rk.dp_fixed(counts.astype(np.int64), np.asarray(opp, np.int64), len(opp),
                               kernels.cmp_table(table).astype(np.int64), sgn,
                               objective == "win")
    return float(value), order


def dp_cells(counts: np.ndarray, m: int, objective: str) -> int:
    states = 1
    for c in counts:
        states *= int(c) + 1
    last = min(int(sum(counts)), m)
    return states * (4 * last + 1 if objective == "win" else 1)


def best_response(rules: Rules, ranks: Sequence[int], mix: OrderMix, *,
                  objective: str = "margin", rng: np.random.Generator | None = None,
                  restarts: int = SEARCH_RESTARTS) -> BestResponse:
    """A best response of the hand ``ranks`` to ``mix``: exact when it can be, else search."""
    ranks = np.sort(np.asarray(ranks, np.int8))
    table = rank_table(rules)
    counts = np.bincount(ranks.astype(np.int64), minlength=table.num_ranks)
    m = mix.orders.shape[1]
    if mix.support == 1 and dp_cells(counts, m, objective) <= DP_MAX_CELLS:
        _, order = dp_response(rules, ranks, mix.orders[0], objective)
        # the value reported is the batch core's score of the order (tests check the two agree)
        return BestResponse(order, expected_payoff(rules, order, mix, objective), "dp")
    if kernels.count_orders(ranks) * mix.support <= ENUM_MAX_GAMES:
        return _enumerate(rules, ranks, mix, objective)
    return _search(rules, ranks, counts, mix, objective, rng, restarts)


def _enumerate(rules: Rules, ranks: np.ndarray, mix: OrderMix, objective: str) -> BestResponse:
    orders = kernels.distinct_orders(ranks)
    best, best_value = orders[0], -np.inf
    for lo in range(0, len(orders), 4096):
        vals = payoffs(rules, orders[lo:lo + 4096], mix, objective)
        k = int(np.argmax(vals))
        if vals[k] > best_value:
            best, best_value = orders[lo + k], float(vals[k])
    return BestResponse(best.copy(), best_value, "enumeration")


def _search(rules: Rules, ranks: np.ndarray, counts: np.ndarray, mix: OrderMix,
            objective: str, rng: np.random.Generator | None, restarts: int) -> BestResponse:
    m = mix.orders.shape[1]
    starts = []
    if dp_cells(counts, m, objective) <= DP_MAX_CELLS:
        starts = [dp_response(rules, ranks, o, objective)[1] for o in mix.likeliest(DP_STARTS)]
    opp = np.ascontiguousarray(mix.orders[:, None, :], np.int8)
    lens = np.full((mix.support, 1), m, np.int64)
    search = OrderSearch(rules, ranks, opp, lens, mix.probs, objective, None)
    rng = np.random.default_rng(0) if rng is None else rng
    order, _ = search.run(rng, restarts, starts=starts)
    return BestResponse(order, expected_payoff(rules, order, mix, objective), "search")
