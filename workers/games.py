"""Per-game records: play one scheduled game and score it as a row (places, points, forfeit).

Scoring (docs/tournaments.md, "Points and places"):

* Every game ranks the seats into places, 1 best, tied seats sharing a place. Tactical: by
  score (misère: lowest first). Classic: the winner, then the players still in the game (tied),
  then the eliminated players, the last one out best (misère: the winner, the others who went out
  in that round, then the rest). A classic draw, cycle or cap ties the players still in the game
  at place 1; one with nobody left ties everybody.
* Points: 1 per game, split equally among the seats in place 1. A sole winner gets 1; two
  players sharing a tactical win or drawing a classic game get 1/2 each; in a four-player cycle
  with three players left, each of them gets 1/3.
* Forfeit: the agent that raised, answered illegally or overran its time is last alone with 0
  points; the others share place 1. The game has no record (it was not played to the end).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pyanitsa.agents.game import AgentFailure, GameOutcome, play_games
from pyanitsa.agents.seeding import AgentKey
from pyanitsa.protocol import Agent
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult, Result, TacticalResult
from pyanitsa.rules import Rules
from pyanitsa.workers.schedule import GameKey, Schedule

FORFEIT = "forfeit"

COLUMNS = ("pairing", "deal", "rotation", "seed", "seats", "outcome", "points", "places",
           "scores", "rounds", "showdowns", "forfeit_seat", "forfeit_kind", "forfeit_reason",
           "result", "record", "seconds")
"""The columns of a game row, in database order."""


@dataclass(frozen=True)
class GameRow:
    """One finished game of a tournament (a worker makes it; the tournament's store writes
    and reads it)."""

    pairing: int
    deal: int
    rotation: int
    seed: int
    """The deal's seed (cards and dealer); the same for every rotation of the deal."""
    seats: tuple[int, ...]
    """Agent index in each seat."""
    outcome: str
    """``win``, ``draw``, ``cycle``, ``capped`` (the game's termination) or ``forfeit``."""
    points: tuple[float, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...] | None
    """Tactical копилка sizes by seat."""
    rounds: int | None
    showdowns: int | None
    forfeit_seat: int | None
    forfeit_kind: str | None
    """``error``, ``illegal`` or ``timeout``."""
    forfeit_reason: str | None
    result: Result | None
    """The game's result; ``None`` for a forfeit."""
    record: Record | None
    """The game's record, which plays to ``result``; ``None`` for a forfeit."""
    seconds: float
    """Wall time of the game in its worker (the only column that varies between runs)."""

    @property
    def key(self) -> GameKey:
        return GameKey(self.pairing, self.deal, self.rotation)

    def deterministic(self) -> tuple[Any, ...]:
        """Every column but the timing: what two runs of the same tournament agree on."""
        return tuple(getattr(self, name) for name in COLUMNS[:-1])


# -- places and points ----------------------------------------------------------------------------


def place_groups(result: Result, rules: Rules, players: int) -> list[list[int]]:
    """Seats grouped by place, best first (seats in a group are tied)."""
    if isinstance(result, TacticalResult):
        sign = 1 if rules.misere else -1
        order = sorted(set(result.scores), key=lambda s: sign * s)
        return [[seat for seat in range(players) if result.scores[seat] == score]
                for score in order]
    assert isinstance(result, ClassicResult)
    out = list(result.eliminated)
    alive = [s for s in range(players) if s not in out and s != result.winner]
    if rules.misere:
        groups = [[result.winner]] if result.winner is not None else []
        rest = [s for s in out if s != result.winner]
        return [g for g in (*groups, rest, alive) if g]
    if result.winner is None and not alive:
        return [list(range(players))]
    groups = [[result.winner]] if result.winner is not None else []
    if alive:
        groups.append(alive)
    groups.extend([s] for s in reversed(out))
    return groups


def places_from_groups(groups: Sequence[Sequence[int]], players: int) -> tuple[int, ...]:
    """Competition ranking: a tied group shares the best place it covers (1, 2, 2, 4)."""
    places = [0] * players
    place = 1
    for group in groups:
        for seat in group:
            places[seat] = place
        place += len(group)
    return tuple(places)


def points_from_places(places: Sequence[int]) -> tuple[float, ...]:
    """1 point split equally among the seats in place 1."""
    first = sum(1 for p in places if p == 1)
    return tuple(1.0 / first if p == 1 else 0.0 for p in places)


def forfeit_places(players: int, seat: int) -> tuple[int, ...]:
    return places_from_groups([[s for s in range(players) if s != seat], [seat]], players)


# -- playing ----------------------------------------------------------------------------------------


def play_rows(schedule: Schedule, rules: Rules, agents: Sequence[Agent],
              keys: Sequence[GameKey], *, time_limit: float | None,
              engine: Literal["batch", "reference"] = "batch",
              before: Callable[[int], None] | None = None,
              key: AgentKey | None = None) -> list[GameRow]:
    """Play the games ``keys`` with ``agents`` (indexed like the tournament's entries).

    Decisions come first, game by game; then the games are played together by
    :func:`pyanitsa.agents.game.play_games` (the batch core unless ``engine="reference"``).
    ``before(i)`` runs before game ``i``'s decisions; ``key`` is the tournament's agent key.
    """
    seats = [schedule.seats(k) for k in keys]
    seeds = [schedule.seed_of(k) for k in keys]
    played = play_games(rules, [[agents[i] for i in s] for s in seats], seeds,
                        time_limit=time_limit, engine=engine, before=before, key=key)
    rows = []
    for key, seat_list, seed, timed in zip(keys, seats, seeds, played, strict=True):
        if isinstance(timed.outcome, AgentFailure):
            failure = timed.outcome
            rows.append(forfeit_row(schedule, key, failure.seat, failure.kind, str(failure),
                                    seconds=timed.seconds))
        else:
            rows.append(game_row(rules, key, seat_list, seed, timed.outcome, timed.seconds))
    return rows


def game_row(rules: Rules, key: GameKey, seats: tuple[int, ...], seed: int,
             outcome: GameOutcome, seconds: float) -> GameRow:
    """The row of a game played to the end."""
    result = outcome.result
    groups = place_groups(result, rules, len(seats))
    places = places_from_groups(groups, len(seats))
    scores = result.scores if isinstance(result, TacticalResult) else None
    return GameRow(key.pairing, key.deal, key.rotation, seed, seats, result.outcome.value,
                   points_from_places(places), places, scores, result.rounds, result.showdowns,
                   None, None, None, result, outcome.record, seconds)


def forfeit_row(schedule: Schedule, key: GameKey, seat: int, kind: str, reason: str, *,
                seconds: float = 0.0) -> GameRow:
    """The row of a game that ``seat`` forfeited (no record: it was not played to the end)."""
    seats = schedule.seats(key)
    places = forfeit_places(len(seats), seat)
    return GameRow(key.pairing, key.deal, key.rotation, schedule.seed_of(key), seats, FORFEIT,
                   points_from_places(places), places, None, None, None, seat, kind,
                   " ".join(reason.split()), None, None, seconds)
