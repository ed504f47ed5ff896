"""``features: model``: the network also reads what an opponent model plays against it.

A restricted Nash response (``distill.model``, :func:`pyanitsa.solvers.cfr.respond`) is a
function of the model's *pair marginals*: the chance that the model plays rank ``y`` at the
showdown about to come, and the chance that it plays ``y`` there after tying the rank I played
last (a tie carries the pot, so that pair decides the most cards). A network given only the
observation has to rebuild those marginals from the opponent's hand; given them as inputs, it
fits a response's teacher more closely (BENCHMARKS.md, "Restricted response at p = 0.15").

The marginals are a pure function of the observation: the opponent's hand is the ``unseen``
slice (two players, ``deal: equal``), my dealt hand is the ``hand`` slice plus the ranks of the
``order`` so far, and :func:`pyanitsa.solvers.cfr.model_marginals` seeds the model's generators
with the hands. So a policy computes in play exactly what it was fitted on, once a deal (a
bounded cache keeps the last deals' marginals).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from pyanitsa.observation import TacticalLayout
from pyanitsa.policies.meta import OPPONENT_MODELS, is_opponent_model
from pyanitsa.protocol import view_for
from pyanitsa.ranks import rank_table

CACHE_DEALS = 4096
"""Hands whose marginals are kept (about 14 KB each in tactical 36), per rules and model."""

_CACHES: dict[tuple[Any, str], OrderedDict[bytes, tuple[np.ndarray, np.ndarray]]] = {}
"""One cache per (rules, model) for the whole process, not one per network: the members of
an ensemble read the same marginals of the same hand, and each computing its own doubled the
policy's time a hand (the marginals are most of it)."""


class ModelFeatures:
    """``(batch, 2R)`` model features of observations: ``P(b_t = y)`` and
    ``P(b_{t-1} = last, b_t = y)`` at the position ``t`` about to be placed."""

    def __init__(self, layout: TacticalLayout, model: str) -> None:
        from pyanitsa.agents.specs import make_agent

        if not is_opponent_model(model):
            raise ValueError(f"opponent_model {model!r} is not one of "
                             f"{', '.join(OPPONENT_MODELS)}")
        if layout.players != 2 or layout.set_aside:
            raise ValueError(f"features: model reads the opponent's hand from the unseen "
                             f"cards: two players and no set-aside cards, not "
                             f"{layout.players} players with {layout.set_aside} set aside")
        self.layout = layout
        self.model = make_agent(model)
        self._cache_key = (layout.rules, model)
        table = rank_table(layout.rules)
        self._copies = np.asarray(table.counts, np.float32)
        self._cards = [[c for c, r in enumerate(table.rank_of) if r == rank]
                       for rank in range(layout.ranks)]

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        lay = self.layout
        r, n = lay.ranks, lay.hand_size
        x = np.asarray(obs, np.float32).reshape(-1, lay.size)
        order = x[:, lay.slices["order"]].reshape(len(x), n, r)
        placed = order.sum(axis=(1, 2)).round().astype(np.int64)
        played = order.sum(axis=1)
        dealt = np.rint(x[:, lay.slices["hand"]] * self._copies + played).astype(np.int64)
        seats = x[:, lay.slices["seat"]].argmax(1)
        rows = np.arange(len(x))
        last = np.where(placed > 0, order[rows, np.maximum(placed - 1, 0)].argmax(1), r)
        out = np.zeros((len(x), 2 * r), np.float32)
        keys, inverse = np.unique(np.column_stack([seats, dealt]), axis=0, return_inverse=True)
        for k, key in enumerate(keys):
            one, two = self._marginals(int(key[0]), key[1:])
            j = np.flatnonzero(inverse.reshape(-1) == k)
            t = np.minimum(placed[j], len(one) - 1)
            out[j, :r] = one[t]
            out[j, r:] = two[t, last[j]] * (placed[j] > 0)[:, None]
        return out

    def _marginals(self, seat: int, dealt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The model's pair marginals against the hand ``dealt`` (cards of each rank)."""
        from pyanitsa.solvers import cfr as nash

        cache = _CACHES.get(self._cache_key)
        if cache is None:  # not setdefault: that would build a dict on every call
            cache = _CACHES[self._cache_key] = OrderedDict()
        key = bytes([seat, *dealt.tolist()])
        hit = cache.get(key)
        if hit is not None:
            cache.move_to_end(key)
            return hit
        hand = [c for rank, k in enumerate(dealt) for c in self._cards[rank][:k]]
        mine = view_for(self.layout.rules, seat, 2, hand, 0)
        hit = nash.model_marginals(self.layout.rules, self.model, mine, nash.MODEL_SAMPLES)
        cache[key] = hit
        if len(cache) > CACHE_DEALS:
            cache.popitem(last=False)
        return hit

