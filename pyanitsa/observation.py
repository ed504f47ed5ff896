"""The flat observation of a tactical seat ordering its hand, rank by rank.

The environments (``pyanitsa.envs``) and the ``ppo:`` policy agent (``pyanitsa.agents``) both
encode a seat this way, so it lives in the core: a trained policy plays with numpy alone,
without gymnasium or torch (``pyanitsa.envs.tactical`` adds the Gymnasium space).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pyanitsa.cards import Card, Seat
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules


def layout(sizes: Mapping[str, int]) -> tuple[dict[str, slice], int]:
    """Consecutive slices of a flat observation, one per named part, and the total size."""
    slices: dict[str, slice] = {}
    start = 0
    for name, size in sizes.items():
        slices[name] = slice(start, start + size)
        start += size
    return slices, start


class TacticalLayout:
    """The flat observation of one seat ordering its hand; every entry lies in ``[0, 1]``.

    ``R`` ranks (jokers included), hands of ``n`` cards, ``P`` players:

    ======================  ===========  ====================================================
    slice                   size         value
    ======================  ===========  ====================================================
    ``hand``                R            cards of each rank still in hand / copies in the deck
    ``order``               n × R        one-hot rank of each position of the order so far
    ``unseen``              R            cards of each rank not in my hand / copies in the deck
    ``deck``                R            copies of each rank in the deck / the most copies
    ``seat``                P            one-hot seat
    ``players``             1            players / 8
    ======================  ===========  ====================================================
    """

    def __init__(self, rules: Rules, players: int) -> None:
        table = rank_table(rules)
        self.rules = rules
        self.players = players
        self.ranks = table.num_ranks
        self.hand_size = rules.deck.size // players
        """Cards per hand (``deal: equal``)."""
        self.set_aside = rules.deck.size - self.hand_size * players
        r, n, p = self.ranks, self.hand_size, players
        sizes = {"hand": r, "order": n * r, "unseen": r, "deck": r, "seat": p, "players": 1}
        self.slices, self.size = layout(sizes)
        self.rank_of = table.rank_of
        self.counts = table.counts
        self.inv_counts = [1.0 / c for c in table.counts]
        self._copies = np.asarray(table.counts, dtype=np.float32)
        self.labels = table.labels
        template = np.zeros(self.size, dtype=np.float32)
        counts = np.asarray(table.counts, dtype=np.float32)
        template[self.slices["deck"]] = counts / counts.max()
        template[self.slices["players"]] = players / 8
        self.template = template
        self.order_start = self.slices["order"].start
        self.seat_start = self.slices["seat"].start
        self.unseen_slice = self.slices["unseen"]


    def log_prior(self, obs: np.ndarray) -> np.ndarray:
        """``log`` of the cards of each rank in hand, per row of ``obs``: added to a policy's
        logits (``prior: hand``), it makes a network whose outputs are all equal play a uniformly
        random order of the *cards* (a rank with three cards left three times as likely as one
        with a single card), as ``random`` does; ranks with no card left get ``log(1e-6)``
        (they are masked anyway)."""
        counts = np.asarray(obs)[..., self.slices["hand"]] * self._copies
        return np.log(np.maximum(counts, PRIOR_FLOOR))


    def last_played(self, obs: np.ndarray) -> np.ndarray:
        """``(batch, R + 1)``: the one-hot rank of the card placed last (zeros before the
        first) and the share of the hand placed so far, per row of ``obs``.

        Both are in the ``order`` slice already, but a network must find the position to read
        there; given directly they halve how far a distilled policy stays from ``nash``, whose
        strategy is a function of (ranks still held, rank played last) (BENCHMARKS.md,
        "Training toward equilibrium"). The torch twin is
        :class:`pyanitsa.policies.prior.LastPlayed`.
        """
        x = np.asarray(obs, np.float32).reshape(-1, self.size)
        order = x[:, self.slices["order"]].reshape(len(x), self.hand_size, self.ranks)
        placed = order.sum(axis=(1, 2)).round().astype(np.int64)
        last = order[np.arange(len(x)), np.maximum(placed - 1, 0)] * (placed > 0)[:, None]
        return np.concatenate([last, (placed / self.hand_size)[:, None]], axis=1,
                              dtype=np.float32)

    def features(self, obs: np.ndarray, kind: str) -> np.ndarray:
        """What a network of :data:`FEATURES` ``kind`` reads: ``obs`` itself, or ``obs`` with
        :meth:`last_played` after it."""
        if kind == "obs":
            return np.asarray(obs)
        x = np.asarray(obs, np.float32).reshape(-1, self.size)
        return np.concatenate([x, self.last_played(x)], axis=1)

    def feature_size(self, kind: str) -> int:
        return self.size + (self.ranks + 1 if kind == "last" else 0)


FEATURES = ("obs", "last")
"""What a policy network reads: the observation (``obs``), or the observation followed by
the rank played last and the share placed (``last``, :meth:`TacticalLayout.last_played`)."""

PRIOR_FLOOR = 1e-6
"""The count :meth:`TacticalLayout.log_prior` gives a rank with no card left."""


class TacticalSeat:
    """One seat choosing its order rank by rank: its observation, mask and chosen order.

    The Gymnasium env (the learner's seat), the PettingZoo env (every seat) and the ``ppo:``
    agent use it, so a policy sees in play exactly what it saw in training.
    """

    __slots__ = ("layout", "seat", "left", "ranks", "obs", "mask", "illegal", "_hand",
                 "_by_rank", "_cursor", "_nranks", "_inv", "_inv64", "_copies64")

    def __init__(self, layout: TacticalLayout) -> None:
        self.layout = layout
        self._nranks = layout.ranks
        self._inv = tuple(layout.inv_counts)
        self._inv64 = np.asarray(layout.inv_counts, dtype=np.float64)
        self._copies64 = np.asarray(layout.counts, dtype=np.int64)
        self._cursor = layout.order_start
        """Where the next position of the order starts in the observation."""
        self.seat = 0
        self.left: list[int] = [0] * layout.ranks
        """Cards of each rank still in hand."""
        self._hand: tuple[Card, ...] = ()
        """The hand as dealt."""
        self._by_rank: list[list[Card]] | None = []
        self.ranks: list[int] = []
        """The order so far, as ranks."""
        self.obs = np.zeros(layout.size, dtype=np.float32)
        self.mask = np.zeros(layout.ranks, dtype=bool)
        self.illegal = False
        """Whether the last action was illegal (and replaced by the lowest legal rank)."""

    def deal(self, seat: Seat, hand: Sequence[Card], left: np.ndarray | None = None) -> None:
        """Start a hand; ``left``, its cards of each rank (int64), when the caller has them."""
        lay = self.layout
        if left is None:
            rank_of = lay.rank_of
            counts = [0] * self._nranks
            for c in hand:
                counts[rank_of[c]] += 1
            left = np.asarray(counts, dtype=np.int64)
        self.seat = seat
        self.left = left.tolist()
        self._hand = tuple(hand)
        self._by_rank = None  # built when first asked for: only a finished order needs cards
        self.ranks = []
        self.illegal = False
        self._cursor = lay.order_start
        obs = self.obs
        np.copyto(obs, lay.template)
        # in float64, then stored: the same float32 values as ``n * (1 / copies)`` in Python
        obs[:self._nranks] = left * self._inv64
        obs[lay.unseen_slice] = (self._copies64 - left) * self._inv64
        obs[lay.seat_start + seat] = 1.0
        self.mask[:] = left

    def __setstate__(self, state: Any) -> None:
        # a seat pickled by an older version (a training checkpoint) lacks the newer slots:
        # they take their defaults, and its eager ``by_rank`` goes through the setter; slots
        # it has that are gone (``_counts``) were caches of the layout, rebuilt by __init__
        slots = state[1] if isinstance(state, tuple) else state
        self.__init__(slots["layout"])  # type: ignore[misc]
        for name, value in slots.items():
            if name in self.__slots__ or name == "by_rank":
                setattr(self, name, value)

    @property
    def by_rank(self) -> list[list[Card]]:
        """The cards of each rank not yet taken by :meth:`order`, in the order dealt."""
        if self._by_rank is None:
            rank_of = self.layout.rank_of
            by_rank: list[list[Card]] = [[] for _ in range(self._nranks)]
            for c in self._hand:
                by_rank[rank_of[c]].append(c)
            self._by_rank = by_rank
        return self._by_rank

    @by_rank.setter
    def by_rank(self, value: list[list[Card]]) -> None:
        self._by_rank = value

    @property
    def done(self) -> bool:
        return len(self.ranks) == self.layout.hand_size

    def play(self, action: Any) -> int:
        """Put a card of rank ``action`` next in the order; returns the rank played.

        An action that is not an integer rank with a card left plays the lowest rank in hand
        instead and sets :attr:`illegal`.
        """
        left = self.left
        try:
            r = operator.index(action)
            n = left[r] - 1 if r >= 0 else -1
        except (TypeError, IndexError):
            n = -1
        self.illegal = illegal = n < 0
        if illegal:
            r = next((i for i, k in enumerate(left) if k), -1)
            if r < 0:
                raise RuntimeError("the order is already complete: call reset()")
            n = left[r] - 1
        left[r] = n
        obs = self.obs
        obs[r] = n * self._inv[r]
        obs[self._cursor + r] = 1.0
        self._cursor += self._nranks
        if not n:
            self.mask[r] = False
        self.ranks.append(r)
        return r

    def order(self) -> list[Card]:
        """The chosen order as cards (complete orders only); consumes the per-rank card lists:
        within a rank, the card dealt last goes first."""
        by_rank = self.by_rank
        return [by_rank[r].pop() for r in self.ranks]
