"""Pickup orders (RULES.md §2.5): the fixed orders a won table is taken in, and what an agent
is asked with ``pickup_order: agent``. The reference engine (:mod:`pyanitsa.classic`) uses both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from pyanitsa.cards import Card, Seat
from pyanitsa.classic_view import ClassicView


@dataclass(frozen=True)
class PickupRequest:
    """What a winner's agent is asked with ``pickup_order: agent``: the table, and what the
    winner knows (:attr:`view`), never the game itself."""

    seat: Seat
    """The seat that took the table."""
    cards: tuple[Card, ...]
    """The table's cards in table order."""
    owners: tuple[Seat, ...]
    """Who put each card down."""
    face_up: tuple[bool, ...]
    """False for stakes put face down."""
    view_of: Callable[[], ClassicView] = field(repr=False, compare=False)
    """Builds :attr:`view` (the engine's; a callback reads :attr:`view`)."""

    @cached_property
    def view(self) -> ClassicView:
        """The winner's view of the game as the round stands: its stack without the cards it
        put on this table, ``seen`` counting this table's face-up cards. Built when first read
        (a replayed order needs none), which must be while the round waits for this order."""
        return self.view_of()


FIXED_PICKUP_ORDERS = ("table", "by_seat", "winner_first", "loser_first", "high_first",
                       "low_first", "natural")
"""The pickup orders that follow from the table alone (RULES.md §2.5)."""


def fixed_pickup_order(how: str, cards: Sequence[Card], owners: Sequence[Seat],
                       steps: Sequence[int], key: Sequence[int], winner: Seat,
                       order: Sequence[Seat]) -> list[Card]:
    """A won table in the fixed pickup order ``how``: ``cards`` in table order with their
    ``owners`` and dispute ``steps``; ``key[c]`` orders cards by strength (strengths or rank
    indices); ``order`` is the round's play order."""
    n = len(cards)
    if how == "table":
        return list(cards)
    if how == "by_seat":
        return [cards[i] for s in order for i in range(n) if owners[i] == s]
    if how in ("winner_first", "loser_first"):
        mine = [c for c, o in zip(cards, owners, strict=True) if o == winner]
        rest = [c for c, o in zip(cards, owners, strict=True) if o != winner]
        return mine + rest if how == "winner_first" else rest + mine
    if how == "high_first":
        return sorted(cards, key=lambda c: -key[c])
    if how == "low_first":
        return sorted(cards, key=lambda c: key[c])
    if how == "natural":
        return [cards[i] for i in sorted(range(n), key=lambda i: (-steps[i], -key[cards[i]]))]
    raise ValueError(f"pickup order {how!r} is not a fixed order")
