"""What runs in a worker process: agents built once from their specs, games played by key.

A worker keeps a small status (which chunk, which game, which seat is deciding and since when)
where its parent can read it without asking: shared memory for the local pool, an actor method
for Ray. That is how a hung or crashed decision is pinned on the agent that made it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from pyanitsa.agents.sandbox import Policy, using
from pyanitsa.agents.seeding import AgentKey
from pyanitsa.agents.specs import make_agent
from pyanitsa.agents.warm import warm_agent
from pyanitsa.cards import Card
from pyanitsa.errors import PyanitsaRuntimeError
from pyanitsa.protocol import Agent
from pyanitsa.rules import Rules
from pyanitsa.workers.games import GameRow, play_rows
from pyanitsa.workers.schedule import GameKey, Schedule

Message = tuple[Any, ...]
"""What a backend reports: ``("done", wid, chunk, rows)``, ``("failed", wid, chunk, text)`` or
``("died", wid, exitcode, snapshot | None)``."""


class WorkerError(PyanitsaRuntimeError):
    """Workers that failed or kept dying outside any agent decision: the run stopped (the
    engine or the machine failed, not the input)."""


@dataclass(frozen=True)
class WorkerConfig:
    """What a worker needs to play any game of a schedule (a tournament builds it from its
    config and hands it to each worker, local or Ray)."""

    specs: tuple[str, ...]
    """The agents' specs, indexed like the schedule's entries."""
    rules: Rules
    """The rules of every game."""
    players: int
    """Seats at a table."""
    schedule: Schedule
    """Which agents sit where in a game, and its seed (with the agent key of a tournament
    whose deals are keyed)."""
    time_limit: float | None
    """Seconds per decision (none: no limit)."""
    engine: Literal["batch", "reference"] = "batch"
    """The games of a chunk together on the batch core, or one by one on the reference
    engine (the same games)."""
    sandbox: Policy = Policy()
    """The default sandbox of the ``cmd:`` agents (a spec may name its own)."""


@dataclass(frozen=True)
class Snapshot:
    """Where a worker was: chunk, game position in it, deciding seat (-1: none), for how long."""

    chunk: int
    position: int
    seat: int
    elapsed: float


class DecisionStatus:
    """Four numbers: chunk, position, deciding seat, start of the decision (monotonic clock)."""

    def __init__(self, values: MutableSequence[float] | None = None) -> None:
        self.values = values if values is not None else [-1.0, -1.0, -1.0, 0.0]

    def game(self, chunk: int, position: int) -> None:
        v = self.values
        v[2] = -1.0
        v[0] = float(chunk)
        v[1] = float(position)

    def deciding(self, seat: int) -> None:
        self.values[3] = time.monotonic()
        self.values[2] = float(seat)

    def done(self) -> None:
        self.values[2] = -1.0

    def snapshot(self) -> Snapshot:
        chunk, position, seat, start = list(self.values)
        elapsed = time.monotonic() - start if seat >= 0 else 0.0
        return Snapshot(int(chunk), int(position), int(seat), elapsed)


class TrackedAgent:
    """An agent whose decisions are marked in a :class:`DecisionStatus`."""

    def __init__(self, agent: Agent, status: DecisionStatus) -> None:
        self.agent = agent
        self.status = status

    @property
    def name(self) -> str:
        return getattr(self.agent, "name", type(self.agent).__name__)

    def warm_up(self, rules: Rules | None = None, players: int = 2) -> None:
        warm_agent(self.agent, rules, players)

    def order_hand(self, view: Any, rng: np.random.Generator) -> Sequence[Card]:
        return self._decide("order_hand", view, rng)

    def order_pickup(self, view: Any, rng: np.random.Generator) -> Sequence[Card]:
        return self._decide("order_pickup", view, rng)

    def _decide(self, decision: str, view: Any, rng: np.random.Generator) -> Sequence[Card]:
        self.status.deciding(view.seat)
        try:
            return getattr(self.agent, decision)(view, rng)
        finally:
            self.status.done()


class WorkerContext:
    """A worker's agents, rules and schedule, built once per process from its
    :class:`WorkerConfig`, and the tournament's agent key that seeds the agents' generators."""

    def __init__(self, config: WorkerConfig, key: AgentKey,
                 status: DecisionStatus | None = None) -> None:
        self.key = key
        self.status = status or DecisionStatus()
        self.schedule: Schedule = config.schedule
        self.rules = config.rules
        self.time_limit = config.time_limit
        self.engine = config.engine
        with using(config.sandbox):
            self.agents = [TrackedAgent(make_agent(spec), self.status)
                           for spec in config.specs]

    def close(self) -> None:
        """Close the agents that hold something (a ``cmd:`` bot's process)."""
        for tracked in self.agents:
            close = getattr(tracked.agent, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):
                    close()

    def play(self, chunk: int, keys: Sequence[GameKey]) -> list[GameRow]:
        """Play the games of a chunk (decisions game by game, then the games together on the
        batch core)."""
        rows = play_rows(self.schedule, self.rules, self.agents, [GameKey(*k) for k in keys],
                         time_limit=self.time_limit, engine=self.engine,
                         before=lambda position: self.status.game(chunk, position),
                         key=self.key)
        self.status.game(-1, -1)
        return rows
