"""``mc_search``: Monte Carlo best response (tactical hands) and rollouts (classic pickups).

Tactical. The agent samples *worlds*: the unseen cards dealt over the opponents (and the
set-aside pile) uniformly, consistent with its own hand, and each opponent's order from an
opponent model: ``uniform`` (a uniformly random order), any agent spec (the agent orders the
sampled hand from its own view), or a mixture ``"uniform|descending|..."`` whose components take
the samples in turn. It then optimises its own order against those fixed samples with exact
simulation (the compiled kernels of :mod:`pyanitsa.agents.kernels`, which agree with the
reference engine on ties, disputes, splits, void cycles, ``weakest_beats_ace`` and misère):

1. *starts*: an assignment (each of my cards to a position, maximising the expected sum of
   single-showdown results against the sampled opponent cards at that position: scipy's
   ``linear_sum_assignment``), plus the ascending and descending orders; the best one, scored
   exactly, is the start;
2. *local search*: steepest ascent over every distinct swap of two cards and every move of one
   card to another position, until no neighbour is better (a local optimum on the samples);
   it climbs on a quarter of the distinct samples first, then on all of them;
3. *restarts* (iterated local search, off by default): perturb the best order by a few random
   swaps and climb again, ``restarts`` times.

A hand with at most ``exhaustive`` distinct rank orders (default 720, six distinct cards) skips
all that: every order is scored, which is the exact best response to the samples.

The objective is a mean over the samples: ``blend`` (default) is ``win + 0.02 * margin``,
where ``win`` is 1 for a win, 1/k for a win shared by k seats, 0 for a loss (misère included)
and ``margin`` my score minus the best opponent score (misère: the lowest minus mine); the small
margin term smooths the landscape for the local search and prefers wide wins. ``win`` keeps the
margin only as a tie-break (weight 1e-4); ``margin`` and ``score`` are what they say.

The default opponent model (:data:`DEFAULT_OPPONENT`) is a population: 8 samples in 14 are
uniformly random orders, the others come from the scripted heuristics (one each of
``ascending``, ``descending``, ``strongest_first``, ``strongest_last``, ``sacrifice``,
``tie_aware``). A best response to ``uniform`` alone gains little against structured opponents
(against a random order only ties matter); the population covers both.

Budgets. ``samples`` bounds the worlds; ``budget_ms`` (default ``None``) bounds the wall-clock
time of a decision, whichever comes first: search is anytime and returns its best order so far
when time runs out. With ``budget_ms=None`` a decision is a pure function of the view and the
rng (reproducible, as tests and tournaments need); a millisecond budget makes results depend on
the machine and its load. The default sample budget decides an 18-card hand (tactical 36, two
players) in well under 100 ms on the benchmark machine (BENCHMARKS.md).

Classic (``pickup_order: agent``). Candidate orders of the won table are the fixed pickup orders
of RULES.md §2.5 (table, by_seat, winner_first, loser_first, high_first, low_first, natural)
plus ``pickup_random`` random ones, distinct by rank sequence. Each is scored by rollouts: the
hidden cards (my stack's unknown top, the opponents' stacks and piles) are sampled uniformly
consistent with what the seat knows (the table, the tail of its stack it placed itself, its won
pile, every seat's counts), the game is played on with the batch core
(:func:`pyanitsa.batch.play_positions`, every world and candidate in one call) for at most
``pickup_horizon`` rounds (later pickups in table order), and a rollout is worth 1 / 0.5 / 0
for a win / draw, cycle or cap / loss, or the seat's share of the cards in play when the
horizon is reached (misère: one minus it). The candidate with the best mean over the same
``pickup_rollouts`` worlds wins; ``budget_ms`` bounds this search too. The default of 32 worlds
takes about 1.4 ms a decision on a 36-card deck and clearly beats the fixed pickup policies
(BENCHMARKS.md); on the reference engine 4 worlds took 2.5 ms.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.agents.order_search import OBJECTIVES, OrderSearch
from pyanitsa.agents.pickup_rollouts import PickupRollouts
from pyanitsa.agents.specs import make_agent, register
from pyanitsa.agents.warm import Warming, dummy_decision, warm_agent
from pyanitsa.cards import Card
from pyanitsa.dealing import deal_from_seed
from pyanitsa.errors import PyanitsaError
from pyanitsa.protocol import BaseAgent, HandView, PickupView, view_for
from pyanitsa.ranks import RankTable, rank_table
from pyanitsa.rules import Rules

kernels = lazy_module("pyanitsa.agents.kernels")
batch = lazy_module("pyanitsa.batch")

__all__ = ["OBJECTIVES", "MCSearch", "OpponentModel", "OrderSearch", "PickupRollouts",
           "cards_for_ranks", "unseen_cards"]

DEFAULT_SAMPLES = 192
"""Worlds per decision: an 18-card hand (tactical 36, two players) takes about 25 ms of CPU
(median; 99th percentile about 50 ms) on the benchmark machine (BENCHMARKS.md)."""

DEFAULT_OPPONENT = ("8*uniform|ascending|descending|strongest_first|strongest_last|sacrifice|"
                    "tie_aware")
"""The default opponent model: a population of players, eight in fourteen uniformly random, the
rest the scripted heuristics of :mod:`pyanitsa.agents.scripted` ordering the sampled hand."""

# -- small helpers shared with the equilibrium agent ---------------------------------------------


def cards_for_ranks(hand: Sequence[Card], order: Sequence[int], table: RankTable) -> list[Card]:
    """The cards of ``hand`` in the rank order ``order`` (copies of a rank in card order)."""
    pools: dict[int, list[Card]] = {}
    for c in sorted(hand, reverse=True):
        pools.setdefault(table.rank_of[c], []).append(c)
    return [pools[int(r)].pop() for r in order]


def unseen_cards(view: HandView) -> list[Card]:
    """Every card of the deck that is not in my hand."""
    mine = set(view.hand)
    return [c for c in range(view.rules.deck.size) if c not in mine]


def extreme_hands(rules: Rules, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Rank counts of the two extreme hands a deal of ``rules`` can give a seat: *packed* (as
    many copies of as few ranks as the deck allows: the fewest distinct orders and
    sub-multisets) and *even* (the ranks as equally represented as the deck allows: the most)."""
    size = len(deal_from_seed(rules, players, 0).seats[0])
    counts = rank_table(rules).counts
    packed = np.zeros(len(counts), np.int64)
    for r in sorted(range(len(counts)), key=lambda r: -counts[r]):
        packed[r] = min(counts[r], size - int(packed.sum()))
    even = np.zeros(len(counts), np.int64)
    while int(even.sum()) < size:  # one card at a time to the least represented rank left
        r = min((r for r in range(len(counts)) if even[r] < counts[r]), key=lambda r: even[r])
        even[r] += 1
    return packed, even


def deal_reason(rules: Rules, players: int, measure: Callable[[np.ndarray], int], limit: int,
                what: str) -> str | None:
    """Why a two-player solver of the dealt game cannot solve some or every deal of this table
    (None if it solves them all): cards set aside, or hands whose ``measure`` (of rank counts)
    is over ``limit``; ``what`` names both, e.g. ``"max_orders=5,040 distinct rank orders"``."""
    aside = len(deal_from_seed(rules, players, 0).set_aside)
    if aside:
        return f"{aside} cards set aside: the opponent's hand is not known"
    fewest, most = (measure(h) for h in extreme_hands(rules, players))
    if most <= limit:
        return None
    if fewest > limit:
        return f"every hand has over {what} (at least {fewest:,} in this deck)"
    return f"hands with over {what} (up to {most:,} in this deck)"


def _fewest_orders(rules: Rules, players: int) -> int:
    """The fewest distinct orders a dealt hand can have (a compile of the exhaustive kernel,
    seconds, is paid only if it may run)."""
    packed = extreme_hands(rules, players)[0]
    return kernels.count_orders([r for r, c in enumerate(packed) for _ in range(int(c))])


class OpponentModel:
    """How sampled opponents order their hands: ``uniform``, an agent spec, or a mixture of
    them separated by ``|``, each optionally weighted ``N*spec``; the components take the
    samples in turn (``2*uniform|descending``: uniform, uniform, descending, uniform, ...)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.parts: list[Any] = []
        for part in spec.split("|"):
            weight, star, rest = part.partition("*")
            if star and weight.strip().isdigit() and int(weight) > 0:
                count, part = int(weight), rest
            else:
                count = 1
            part = part.strip()
            if not part:
                raise ValueError(f"opponent model {spec!r}: use uniform, an agent spec, or "
                                 "several joined by | (each optionally N*spec)")
            agent = None if part == "uniform" else make_agent(part)
            self.parts.extend([agent] * count)

    def order(self, sample: int, view: HandView, dealt: Sequence[Card],
              rng: np.random.Generator) -> Sequence[Card]:
        """The order of sample ``sample``'s opponent holding ``dealt`` (uniformly dealt)."""
        agent = self.parts[sample % len(self.parts)]
        if agent is None:
            return dealt  # a uniform deal is already in a uniformly random order
        return agent.order_hand(view, rng)


# -- the agent -------------------------------------------------------------------------------------


@register("mc_search", decisions=("hand", "pickup"))
class MCSearch(Warming, BaseAgent):
    """Monte Carlo best response: sample the unseen cards and opponent orders, optimise my order
    against the samples by exact simulation (assignment start, local search); classic pickups by
    rollouts.

    Parameters: ``samples`` worlds per tactical decision; ``budget_ms`` wall-clock bound (None:
    samples only, reproducible); ``opponent`` the opponent model (``uniform``, an agent spec, or
    ``N*a|b|...``); ``objective`` ``blend`` (win + 0.02 margin), ``win``, ``margin`` or
    ``score``;
    ``restarts`` perturbation restarts of the local search; ``exhaustive`` score every order of
    hands with at most that many distinct orders; ``pickup_rollouts``,
    ``pickup_horizon``, ``pickup_random`` size the classic pickup search.
    """

    def __init__(self, *, samples: int = DEFAULT_SAMPLES, budget_ms: float | None = None,
                 opponent: str = DEFAULT_OPPONENT, objective: str = "blend", restarts: int = 0,
                 exhaustive: int = 720, pickup_rollouts: int = 32, pickup_horizon: int = 60,
                 pickup_random: int = 2) -> None:
        if samples < 1:
            raise ValueError(f"samples={samples}: must be at least 1")
        if budget_ms is not None and budget_ms <= 0:
            raise ValueError(f"budget_ms={budget_ms}: must be positive (or None)")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective={objective!r}: one of {', '.join(OBJECTIVES)}")
        if restarts < 0 or pickup_rollouts < 1 or pickup_horizon < 1 or pickup_random < 0:
            raise ValueError("restarts, pickup_random must be >= 0; pickup_rollouts, "
                             "pickup_horizon >= 1")
        self.samples = samples
        self.budget_ms = budget_ms
        self.opponent = OpponentModel(opponent)
        self.objective = objective
        self.restarts = restarts
        self.exhaustive = exhaustive
        self.pickup_rollouts = pickup_rollouts
        self.pickup_horizon = pickup_horizon
        self.pickup_random = pickup_random
        self.last_info: dict[str, Any] = {}
        """What the last decision did: samples, evaluations, passes, value, time, why it
        stopped."""

    def warm(self, rules: Rules, players: int) -> None:
        for part in {id(p): p for p in self.opponent.parts if p is not None}.values():
            warm_agent(part, rules, players)
        dummy_decision(self.lite(), rules, players)
        if rules.mode == "tactical" and _fewest_orders(rules, players) <= self.exhaustive:
            kernels.distinct_orders(np.zeros(1, np.int8))  # some hands take the exhaustive path

    def lite(self) -> MCSearch:
        """Two uniform samples, two rollouts: the same kernels (the opponent model's agents
        are warmed on their own)."""
        return MCSearch(samples=2, opponent="uniform", objective=self.objective,
                        exhaustive=self.exhaustive, pickup_rollouts=2,
                        pickup_horizon=self.pickup_horizon, pickup_random=self.pickup_random)

    # -- tactical --------------------------------------------------------------------------------

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        start = time.perf_counter()
        deadline = None if self.budget_ms is None else start + self.budget_ms / 1000.0
        table = view.ranks
        if view.hand_size <= 1:
            self.last_info = {"agent": "mc_search", "samples": 0, "evaluations": 0,
                              "ms": 0.0, "stopped": "trivial"}
            return list(view.hand)
        opp, lens, weights, drawn = self.sample_worlds(view, rng, deadline)
        search = OrderSearch(view.rules, np.array(view.hand_ranks(), np.int8), opp, lens,
                             weights, self.objective, deadline)
        order, value = search.run(rng, self.restarts, exhaustive=self.exhaustive)
        self.last_info = {
            "agent": "mc_search", "samples": drawn, "distinct_samples": int(len(weights)),
            "opponent": self.opponent.spec, "objective": self.objective,
            "value": float(value), "evaluations": search.evaluations, "passes": search.passes,
            "restarts": search.restarts_done, "stopped": search.stopped,
            "ms": (time.perf_counter() - start) * 1000.0,
        }
        return cards_for_ranks(view.hand, order, table)

    def sample_worlds(self, view: HandView, rng: np.random.Generator,
                      deadline: float | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Sampled opponent orders ``[distinct, players - 1, m]`` (rank indices), their lengths,
        their weights (duplicates merged) and how many samples were drawn."""
        rules, players = view.rules, view.players
        table = view.ranks
        rank_of = np.array(table.rank_of, np.int8)
        pool = np.array(unseen_cards(view), np.int64)
        dealt = len(pool) - view.set_aside
        if players < 2 or dealt < 0 or dealt % (players - 1):
            raise PyanitsaError(f"mc_search: {len(pool)} unseen cards with {view.set_aside} set "
                                f"aside do not deal evenly over {players - 1} opponents")
        m = dealt // (players - 1)
        counts: dict[bytes, int] = {}
        rows: list[np.ndarray] = []
        drawn = 0
        for s in range(self.samples):
            if deadline is not None and s > 0 and time.perf_counter() > deadline - 0.0005:
                break  # keep most of a tight budget for the search
            perm = pool[rng.permutation(len(pool))]
            row = np.empty((players - 1, m), np.int8)
            for j in range(players - 1):
                hand = perm[j * m:(j + 1) * m]
                seat = (view.seat + 1 + j) % players
                if self.opponent.parts[s % len(self.opponent.parts)] is None:
                    ordered = hand
                else:
                    oview = view_for(rules, seat, players, hand.tolist(), view.set_aside)
                    ordered = np.asarray(self.opponent.order(s, oview, hand, rng), np.int64)
                row[j] = rank_of[ordered]
            key = row.tobytes()
            if key not in counts:
                counts[key] = 0
                rows.append(row)
            counts[key] += 1
            drawn += 1
        opp = np.stack(rows)
        weights = np.array([counts[r.tobytes()] for r in rows], np.float64) / drawn
        lens = np.full((len(rows), players - 1), m, np.int64)
        return opp, lens, weights, drawn

    # -- classic ---------------------------------------------------------------------------------

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> list[Card]:
        start = time.perf_counter()
        deadline = None if self.budget_ms is None else start + self.budget_ms / 1000.0
        chooser = PickupRollouts(view, self.pickup_horizon)
        candidates = chooser.candidates(rng, self.pickup_random)
        if len(candidates) == 1 or chooser.settled:
            self.last_info = {"agent": "mc_search", "candidates": len(candidates),
                              "rollouts": 0, "ms": (time.perf_counter() - start) * 1000.0,
                              "stopped": "trivial"}
            return list(candidates[0])
        best, means, done = chooser.choose(candidates, rng, self.pickup_rollouts, deadline)
        self.last_info = {"agent": "mc_search", "candidates": len(candidates),
                          "rollouts": done, "value": float(means[best]),
                          "ms": (time.perf_counter() - start) * 1000.0,
                          "stopped": "budget" if done < self.pickup_rollouts else "rollouts"}
        return list(candidates[best])
