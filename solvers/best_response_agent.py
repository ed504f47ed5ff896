"""``best_response``: the agent that exploits another (``best_response(target=SPEC)``).

It predicts the target's orders from the opponent's own view (the target run on it, or its
listed mix: :mod:`pyanitsa.solvers.mixes`) and plays the best response of
:mod:`pyanitsa.solvers.best_response` to them. With 3+ players or cards set aside it plays the
response of ``pyanitsa exploit --players N`` (:mod:`pyanitsa.solvers.exploitability_n`): the
best order over sampled worlds (the unseen cards dealt uniformly, each opponent ordered by the
target on its own view).
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from pyanitsa.agents.specs import make_agent, register
from pyanitsa.agents.warm import Warming, dummy_decision, warm_agent
from pyanitsa.cards import Card
from pyanitsa.protocol import BaseAgent, HandView, hand_view
from pyanitsa.rules import Rules
from pyanitsa.solvers.best_response import best_response
from pyanitsa.solvers.mixes import DEFAULT_SAMPLES, listed_mix, sampled_mix


@register("best_response")
class BestResponseAgent(Warming, BaseAgent):
    """Exploits ``target``: predicts its orders from the opponent's own view (the agent run on
    it, or its listed mix) and plays a best response to them (exact against one order, else
    search); with 3+ players or cards set aside, the best order over ``samples`` sampled worlds
    whose opponents the target orders.

    Parameters: ``target`` the agent spec to exploit; ``samples`` target calls (worlds) to
    predict it; ``objective`` ``margin`` (the score margin with two players, the score in
    cards with more) or ``win``; ``restarts`` of the local search.
    """

    def __init__(self, *, target: str = "random", samples: int = DEFAULT_SAMPLES,
                 objective: str = "margin", restarts: int = 4) -> None:
        if samples < 1 or restarts < 0:
            raise ValueError("samples must be at least 1 and restarts at least 0")
        if objective not in ("margin", "win"):
            raise ValueError(f"objective={objective!r}: margin or win")
        self.target_spec = target
        self.target = make_agent(target)
        self.samples = samples
        self.objective = objective
        self.restarts = restarts
        self.last_info: dict[str, Any] = {}

    def warm(self, rules: Rules, players: int) -> None:
        if rules.mode != "tactical":
            return
        warm_agent(self.target, rules, players)
        dummy_decision(self.lite(), rules, players)

    def lite(self) -> BestResponseAgent:
        """Three predictions of the target's lite copy: the same engine (dynamic programme,
        enumeration or search) as a real decision, in most deals, at a fraction of its cost."""
        lite = copy.copy(self)
        lite.samples = min(self.samples, 3)
        lite.restarts = min(self.restarts, 1)
        lite.last_info = {}
        lite_of = getattr(self.target, "lite", None)
        lite.target = lite_of() if callable(lite_of) else self.target
        return lite

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        from pyanitsa.agents.search import cards_for_ranks, unseen_cards

        start = time.perf_counter()
        if view.players != 2 or view.set_aside:
            order, info = self.table_response(view, rng)
            self.last_info = {**info, "ms": (time.perf_counter() - start) * 1000.0}
            return cards_for_ranks(view.hand, order, view.ranks)
        theirs = hand_view(view.rules, 1 - view.seat,
                           _hands(view.seat, list(view.hand), unseen_cards(view)), 0)
        listed = listed_mix(self.target, theirs)
        if listed is not None:
            mix = listed
        else:
            seeds = rng.integers(0, 2**63, self.samples)
            mix = sampled_mix(self.target, theirs, [int(s) for s in seeds])
        br = best_response(view.rules, view.hand_ranks(), mix, objective=self.objective,
                           rng=rng, restarts=self.restarts)
        self.last_info = {"agent": "best_response", "method": br.method,
                          "predicted": "mix" if listed else "sampled",
                          "distinct": mix.support, "value": br.value,
                          "ms": (time.perf_counter() - start) * 1000.0}
        return cards_for_ranks(view.hand, br.order, view.ranks)

    def table_response(self, view: HandView, rng: np.random.Generator
                       ) -> tuple[np.ndarray, dict[str, Any]]:
        """The best order over ``samples`` worlds (3+ players, or cards set aside)."""
        from pyanitsa.solvers.exploitability_n import payoff_weights, respond, sample_worlds

        def call_rng(_seat: int, _k: int) -> np.random.Generator:
            return np.random.default_rng(int(rng.integers(0, 2**63)))

        worlds = sample_worlds(view, self.target, self.samples, 0, rng, call_rng)
        weights = payoff_weights(self.objective)
        if view.players == 2 and self.objective == "margin":
            weights = (0.0, 1.0, 0.0)  # the two-player payoff: my score minus the other's
        br = respond(view.rules, view.hand_ranks(), worlds, weights, rng, self.restarts)
        return br.order, {"agent": "best_response", "method": br.method,
                          "worlds": len(worlds), "value": br.value}


def _hands(seat: int, mine: list[Card], theirs: list[Card]) -> list[list[Card]]:
    return [mine, theirs] if seat == 0 else [theirs, mine]
