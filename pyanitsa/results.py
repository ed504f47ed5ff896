"""Game results, exactly as RULES.md §5 writes them."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from pyanitsa import json_fields as jf
from pyanitsa.cards import Seat
from pyanitsa.errors import PyanitsaError


class InvalidResultError(PyanitsaError):
    """A game result's JSON that is not one :meth:`ClassicResult.to_json` or
    :meth:`TacticalResult.to_json` writes (an unknown key, a bad value)."""


class Termination(enum.StrEnum):
    """How a game ended. ``cycle``, ``capped`` and ``draw`` are all draws."""

    WIN = "win"
    DRAW = "draw"
    CYCLE = "cycle"
    CAPPED = "capped"


@dataclass(frozen=True)
class ClassicResult:
    """The result of a classic game."""

    outcome: Termination
    winner: Seat | None
    """The winning seat, ``None`` unless ``outcome`` is ``win``."""
    rounds: int
    """Rounds begun (Mathieu & Delahaye's *plis* for two players)."""
    showdowns: int
    """Showdowns: first cards and dispute steps that compared cards (*cartes posées*)."""
    eliminated: tuple[Seat, ...]
    """Seats in the order they went out (later = better place; misère: the first wins)."""
    cycle_start: int | None = None
    """Rounds played when the repeated position first stood."""
    cycle_length: int | None = None
    """Rounds between the two occurrences of the position."""

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome.value, "winner": self.winner, "rounds": self.rounds,
                "showdowns": self.showdowns, "eliminated": list(self.eliminated),
                "cycle_start": self.cycle_start, "cycle_length": self.cycle_length}

    @classmethod
    def from_json(cls, obj: object) -> ClassicResult:
        """The result :meth:`to_json` wrote; :class:`InvalidResultError` names a bad key."""
        err = InvalidResultError
        data = jf.fields(obj, "a classic result", _CLASSIC_KEYS, err)
        outcome = Termination(jf.choice(data, "outcome", _OUTCOMES, err))
        winner = jf.maybe_integer(data, "winner", err)
        if (winner is None) != (outcome != Termination.WIN):
            raise err(f"winner: {winner!r} with outcome {outcome.value!r} (a seat exactly "
                      "when the outcome is win)")
        return cls(outcome, winner, jf.integer(data, "rounds", err),
                   jf.integer(data, "showdowns", err), jf.integers(data, "eliminated", err),
                   jf.maybe_integer(data, "cycle_start", err),
                   jf.maybe_integer(data, "cycle_length", err, low=1))

    @property
    def winners(self) -> tuple[Seat, ...]:
        return () if self.winner is None else (self.winner,)


@dataclass(frozen=True)
class TacticalResult:
    """The result of a tactical game."""

    outcome: Termination
    """``win`` for one winner, ``draw`` when the best score is shared."""
    winners: tuple[Seat, ...]
    scores: tuple[int, ...]
    """Cards in each seat's копилка."""
    removed: int
    """Cards that left the game in splits (RULES.md §3.5)."""
    rounds: int
    showdowns: int

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome.value, "winners": list(self.winners),
                "scores": list(self.scores), "removed": self.removed, "rounds": self.rounds,
                "showdowns": self.showdowns}

    @classmethod
    def from_json(cls, obj: object) -> TacticalResult:
        """The result :meth:`to_json` wrote; :class:`InvalidResultError` names a bad key."""
        err = InvalidResultError
        data = jf.fields(obj, "a tactical result", _TACTICAL_KEYS, err)
        outcome = Termination(jf.choice(data, "outcome", ("win", "draw"), err))
        winners = jf.integers(data, "winners", err)
        if not winners or (len(winners) == 1) != (outcome == Termination.WIN):
            raise err(f"winners: {list(winners)!r} with outcome {outcome.value!r} (one winner "
                      "exactly when the outcome is win)")
        return cls(outcome, winners, jf.integers(data, "scores", err),
                   jf.integer(data, "removed", err), jf.integer(data, "rounds", err),
                   jf.integer(data, "showdowns", err))


Result = ClassicResult | TacticalResult


def result_from_json(obj: object) -> Result:
    """A classic or a tactical result, from what its ``to_json`` wrote (a tactical result has
    ``winners``, a classic one ``winner``)."""
    if isinstance(obj, dict) and "winners" in obj:
        return TacticalResult.from_json(obj)
    return ClassicResult.from_json(obj)


_OUTCOMES = tuple(t.value for t in Termination)
_CLASSIC_KEYS = ("outcome", "winner", "rounds", "showdowns", "eliminated", "cycle_start",
                 "cycle_length")
_TACTICAL_KEYS = ("outcome", "winners", "scores", "removed", "rounds", "showdowns")
