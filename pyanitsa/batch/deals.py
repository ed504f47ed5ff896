"""``Record.dealt`` compiled: the same seeded deal, bit for bit, for callers that deal one game
at a time in a hot loop: :class:`SeededDealer` gives the record, :func:`deal_hands` the hands
as arrays, sorted and counted too (``Tactical-v0`` deals every episode with it).

The deal is :func:`pyanitsa.batch.rng.deal_s`, the one the batch simulations use; dealing the
identity "strength" table makes it hand out the cards themselves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pyanitsa.batch.rng import deal_s
from pyanitsa.records import Record
from pyanitsa.rng import MASK64
from pyanitsa.rules import Rules


@njit(cache=True, _nrt=False)
def deal_cards(seed, players, deck_size, equal, dealer_fixed, cards, ident, seats, seat_len):
    """Deal game ``seed`` into ``seats``/``seat_len``; returns ``(state after, dealer)``."""
    return deal_s(seed, players, deck_size, equal, dealer_fixed, cards, ident, seats, seat_len)


@njit(cache=True, _nrt=False)
def deal_hands(seed, players, deck_size, dealer_fixed, scratch, keys, keyed, seat_len, cards,
               by_view, counts):
    """A tactical deal (equal hands) of game ``seed`` dealt as sort keys ``rank * deck + card``
    into ``keyed`` (the env's key table as the "strengths"), then each seat's hand as cards in
    the order dealt (``cards``), as cards sorted the way its view sorts them (``by_view``), and
    its cards of each rank (``counts``): what an env's reset reads, in one call."""
    deal_s(seed, players, deck_size, True, dealer_fixed, scratch, keys, keyed, seat_len)
    n = keyed.shape[1]
    for p in range(players):
        counts[p, :] = 0
        for i in range(n):
            k = keyed[p, i]
            cards[p, i] = k % deck_size
            counts[p, k // deck_size] += 1
            j = i  # insertion sort of the keys: hands are short
            while j > 0 and by_view[p, j - 1] > k:
                by_view[p, j] = by_view[p, j - 1]
                j -= 1
            by_view[p, j] = k
        for i in range(n):
            by_view[p, i] %= deck_size


class SeededDealer:
    """``SeededDealer(rules, players)(seed) == Record.dealt(rules, players, seed)``, with its
    scratch arrays built once."""

    __slots__ = ("rules", "players", "_args", "_seats", "_lens", "_classic", "_keep_state")

    def __init__(self, rules: Rules, players: int) -> None:
        rules.check_players(players)
        size = rules.deck.size
        self.rules = rules
        self.players = players
        self._seats = np.zeros((players, -(-size // players)), np.int64)
        self._lens = np.zeros(players, np.int64)
        dealer_fixed = -1 if rules.dealer == "random" else int(rules.dealer)
        self._args = (np.int64(players), np.int64(size), rules.deal == "equal",
                      np.int64(dealer_fixed), np.zeros(size, np.int64), np.arange(size),
                      self._seats, self._lens)
        self._classic = rules.mode == "classic"
        self._keep_state = rules.random_play

    def __call__(self, seed: int) -> Record:
        state, dealer = deal_cards(np.uint64(seed & MASK64), *self._args)
        rows = self._seats.tolist()
        seats = tuple(tuple(row[:n]) for row, n in zip(rows, self._lens.tolist(), strict=True))
        return Record(self.rules, seats, dealer=int(dealer) if self._classic else None,
                      seed=int(state) if self._keep_state else None)
