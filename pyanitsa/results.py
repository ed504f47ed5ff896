"""Game results, exactly as RULES.md §5 writes them."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from pyanitsa.cards import Seat


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


Result = ClassicResult | TacticalResult
