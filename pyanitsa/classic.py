"""The classic engine (RULES.md §2): the readable reference for War with every option.

:class:`ClassicGame` is a mutable state played one round at a time; :meth:`ClassicGame.play`
runs it to the end. The compiled batch core must agree with it game for game.

The position a game goes on from is in :mod:`pyanitsa.positions`, the pickup orders in
:mod:`pyanitsa.pickups` (both re-exported here).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING

from pyanitsa.cards import Card, Seat
from pyanitsa.classic_view import ClassicView, rank_strengths
from pyanitsa.errors import IllegalActionError, InvalidRulesError
from pyanitsa.events import RoundEnd, RoundEvent, Showdown
from pyanitsa.pickups import FIXED_PICKUP_ORDERS, PickupRequest, fixed_pickup_order
from pyanitsa.positions import ClassicPosition
from pyanitsa.results import ClassicResult, Termination
from pyanitsa.rng import Rng
from pyanitsa.showdown import Judge
from pyanitsa.table import OpenRound, Table

if TYPE_CHECKING:
    from pyanitsa.rules import Rules


__all__ = ["FIXED_PICKUP_ORDERS", "ClassicGame", "ClassicPosition", "ClassicView", "PickupAgent",
           "PickupRequest", "fixed_pickup_order"]

PickupAgent = Callable[[PickupRequest], Sequence[Card]]
"""Returns the order in which the table goes under the stack, first played first."""


class ClassicGame:
    """A classic game in progress.

    ``stacks`` are the seats' stacks, top card first; ``dealer`` leads the first round. ``rng``
    is needed when the rules shuffle during play; ``pickup`` answers the pickups of ``pickup_order:
    agent`` in :meth:`play` (without it, answer :attr:`pending` yourself: :meth:`begin_round`).
    With ``log=True`` every round is kept in :attr:`events`. ``piles`` are won piles to start
    with (a game set up mid-way: :meth:`from_position`).
    """

    def __init__(self, rules: Rules, stacks: Sequence[Sequence[Card]], *, dealer: Seat = 0,
                 rng: Rng | None = None, pickup: PickupAgent | None = None,
                 log: bool = False, piles: Sequence[Sequence[Card]] | None = None) -> None:
        if rules.mode != "classic":
            raise InvalidRulesError(f"mode: {rules.mode} rules given to the classic engine")
        players = len(stacks)
        rules.check_players(players)
        if not 0 <= dealer < players:
            raise InvalidRulesError(f"dealer: seat {dealer} does not exist with {players} seats")
        if rules.random_play and rng is None:
            raise InvalidRulesError(f"pickup_order/refill: these rules shuffle during play "
                                    f"(pickup_order={rules.pickup_order}, refill={rules.refill})"
                                    "; give the game a seed")
        self.rules = rules
        self.players = players
        self.judge = Judge(rules)
        self.stacks: list[deque[Card]] = [deque(s) for s in stacks]
        self.piles: list[list[Card]] = ([list(p) for p in piles] if piles is not None
                                         else [[] for _ in range(players)])
        self.in_game = [self.count(s) > 0 for s in range(players)]
        self._unknown = [len(s) for s in stacks]
        """Cards at the top of each stack whose order its owner never saw (as dealt, or
        shuffled in by ``refill: shuffle``); the rest of the stack is the owner's own pickups."""
        self._face_up = [0] * (max(self.judge.strength) + 1)
        """How many cards of each strength have been turned face up so far (public)."""
        self._rank_strength = rank_strengths(rules)
        self.eliminated: list[Seat] = []
        self.leader = dealer
        self.rounds = 0
        self.showdowns = 0
        self.table: list[Card] = []
        """Cards on the table; only non-empty after a game ended as a draw mid-dispute."""
        self.out_of_game: list[Card] = []
        """Cards that left the game (``discard``, or ``drops_out`` with nobody left)."""
        self.rng = rng
        self.pickup = pickup
        self.decisions: list[tuple[Card, ...]] = []
        """The orders chosen by pickup agents, one per collected table (a record's decisions)."""
        self.events: list[RoundEvent] | None = [] if log else None
        self.result: ClassicResult | None = None
        self._seen: dict[tuple, int] | None = {} if rules.cycle_detection else None
        self._round: OpenRound | None = None
        self.pending: PickupRequest | None = None
        """The pickup a round waits for (:meth:`begin_round`), or None."""
        if not self.in_game[dealer]:
            self._pass_lead()

    @classmethod
    def from_position(cls, rules: Rules, position: ClassicPosition, *,
                      pickup: PickupAgent | None = None, log: bool = False) -> ClassicGame:
        """A game standing at ``position`` (checked first); its cycle memory starts there."""
        position.check(rules)
        game = cls(rules, position.stacks, piles=position.piles, dealer=position.leader,
                   rng=Rng(position.seed) if position.seed is not None else None,
                   pickup=pickup, log=log)
        game.eliminated = list(position.eliminated)
        game.rounds = position.rounds
        game.showdowns = position.showdowns
        return game

    def position(self) -> ClassicPosition:
        """Where the game stands between rounds (stacks, piles, counters, generator)."""
        if self._round is not None:
            raise IllegalActionError("position: the game stands mid-round, waiting for a "
                                     "pickup order (finish_round first)")
        return ClassicPosition(tuple(tuple(s) for s in self.stacks),
                               tuple(tuple(p) for p in self.piles), self.leader, self.rounds,
                               self.showdowns, tuple(self.eliminated),
                               self.rng.state if self.rng is not None else None)

    # -- public state -------------------------------------------------------------------------

    def count(self, seat: Seat) -> int:
        """The cards a seat holds: its stack plus its won pile."""
        return len(self.stacks[seat]) + len(self.piles[seat])

    def view(self, seat: Seat) -> ClassicView:
        """What ``seat`` knows now: the one reader of this game's state for agents and envs."""
        if not 0 <= seat < self.players:
            raise IllegalActionError(f"seat: {seat} does not exist with {self.players} seats")
        r = self._round
        seen = self._face_up
        return ClassicView(
            self.rules.copy(), seat, self.players, tuple(map(len, self.stacks)),
            tuple(map(len, self.piles)), tuple(self.in_game),
            tuple(islice(self.stacks[seat], self._unknown[seat], None)), tuple(self.piles[seat]),
            tuple([seen[s] for s in self._rank_strength]), self.rounds, self.leader,
            tuple(self.eliminated), r.winner if r is not None else None,
            len(r.table.cards) if r is not None else len(self.table))

    def _taker_view(self, open_round: OpenRound) -> ClassicView:
        if self._round is not open_round:
            raise IllegalActionError("view: the round of this pickup request is over")
        assert open_round.winner is not None
        return self.view(open_round.winner)

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def alive(self) -> list[Seat]:
        return [s for s in range(self.players) if self.in_game[s]]

    def play_order(self) -> list[Seat]:
        """Seats still in the game, clockwise from the leader."""
        p = self.players
        return [s for s in ((self.leader + i) % p for i in range(p)) if self.in_game[s]]

    def key(self) -> tuple:
        """The position as cycle detection sees it: leader and every pile by rank, as it lies."""
        strength = self.judge.strength
        return (self.leader,
                tuple(tuple([strength[c] for c in s]) for s in self.stacks),
                tuple(tuple([strength[c] for c in p]) for p in self.piles))

    def copy(self) -> ClassicGame:
        """An independent copy (stacks, piles, counters, generator, cycle memory)."""
        new = object.__new__(ClassicGame)
        new.__dict__.update(self.__dict__)
        new.stacks = [deque(s) for s in self.stacks]
        new.piles = [list(p) for p in self.piles]
        new.in_game = list(self.in_game)
        new._unknown = list(self._unknown)
        new._face_up = list(self._face_up)
        new.eliminated = list(self.eliminated)
        new.table = list(self.table)
        new.out_of_game = list(self.out_of_game)
        new.rng = self.rng.copy() if self.rng is not None else None
        new.decisions = list(self.decisions)
        new.events = list(self.events) if self.events is not None else None
        new._seen = dict(self._seen) if self._seen is not None else None
        if self.pending is not None:  # the waiting round's table is shared: it is only read
            new.pending = replace(self.pending, view_of=partial(new._taker_view, self._round))
        return new

    # -- playing ------------------------------------------------------------------------------

    def play(self) -> ClassicResult:
        """Play rounds until the game ends and return the result."""
        while self.result is None:
            self.play_round()
        assert self.result is not None
        return self.result

    def play_round(self) -> bool:
        """Apply the end checks of §2.8 and, if the game goes on, play one round (asking the
        pickup agent for a table's order if it needs one). Returns False once the game is over.
        """
        if not self.begin_round():
            return False
        if self.pending is not None:
            if self.pickup is None:
                raise InvalidRulesError("pickup_order: agent needs a pickup agent (pickup=...), "
                                        "or answer game.pending with game.finish_round(order)")
            self.finish_round(self.pickup(self.pending))
        return True

    def begin_round(self) -> bool:
        """Like :meth:`play_round`, but a round whose table needs a pickup order waits there,
        :attr:`pending` the request, until :meth:`finish_round` gives the order: how a caller
        answers outside a callback (an RL env, over its steps). False once the game is over."""
        if self._round is not None:
            raise IllegalActionError(f"seat {self._round.winner}: the round waits for its "
                                     "pickup order (finish_round)")
        if self.result is not None or self._check_end():
            return False
        self.rounds += 1
        order = self.play_order()
        table = Table()
        showdowns: list[Showdown] | None = [] if self.events is not None else None
        end, winner, exhausted = self._showdowns(order, table, showdowns)
        if end == "taken" and self.rules.pickup_order == "agent":
            assert winner is not None
            self._round = r = OpenRound(order, table, showdowns, end, winner, exhausted)
            self.pending = PickupRequest(winner, tuple(table.cards), tuple(table.owners),
                                         tuple(table.up), partial(self._taker_view, r))
        else:  # no OpenRound built: it is most rounds, and a named tuple costs a round's 10%
            self._close_round(order, table, showdowns, end, winner, exhausted,
                              self._fixed_pickup(order, table, winner) if end == "taken" else ())
        return True

    def finish_round(self, order: Sequence[Card]) -> None:
        """End the round waiting in :attr:`pending` with the table in ``order`` (first played
        first), which must be a permutation of the table."""
        r = self._round
        if r is None:
            raise IllegalActionError("finish_round: no round waits for a pickup order")
        chosen = list(order)
        if sorted(chosen) != sorted(r.table.cards):
            deck = self.rules.deck
            raise IllegalActionError(
                f"seat {r.winner}: pickup order [{deck.format_cards(chosen)}] is not "
                f"a permutation of the table [{deck.format_cards(r.table.cards)}]")
        self.decisions.append(tuple(chosen))
        self._round = self.pending = None
        self._close_round(*r, chosen)

    def _close_round(self, order: list[Seat], table: Table, showdowns: list[Showdown] | None,
                     end: RoundEnd, winner: Seat | None, exhausted: str | None,
                     pickup: Sequence[Card]) -> None:
        """Put a round's table away (``pickup``: a taken table's order); eliminations, log."""
        if end == "taken":
            assert winner is not None
            self._put_away(winner, pickup)
        elif end == "void":
            for s in order:
                self._put_away(s, [c for c, o in zip(table.cards, table.owners, strict=True)
                                   if o == s])
        elif end == "discarded":
            self.out_of_game.extend(table.cards)
        else:
            self.table = table.cards
            self.result = self._ended(Termination.DRAW)
        went_out = [] if end == "draw" else [s for s in order if self.count(s) == 0]
        for s in went_out:
            self.in_game[s] = False
        self.eliminated.extend(went_out)
        if self.events is not None:
            assert showdowns is not None
            self.events.append(RoundEvent(self.rounds, order[0], table.plays(),
                                          tuple(showdowns), end, taker=winner,
                                          exhausted=exhausted, pickup=tuple(pickup),
                                          eliminated=tuple(went_out)))
        if end != "draw":
            self._after_round(went_out)

    def _showdowns(self, order: list[Seat], table: Table, showdowns: list[Showdown] | None
                   ) -> tuple[RoundEnd, Seat | None, str | None]:
        """The round's showdowns and disputes (§2.3-2.6) onto ``table``: how the round ends,
        who takes the table, and the ``dispute_exhausted`` rule that ended it, if one did."""
        rules = self.rules
        count = self.count
        seen = self._face_up
        strength = self.judge.strength
        contenders = order
        faces = [table.lay(s, self._take_card(s), 0, True) for s in order]
        step = 0
        while True:
            for c in faces:
                seen[strength[c]] += 1
            self.showdowns += 1
            idx = self.judge.top(faces)
            if showdowns is not None:
                showdowns.append(Showdown(step, tuple(contenders), tuple(faces),
                                          None if idx is None else
                                          tuple(contenders[i] for i in idx)))
            if idx is None:
                return "void", None, None
            if len(idx) == 1:
                return "taken", contenders[idx[0]], None
            contenders = [contenders[i] for i in idx]
            empty = [s for s in contenders if count(s) == 0]
            if empty:
                how = rules.dispute_exhausted
                if how == "takes_pot":
                    return "taken", empty[0], how
                if how == "earliest_wins":
                    return "taken", contenders[0], how
                if how in ("discard", "draw"):
                    return ("discarded" if how == "discard" else "draw"), None, how
                contenders = [s for s in contenders if count(s) > 0]  # drops_out
                if len(contenders) == 1:
                    return "taken", contenders[0], how
                if not contenders:
                    return "discarded", None, how
            step += 1
            faces = []
            for s in contenders:
                if rules.dispute == "down_up":
                    for _ in range(min(rules.stakes, count(s) - 1)):
                        table.lay(s, self._take_card(s), step, False)
                faces.append(table.lay(s, self._take_card(s), step, True))

    def _after_round(self, went_out: list[Seat]) -> None:
        """Misère's end, a new tour and the lead passing on, once the round's seats went out."""
        if self.rules.misere and went_out:
            self.result = self._ended(Termination.WIN, went_out[0])
            return
        if went_out and self.rules.new_tour_on_elimination:
            self.leader = (self.leader + len(went_out)) % self.players
        if not self.in_game[self.leader]:
            self._pass_lead()

    # -- helpers ------------------------------------------------------------------------------

    def _check_end(self) -> bool:
        alive = self.alive()
        result = None
        if len(alive) == 1:
            result = self._ended(Termination.WIN, alive[0])
        elif not alive:
            result = self._ended(Termination.DRAW)
        elif self.rounds >= self.rules.max_rounds:
            result = self._ended(Termination.CAPPED)
        elif self._seen is not None:
            key = self.key()
            first = self._seen.get(key)
            if first is None:
                self._seen[key] = self.rounds
            else:
                result = self._ended(Termination.CYCLE, cycle_start=first)
        self.result = result
        return result is not None

    def _ended(self, outcome: Termination, winner: Seat | None = None, *,
               cycle_start: int | None = None) -> ClassicResult:
        """The result of the game ending now."""
        return ClassicResult(outcome, winner, self.rounds, self.showdowns,
                             tuple(self.eliminated), cycle_start,
                             None if cycle_start is None else self.rounds - cycle_start)

    def _pass_lead(self) -> None:
        p = self.players
        for i in range(1, p + 1):
            s = (self.leader + i) % p
            if self.in_game[s]:
                self.leader = s
                return

    def _take_card(self, seat: Seat) -> Card:
        stack = self.stacks[seat]
        if not stack:
            pile = self.piles[seat]
            if self.rules.refill == "shuffle":
                assert self.rng is not None
                self.rng.shuffle(pile)
                self._unknown[seat] = len(pile)
            stack.extend(pile)
            pile.clear()
        if self._unknown[seat]:
            self._unknown[seat] -= 1
        return stack.popleft()

    def _put_away(self, seat: Seat, cards: Sequence[Card]) -> None:
        if self.rules.pickup_to == "bottom":
            self.stacks[seat].extend(cards)
        else:
            self.piles[seat].extend(cards)

    def _fixed_pickup(self, order: list[Seat], table: Table, winner: Seat | None) -> list[Card]:
        """A taken table in the rules' own pickup order (fixed or shuffled)."""
        assert winner is not None
        how = self.rules.pickup_order
        if how == "shuffled":
            assert self.rng is not None
            cards = list(table.cards)
            self.rng.shuffle(cards)
            return cards
        return fixed_pickup_order(how, table.cards, table.owners, table.steps,
                                  self.judge.strength, winner, order)
