"""The opponent pool of ``pyanitsa train``: the agent at every opponent seat of every env."""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from pyanitsa.agents.specs import make_agent
from pyanitsa.cards import Card
from pyanitsa.protocol import Agent, BaseAgent, HandView


class OpponentPool(BaseAgent):
    """An agent that orders each hand as one pool member drawn by weight (with the game's rng).

    Pickles as its specs and weights only; members are built on first use in each process (a
    ``ppo:`` snapshot loads its frozen weights there).
    """

    def __init__(self, entries: Sequence[tuple[str, float]]) -> None:
        if not entries:
            raise ValueError("an opponent pool needs at least one member")
        self.entries = [(str(s), float(w)) for s, w in entries]
        total = sum(w for _, w in self.entries)
        self.probs = np.array([w / total for _, w in self.entries])
        self._agents: list[Agent] | None = None
        self.spec = "pool(" + ", ".join(f"{s}:{w:g}" for s, w in self.entries) + ")"

    def __getstate__(self) -> dict[str, Any]:
        return {"entries": self.entries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["entries"])  # type: ignore[misc]

    @property
    def agents(self) -> list[Agent]:
        if self._agents is None:
            with generators_untouched():
                self._agents = [make_agent(s) for s, _ in self.entries]
        return self._agents

    def order_hand(self, view: HandView, rng: np.random.Generator) -> Sequence[Card]:
        i = int(rng.choice(len(self.entries), p=self.probs)) if len(self.entries) > 1 else 0
        return self.agents[i].order_hand(view, rng)


@contextlib.contextmanager
def generators_untouched() -> Iterator[None]:
    """Building a ``ppo:`` member initialises a network (then loads the snapshot's weights),
    drawing from torch's global generator; when that happens depends on when an env first
    meets the member, so it must not move the run's generators (a resumed run would diverge)."""
    torch = sys.modules.get("torch")
    state = (random.getstate(), np.random.get_state(),
             torch.get_rng_state() if torch is not None else None)
    try:
        yield
    finally:
        random.setstate(state[0])
        np.random.set_state(state[1])
        if torch is not None:
            torch.set_rng_state(state[2])


__all__ = ["OpponentPool", "generators_untouched"]
