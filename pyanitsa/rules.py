"""The rules configuration: every option of RULES.md with its default, presets and validation.

:class:`Rules` is frozen; build one with :meth:`Rules.from_options` (a preset plus overrides, as
records, YAML files and ``--set`` give them) or :func:`preset`, and vary it with
:meth:`Rules.replace`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args, get_origin, get_type_hints

from pyanitsa.cards import Deck
from pyanitsa.errors import InvalidDeckError, InvalidRulesError, PyanitsaError, did_you_mean

Mode = Literal["classic", "tactical"]
CycleRule = Literal["void", "weakest_wins"]
DealKind = Literal["all", "equal"]
Dispute = Literal["one_up", "down_up"]
DisputeExhausted = Literal["takes_pot", "earliest_wins", "drops_out", "discard", "draw"]
PickupTo = Literal["bottom", "won_pile"]
Refill = Literal["turn_over", "shuffle"]
PickupOrder = Literal["table", "by_seat", "winner_first", "loser_first", "high_first",
                      "low_first", "natural", "shuffled", "agent"]

MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_STAKES = 3
MAX_ROUNDS_LIMIT = 2**62
"""The largest ``max_rounds``: the batch core counts rounds in int64 (with room to add)."""

CLASSIC_ONLY = frozenset({"deal", "dispute", "stakes", "dispute_exhausted", "pickup_to", "refill",
                          "pickup_order", "new_tour_on_elimination", "detect_cycles",
                          "max_rounds"})
"""Options that only classic mode has; tactical mode rejects them."""

_FLAGS = ("weakest_beats_ace", "misere", "new_tour_on_elimination", "detect_cycles")


@dataclass(frozen=True)
class Rules:
    """One complete, valid set of rules. Defaults are RULES.md's; see docs/rules.md."""

    mode: Mode = "classic"
    """``classic`` (War, §2) or ``tactical`` (Тактический пьяница, §3)."""
    deck: Deck = field(default_factory=lambda: Deck.standard("36"))
    """The deck to deal from."""
    weakest_beats_ace: bool = False
    """The weakest rank beats the ace and nothing else (§1)."""
    cycle_rule: CycleRule = "void"
    """What a showdown with no unbeaten card does: void the round, or the weakest rank wins."""
    misere: bool = False
    """Поддавки: classic, the first player out wins; tactical, the lowest score wins."""
    dealer: int | Literal["random"] = "random"
    """The dealer seat, or ``random`` to draw it by lot. The dealer leads the first round."""
    deal: DealKind = "all"
    """``all`` deals every card; ``equal`` sets the last ``D mod P`` aside. Tactical: ``equal``."""
    dispute: Dispute = "one_up"
    """A dispute step adds one face-up card, or ``stakes`` face-down cards then one face-up."""
    stakes: int = 1
    """Face-down cards per dispute step with ``dispute: down_up`` (1..3)."""
    dispute_exhausted: DisputeExhausted = "takes_pot"
    """What happens when a disputing player has no cards for the next dispute step."""
    pickup_to: PickupTo = "bottom"
    """Won cards go under the winner's stack, or onto a separate won pile."""
    refill: Refill = "turn_over"
    """How a won pile becomes the stack: turned over as it lies, or shuffled."""
    pickup_order: PickupOrder = "table"
    """The order in which a won table goes under the stack (first listed is played first)."""
    new_tour_on_elimination: bool = False
    """After ``k`` players go out, the lead moves ``k`` seats clockwise."""
    detect_cycles: bool = True
    """End a game whose position repeats (only when no choice is random or an agent's)."""
    max_rounds: int = 10000
    """Rounds after which a classic game ends as ``capped``."""

    def __post_init__(self) -> None:
        for key, choices in OPTION_CHOICES.items():
            value = getattr(self, key)
            if value not in choices:
                raise InvalidRulesError(f"{key}: {value!r} is not one of {', '.join(choices)}"
                                        f"{did_you_mean(value, choices)}")
        for key in _FLAGS:
            if not isinstance(getattr(self, key), bool):
                raise InvalidRulesError(f"{key}: {getattr(self, key)!r} is not true or false")
        if not isinstance(self.deck, Deck):
            raise InvalidRulesError(f"deck: {self.deck!r} is not a Deck")
        if self.dealer != "random" and not (_is_int(self.dealer)
                                            and 0 <= self.dealer < MAX_PLAYERS):
            raise InvalidRulesError(f"dealer: {self.dealer!r} is not 'random' or a seat 0..7")
        if not _is_int(self.stakes) or not 1 <= self.stakes <= MAX_STAKES:
            raise InvalidRulesError(f"stakes: {self.stakes!r} is not an integer 1..{MAX_STAKES}")
        if self.stakes != 1 and self.dispute != "down_up":
            raise InvalidRulesError("stakes: needs dispute: down_up")
        if not _is_int(self.max_rounds) or not 1 <= self.max_rounds <= MAX_ROUNDS_LIMIT:
            raise InvalidRulesError(f"max_rounds: {_shown(self.max_rounds)} is not an integer "
                                    "1..2^62")
        if self.refill == "shuffle" and self.pickup_to != "won_pile":
            raise InvalidRulesError("refill: shuffle needs pickup_to: won_pile (a stack that "
                                    "takes its cards at the bottom is never refilled)")
        if self.mode == "tactical":
            if self.deal != "equal":
                raise InvalidRulesError("deal: tactical mode always deals equal hands")
            changed = [k for k in sorted(CLASSIC_ONLY - {"deal"})
                       if getattr(self, k) != _CLASSIC_DEFAULTS[k]]
            if changed:
                raise InvalidRulesError(f"{changed[0]}: is a classic-mode option, not tactical")

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def default(cls, mode: Mode = "classic") -> Rules:
        """The defaults of a mode (tactical deals ``equal``)."""
        return cls(mode=mode, deal="equal" if mode == "tactical" else "all")

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None = None, *, mode: Mode | None = None,
                     deck: Deck | str | None = None) -> Rules:
        """Rules from an optional ``preset`` plus overrides, as in a record or a YAML file.

        ``mode`` is the mode the caller expects (a record's ``mode``): a preset of the other mode
        is an error. ``deck`` overrides the preset's deck. Unknown options, bad values, options of
        the other mode and impossible combinations raise :class:`InvalidRulesError`.
        """
        options = dict(options or {})
        name = options.pop("preset", None)
        if name is not None:
            base_mode, base_deck, fixed = _preset_parts(name)
            if mode is not None and mode != base_mode:
                raise InvalidRulesError(f"preset: {name!r} is a {base_mode} preset, "
                                        f"not {mode}")
            mode = base_mode
        else:
            base_deck, fixed = None, {}
        if "mode" in options:
            given = options.pop("mode")
            if given not in OPTION_CHOICES["mode"]:
                raise InvalidRulesError(f"mode: {given!r} is not one of classic, tactical")
            if mode is not None and given != mode:
                raise InvalidRulesError(f"mode: {given!r} contradicts {mode!r}")
            mode = given
        mode = mode or "classic"
        if "deck" in options:
            given_deck = options.pop("deck")
            if deck is None:
                deck = given_deck
        for key in options:
            if key not in _FIELDS:
                raise InvalidRulesError(f"unknown rules option {key!r}"
                                        f"{did_you_mean(key, [*_FIELDS, 'preset'])}")
            if mode == "tactical" and key in CLASSIC_ONLY and not (key == "deal"
                                                                  and options[key] == "equal"):
                raise InvalidRulesError(f"{key}: is a classic-mode option, not tactical")
        merged = {**fixed, **options}
        if "stakes" in options and merged.get("dispute") != "down_up":
            raise InvalidRulesError("stakes: needs dispute: down_up")
        try:
            if isinstance(deck, Deck):
                the_deck = deck
            elif isinstance(deck, dict):
                the_deck = Deck.from_json(deck)
            elif deck is not None:
                the_deck = Deck.parse(deck)
            else:
                the_deck = Deck.standard(base_deck or "36")
        except InvalidDeckError as exc:
            raise InvalidRulesError(f"deck: {exc}") from None
        base = cls.default(mode)
        return dataclasses.replace(base, deck=the_deck, **merged)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated like the original)."""
        unknown = set(changes) - set(_FIELDS) - {"mode", "deck"}
        if unknown:
            first = sorted(unknown)[0]
            raise InvalidRulesError(f"unknown rules option {first!r}"
                                    f"{did_you_mean(first, _FIELDS)}")
        return dataclasses.replace(self, **changes)

    def copy(self) -> Rules:
        """Equal rules sharing nothing mutable with these (the deck is copied too), built
        without validating again. Every agent view carries its own copy: ``Rules`` is frozen,
        but ``object.__setattr__`` writes to it anyway, and what an agent writes must not
        reach the game, another game or a stored record."""
        new = object.__new__(Rules)
        new.__dict__.update(self.__dict__)
        new.__dict__["deck"] = self.deck.copy()
        return new

    def to_options(self) -> dict[str, Any]:
        """The options that differ from the mode's defaults (no ``mode``, no ``deck``)."""
        base = Rules.default(self.mode)
        return {k: getattr(self, k) for k in _FIELDS if getattr(self, k) != getattr(base, k)}

    # -- JSON ---------------------------------------------------------------------------------

    def to_json(self, *, every_option: bool = False) -> dict[str, Any]:
        """``mode``, ``deck`` (:meth:`Deck.to_json`) and the options that differ from the mode's
        defaults, the shape policy sidecars and tournament databases store; ``every_option``
        writes every option instead, as cmd bots are told the rules (docs/bots.md)."""
        options = {k: getattr(self, k) for k in _FIELDS} if every_option else self.to_options()
        return {"mode": self.mode, "deck": self.deck.to_json(), **options}

    @classmethod
    def from_json(cls, obj: object) -> Rules:
        """The rules :meth:`to_json` wrote, in either shape: an option left out has the mode's
        default. Errors (:class:`InvalidRulesError`) name the key."""
        if not isinstance(obj, dict):
            raise InvalidRulesError(f"rules: a JSON object of options, not {type(obj).__name__}")
        options = dict(obj)
        mode = options.pop("mode", None)
        if mode not in OPTION_CHOICES["mode"]:
            raise InvalidRulesError(f"mode: {_shown(mode)} is not one of classic, tactical")
        if "deck" not in options:
            raise InvalidRulesError("deck: missing")
        try:
            deck = Deck.from_json(options.pop("deck"))
        except InvalidDeckError as exc:
            raise InvalidRulesError(f"deck: {exc}") from None
        for key in options:
            if key not in _FIELDS:
                raise InvalidRulesError(f"unknown rules option {_shown(key)}"
                                        f"{did_you_mean(key, _FIELDS)}")
        if mode == "tactical":  # every_option writes the classic options at their defaults
            options = {k: v for k, v in options.items()
                       if k not in CLASSIC_ONLY or k == "deal" or v != _CLASSIC_DEFAULTS[k]
                       or type(v) is not type(_CLASSIC_DEFAULTS[k])}
        return dataclasses.replace(cls.default(mode), deck=deck, **options)

    # -- derived ------------------------------------------------------------------------------

    @property
    def cycle_detection(self) -> bool:
        """Whether repeated positions end the game: never when a choice is random or an agent's."""
        return (self.detect_cycles and self.pickup_order not in ("shuffled", "agent")
                and self.refill != "shuffle")

    @property
    def random_play(self) -> bool:
        """Whether playing (not dealing) draws from the game's random generator."""
        return self.pickup_order == "shuffled" or self.refill == "shuffle"

    def check_seed(self, seed: int | None, error: type[PyanitsaError] = InvalidRulesError
                   ) -> None:
        """Raise ``error`` if these rules shuffle during play and no generator state is given."""
        if self.random_play and seed is None:
            raise error(f"seed: missing; rules with pickup_order={self.pickup_order}, "
                        f"refill={self.refill} shuffle during play")

    def check_players(self, players: int) -> None:
        """Raise unless ``players`` seats can play with this deck (2..8, a card each at least)."""
        if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            seats = "seat" if players == 1 else "seats"
            raise InvalidRulesError(f"players: {players!r} {seats}; pyanitsa plays "
                                    f"{MIN_PLAYERS} to {MAX_PLAYERS}")
        if self.deck.size < players:
            raise InvalidRulesError(f"deck: {self.deck} has {self.deck.size} cards, "
                                    f"too few for {players} seats")
        if self.dealer != "random" and self.dealer >= players:
            raise InvalidRulesError(f"dealer: seat {self.dealer} does not exist with "
                                    f"{players} seats")


def _shown(value: object) -> str:
    text = repr(value) if not _is_int(value) or value.bit_length() < 128 else "a huge integer"
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_FIELDS = tuple(f.name for f in dataclasses.fields(Rules) if f.name not in ("mode", "deck"))
def _option_choices() -> dict[str, tuple[str, ...]]:
    # read from the field types, so that a value added to a Literal is valid, checked, encoded
    # for the batch core (or refused there by name) and fuzzed by the tests at once
    hints = get_type_hints(Rules)
    return {f.name: get_args(hints[f.name]) for f in dataclasses.fields(Rules)
            if get_origin(hints[f.name]) is Literal}


OPTION_CHOICES: dict[str, tuple[str, ...]] = _option_choices()
"""Every option whose type is a ``Literal``, with its values in their declared order."""

_INT_RANGES = {"stakes": range(1, MAX_STAKES + 1), "max_rounds": range(1, MAX_ROUNDS_LIMIT + 1)}


def option_domains(mode: Mode) -> dict[str, tuple[Any, ...] | range]:
    """What each option of a ``mode`` game can hold, read from the fields of :class:`Rules`: a
    ``Literal``'s values, ``(False, True)`` for a flag, a ``range`` for a number; ``mode``,
    ``deck`` and ``dealer`` (its seats depend on the players) aside, and tactical games without
    the classic-only options. Test generators draw every option from here, so an option is
    fuzzed on every engine the day it is added. A combination drawn can still be impossible
    (``stakes`` needs ``dispute: down_up``); :class:`Rules` refuses it naming the key first."""
    hints = get_type_hints(Rules)
    out: dict[str, tuple[Any, ...] | range] = {}
    for name in _FIELDS:
        if name == "dealer" or (mode == "tactical" and name in CLASSIC_ONLY):
            continue
        if name in OPTION_CHOICES:
            out[name] = OPTION_CHOICES[name]
        elif hints[name] is bool:
            out[name] = (False, True)
        elif name in _INT_RANGES:
            out[name] = _INT_RANGES[name]
        else:  # a new kind of option: say what it can hold above
            raise TypeError(f"option_domains: no domain for the option {name!r}")
    return out

_CLASSIC_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Rules)
                     if f.name not in ("mode", "deck")}

_RU = {"pickup_to": "won_pile", "dispute": "one_up", "dispute_exhausted": "takes_pot"}
PRESETS: dict[str, tuple[Mode, str, dict[str, Any]]] = {
    "classic-ru": ("classic", "36", _RU),
    "classic-ua": ("classic", "36", {"pickup_to": "bottom", "pickup_order": "table",
                                     "dispute_exhausted": "earliest_wins",
                                     "new_tour_on_elimination": True}),
    "classic-zaklad": ("classic", "36", {**_RU, "dispute": "down_up"}),
    "weak-ace": ("classic", "36", {**_RU, "weakest_beats_ace": True}),
    "misere": ("classic", "36", {**_RU, "misere": True}),
    "war-52": ("classic", "52", {"pickup_to": "bottom", "dispute": "down_up",
                                 "dispute_exhausted": "drops_out"}),
    "tactical": ("tactical", "36", {}),
    "tactical-52": ("tactical", "52", {}),
}
"""Named presets of RULES.md §6: name -> (mode, deck, options it fixes)."""


def _preset_parts(name: object) -> tuple[Mode, str, dict[str, Any]]:
    if not isinstance(name, str) or name not in PRESETS:  # a list or mapping is not hashable
        raise InvalidRulesError(f"preset: unknown preset {name!r}{did_you_mean(name, PRESETS)}"
                                f" (one of {', '.join(PRESETS)})")
    return PRESETS[name]  # type: ignore[index]


def preset(name: str, **overrides: Any) -> Rules:
    """The rules of a named preset, with optional overrides (``deck`` accepted too)."""
    return Rules.from_options({"preset": name, **overrides})
