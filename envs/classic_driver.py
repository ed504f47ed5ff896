"""The driver of ``pyanitsa/Classic-v0`` and the multi-agent classic env: it plays a classic game
round by round and collects, one rank per step, the pickup orders of the seats whose decisions come
from outside. The game waits mid-round for them (:meth:`ClassicGame.begin_round`, then
:meth:`ClassicGame.finish_round` with the order placed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pyanitsa.cards import Card, Seat
from pyanitsa.classic import ClassicGame, PickupRequest
from pyanitsa.envs._common import (
    action_index,
    lowest_legal,
    seeded_deal,
)
from pyanitsa.envs.classic_layout import ClassicLayout
from pyanitsa.errors import InvalidRulesError
from pyanitsa.orders import check_order
from pyanitsa.protocol import Agent, pickup_view
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules

MAX_DEALS = 100
"""Deals tried at reset before giving up on rules that never ask for a decision."""


class ClassicDriver:
    """Plays a classic game whose outside seats order their tables one rank per call.

    ``agents[s]`` orders seat ``s``'s pickups, or is ``None`` for a seat whose decisions come
    through :meth:`place`. A table whose cards are all of one rank needs no decision: it goes
    under the stack as it lay on the table.
    """

    def __init__(self, rules: Rules, agents: Sequence[Agent | None]) -> None:
        self.rules = rules
        self.players = len(agents)
        self.layout = ClassicLayout(rules, self.players)
        self.agents = list(agents)
        self.outside = [s for s, a in enumerate(agents) if a is None]
        self.agent_rng: np.random.Generator | None = None
        self.game: ClassicGame | None = None
        self.dealer = 0
        self.stacks: tuple[tuple[Card, ...], ...] = ()
        self.play_seed: int | None = None
        self.deal_seed = 0
        """The seed of the current deal: ``Record.dealt(rules, players, deal_seed)``."""
        self.skipped = 0
        """Deals skipped at the last start because nobody outside had a decision to make."""
        self.pending: PickupRequest | None = None
        """The table an outside seat is ordering (the game waits mid-round for it)."""
        self.left: list[int] = [0] * self.layout.ranks
        self.queue: list[list[Card]] = []
        self.placed: list[Card] = []
        self.obs = np.zeros(self.layout.size, dtype=np.float32)
        """The deciding seat's observation, updated as it places cards."""
        self.mask = np.zeros(self.layout.ranks, dtype=bool)
        self.illegal = False
        self._next_pos = 0

    # -- the game -------------------------------------------------------------------------------

    @property
    def seat(self) -> Seat | None:
        """The seat that must place a card, or ``None`` once the game is over."""
        return self.pending.seat if self.pending is not None else None

    @property
    def result(self) -> ClassicResult | None:
        return self.game.result if self.game is not None else None

    def start(self, rng: np.random.Generator) -> Seat:
        """Deal from ``rng`` and play up to the first outside decision; returns its seat.

        Deals in which no outside seat ever has a decision are skipped (such a game carries no
        decision to learn from); :attr:`skipped` counts them.
        """
        self.agent_rng = rng
        self.skipped = 0
        for _ in range(MAX_DEALS):
            self.deal_seed, dealt = seeded_deal(self.rules, self.players, rng)
            self.dealer, self.stacks, self.play_seed = dealt.dealer, dealt.seats, dealt.seed
            self.game = ClassicGame(self.rules, dealt.seats, dealer=dealt.dealer,
                                    rng=Rng(self.play_seed) if self.play_seed is not None
                                    else None)
            seat = self._advance()
            if seat is not None:
                return seat
            self.skipped += 1
        raise InvalidRulesError(f"{MAX_DEALS} deals in a row asked no decision of seats "
                                f"{self.outside}: these rules and players leave nothing to learn")

    def _advance(self) -> Seat | None:
        """Play rounds until an outside seat must decide (its seat) or the game ends (None)."""
        self.pending = None
        game = self.game
        assert game is not None
        while game.begin_round():
            request = game.pending
            if request is None:
                continue
            order = self._inside_order(request)
            if order is None:
                self._begin(request)
                return request.seat
            game.finish_round(order)
        return None

    def _inside_order(self, request: PickupRequest) -> list[Card] | None:
        """The order of a table that needs no outside decision: its seat's agent's, or the table
        as it lies when its cards are all of one rank; None when an outside seat must decide."""
        agent = self.agents[request.seat]
        if agent is not None:
            view = pickup_view(request)
            assert self.agent_rng is not None
            return check_order(agent.order_pickup(view, self.agent_rng), request.cards,
                               f"seat {request.seat} agent "
                               f"{getattr(agent, 'name', type(agent).__name__)!r} pickup order",
                               self.rules)
        rank_of = self.layout.rank_of
        first = rank_of[request.cards[0]]
        if all(rank_of[c] == first for c in request.cards):
            return list(request.cards)
        return None

    def _begin(self, request: PickupRequest) -> None:
        lay = self.layout
        self.pending = request
        queue: list[list[Card]] = [[] for _ in range(lay.ranks)]
        for c in reversed(request.cards):  # popped from the end: table order
            queue[lay.rank_of[c]].append(c)
        self.queue = queue
        self.left = [len(q) for q in queue]
        self.placed = []
        self._next_pos = lay.build(self.obs, request.view, self.left)
        np.greater(self.left, 0, out=self.mask)

    # -- decisions ------------------------------------------------------------------------------

    def place(self, action: Any) -> bool:
        """The deciding seat puts a card of rank ``action`` next; True once the table is placed.

        An action that is not a rank left on the table places the lowest rank left instead and
        sets :attr:`illegal`. When the cards left are all of one rank they follow at once, the
        round is played with the chosen order and the game runs on to the next outside decision
        (or its end).
        """
        if self.pending is None:
            raise RuntimeError("no decision pending: the game is over")
        left = self.left
        r = action_index(action, left)
        self.illegal = r < 0
        if r < 0:
            r = lowest_legal(left)
        self._put(r)
        remaining = [i for i, n in enumerate(left) if n]
        if len(remaining) > 1:
            return False
        if remaining:
            while left[remaining[0]]:
                self._put(remaining[0])
        assert self.game is not None
        self.game.finish_round(self.placed)
        self._advance()
        return True

    def _put(self, r: int) -> None:
        lay = self.layout
        self.placed.append(self.queue[r].pop())
        n = self.left[r] - 1
        self.left[r] = n
        self.obs[r] = n / lay.counts[r]
        self.obs[lay.future_start + self._next_pos * lay.ranks + r] = 1.0
        self._next_pos += 1
        if not n:
            self.mask[r] = False

    # -- views ----------------------------------------------------------------------------------

    def observe(self, seat: Seat, out: np.ndarray) -> np.ndarray:
        """Write ``seat``'s observation of the current moment into ``out`` and return it."""
        if self.pending is not None and self.pending.seat == seat:
            np.copyto(out, self.obs)
        else:
            assert self.game is not None
            self.layout.build(out, self.game.view(seat))
        return out

    def record(self) -> Record:
        """The game so far as a replayable record (with the pickup decisions made)."""
        assert self.game is not None
        deck = self.rules.deck
        decisions = tuple(tuple(deck.cards_json(d)) for d in self.game.decisions)
        return Record(self.rules, self.stacks, dealer=self.dealer, decisions=decisions,
                      seed=self.play_seed)

    def render(self, learner: Seat | None = None) -> str:
        game = self.game
        if game is None:
            return "Classic pyanitsa: call reset() first\n"
        rules = self.rules
        deck = rules.deck
        labels = self.layout.labels
        rank_of = self.layout.rank_of
        lines = [f"Classic pyanitsa, deck {deck}, {self.players} players, round {game.rounds}"
                 f" (cap {rules.max_rounds})"]
        for s in range(self.players):
            view = game.view(s)
            tag = " (learner)" if s == learner else ""
            state = "" if view.in_game[s] else "  out"
            lines.append(f"seat {s}{tag}: stack {view.stack_sizes[s]:2d}, pile "
                         f"{view.pile_sizes[s]:2d}{state}; known tail: "
                         f"{' '.join(labels[rank_of[c]] for c in view.known_tail) or '-'}")
        if self.pending is not None:
            req = self.pending
            lines.append(f"seat {req.seat} took the table: {deck.format_cards(req.cards)}")
            lines.append(f"placed so far: {deck.format_cards(self.placed) or '-'}")
        elif game.result is not None:
            lines.append(f"result: {game.result.to_json()}")
        return "\n".join(lines) + "\n"
