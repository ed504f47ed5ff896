"""The flat observation of one seat in a classic game (:class:`ClassicLayout`), shared by
``pyanitsa/Classic-v0`` and the multi-agent classic env."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces

from pyanitsa.cards import Card
from pyanitsa.classic_view import ClassicView
from pyanitsa.envs._common import layout
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules


class ClassicLayout:
    """The flat observation of one seat in a classic game; every entry lies in ``[0, 1]``.

    ``R`` ranks, ``D`` cards in the deck, ``P`` players; per-player entries are player-relative
    (index 0 is the observing seat, then clockwise):

    ==============  =======  ==========================================================
    slice           size     value
    ==============  =======  ==========================================================
    ``table``       R        cards of each rank left to place / copies in the deck
    ``future``      D × R    one-hot rank of each of my next cards that I know, by
                             position in the order I will play them: the tail of my stack
                             that I placed, then my won pile, then the cards placed so far
                             from this table (unknown positions are all zero)
    ``stacks``      P        stack sizes / D
    ``piles``       P        won-pile sizes / D
    ``in_game``     P        1 for players still in the game
    ``seen``        R        cards of each rank turned face up so far, ``x / (x + copies)``
    ``seat``        P        one-hot seat
    ``players``     1        players / 8
    ``rounds``      1        rounds begun / ``max_rounds``
    ==============  =======  ==========================================================
    """

    def __init__(self, rules: Rules, players: int) -> None:
        table = rank_table(rules)
        self.rules = rules
        self.players = players
        self.ranks = r = table.num_ranks
        self.deck_size = d = rules.deck.size
        sizes = {"table": r, "future": d * r, "stacks": players, "piles": players,
                 "in_game": players, "seen": r, "seat": players, "players": 1, "rounds": 1}
        self.slices, self.size = layout(sizes)
        self.rank_of = table.rank_of
        self.counts = table.counts
        self.labels = table.labels
        self.counts_np = np.asarray(table.counts, dtype=np.float32)
        self.future_start = self.slices["future"].start

    def space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (self.size,), np.float32)

    def build(self, out: np.ndarray, view: ClassicView, left: Sequence[int] | None = None,
              placed: Sequence[Card] = ()) -> int:
        """Write the observation of ``view``'s seat into ``out``; returns the position of its
        next placed card.

        ``left`` (cards of each rank left to place) and ``placed`` describe the table the seat
        is ordering, if any.
        """
        out.fill(0.0)
        sl = self.slices
        r, d, p = self.ranks, self.deck_size, self.players
        if left is not None:
            out[sl["table"]] = np.asarray(left, dtype=np.float32) / self.counts_np
        rank_of = self.rank_of
        seat = view.seat
        known = view.known_tail
        pos = view.stack_sizes[seat] - len(known)
        base = self.future_start
        for c in (*known, *view.my_pile, *placed):
            out[base + pos * r + rank_of[c]] = 1.0
            pos += 1
        order = [(seat + i) % p for i in range(p)]
        out[sl["stacks"]] = [view.stack_sizes[s] / d for s in order]
        out[sl["piles"]] = [view.pile_sizes[s] / d for s in order]
        out[sl["in_game"]] = [1.0 if view.in_game[s] else 0.0 for s in order]
        seen_start = sl["seen"].start
        for rank, x in enumerate(view.seen):
            out[seen_start + rank] = x / (x + self.counts[rank])
        out[sl["seat"].start + seat] = 1.0
        out[sl["players"]] = p / 8
        out[sl["rounds"]] = min(view.rounds / view.rules.max_rounds, 1.0)
        return pos
