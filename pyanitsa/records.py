"""Game records (RULES.md §5): parsing with strict validation, writing, and replay."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pyanitsa.cards import Card, CardName, Deck, Seat
from pyanitsa.classic import ClassicGame, PickupAgent, PickupRequest
from pyanitsa.dealing import deal_from_seed
from pyanitsa.errors import (
    IllegalActionError,
    InvalidCardError,
    InvalidDeckError,
    InvalidRecordError,
    InvalidRulesError,
)
from pyanitsa.events import RoundEvent
from pyanitsa.results import Result
from pyanitsa.rng import MASK64, Rng
from pyanitsa.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from pyanitsa.tactical import TacticalGame

CLASSIC_KEYS = frozenset({"mode", "deck", "rules", "dealer", "stacks", "decisions", "seed"})
TACTICAL_KEYS = frozenset({"mode", "deck", "rules", "hands"})


@dataclass(frozen=True)
class Record:
    """A complete description of one game: rules, the cards each seat holds, and decisions.

    ``seats`` are classic stacks (top card first) or tactical hands (in the chosen order).
    ``seed`` is the random generator's state for rules that shuffle during play; ``decisions``
    are the pickup agents' orders (as card names) for ``pickup_order: agent``.
    """

    rules: Rules
    seats: tuple[tuple[Card, ...], ...]
    dealer: Seat | None = None
    decisions: tuple[tuple[CardName, ...], ...] | None = None
    seed: int | None = None

    @property
    def mode(self) -> str:
        return self.rules.mode

    @property
    def deck(self) -> Deck:
        return self.rules.deck

    @property
    def leader(self) -> Seat:
        """The first round's leader: the record's dealer, else the rules' seat, else 0."""
        if self.dealer is not None:
            return self.dealer
        return self.rules.dealer if self.rules.dealer != "random" else 0

    @classmethod
    def dealt(cls, rules: Rules, players: int, seed: int) -> Record:
        """Game ``seed`` as dealt (how ``pyanitsa play --seed`` and every seeded run deal): the
        stacks, or the hands in the order dealt, plus the generator's state for rules that
        shuffle during play."""
        dealt = deal_from_seed(rules, players, seed)
        return cls(rules, dealt.seats, dealer=dealt.dealer if rules.mode == "classic" else None,
                   seed=dealt.play_seed)

    # -- JSON ---------------------------------------------------------------------------------

    @classmethod
    def from_json(cls, data: str | bytes | dict[str, Any]) -> Record:
        """Parse and validate a record; errors name the offending key, card or seat.

        ``data`` may also be ``{"record": ..., "result"|"expected": ...}``, what ``pyanitsa
        play --json`` writes: its record is read (:func:`read_entries` also gives the result).
        """
        if isinstance(data, (str, bytes)):
            data = _loads(data)
        data = _unwrap(data)[0]
        if not isinstance(data, dict):
            raise InvalidRecordError(f"a record is a JSON object, not {type(data).__name__}")
        mode = data.get("mode")
        if mode not in ("classic", "tactical"):
            raise InvalidRecordError(f"mode: {mode!r} is not 'classic' or 'tactical'")
        allowed = CLASSIC_KEYS if mode == "classic" else TACTICAL_KEYS
        for key in data:
            if key not in allowed:
                raise InvalidRecordError(f"unknown key {key!r} in a {mode} record")
        seats_key = "stacks" if mode == "classic" else "hands"
        if "deck" not in data:
            raise InvalidRecordError("deck: missing")
        if seats_key not in data:
            raise InvalidRecordError(f"{seats_key}: missing")
        try:
            deck = Deck.from_json(data["deck"])
        except InvalidDeckError as exc:
            raise InvalidRecordError(f"deck: {exc}") from None
        options = data.get("rules", {})
        if not isinstance(options, dict):
            raise InvalidRecordError("rules: must be an object of options")
        try:
            rules = Rules.from_options(options, mode=mode, deck=deck)
        except InvalidRulesError as exc:
            raise InvalidRecordError(f"rules: {exc}") from None
        raw_seats = data[seats_key]
        if not isinstance(raw_seats, list) or not all(isinstance(s, list) for s in raw_seats):
            raise InvalidRecordError(f"{seats_key}: must be a list of lists of cards")
        if not MIN_PLAYERS <= len(raw_seats) <= MAX_PLAYERS:
            seats = "seat" if len(raw_seats) == 1 else "seats"
            raise InvalidRecordError(f"{seats_key}: {len(raw_seats)} {seats}; a game has "
                                     f"{MIN_PLAYERS} to {MAX_PLAYERS}")
        used: set[Card] = set()
        seats = []
        for seat, names in enumerate(raw_seats):
            if not names:
                raise InvalidRecordError(f"{seats_key}: seat {seat} has no cards")
            try:
                seats.append(tuple(deck.parse_cards(names, used=used)))
            except InvalidCardError as exc:
                raise InvalidRecordError(f"{seats_key}: seat {seat}: {exc}") from None
        dealer = data.get("dealer")
        if dealer is not None and not (isinstance(dealer, int) and not isinstance(dealer, bool)
                                       and 0 <= dealer < len(seats)):
            raise InvalidRecordError(f"dealer: {dealer!r} is not a seat 0..{len(seats) - 1}")
        if rules.dealer != "random" and rules.dealer >= len(seats):
            raise InvalidRecordError(f"rules: dealer: seat {rules.dealer} does not exist with "
                                     f"{len(seats)} seats")
        decisions = data.get("decisions")
        if decisions is not None:
            if rules.pickup_order != "agent":
                raise InvalidRecordError("decisions: only records with pickup_order: agent "
                                         "have decisions")
            if not isinstance(decisions, list) or not all(isinstance(d, list)
                                                          for d in decisions):
                raise InvalidRecordError("decisions: must be a list of lists of cards")
            for i, order in enumerate(decisions):
                for name in order:
                    try:
                        deck.parse_card(name)
                    except InvalidCardError as exc:
                        raise InvalidRecordError(f"decisions: entry {i}: {exc}") from None
            decisions = tuple(tuple(d) for d in decisions)
        seed = data.get("seed")
        if seed is not None and not (isinstance(seed, int) and not isinstance(seed, bool)
                                     and 0 <= seed <= MASK64):
            raise InvalidRecordError(f"seed: {seed!r} is not an integer 0..2**64-1")
        return cls(rules, tuple(seats), dealer, decisions, seed)

    def to_json(self) -> dict[str, Any]:
        deck = self.deck
        options = self.rules.to_json()  # a record keeps mode and deck beside its options
        out: dict[str, Any] = {"mode": options.pop("mode"), "deck": options.pop("deck"),
                               "rules": options}
        if self.mode == "classic":
            out["dealer"] = self.leader
            out["stacks"] = [deck.cards_json(s) for s in self.seats]
            if self.decisions is not None:
                out["decisions"] = [list(d) for d in self.decisions]
            if self.seed is not None:
                out["seed"] = self.seed
        else:
            out["hands"] = [deck.cards_json(s) for s in self.seats]
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    # -- playing ------------------------------------------------------------------------------

    def game(self, *, pickup: PickupAgent | None = None,
             log: bool = False) -> ClassicGame | TacticalGame:
        """A fresh game set up from this record (decisions replace ``pickup`` when present)."""
        if self.mode == "tactical":
            return TacticalGame(self.rules, self.seats, log=log)
        self.rules.check_seed(self.seed, InvalidRecordError)
        if self.rules.pickup_order == "agent" and pickup is None:
            if self.decisions is None:
                raise InvalidRecordError("decisions: missing; pickup_order: agent needs the "
                                         "pickup orders that were chosen")
            pickup = _replay_decisions(self.deck, self.decisions)
        rng = Rng(self.seed) if self.seed is not None else None
        return ClassicGame(self.rules, self.seats, dealer=self.leader, rng=rng, pickup=pickup,
                           log=log)

    def play(self, *, pickup: PickupAgent | None = None) -> Result:
        """Play the record to the end and return its result."""
        try:
            return self.game(pickup=pickup).play()
        except IllegalActionError as exc:
            raise InvalidRecordError(f"decisions: {exc}") from None

    def play_logged(self) -> tuple[Result, list[RoundEvent]]:
        game = self.game(log=True)
        try:
            result = game.play()
        except IllegalActionError as exc:
            raise InvalidRecordError(f"decisions: {exc}") from None
        assert game.events is not None
        return result, game.events


def _replay_decisions(deck: Deck, decisions: Sequence[Sequence[CardName]]) -> PickupAgent:
    """A pickup agent that plays back recorded orders, matching research copies by name."""
    it = iter(enumerate(decisions))

    def agent(request: PickupRequest) -> list[Card]:
        try:
            i, names = next(it)
        except StopIteration:
            raise IllegalActionError(f"the game collected more tables than the "
                                     f"{len(decisions)} recorded") from None
        left = list(request.cards)
        out = []
        for name in names:
            matches = [c for c in left if deck.names[c] == str(name).strip()]
            if not matches:
                raise IllegalActionError(f"entry {i}: card {name!r} is not on the table "
                                         f"[{deck.format_cards(request.cards)}]")
            left.remove(matches[0])
            out.append(matches[0])
        if left:
            raise IllegalActionError(f"entry {i}: leaves out [{deck.format_cards(left)}] "
                                     "of the table")
        return out

    return agent


def replay(data: str | dict[str, Any] | Record) -> Result:
    """Play a record (a :class:`Record`, a JSON string or a parsed object) to its result."""
    record = data if isinstance(data, Record) else Record.from_json(data)
    return record.play()


def read_entries(text: str) -> Iterator[tuple[int, Record, dict[str, Any] | None]]:
    """Records from one JSON document or JSON lines: ``(line number, record, expected)``.

    An object with a ``"record"`` key (what ``pyanitsa play --json`` prints, and a conformance
    vector) gives that record, with its ``"expected"`` or ``"result"`` as the third item.
    """
    stripped = text.strip()
    if not stripped:
        raise InvalidRecordError("no record in the input")
    try:
        whole = _loads(stripped)
    except InvalidRecordError:  # JSON lines, or bad JSON that the lines below report
        whole = None
    if isinstance(whole, list):
        raise InvalidRecordError("the input is a JSON array; give one record or JSON lines")
    if isinstance(whole, dict):
        yield (1, *_entry(whole))
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield (lineno, *_entry(line))
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"line {lineno}: {exc}") from None


def _entry(data: str | dict[str, Any]) -> tuple[Record, dict[str, Any] | None]:
    if isinstance(data, str):
        data = _loads(data)
    record, expected = _unwrap(data)
    return Record.from_json(record), expected


def _unwrap(data: Any) -> tuple[Any, Any]:
    """A record and its expected result from ``{"record": ..., "expected"|"result": ...}``;
    anything else is the record itself, with no result."""
    if isinstance(data, dict) and "record" in data and "mode" not in data:
        extra = set(data) - {"record", "expected", "result"}
        if extra:
            raise InvalidRecordError(f"unknown key {sorted(extra)[0]!r} next to 'record'")
        if isinstance(data["record"], dict) and "record" in data["record"]:
            raise InvalidRecordError("record: a record, not another wrapper")
        return data["record"], data.get("expected", data.get("result"))
    return data, None


def read_records(text: str) -> Iterator[tuple[int, Record]]:
    """Records from one JSON document or JSON lines, with their line numbers."""
    for lineno, record, _ in read_entries(text):
        yield lineno, record


def _loads(text: str | bytes) -> Any:
    """JSON, or one line saying why not: bad syntax, undecodable bytes, nesting too deep for
    the parser, or an integer over Python's 4,300-digit conversion limit."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else \
            f"column {exc.colno}"
        raise InvalidRecordError(f"bad JSON: {exc.msg} at {where}") from None
    except UnicodeDecodeError as exc:
        raise InvalidRecordError(f"bad JSON: not UTF-8 (byte {exc.object[exc.start]:#04x} at "
                                 f"position {exc.start})") from None
    except RecursionError:
        raise InvalidRecordError("bad JSON: nested too deeply") from None
    except ValueError as exc:  # the digit limit of int()
        raise InvalidRecordError(f"bad JSON: {' '.join(str(exc).split(';')[0].split())}") \
            from None
