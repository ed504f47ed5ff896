"""The per-round event log both engines can keep, its JSON and its plain-text rendering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from pyanitsa import json_fields as jf
from pyanitsa.cards import Card, Deck, Seat
from pyanitsa.errors import PyanitsaError
from pyanitsa.rules import DisputeExhausted

RoundEnd = Literal["taken", "void", "discarded", "draw", "split"]


class InvalidEventError(PyanitsaError):
    """A round event's JSON that is not one :meth:`RoundEvent.to_json` writes."""


@dataclass(frozen=True)
class Play:
    """One card put on the table."""

    seat: Seat
    card: Card
    face_up: bool
    """False for a stake (заклад) put face down."""
    step: int
    """0 for the round's first showdown, k for the k-th dispute step."""

    def to_json(self) -> dict[str, Any]:
        """The play with its card as the deck's index (a deck is needed to name it)."""
        return {"seat": self.seat, "card": self.card, "face_up": self.face_up, "step": self.step}

    @classmethod
    def from_json(cls, obj: object) -> Play:
        err = InvalidEventError
        data = jf.fields(obj, "a play", ("seat", "card", "face_up", "step"), err)
        return cls(jf.integer(data, "seat", err), jf.integer(data, "card", err),
                   jf.flag(data, "face_up", err), jf.integer(data, "step", err))


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

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "seats": list(self.seats), "cards": list(self.cards),
                "top": None if self.top is None else list(self.top)}

    @classmethod
    def from_json(cls, obj: object) -> Showdown:
        err = InvalidEventError
        data = jf.fields(obj, "a showdown", ("step", "seats", "cards", "top"), err)
        seats, cards = jf.integers(data, "seats", err), jf.integers(data, "cards", err)
        if len(seats) != len(cards):
            raise err(f"cards: {len(cards)} cards for {len(seats)} seats")
        top = None if data["top"] is None else jf.integers(data, "top", err)
        return cls(jf.integer(data, "step", err), seats, cards, top)


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

    def to_json(self) -> dict[str, Any]:
        """Every field; cards are the deck's indices, as in :class:`Play`."""
        return {"number": self.number, "leader": self.leader,
                "plays": [p.to_json() for p in self.plays],
                "showdowns": [s.to_json() for s in self.showdowns], "end": self.end,
                "taker": self.taker, "exhausted": self.exhausted, "pickup": list(self.pickup),
                "gains": [list(g) for g in self.gains], "removed": self.removed,
                "eliminated": list(self.eliminated)}

    @classmethod
    def from_json(cls, obj: object) -> RoundEvent:
        """The event :meth:`to_json` wrote; :class:`InvalidEventError` names a bad key."""
        err = InvalidEventError
        data = jf.fields(obj, "a round event", _EVENT_KEYS, err)
        plays, showdowns = jf.items(data, "plays", err), jf.items(data, "showdowns", err)
        gains = jf.items(data, "gains", err)
        if not all(isinstance(g, list) and len(g) == 2 and all(type(x) is int and x >= 0
                                                               for x in g) for g in gains):
            raise err(f"gains: {gains!r:.40} is not a list of [seat, cards] pairs")
        return cls(jf.integer(data, "number", err, low=1),
                   jf.maybe_integer(data, "leader", err),
                   tuple(_part(Play, p, "plays", i) for i, p in enumerate(plays)),
                   tuple(_part(Showdown, s, "showdowns", i) for i, s in enumerate(showdowns)),
                   jf.choice(data, "end", get_args(RoundEnd), err),
                   jf.maybe_integer(data, "taker", err),
                   jf.choice(data, "exhausted", (None, *get_args(DisputeExhausted)), err),
                   jf.integers(data, "pickup", err), tuple((s, n) for s, n in gains),
                   jf.integer(data, "removed", err), jf.integers(data, "eliminated", err))


_EVENT_KEYS = ("number", "leader", "plays", "showdowns", "end", "taker", "exhausted", "pickup",
               "gains", "removed", "eliminated")


def _part(kind: type[Play] | type[Showdown], obj: object, key: str, index: int) -> Any:
    try:
        return kind.from_json(obj)
    except InvalidEventError as exc:
        raise InvalidEventError(f"{key}: entry {index}: {exc}") from None


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
