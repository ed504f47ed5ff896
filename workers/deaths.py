"""What a run does when a worker is lost: replay, forfeit or hand out again the games it held.

* A decision still running after ``kill_after`` seconds (``timeout``) is the deciding agent's
  forfeit at once: the parent timed it.
* A worker that dies is not yet the deciding agent's fault (it may have been killed from
  outside): the game it was deciding is replayed on its own in the worker started in its place,
  with the same seeds, and only a second death in the same seat's decision of that game is the
  agent's forfeit (``error``).
* The other games of its chunks are handed out again. A chunk a worker died in twice outside
  any decision is retried game by game; the run stops only if one game, played alone, kills two
  workers outside any decision, or workers die three times in a row before playing anything
  (then no agent is to blame: the engine or the machine failed).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pyanitsa.workers.games import forfeit_row
from pyanitsa.workers.schedule import GameKey, Schedule
from pyanitsa.workers.worker import WorkerError


@dataclass
class Chunk:
    """Games handed to one worker in one message."""

    id: int
    keys: list[GameKey]
    crashes: int = 0
    """Deaths of workers playing this chunk outside any decision."""


class Deaths:
    """The games to hand out again after workers were lost, and the deaths counted so far."""

    def __init__(self, schedule: Schedule, names: Sequence[str], chunk_ids: Iterator[int]) -> None:
        self.schedule = schedule
        self.names = names
        self.chunk_ids = chunk_ids
        self.retry: deque[Chunk] = deque()
        # games replayed after their worker died in a decision, each for that worker's
        # successor; deaths counted per (game, seat deciding)
        self.pinned: dict[int, deque[Chunk]] = {}
        self.strikes: dict[tuple[GameKey, int], int] = {}
        self.idle = 0
        """Worker deaths outside any decision and any chunk's games, in a row with no chunk
        finished in between. (Deaths in a decision are bounded by the strikes: a decision kills
        at most two workers; counting them here stopped a run of two workers whose agent kills
        its own process, before its forfeits could be stored.)"""

    def lost(self, wid: int, chunks: list[Chunk], snap: Any, kind: str, what: str, *,
             done: set[GameKey], store: Callable[[list[tuple[Any, ...]]], None],
             emit: Callable[[dict[str, Any]], None]) -> None:
        """Worker ``wid`` is gone with ``chunks``; score (through ``store``) or replay the
        decision it was in, hand the other games out again, and ``emit`` a ``worker`` event.

        A hang (``timeout``) is the deciding agent's forfeit at once: the parent timed it. A
        death is no evidence against the agent yet (anything may kill a worker from outside),
        so that game is replayed on its own in the fresh worker, with the same seeds; only a
        second death in the same seat's decision of that game is the agent's forfeit.
        """
        deciding = deciding_game(chunks, snap)
        action = "retry"
        if deciding is not None:
            key, seat = deciding
            strikes = self.strikes[deciding] = self.strikes.get(deciding, 0) + 1
            if kind == "timeout" or strikes >= 2:
                name = self.names[self.schedule.seats(key)[seat]]
                again = "" if kind == "timeout" else \
                    "; it died in this decision twice, the second time replayed in a fresh worker"
                row = forfeit_row(self.schedule, key, seat, kind,
                                  f"seat {seat}: agent {name!r}: {what}{again}")
                store([row])
                action = "forfeit"
            else:
                self.pinned[wid].append(Chunk(next(self.chunk_ids), [key]))
                action = "replay"
        emit({"event": "worker", "worker": wid, "what": kind, "detail": what,
              "game": None if deciding is None else list(deciding[0]),
              "seat": None if deciding is None else deciding[1], "action": action})
        self.requeue(chunks, None if deciding is None else deciding[0],
                     None if deciding is not None else running_chunk(chunks, snap), what,
                     done=done)

    def requeue(self, chunks: list[Chunk], replayed: GameKey | None, struck: int | None,
                what: str, *, done: set[GameKey]) -> None:
        """Hand the unfinished games of lost chunks out again. ``struck`` is the chunk the
        worker died in outside any decision: twice, and its games are tried one by one; a
        single game that kills two workers on its own, outside any decision, stops the run
        (no agent was deciding: the engine or the machine failed)."""
        if replayed is None and struck is None:  # a death in a decision is that decision's
            self.idle += 1
            if self.idle >= 3:
                raise WorkerError(f"workers died {self.idle} times in a row before playing "
                                  f"a game ({what}); fix the cause and continue with "
                                  "resume=True")
        for chunk in reversed(chunks):
            chunk.keys = [k for k in chunk.keys if k != replayed and k not in done]
            if not chunk.keys:
                continue
            if chunk.id != struck:
                self.retry.appendleft(chunk)
                continue
            chunk.crashes += 1
            if chunk.crashes < 2:
                self.retry.appendleft(chunk)
            elif len(chunk.keys) > 1:
                self.retry.extendleft(Chunk(next(self.chunk_ids), [k])
                                      for k in reversed(chunk.keys))
            else:
                raise WorkerError(
                    f"game {tuple(chunk.keys[0])} killed its worker twice on its own, outside "
                    f"any agent decision ({what}); fix the cause and continue with resume=True")


def deciding_game(chunks: list[Chunk], snap: Any) -> tuple[GameKey, int] | None:
    """The game and seat whose decision a worker was in, from its last snapshot."""
    if snap is None or snap.seat < 0:
        return None
    for chunk in chunks:
        if chunk.id == snap.chunk and 0 <= snap.position < len(chunk.keys):
            return chunk.keys[snap.position], snap.seat
    return None


def running_chunk(chunks: list[Chunk], snap: Any) -> int | None:
    """The chunk a worker was playing when it died outside a decision: its snapshot's, or
    with no snapshot (Ray) the oldest in flight, since a worker plays its chunks in order."""
    if snap is None:
        return chunks[0].id if chunks else None
    return snap.chunk if any(c.id == snap.chunk for c in chunks) else None
