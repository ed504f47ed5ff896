"""The table of a classic round (:mod:`pyanitsa.classic`): the cards as they went down, and a
round whose showdowns are played, waiting to be put away (for a pickup order, say)."""

from __future__ import annotations

from typing import NamedTuple

from pyanitsa.cards import Card, Seat
from pyanitsa.events import Play, RoundEnd, Showdown


class Table:
    """The cards of a round in the order they went down, with who, when and how."""

    __slots__ = ("cards", "owners", "steps", "up")

    def __init__(self) -> None:
        self.cards: list[Card] = []
        self.owners: list[Seat] = []
        self.steps: list[int] = []
        self.up: list[bool] = []

    def lay(self, seat: Seat, card: Card, step: int, face_up: bool) -> Card:
        self.cards.append(card)
        self.owners.append(seat)
        self.steps.append(step)
        self.up.append(face_up)
        return card

    def plays(self) -> tuple[Play, ...]:
        return tuple(Play(*x) for x in zip(self.owners, self.cards, self.up, self.steps,
                                           strict=True))


class OpenRound(NamedTuple):
    """A round whose showdowns are played: how it ended, its table not yet put away."""

    order: list[Seat]
    """The round's play order."""
    table: Table
    showdowns: list[Showdown] | None
    """The showdowns, when the game keeps a log."""
    end: RoundEnd
    winner: Seat | None
    """Who takes the table (``end == "taken"``)."""
    exhausted: str | None
    """The ``dispute_exhausted`` rule that ended the round, if one did."""
