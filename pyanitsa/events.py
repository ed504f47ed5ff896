"""The per-round event log both engines can keep, and its plain-text rendering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pyanitsa.cards import Card, Deck, Seat

RoundEnd = Literal["taken", "void", "discarded", "draw", "split"]


@dataclass(frozen=True)
class Play:
    """One card put on the table."""

    seat: Seat
    card: Card
    face_up: bool
    """False for a stake (заклад) put face down."""
    step: int
    """0 for the round's first showdown, k for the k-th dispute step."""


@dataclass(frozen=True)
class Showdown:
    """One comparison of face-up cards."""

    step: int
    seats: tuple[Seat, ...]
    """The contenders, in play order."""
    cards: tuple[Card, ...]
    """Their face-up cards, in the same order."""
    top: tuple[Seat, ...] | None
    """The unbeaten contenders; ``None`` when a cycle voided the round."""


@dataclass(frozen=True)
class RoundEvent:
    """What happened in one round (тур)."""

    number: int
    """1 for the first round."""
    leader: Seat | None
    """Who led (classic); ``None`` in tactical mode, where nobody leads."""
    plays: tuple[Play, ...]
    showdowns: tuple[Showdown, ...]
    end: RoundEnd
    """``taken`` by one player, ``void`` (cycle), ``discarded`` (left the game), ``draw`` (the
    game ended on an exhausted dispute) or ``split`` (tactical: tied players share the pot)."""
    taker: Seat | None = None
    """Who took the table (``taken``)."""
    exhausted: str | None = None
    """The ``dispute_exhausted`` rule that ended the round, if one did."""
    pickup: tuple[Card, ...] = ()
    """Classic: the order in which the taker put the cards away, first played first."""
    gains: tuple[tuple[Seat, int], ...] = ()
    """Tactical: cards banked into each копилка this round."""
    removed: int = 0
    """Tactical: cards that left the game in a split."""
    eliminated: tuple[Seat, ...] = ()
    """Classic: seats that went out after this round, in play order."""


def format_round(event: RoundEvent, deck: Deck) -> str:
    """One readable line per round, as ``pyanitsa play`` prints it."""
    name = deck.card_name
    parts = []
    for sd in event.showdowns:
        played = ", ".join(f"P{s} {name(c)}" for s, c in zip(sd.seats, sd.cards, strict=True))
        label = "" if sd.step == 0 else f"dispute {sd.step}: "
        stakes = [p for p in event.plays if not p.face_up and p.step == sd.step]
        if stakes:
            label += f"({len(stakes)} face down) "
        parts.append(label + played)
    text = f"round {event.number:>4}: " + " | ".join(parts)
    if event.end == "taken":
        text += f" -> P{event.taker} takes {len(event.plays)}"
        if event.exhausted:
            text += f" ({event.exhausted})"
    elif event.end == "void":
        text += " -> cycle: round void, cards go back"
    elif event.end == "discarded":
        text += f" -> {len(event.plays)} cards leave the game"
        if event.exhausted:
            text += f" ({event.exhausted})"
    elif event.end == "draw":
        text += " -> dispute cannot go on: draw"
    elif event.end == "split":
        shares = ", ".join(f"P{s} +{n}" for s, n in event.gains)
        text += f" -> split: {shares}" + (f", {event.removed} removed" if event.removed else "")
    if event.gains and event.end != "split":
        text += " [" + ", ".join(f"P{s} +{n}" for s, n in event.gains) + "]"
    if event.eliminated:
        text += "; out: " + ", ".join(f"P{s}" for s in event.eliminated)
    return text
