"""What an agent plays in a tactical seat, as a distribution over rank orders.

A best response is fitted on an :class:`OrderMix`: either the whole distribution an agent lists
(:meth:`pyanitsa.protocol.BaseAgent.mix`, turned into ranks by :func:`rank_mix`) or a sample of
its orders (:func:`sampled_mix`), drawn with generators that reveal nothing of the deal
(:func:`sample_rng`). The solvers' best responses, exploitability and the ``best_response``
agent all read an agent this way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyanitsa.agents.seeding import AgentKey, agent_seed, key_from_seed
from pyanitsa.cards import Card
from pyanitsa.errors import PyanitsaError
from pyanitsa.protocol import HandView
from pyanitsa.rng import MASK64, derive_seed

DEFAULT_SAMPLES = 128
"""Agent calls per deal and seat that a best response is fitted on (when not listed)."""


@dataclass(frozen=True)
class OrderMix:
    """A distribution over rank orders of one hand (``orders[i]`` with ``probs[i]``)."""

    orders: np.ndarray
    """Distinct rank orders, one per row (``int8`` rank indices, first played first)."""
    probs: np.ndarray
    """Their probabilities (sum 1)."""
    exact: bool
    """True if this is the agent's whole distribution, False if a sample of it."""

    @classmethod
    def of(cls, orders: Iterable[Sequence[int]], weights: Iterable[float] | None = None, *,
           exact: bool) -> OrderMix:
        """Merge repeated orders; ``weights`` default to one per order given."""
        rows = [tuple(int(r) for r in o) for o in orders]
        ws = [1.0] * len(rows) if weights is None else [float(w) for w in weights]
        if not rows or len(ws) != len(rows) or min(ws) < 0 or sum(ws) <= 0:
            raise PyanitsaError("a mix needs at least one order and non-negative weights")
        merged: dict[tuple[int, ...], float] = {}
        for row, w in zip(rows, ws, strict=True):
            merged[row] = merged.get(row, 0.0) + w
        keep = [(row, w) for row, w in merged.items() if w > 0]
        p = np.array([w for _, w in keep], np.float64)
        return cls(np.array([row for row, _ in keep], np.int8), p / p.sum(), exact)

    @property
    def support(self) -> int:
        return len(self.probs)

    def likeliest(self, k: int) -> np.ndarray:
        return self.orders[np.argsort(-self.probs, kind="stable")[:k]]


def rank_mix(view: HandView, pairs: Sequence[tuple[Sequence[Card], float]]) -> OrderMix:
    rank_of = view.ranks.rank_of
    return OrderMix.of([[rank_of[c] for c in o] for o, _ in pairs], [p for _, p in pairs],
                       exact=True)


SAMPLE = b"exploit:"
"""Purpose prefix of the sampled agent's generators (then the call's index, 8 bytes)."""


def sample_rng(seed: int, deal_index: int, seat: int, k: int,
               key: AgentKey | None = None) -> np.random.Generator:
    """The generator of call ``k`` of the agent in ``seat`` of deal ``deal_index``: keyed and
    one-way (:func:`pyanitsa.agents.seeding.agent_seed` over the deal's game seed
    ``derive_seed(seed, deal_index)``, with the key ``key_from_seed(seed)`` by default), so it
    reveals nothing of the deal; the same for the same ``seed``."""
    if key is None:
        key = key_from_seed(seed)
    purpose = SAMPLE + (k & MASK64).to_bytes(8, "little")
    return np.random.default_rng(agent_seed(derive_seed(seed, deal_index), seat, key,
                                            purpose=purpose))


def listed_mix(agent: Any, view: HandView) -> OrderMix | None:
    """The whole distribution the agent lists for ``view`` (:meth:`BaseAgent.mix`), in ranks;
    None if it lists none."""
    listed = agent.mix(view) if hasattr(agent, "mix") else None
    return rank_mix(view, listed) if listed else None


def call_agent(agent: Any, views: Sequence[HandView], rngs: Sequence[np.random.Generator]
               ) -> list[Sequence[Card]]:
    """The agent's orders, one call per view (batched where the agent batches, as learned
    policies do)."""
    batched = getattr(agent, "order_hands", None)
    if batched is not None and views:
        return list(batched(list(views), list(rngs)))
    return [agent.order_hand(v, r) for v, r in zip(views, rngs, strict=True)]


def sampled_mix(agent: Any, view: HandView, seeds: Sequence[int | np.random.Generator]
                ) -> OrderMix:
    """The agent's orders, one call per seed or generator."""
    rank_of = view.ranks.rank_of
    rngs = [s if isinstance(s, np.random.Generator) else np.random.default_rng(s)
            for s in seeds]
    orders = call_agent(agent, [view] * len(rngs), rngs)
    return OrderMix.of([[rank_of[c] for c in o] for o in orders], exact=False)
