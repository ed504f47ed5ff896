"""What the distillation's teacher plays (:mod:`pyanitsa.training.distill`), deal by deal:
orders of each taught seat's hand and, at every position, the teacher's distribution over the
next rank.

Two teachers (``distill.teacher``):

* ``solve``: two-player deals solved one at a time by :mod:`pyanitsa.solvers.cfr` (``nash``,
  or a response to ``distill.model``): :func:`teacher_strategies`.
* ``stored``: the shipped whole-game strategy ``nash`` plays at that table
  (:func:`pyanitsa.solvers.mccfr.stored_strategy`, any player count it was solved for): every
  seat of the deal, orders drawn from the strategy, its row at each position the target. No
  solve, so a deal costs milliseconds.

Deal ``i`` is ``deal_from_seed(rules, players, derive_seed(seed, i))`` and every draw comes
from the generator ``derive_seed(seed, i, 1)``: the teacher data is a function of the seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from pyanitsa.cards import Card
from pyanitsa.dealing import deal_from_seed
from pyanitsa.errors import PyanitsaError
from pyanitsa.ranks import rank_table
from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules

if TYPE_CHECKING:
    from pyanitsa.solvers.mccfr import Layout, Strategy

Teacher = Literal["solve", "stored"]
TEACHERS: tuple[Teacher, ...] = ("solve", "stored")


class NoStoredStrategyError(PyanitsaError):
    """``distill.teacher: stored`` for rules and a player count no strategy was solved for."""


def teacher_targets(avg: np.ndarray, counts: np.ndarray, order: np.ndarray,
                    stored: Layout | None = None) -> np.ndarray:
    """The teacher's distribution over the next rank at each position of ``order``: ``avg``
    a deal's solve (rows over the hand's sub-multisets), or, with ``stored``, the table of a
    stored whole-game strategy (rows over the deck's, :mod:`pyanitsa.solvers.mccfr`)."""
    from pyanitsa.solvers import cfr_kernels as nk
    from pyanitsa.solvers import mccfr_kernels as mk

    nr = counts.shape[0]
    if stored is None:
        mult, states = nk.multipliers(counts)
        s = states - 1
    else:
        mult, s = stored.mult, int(mk.full_index(counts, stored.mult))
    left, last = counts.copy(), nr
    out = np.empty((len(order), nr), np.float32)
    p = np.empty(nr)
    for t, r in enumerate(order):
        # the row the strategy's own sampler draws from (sample_orders, sample_order)
        row = s * (nr + 1) + last if stored is None else \
            int(mk.row_of(stored.lookup, s, last, nr, stored.use_last))
        nk.policy(avg, row, left, p)
        out[t] = p
        left[r] -= 1
        s -= mult[r]
        last = r
    return out


def stored_file(rules: Rules, players: int) -> Path:
    """The stored strategy's file for these rules and players (its header read, not its
    table), or one line saying there is none."""
    from pyanitsa.solvers import mccfr

    path = mccfr.stored_path(rules, players)
    if path is None:
        raise NoStoredStrategyError(
            f"distill.teacher: stored: no stored strategy for {players} players of "
            f"{rules.mode} deck {rules.deck} (shipped: "
            f"{', '.join(p.name for p in sorted(mccfr.STRATEGIES.glob('*.npz')))})")
    return path


def stored_teacher(rules: Rules, players: int) -> Strategy:
    """The stored strategy for these rules and players (loaded once a process)."""
    from pyanitsa.solvers import mccfr

    return mccfr.cached_load(str(stored_file(rules, players)), rules, players)


def deal_teaching(rules: Rules, players: int, dcfg: Mapping[str, Any], i: int, model: Any
                  ) -> Iterator[tuple[int, Sequence[Card], np.ndarray, np.ndarray]]:
    """``(seat, hand, order, targets)`` for every order deal ``i`` teaches (``samples`` a
    taught seat), in the order the teacher data keeps them."""
    table = rank_table(rules)
    hands = deal_from_seed(rules, players, derive_seed(dcfg["seed"], i)).seats
    cnt = [np.array(table.histogram(h), np.int64) for h in hands]
    rng = np.random.default_rng(derive_seed(dcfg["seed"], i, 1))
    k = dcfg["samples"]
    if dcfg.get("teacher", "solve") == "stored":
        strat = stored_teacher(rules, players)
        for seat, counts in enumerate(cnt):
            for _ in range(k):
                order = strat.sample(counts, rng)
                yield seat, hands[seat], order, teacher_targets(strat.table, counts, order,
                                                                strat.layout)
        return
    from pyanitsa.solvers import cfr_kernels as nk

    for seat, avg, counts in teacher_strategies(rules, dcfg, hands, cnt, i, model):
        for order in nk.sample_orders(avg, counts, rng.random((k, len(hands[seat])))):
            yield seat, hands[seat], order, teacher_targets(avg, counts, order)


def teacher_strategies(rules: Rules, dcfg: Mapping[str, Any], hands: Any, counts: list,
                       i: int, model: Any) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """``(seat, strategy, counts)`` of each seat deal ``i`` teaches: both seats of one ``nash``
    solve; with a ``model``, seat ``i % 2`` alone, the restricted Nash response to it, or
    (``response: mutual``) both seats of one mutual solve."""
    from pyanitsa.solvers import cfr as nash

    if model is None:
        strat = nash.solve(rules, counts[0], counts[1], dcfg["iterations"], dcfg["algorithm"])
    elif dcfg.get("response") == "mutual":
        strat = nash.respond_mutual(rules, hands, dcfg["iterations"], model, dcfg["confidence"],
                                    algorithm=dcfg["algorithm"])
    else:
        return [_restricted(rules, dcfg, hands, counts, i % 2, model)]
    return [(seat, strat.avg[side], strat.counts[side])
            for seat in (0, 1) for side in (strat.seat_of(counts[seat]),)]


def _restricted(rules: Rules, dcfg: Mapping[str, Any], hands: Any, counts: list, seat: int,
                model: Any) -> tuple[int, np.ndarray, np.ndarray]:
    """``seat``'s restricted Nash response to ``model`` (one solve for one seat)."""
    from pyanitsa.protocol import hand_view
    from pyanitsa.solvers import cfr as nash

    marg = nash.model_marginals(rules, model, hand_view(rules, seat, hands, 0),
                                nash.MODEL_SAMPLES)
    strat = nash.respond(rules, counts[seat], counts[1 - seat], dcfg["iterations"], marg,
                         dcfg["confidence"], dcfg["algorithm"])
    return seat, strat.avg[0], strat.counts[0]
