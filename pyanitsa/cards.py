"""Cards, decks and their notation (RULES.md §1).

A card is a plain ``int``: its index in the deck's canonical order (ranks ascending, suits
``c d h s`` within a rank, jokers last). In a research deck the copies of a value are distinct
cards that share one name; parsing hands them out in order, so a list of names round-trips.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from types import MappingProxyType

from pyanitsa.errors import InvalidCardError, InvalidDeckError

Card = int
Seat = int
CardName = str | int
"""A card as written: ``"As"``, ``"X1"``, or a research value such as ``4`` (or ``"4"``)."""

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
ACE = 14
STANDARD_DECKS = {"36": 6, "32": 7, "52": 2, "54": 2}
"""Standard deck name -> value of its lowest rank (2 = deuce ... 14 = ace)."""

MAX_RESEARCH_RANKS = 60
MAX_RESEARCH_SUITS = 8
MAX_RESEARCH_JOKERS = 4


@dataclass(frozen=True)
class Deck:
    """A deck: a standard one (``36``, ``32``, ``52``, ``54``) or a research deck."""

    ranks: int
    """Number of distinct non-joker ranks."""
    suits: int
    """Copies of each rank (the suits of a standard deck)."""
    jokers: int = 0
    """Jokers, all of one rank above the ace (unless ``weakest_beats_ace`` in ``54``)."""
    name: str | None = None
    """``"36"``, ``"32"``, ``"52"`` or ``"54"``; ``None`` for a research deck."""
    low: int = field(default=1, compare=False)
    """Value of the lowest rank: 6 in ``36``, 2 in ``52``, 1 in a research deck."""

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def standard(cls, name: str) -> Deck:
        if name not in STANDARD_DECKS:
            raise InvalidDeckError(f"unknown deck {name!r}: use 36, 32, 52, 54 or ranks=N,suits=S")
        low = STANDARD_DECKS[name]
        return cls(ranks=ACE - low + 1, suits=4, jokers=2 if name == "54" else 0, name=name,
                   low=low)

    @classmethod
    def research(cls, ranks: int, suits: int = 1, jokers: int = 0) -> Deck:
        for key, value, lo, hi in (("ranks", ranks, 1, MAX_RESEARCH_RANKS),
                                   ("suits", suits, 1, MAX_RESEARCH_SUITS),
                                   ("jokers", jokers, 0, MAX_RESEARCH_JOKERS)):
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise InvalidDeckError(f"deck {key}={value!r}: must be an integer {lo}..{hi}")
        return cls(ranks=ranks, suits=suits, jokers=jokers, name=None, low=1)

    @classmethod
    def parse(cls, spec: str | int) -> Deck:
        """Parse ``36``, ``32``, ``52``, ``54`` or ``ranks=N,suits=S[,jokers=J]``."""
        text = str(spec).strip()
        if "=" not in text:
            return cls.standard(text)
        params: dict[str, int] = {}
        for part in text.split(","):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or key not in ("ranks", "suits", "jokers"):
                raise InvalidDeckError(f"bad deck part {part.strip()!r} in {text!r}: "
                                       "use ranks=N,suits=S[,jokers=J]")
            if key in params:
                raise InvalidDeckError(f"deck key {key!r} given twice in {text!r}")
            digits = value.strip().removeprefix("-")
            # int() also reads "1_0", "٣" and 5,000 digits (slowly, or not at all)
            if not (digits.isascii() and digits.isdigit() and len(digits) <= 6):
                raise InvalidDeckError(f"deck {key}={_shown(value.strip())}: not an integer "
                                       "(at most 6 digits)")
            params[key] = int(value)
        if "ranks" not in params:
            raise InvalidDeckError(f"deck {text!r} needs ranks=N")
        return cls.research(**params)

    @classmethod
    def from_json(cls, obj: object) -> Deck:
        """A deck from a record: a name string or ``{"ranks", "suits", "jokers"}``."""
        if isinstance(obj, str):
            return cls.standard(obj)
        if isinstance(obj, int) and not isinstance(obj, bool):
            return cls.standard(str(obj))
        if isinstance(obj, dict):
            unknown = set(obj) - {"ranks", "suits", "jokers"}
            if unknown:
                raise InvalidDeckError(f"unknown deck key {sorted(unknown)[0]!r}")
            if "ranks" not in obj:
                raise InvalidDeckError("research deck needs 'ranks'")
            return cls.research(obj["ranks"], obj.get("suits", 1), obj.get("jokers", 0))
        raise InvalidDeckError(f"deck must be a name or an object, not {obj!r}")

    def to_json(self) -> str | dict[str, int]:
        if self.name is not None:
            return self.name
        out = {"ranks": self.ranks, "suits": self.suits}
        if self.jokers:
            out["jokers"] = self.jokers
        return out

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        text = f"ranks={self.ranks},suits={self.suits}"
        return text + (f",jokers={self.jokers}" if self.jokers else "")

    def __repr__(self) -> str:
        return f"Deck.parse({str(self)!r})"

    def copy(self) -> Deck:
        """An equal deck that shares no mutable state with this one (the card-name index is
        rebuilt on use), for the views handed to agents."""
        new = object.__new__(Deck)
        fields = self.__dict__
        new.__dict__.update({k: fields[k] for k in _DECK_COPIED if k in fields})
        return new

    # -- properties ---------------------------------------------------------------------------

    @property
    def is_research(self) -> bool:
        return self.name is None

    @property
    def size(self) -> int:
        return self.ranks * self.suits + self.jokers

    def __len__(self) -> int:
        return self.size

    @property
    def high(self) -> int:
        """Value of the ace (the highest non-joker rank)."""
        return self.low + self.ranks - 1

    @property
    def joker_value(self) -> int:
        return self.high + 1

    @cached_property
    def values(self) -> tuple[int, ...]:
        """Rank value of each card: ``low..high`` for ordinary cards, ``high + 1`` for jokers."""
        ordinary = tuple(self.low + i // self.suits for i in range(self.ranks * self.suits))
        return ordinary + (self.joker_value,) * self.jokers

    @cached_property
    def names(self) -> tuple[str, ...]:
        return _name_table(self.ranks, self.suits, self.jokers, self.name, self.low)[0]

    @cached_property
    def _by_name(self) -> Mapping[str, tuple[Card, ...]]:
        return _name_table(self.ranks, self.suits, self.jokers, self.name, self.low)[1]

    def is_joker(self, card: Card) -> bool:
        return card >= self.ranks * self.suits

    # -- notation -----------------------------------------------------------------------------

    def card_name(self, card: Card) -> str:
        return self.names[card]

    def card_json(self, card: Card) -> CardName:
        """How a card is written in a record: an int for research values, else its name."""
        if self.is_research and not self.is_joker(card):
            return self.values[card]
        return self.names[card]

    def _copies(self, name: CardName) -> tuple[Card, ...]:
        if isinstance(name, bool):
            raise InvalidCardError(f"card {name!r} is not in deck {self}")
        key = str(name).strip() if isinstance(name, (str, int)) else None
        copies = self._by_name.get(key) if key is not None else None
        if copies is None:
            raise InvalidCardError(f"card {name!r} is not in deck {self}")
        return copies

    def parse_card(self, name: CardName) -> Card:
        """The first card named ``name`` (any copy of a research value is as good)."""
        return self._copies(name)[0]

    def parse_cards(self, names: Iterable[CardName], *, used: set[Card] | None = None
                    ) -> list[Card]:
        """Parse a list of names, giving each research copy once.

        ``used`` carries the cards already handed out (say, to earlier seats of a record); a card
        named more often than the deck holds it raises :class:`InvalidCardError`.
        """
        used = set() if used is None else used
        out = []
        for name in names:
            for card in self._copies(name):
                if card not in used:
                    break
            else:
                raise InvalidCardError(f"card {name!r} appears more often than deck {self} "
                                       "holds it")
            used.add(card)
            out.append(card)
        return out

    def parse_hand(self, text: str) -> list[Card]:
        """Parse comma-separated names such as ``"As,Kd"`` or ``"4,4,2"``."""
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if not parts:
            raise InvalidCardError(f"no cards in {text!r}")
        return self.parse_cards(parts)

    def format_cards(self, cards: Sequence[Card]) -> str:
        return " ".join(self.names[c] for c in cards)

    def cards_json(self, cards: Sequence[Card]) -> list[CardName]:
        return [self.card_json(c) for c in cards]


_DECK_COPIED = ("ranks", "suits", "jokers", "name", "low", "values", "names")
"""What :meth:`Deck.copy` keeps: the fields, and the cached tables that are tuples of plain
values (``_by_name`` is a read-only mapping, found again in :func:`_name_table`)."""


@lru_cache(maxsize=64)
def _name_table(ranks: int, suits: int, jokers: int, name: str | None, low: int
                ) -> tuple[tuple[str, ...], Mapping[str, tuple[Card, ...]]]:
    """Each card's name and the cards of each name, built once per kind of deck: reading a
    tournament's rows builds a ``Deck`` per record, and the table was most of that. The mapping
    is read-only, so decks (and the views handed to agents) can share it."""
    out = []
    for card in range(ranks * suits):
        value = low + card // suits
        out.append(str(value) if name is None else RANK_CHARS[value - 2] + SUIT_CHARS[card % suits])
    out.extend(f"X{j + 1}" for j in range(jokers))
    table: dict[str, list[Card]] = {}
    for card, text in enumerate(out):
        table.setdefault(text, []).append(card)
    return tuple(out), MappingProxyType({k: tuple(v) for k, v in table.items()})


def strengths(deck: Deck, *, weakest_beats_ace: bool) -> tuple[tuple[int, ...], int, int]:
    """Rank order of each card, with the weakest and the ace's strength (RULES.md §1).

    Strength is the rank value, except that with ``weakest_beats_ace`` the jokers of the ``54``
    deck drop below the deuce. Returns ``(strength per card, weakest, ace)``.
    """
    values = deck.values
    if weakest_beats_ace and deck.name == "54":
        joker_strength = deck.low - 1
        strength = tuple(joker_strength if deck.is_joker(c) else v for c, v in enumerate(values))
        return strength, joker_strength, deck.high
    return values, deck.low, deck.high


def _shown(text: str) -> str:
    return repr(text if len(text) <= 30 else text[:30] + "...")
