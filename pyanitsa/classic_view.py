"""What a seat of a classic game knows (:meth:`pyanitsa.classic.ClassicGame.view`).

A view is an immutable value built for one seat at one moment. Agents and envs read the game
only through it, so the engine's own bookkeeping (cards counted by strength, how much of a
stack its owner never saw, the judge) can change without touching them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache

from pyanitsa.cards import Card, Seat
from pyanitsa.ranks import RankTable, rank_table
from pyanitsa.rules import Rules
from pyanitsa.showdown import Judge


@dataclass(frozen=True)
class SeatView:
    """What ``seat`` of a classic game knows at any moment: public counts and its own cards.
    The fields :class:`ClassicView` and :class:`PickupView` share, written once."""

    rules: Rules
    """A copy of the game's rules (the seat's own: writing to it changes nothing)."""
    seat: Seat
    players: int
    stack_sizes: tuple[int, ...]
    """Every seat's stack size (public: stacks are on the table)."""
    pile_sizes: tuple[int, ...]
    """Every seat's won-pile size."""
    in_game: tuple[bool, ...]
    known_tail: tuple[Card, ...]
    """The bottom part of my stack that I placed myself, top to bottom (what I remember)."""
    my_pile: tuple[Card, ...]
    """My won pile, first put first (I placed every card of it)."""
    seen: tuple[int, ...]
    """Cards of each rank turned face up so far in the game, by rank index (a table waiting
    for its pickup order included)."""
    rounds: int
    """Rounds begun so far (a round waiting for its pickup order counts)."""

    @property
    def ranks(self) -> RankTable:
        return rank_table(self.rules)


@dataclass(frozen=True)
class ClassicView(SeatView):
    """What ``seat`` knows of a classic game (:meth:`ClassicGame.view`): the shared fields,
    then where the game stands."""

    leader: Seat
    """The seat that leads the current round (or the next one, between rounds)."""
    eliminated: tuple[Seat, ...]
    """Seats out of the game, in the order they went out."""
    taker: Seat | None
    """The seat ordering a won table now, or None between rounds (no pickup pending)."""
    table_size: int
    """Cards on the table: the pending pickup's, or those left by a game drawn mid-dispute."""

    @property
    def counts(self) -> tuple[int, ...]:
        """Cards each seat holds, stack plus pile (what decides the game)."""
        return tuple(a + b for a, b in zip(self.stack_sizes, self.pile_sizes, strict=True))


@dataclass(frozen=True, kw_only=True)
class PickupView(SeatView):
    """What a classic player knows when it orders a table it won: the shared fields and the
    table. The table's fields are keyword-only, so a caller that passed them in their old
    places (before ``stack_sizes``) fails rather than fills the wrong fields."""

    cards: tuple[Card, ...]
    """The table, in table order."""
    owners: tuple[Seat, ...]
    """Who put each card down."""
    face_up: tuple[bool, ...]
    """False for stakes that went down face down."""

    @classmethod
    def of(cls, view: SeatView, cards: tuple[Card, ...], owners: tuple[Seat, ...],
           face_up: tuple[bool, ...]) -> PickupView:
        """The pickup view of a seat whose view of the game is ``view``."""
        shared = {f.name: getattr(view, f.name) for f in fields(SeatView)}
        return cls(**shared, cards=cards, owners=owners, face_up=face_up)


@cache
def rank_strengths(rules: Rules) -> tuple[int, ...]:
    """The engine's strength of each rank index (ranks and strengths are one to one): the
    engine counts face-up cards by strength, a view by rank."""
    table = rank_table(rules)
    strength = Judge(rules).strength
    out = [0] * table.num_ranks
    for card, r in enumerate(table.rank_of):
        out[r] = strength[card]
    return tuple(out)
