"""What plays a tactical env's game: the reference engine or the compiled batch core."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from pyanitsa.cards import Card, Seat
from pyanitsa.dealing import deal_from_seed
from pyanitsa.ranks import rank_table
from pyanitsa.results import TacticalResult, Termination
from pyanitsa.rules import Rules
from pyanitsa.tactical import TacticalGame

ENGINES = ("auto", "batch", "reference")


class TacticalScorer:
    """Plays complete orders to a :class:`TacticalResult`: the reference engine, or the compiled
    batch core (``pyanitsa.batch``, about seven times faster per game) when it is available.

    ``engine="auto"`` uses the batch core unless it cannot be imported (numba missing), then the
    reference engine; :attr:`engine` says which. Any other failure of the batch core raises:
    the engines' agreement is for the parity tests to show, not for a constructor to test.
    """

    def __init__(self, rules: Rules, players: int, engine: str = "auto") -> None:
        if engine not in ENGINES:
            raise ValueError(f"engine: {engine!r} is not one of {', '.join(ENGINES)}")
        self.rules = rules
        self.players = players
        self._setup_deal()
        self.engine = "reference"
        if engine != "reference":
            try:
                self._setup_batch()
            except ImportError as exc:
                if engine == "batch":
                    raise ValueError(f"engine: the batch core is unavailable ({exc})") from exc
            else:
                self.engine = "batch"

    def __getstate__(self) -> dict[str, Any]:
        # the compiled module does not pickle: rebuild the batch set-up on unpickling
        return {"rules": self.rules, "players": self.players, "engine": self.engine}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._setup_deal()
        if self.engine == "batch":
            self._setup_batch()

    def _setup_deal(self) -> None:
        self._key_table = sort_keys(self.rules)
        n = self.rules.deck.size // self.players
        self._cards = np.zeros((self.players, n), np.int64)
        self._by_view = np.zeros((self.players, n), np.int64)
        self._counts = np.zeros((self.players, rank_table(self.rules).num_ranks), np.int64)

    def deal_hands(self, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The hands of ``deal_from_seed(rules, players, seed)``: ``(cards, by_view, counts)``,
        each seat's cards in the order dealt (``[players, n]``), the same sorted as its view
        sorts them (weakest rank first, then by card), and its cards of each rank
        (``[players, ranks]``); arrays overwritten by the next deal."""
        if self.engine == "batch":
            self._deal_hands(np.uint64(seed), *self._deal_args)
            return self._cards, self._by_view, self._counts
        size = self.rules.deck.size
        keys = self._key_table[np.array(deal_from_seed(self.rules, self.players, seed).seats)]
        self._cards[:] = keys % size
        self._by_view[:] = np.sort(keys, axis=1) % size
        self._counts[:] = 0
        for p, row in enumerate(keys // size):
            np.add.at(self._counts[p], row, 1)
        return self._cards, self._by_view, self._counts

    def play(self, orders: Sequence[Sequence[Card]]) -> TacticalResult:
        if self.engine == "batch":
            return self._play_batch(orders)
        return TacticalGame(self.rules, orders).play()

    def _setup_batch(self) -> None:
        from pyanitsa.batch import tactical as core
        from pyanitsa.batch.encode import params, strength_table

        rules, players = self.rules, self.players
        n = rules.deck.size // players
        self._strength = strength_table(rules)
        self._hands = np.zeros((players, n), dtype=self._strength.dtype)
        self._lens = np.full(players, n, dtype=np.int64)
        self._scores = np.zeros((1, core.PMAX), np.int64)
        self._wins = np.zeros((1, core.PMAX), np.bool_)
        self._out = np.zeros((1, core.N_TRESULT), np.int64)
        self._scratch = core.hand_scratch(self._hands)
        self._core = core
        self._flat_hands = self._hands.reshape(-1)
        self._play_args = (self._hands, self._lens, players, params(rules), self._scores,
                           self._wins, self._out, 0, *self._scratch)
        # the batch simulations' deal, with the key table for the "strengths" dealt
        from pyanitsa.batch.deals import deal_hands

        size = rules.deck.size
        dealer_fixed = -1 if rules.dealer == "random" else int(rules.dealer)
        self._deal_hands = deal_hands
        self._deal_args = (np.int64(players), np.int64(size), np.int64(dealer_fixed),
                           np.zeros(size, np.int64), self._key_table,
                           np.zeros((players, n), np.int64), np.zeros(players, np.int64),
                           self._cards, self._by_view, self._counts)

    def play_ranks(self, orders: Sequence[Sequence[Card]], seat: Seat,
                   ranks: Sequence[int]) -> TacticalResult:
        """:meth:`play` with seat ``seat``'s order given as ranks, weakest 0 (batch engine):
        a card's strength is its rank's index (:func:`pyanitsa.batch.encode.strength_table`),
        so an env never builds the learner's cards unless asked for the record."""
        hands, strength = self._hands, self._strength
        for s, order in enumerate(orders):
            hands[s] = ranks if s == seat else strength[order]
        return self._play_held()

    def _play_batch(self, orders: Sequence[Sequence[Card]]) -> TacticalResult:
        # one conversion of all the orders to an array, not one per seat
        self._flat_hands[:] = self._strength[list(chain.from_iterable(orders))]
        return self._play_held()

    def _play_held(self) -> TacticalResult:
        """Play the hands in ``_hands``; the result as the reference engine gives it."""
        self._core.play_hands(*self._play_args)
        # api.tactical_result's fields, read with one tolist() per array instead of a numpy
        # scalar per field (a tenth of an episode's time)
        players = self.players
        out = self._out[0].tolist()
        wins = self._wins[0].tolist()
        winners = tuple(s for s in range(players) if wins[s])
        return TacticalResult(Termination.WIN if len(winners) == 1 else Termination.DRAW,
                              winners, tuple(self._scores[0].tolist()[:players]),
                              out[self._core.T_REMOVED], out[self._core.T_ROUNDS],
                              out[self._core.T_SHOWDOWNS])


def sort_keys(rules: Rules) -> np.ndarray:
    """``rank * deck + card`` for every card: keys in the order a view sorts its hand."""
    size = rules.deck.size
    return np.asarray([r * size + c for c, r in enumerate(rank_table(rules).rank_of)],
                      np.int64)
