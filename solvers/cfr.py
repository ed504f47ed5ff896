"""``nash``: approximate equilibrium play of a two-player tactical deal of any size.

With two players and nothing set aside the unseen cards *are* the opponent's hand, so the deal
is a known zero-sum game. The agent runs CFR+ on it (:mod:`pyanitsa.solvers.cfr_kernels`): a
behaviour strategy for each seat over ``(ranks still held, rank played last)``, learned against
the exact expected payoff with one tie carried per showdown, and plays an order sampled from
its own seat's average strategy. The strategy is a pure function of the two hands (no
randomness in the solve), computed once per deal and cached for both seats, so the seat-swapped
game of a duplicate pair costs nothing and sampling many orders from it is cheap.

How good it is: on full 36-card deals its exploitability, measured by ``pyanitsa exploit`` with
the same best response and the same samples as uniform ``random``, is several times lower than
``random``'s (BENCHMARKS.md, "Strength"). On tiny deals, where ``solve`` is exact, :meth:`mix`
lists the whole distribution and its exploitability and value are exact.

With ``model`` and ``confidence`` it plays the restricted Nash response to that agent instead
(:func:`respond`): the most it can take from the model at a bounded cost in exploitability;
``response="mutual"`` is the variant where both seats respond (:func:`respond_mutual`), one
solve a deal.

With three or more players it plays the stored strategy of the whole game for its rules and
player count (:mod:`pyanitsa.solvers.mccfr`), or a strategy file named by ``strategy``.
Falls back (and says why in :attr:`NashAgent.last_info`) at 3+ players without one, with
cards set aside at two, or when a hand has more than ``max_states`` sub-multisets (memory
grows with it: about ``36 * max_states * ranks`` bytes a seat).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, get_args

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.agents.search import cards_for_ranks, deal_reason, unseen_cards
from pyanitsa.agents.specs import make_agent, register
from pyanitsa.agents.warm import FallingBack, dummy_decision, warm_agent
from pyanitsa.cards import Card
from pyanitsa.protocol import BaseAgent, HandView, Mix, view_for
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules

nk = lazy_module("pyanitsa.solvers.cfr_kernels")
mccfr = lazy_module("pyanitsa.solvers.mccfr")
kernels = lazy_module("pyanitsa.agents.kernels")

DEFAULT_ITERATIONS = 100
"""CFR+ iterations. One solve serves both hands of a deal: 1.1 s median, 1.8 s worst over 12
full 36-card deals on one core of the benchmark machine (DCFR at 80: 0.9 s and 1.4 s; a best
response gains 0.115 at 150 iterations against 0.147 at 100; BENCHMARKS.md, "Strength")."""
Algorithm = Literal["cfr+", "dcfr"]
"""How the passes learn (:func:`pyanitsa.solvers.cfr_kernels.cfr`): ``cfr+`` (regret matching+,
linear averaging) or ``dcfr`` (discounted regrets, quadratic averaging), which reaches the same
gap in about four fifths of the iterations (BENCHMARKS.md, "A faster teacher")."""
DEFAULT_MAX_STATES = 60_000
"""Sub-multisets of a hand above which the agent falls back (19,683 at most in the 36-card
deck; a 26-card hand of the 52-card deck has up to 1.6 million)."""
MIX_MAX_ORDERS = 40_320
"""``mix`` lists the distribution of hands with at most this many distinct orders."""


@dataclass(frozen=True)
class DealStrategy:
    """The average strategies of both seats of one deal (seat 0 holds ``counts[0]``)."""

    counts: tuple[np.ndarray, np.ndarray]
    avg: tuple[np.ndarray, np.ndarray]
    iterations: int
    seconds: float

    def seat_of(self, counts: np.ndarray) -> int:
        return 0 if np.array_equal(counts, self.counts[0]) else 1


def hand_counts(rules: Rules, ranks: list[int]) -> np.ndarray:
    return np.bincount(np.asarray(ranks, np.int64), minlength=rank_table(rules).num_ranks)


def solve(rules: Rules, mine: np.ndarray, theirs: np.ndarray, iterations: int,
          algorithm: Algorithm = "cfr+") -> DealStrategy:
    """Both seats' strategies, cached by the unordered pair of hands."""
    a, b = tuple(int(c) for c in mine), tuple(int(c) for c in theirs)
    return _solve(rules, *sorted((a, b)), iterations, algorithm)


@lru_cache(maxsize=8)
def _solve(rules: Rules, c0: tuple[int, ...], c1: tuple[int, ...], iterations: int,
           algorithm: Algorithm) -> DealStrategy:
    return _cfr(rules, np.array(c0, np.int64), np.array(c1, np.int64), iterations, algorithm)


def _cfr(rules: Rules, c0: np.ndarray, c1: np.ndarray, iterations: int, algorithm: Algorithm,
         p0: float = 0.0, m1: Any = None, p1: float = 0.0, m0: Any = None) -> DealStrategy:
    """:func:`pyanitsa.solvers.cfr_kernels.cfr` on the hands ``c0``, ``c1``, with the opponent
    models ``p0, m1, p1, m0`` it takes."""
    start = time.perf_counter()
    table = rank_table(rules)
    counts = (np.asarray(c0, np.int64), np.asarray(c1, np.int64))
    # float32: the passes stream these tables (memory-bound), and 7 digits is plenty here
    avg = tuple(np.zeros((int(nk.multipliers(c)[1]) * (table.num_ranks + 1), table.num_ranks),
                         np.float32) for c in counts)
    cmp = kernels.cmp_table(table).astype(np.int64)
    nk.cfr(counts[0], counts[1], cmp, -1 if rules.misere else 1, iterations, *avg, p0, m1, p1, m0,
           algorithm == "dcfr")
    return DealStrategy(counts, (avg[0], avg[1]), iterations, time.perf_counter() - start)


MODEL_SAMPLES = 128
"""Calls of the opponent model whose orders give its marginals (when it lists no mix)."""
MODEL_STREAM = 0x4E52_4E52
"""Seeds the model's generators with the two hands: the model's orders, and so the response,
are a pure function of the deal (cached for both seatings of a duplicate pair)."""


def model_marginals(rules: Rules, model: Any, mine: HandView, samples: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The pair marginals of ``model`` holding the cards ``mine`` does not hold."""
    from pyanitsa.solvers.mixes import rank_mix, sampled_mix

    theirs = view_for(rules, 1 - mine.seat, 2, unseen_cards(mine), 0)
    listed = model.mix(theirs) if hasattr(model, "mix") else None
    if listed:
        mix = rank_mix(theirs, listed)
    else:
        key = [MODEL_STREAM, *hand_counts(rules, mine.hand_ranks()).tolist(), *mine.unseen]
        gens = [np.random.default_rng([*key, k]) for k in range(samples)]
        mix = sampled_mix(model, theirs, gens)
    end = min(mine.hand_size, len(theirs.hand))
    return nk.model_marginals(mix.orders.astype(np.int64), mix.probs,
                              rank_table(rules).num_ranks, end)


def respond(rules: Rules, mine: np.ndarray, theirs: np.ndarray, iterations: int,
            model: tuple[np.ndarray, np.ndarray], confidence: float,
            algorithm: Algorithm = "cfr+") -> DealStrategy:
    """The restricted Nash response of the hand ``mine`` (seat 0 of the result) to an opponent
    that plays the marginals ``model`` with probability ``confidence`` and anything otherwise
    (:func:`pyanitsa.solvers.cfr_kernels.cfr`); seat 1 holds the adversary's strategy."""
    return _cfr(rules, mine, theirs, iterations, algorithm, float(confidence), model)


Response = Literal["restricted", "mutual"]
"""``restricted``: my seat responds to the model, against an adversary that learns against me
alone (:func:`respond`). ``mutual``: both seats respond, each against the other's response
(:func:`respond_mutual`)."""


def respond_mutual(rules: Rules, hands: Sequence[Sequence[Card]], iterations: int,
                   model: Any, confidence: float, samples: int = MODEL_SAMPLES,
                   algorithm: Algorithm = "cfr+") -> DealStrategy:
    """Both seats' *mutual* responses to ``model``: each seat learns against an opponent that
    plays the model with probability ``confidence`` and the other seat's learned strategy
    otherwise. The hands are solved in sorted order (like :func:`solve`: either seating of a
    deal is the same solve); :meth:`DealStrategy.seat_of` finds a hand's side.

    Seat ``k`` then scores ``(1 - p) u_k(s_0, s_1) + p u_k(s_k, model)``; the second term
    depends on ``s_k`` alone, so the game is strategically the zero-sum game of payoff
    ``(1 - p) u_0 + p u_0(s_0, model) - p u_1(s_1, model)`` and CFR+ self-play converges to its
    equilibrium: each seat a best response to ``p`` of the model and ``1 - p`` of the other.
    The adversary exploits the model too, so for the same ``p`` this is more exploitable than
    :func:`respond`, and it teaches both seats of a deal from one solve."""
    counts = [rank_table(rules).histogram(h) for h in hands]
    if counts[1] < counts[0]:
        hands, counts = hands[::-1], counts[::-1]
    views = [view_for(rules, k, 2, hands[k], 0) for k in (0, 1)]
    theirs = [model_marginals(rules, model, v, samples) for v in views]  # the model holding 1-k
    p = float(confidence)
    return _cfr(rules, np.array(counts[0], np.int64), np.array(counts[1], np.int64),
                iterations, algorithm, p, theirs[0], p, theirs[1])


def states_of(counts: np.ndarray) -> int:
    out = 1
    for c in counts:
        out *= int(c) + 1
    return out


@register("nash")
class NashAgent(FallingBack, BaseAgent):
    """Approximate equilibrium of the dealt two-player game (CFR+ over behaviour strategies),
    sampled; falls back to ``fallback`` (default ``random``) with cards set aside or hands over
    ``max_states``. With 3+ players it plays the stored strategy of the whole game for its
    rules and player count (:mod:`pyanitsa.solvers.mccfr`: shipped for tactical 36 at 3, 4
    and 6 players), or ``strategy``, a strategy file's path (at any player count it was
    solved for); without one it falls back.

    Parameters: ``iterations`` CFR+ iterations per deal (``algorithm="dcfr"``: discounted CFR
    iterations, :data:`Algorithm`); ``max_states`` sub-multisets of a hand
    it solves up to; ``fallback`` the agent spec it uses otherwise.

    With ``model`` (an agent spec) and ``confidence`` ``p`` it plays the *restricted Nash
    response* instead: the strategy that scores best against an opponent who plays ``model``
    with probability ``p`` and a best response to it otherwise. ``p = 0`` is the equilibrium,
    ``p = 1`` a best response to the model; in between it gains against the model at a small,
    bounded cost in exploitability (BENCHMARKS.md, "Strength"). The model's orders come from its
    listed mix, or ``model_samples`` calls seeded by the deal. ``response="mutual"`` solves
    :func:`respond_mutual` instead (both seats respond; one solve serves both seatings).
    """

    def __init__(self, *, iterations: int = DEFAULT_ITERATIONS,
                 max_states: int = DEFAULT_MAX_STATES, fallback: str = "random",
                 model: str | None = None, confidence: float = 0.0,
                 model_samples: int = MODEL_SAMPLES, response: Response = "restricted",
                 algorithm: Algorithm = "cfr+", strategy: str | None = None) -> None:
        self.strategy_path = strategy
        if strategy is not None:  # read now: a bad file is an error of the spec
            mccfr.cached_load(str(strategy))
        if iterations < 1 or max_states < 1 or model_samples < 1:
            raise ValueError("iterations, max_states and model_samples must be at least 1")
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence={confidence!r}: a probability, from 0 to 1")
        if (model is None) != (confidence == 0.0):
            raise ValueError("model and confidence go together: name the model the opponent "
                             "is expected to play and how often (0 < confidence <= 1)")
        if response not in ("restricted", "mutual"):
            raise ValueError(f"response={response!r}: 'restricted' or 'mutual'")
        if algorithm not in get_args(Algorithm):
            raise ValueError(f"algorithm={algorithm!r}: one of {', '.join(get_args(Algorithm))}")
        self.algorithm = algorithm
        self.response = response
        self.model_spec = model
        self.model = make_agent(model) if model is not None else None
        self.confidence = float(confidence)
        self.model_samples = model_samples
        self._responses: dict[tuple[Any, ...], DealStrategy] = {}
        self.iterations = iterations
        self.max_states = max_states
        self.fallback_spec = fallback
        self.last_info: dict[str, Any] = {}
        """What the last decision did: the solve's size and time, or why it fell back."""

    def warm(self, rules: Rules, players: int) -> None:
        if rules.mode != "tactical":
            return
        self.warm_fallback(rules, players)
        if self.model is not None:
            warm_agent(self.model, rules, players)
        dummy_decision(self.lite(), rules, players)

    def lite(self) -> NashAgent:
        """One CFR+ iteration: the same kernels, a few milliseconds."""
        lite = NashAgent(iterations=1, max_states=self.max_states, fallback=self.fallback_spec,
                         model=self.model_spec, confidence=self.confidence, model_samples=1,
                         response=self.response, algorithm=self.algorithm,
                         strategy=self.strategy_path)
        lite._fallback = self.fallback
        lite.model = self.model  # the warmed one
        return lite

    def table(self, view: HandView) -> Any:
        """The whole-game strategy this view plays (:class:`pyanitsa.solvers.mccfr.Strategy`),
        or None: the two-player deal is solved instead, or nothing is stored."""
        if self.strategy_path is not None:
            return mccfr.cached_load(str(self.strategy_path), view.rules, view.players)
        if view.players == 2:
            return None
        return mccfr.stored_strategy(view.rules, view.players)

    def table_fallback(self, rules: Rules, players: int) -> str | None:
        if rules.mode != "tactical" or self.strategy_path is not None:
            return None
        if players != 2:  # the file's header is enough: its table is loaded where it plays
            return None if mccfr.stored_path(rules, players) is not None else _unsolved(players)
        return deal_reason(rules, players, states_of, self.max_states,
                           f"max_states={self.max_states:,} sub-multisets")

    def why_not(self, view: HandView) -> str | None:
        """Why this view is not solved (None if it is)."""
        if view.players != 2:
            return _unsolved(view.players)
        if view.set_aside:
            return f"{view.set_aside} cards set aside: the opponent's hand is not known"
        for what, counts in (("my hand", hand_counts(view.rules, view.hand_ranks())),
                             ("the opponent's hand", np.array(view.unseen))):
            if states_of(counts) > self.max_states:
                return (f"{what} has {states_of(counts):,} sub-multisets, over max_states="
                        f"{self.max_states:,}")
        return None

    def strategy(self, view: HandView) -> tuple[DealStrategy, int]:
        """The solved deal and my seat in it."""
        mine = hand_counts(view.rules, view.hand_ranks())
        theirs = np.array(view.unseen, np.int64)
        if self.model is None:
            deal = solve(view.rules, mine, theirs, self.iterations, self.algorithm)
            return deal, deal.seat_of(mine)
        pair = (tuple(mine.tolist()), tuple(theirs.tolist()))
        mutual = self.response == "mutual"
        key = (view.rules, *(sorted(pair) if mutual else pair))
        if key not in self._responses:
            if len(self._responses) >= 8:
                self._responses.pop(next(iter(self._responses)))
            self._responses[key] = self._respond(view, mine, theirs)
        deal = self._responses[key]
        return deal, deal.seat_of(mine) if mutual else 0

    def _respond(self, view: HandView, mine: np.ndarray, theirs: np.ndarray) -> DealStrategy:
        if self.response == "mutual":
            return respond_mutual(view.rules, [list(view.hand), unseen_cards(view)],
                                  self.iterations, self.model, self.confidence,
                                  self.model_samples, self.algorithm)
        marg = model_marginals(view.rules, self.model, view, self.model_samples)
        return respond(view.rules, mine, theirs, self.iterations, marg, self.confidence,
                       self.algorithm)

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        start = time.perf_counter()
        table = self.table(view)
        if table is not None:
            order = table.sample(hand_counts(view.rules, view.hand_ranks()), rng)
            self.last_info = {"agent": "nash", "solved": True, "strategy": "stored",
                              "deals": table.deals,
                              "ms": (time.perf_counter() - start) * 1000.0}
            return cards_for_ranks(view.hand, order, view.ranks)
        reason = self.why_not(view)
        if reason is not None:
            self.last_info = {"agent": "nash", "solved": False, "reason": reason,
                              "fallback": self.fallback_spec}
            return self.fall_back("nash", view, rng, reason)
        deal, seat = self.strategy(view)
        us = rng.random((1, view.hand_size))
        order = nk.sample_orders(deal.avg[seat], deal.counts[seat], us)[0]
        self.last_info = {"agent": "nash", "solved": True, "algorithm": self.algorithm,
                          "iterations": deal.iterations,
                          "solve_seconds": deal.seconds,
                          "states": states_of(deal.counts[seat]),
                          "ms": (time.perf_counter() - start) * 1000.0}
        return cards_for_ranks(view.hand, order, view.ranks)

    def mix(self, view: HandView) -> Mix | None:
        """The whole order distribution, for hands of at most :data:`MIX_MAX_ORDERS` distinct
        orders (None otherwise, or where it falls back)."""
        ranks = view.hand_ranks()
        table = self.table(view)
        if kernels.count_orders(ranks) > MIX_MAX_ORDERS or (
                table is None and self.why_not(view) is not None):
            return None
        if table is not None:
            orders = kernels.distinct_orders(ranks)
            return _listed(view, orders, table.probs(hand_counts(view.rules, ranks), orders))
        deal, seat = self.strategy(view)
        orders = kernels.distinct_orders(ranks)
        return _listed(view, orders, nk.order_probs(deal.avg[seat], deal.counts[seat], orders))


def _unsolved(players: int) -> str:
    return (f"{players} players: no stored strategy for these rules and player count "
            "(pyanitsa solve-table makes one)")


def _listed(view: HandView, orders: np.ndarray, probs: np.ndarray) -> Mix:
    """The orders of positive probability as cards of ``view``'s hand, renormalised."""
    keep = probs > 0
    return [(tuple(cards_for_ranks(view.hand, o, view.ranks)), float(p))
            for o, p in zip(orders[keep], probs[keep] / probs[keep].sum(), strict=True)]
