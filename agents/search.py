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
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.agents.pickup import engine_order
from pyanitsa.agents.specs import make_agent, register
from pyanitsa.agents.warm import Warming, dummy_decision, warm_agent
from pyanitsa.cards import Card
from pyanitsa.classic import FIXED_PICKUP_ORDERS, ClassicPosition
from pyanitsa.dealing import deal
from pyanitsa.errors import PyanitsaError
from pyanitsa.protocol import BaseAgent, HandView, PickupView, view_for
from pyanitsa.ranks import RankTable, rank_table
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules

kernels = lazy_module("pyanitsa.agents.kernels")
batch = lazy_module("pyanitsa.batch")

OBJECTIVES = {"blend": (1.0, 0.02, 0.0), "win": (1.0, 1e-4, 0.0), "margin": (0.0, 1.0, 0.0),
              "score": (0.0, 0.0, 1.0)}
"""Objective name -> weights ``(win, margin, score)`` of :mod:`pyanitsa.agents.kernels`."""

DEFAULT_SAMPLES = 192
"""Worlds per decision: an 18-card hand (tactical 36, two players) takes about 25 ms of CPU
(median; 99th percentile about 50 ms) on the benchmark machine (BENCHMARKS.md)."""

DEFAULT_OPPONENT = ("8*uniform|ascending|descending|strongest_first|strongest_last|sacrifice|"
                    "tie_aware")
"""The default opponent model: a population of players, eight in fourteen uniformly random, the
rest the scripted heuristics of :mod:`pyanitsa.agents.scripted` ordering the sampled hand."""

_IMPROVE = 1e-12
COARSE_SHARE = 4
COARSE_MIN = 16
"""The local search first climbs on ``1 / COARSE_SHARE`` of the distinct samples (at least
``COARSE_MIN``), then on all of them."""


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


def _fewest_orders(rules: Rules, players: int) -> int:
    """The fewest distinct orders a dealt hand can have: as many copies of as few ranks as the
    deck allows (a compile of the exhaustive kernel, seconds, is paid only if it may run)."""
    size = len(deal(rules, players, Rng(0)).seats[0])
    ranks: list[int] = []
    for r, copies in enumerate(sorted(rank_table(rules).counts, reverse=True)):
        ranks.extend([r] * min(copies, size - len(ranks)))
    return kernels.count_orders(ranks)


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
        self.misere = rules.misere
        self.cw, self.cm, self.cs = OBJECTIVES[objective]
        self.two = opp.shape[1] == 1
        self.cmp = kernels.cmp_table(table)
        self.pair = kernels.pair_judge(table)
        self.judge = kernels.judge_params(table, rules.cycle_rule)
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
                                     self.weights, *self.pair, self.misere, self.cw, self.cm,
                                     self.cs)
        return kernels.evaluate_many(cands, self.n, self.opp, self.lens, self.weights,
                                     *self.judge, self.misere, self.cw, self.cm, self.cs)

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


# -- classic pickup rollouts -------------------------------------------------------------------------


World = tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Card, ...], ...]]
"""Every seat's stack and won pile in a sampled world."""


class PickupRollouts:
    """Candidate orders of a won table, scored by rollouts from sampled hidden stacks."""

    FIXED = FIXED_PICKUP_ORDERS

    def __init__(self, view: PickupView, horizon: int) -> None:
        self.view = view
        self.rules = view.rules
        self.horizon = horizon
        # later pickups in the rollouts go in table order
        self.sim_rules = (view.rules.replace(pickup_order="table")
                          if view.rules.pickup_order == "agent" else view.rules)
        self.strength = rank_table(view.rules).rank_of
        players = view.players
        self.leader = view.owners[0]
        order = [(self.leader + i) % players for i in range(players)]
        self.order = [s for s in order if view.in_game[s]]
        self.settled = False
        """The round ends the game whatever the order (misère with someone out, or I am the
        only one left): no search needed."""
        me = view.seat
        counts = [view.stack_sizes[s] + view.pile_sizes[s] for s in range(players)]
        counts[me] += len(view.cards)
        alive_after = [s for s in self.order if counts[s] > 0]
        went_out = [s for s in self.order if counts[s] == 0]
        if (self.rules.misere and went_out) or len(alive_after) <= 1:
            self.settled = True
        self.counts_after = counts
        self.went_out = went_out
        known = set(view.cards) | set(view.known_tail) | set(view.my_pile)
        self.hidden = [c for c in range(self.rules.deck.size) if c not in known]
        """The cards this seat cannot place, in card order (sampled into each world)."""

    def fixed_order(self, how: str) -> list[Card]:
        return engine_order(self.view, how)

    def candidates(self, rng: np.random.Generator, extra: int) -> list[tuple[Card, ...]]:
        seen: set[tuple[int, ...]] = set()
        out: list[tuple[Card, ...]] = []
        st = self.strength

        def add(order: Sequence[Card]) -> None:
            key = tuple(st[c] for c in order)
            if key not in seen:
                seen.add(key)
                out.append(tuple(order))

        for how in self.FIXED:
            add(self.fixed_order(how))
        cards = list(self.view.cards)
        for _ in range(extra):
            add([cards[i] for i in rng.permutation(len(cards))])
        return out

    def sample_world(self, rng: np.random.Generator) -> tuple[list[list[Card]], list[list[Card]]]:
        """Stacks and piles of every seat after this round, before my pickup goes in: the hidden
        cards dealt uniformly into the hidden places (the rest left the game)."""
        v = self.view
        me = v.seat
        hidden = [self.hidden[i] for i in rng.permutation(len(self.hidden))]
        stacks: list[list[Card]] = []
        piles: list[list[Card]] = []
        pos = 0
        for s in range(v.players):
            if s == me:
                top = v.stack_sizes[s] - len(v.known_tail)
                stacks.append(hidden[pos:pos + top] + list(v.known_tail))
                pos += top
                piles.append(list(v.my_pile))
            else:
                k = v.stack_sizes[s]
                stacks.append(hidden[pos:pos + k])
                pos += k
                k2 = v.pile_sizes[s]
                piles.append(hidden[pos:pos + k2])
                pos += k2
        return stacks, piles

    @staticmethod
    def freeze(world: tuple[list[list[Card]], list[list[Card]]]) -> World:
        """A sampled world as tuples, shared by the positions of every candidate."""
        return tuple(map(tuple, world[0])), tuple(map(tuple, world[1]))

    def position(self, order: Sequence[Card], world: World, seed: int) -> ClassicPosition:
        """The position after this round in a (frozen) sampled world, with ``order`` picked
        up."""
        v = self.view
        me = v.seat
        stacks = list(world[0])
        piles = list(world[1])
        if self.rules.pickup_to == "bottom":
            stacks[me] = stacks[me] + tuple(order)
        else:
            piles[me] = piles[me] + tuple(order)
        leader = self.leader
        if self.went_out and self.rules.new_tour_on_elimination:
            leader = (leader + len(self.went_out)) % v.players
        return ClassicPosition(tuple(stacks), tuple(piles), leader, v.rounds,
                               eliminated=tuple(self.went_out),
                               seed=seed if self.rules.random_play else None)

    def values(self, games: batch.ClassicBatch) -> np.ndarray:
        """What each rollout is worth to me: 1 / 0.5 / 0 for a win / draw, cycle or cap /
        loss; my share of the cards in play if the horizon stopped it (misère: one minus)."""
        me = self.view.seat
        out = np.where(games.winner == me, 1.0, np.where(games.outcome == batch.WIN, 0.0, 0.5))
        unfinished = games.outcome == batch.UNFINISHED
        total = games.counts.sum(axis=1)
        share = np.where(total > 0, games.counts[:, me] / np.maximum(total, 1), 0.5)
        if self.rules.misere:
            share = 1.0 - share
        return np.where(unfinished, share, out)

    def choose(self, candidates: list[tuple[Card, ...]], rng: np.random.Generator,
               rollouts: int, deadline: float | None) -> tuple[int, np.ndarray, int]:
        """Score every candidate in the same sampled worlds with the batch core: all worlds in
        one call, or one world per call when a deadline may cut the search short."""
        totals = np.zeros(len(candidates))
        done = 0
        while done < rollouts:
            if deadline is not None and done > 0 and time.perf_counter() > deadline:
                break
            block = rollouts - done if deadline is None else 1
            positions = []
            for _ in range(block):
                world = self.freeze(self.sample_world(rng))
                seed = int(rng.integers(1 << 62))
                positions.extend(self.position(c, world, seed) for c in candidates)
            games = batch.play_positions(self.sim_rules, positions, horizon=self.horizon)
            totals += self.values(games).reshape(block, len(candidates)).sum(axis=0)
            done += block
        means = totals / max(done, 1)
        return int(np.argmax(means)), means, done
