"""Running a tournament: hand chunks of games to workers, store each finished game once.

The parent process owns the database and the schedule. Workers (local processes or Ray actors)
build the agents once and play chunks of whole duplicate blocks; every finished chunk is
written in one transaction with ``INSERT OR IGNORE``, so nothing is counted twice and a kill
loses at most the chunks in flight. Resuming skips the keys already stored; because every
game's cards and agent generators come from its key alone (with the tournament's secret agent
key, kept in the database), the results are those of an uninterrupted run, with any number of
workers, on either backend.

Chunks aim at a quarter of a second of play, sized from the games' measured times: scripted
agents get chunks of hundreds of games (few round trips and commits, big batches for the batch
core), slow search agents a few games (a killed worker loses little).

Failures:

* An agent that raises, answers illegally or overruns ``time_limit`` forfeits the game
  (:mod:`pyanitsa.agents.game` checks each answer, the time after it returns).
* A decision still running after ``kill_after`` seconds (``hang_timeout``, by default
  ``2 * time_limit + 5``) gets its worker killed; the agent forfeits that game (``timeout``),
  the worker is replaced and the other games of its chunks are handed out again.
* A worker that dies is handled by :mod:`pyanitsa.workers.deaths`: the game it was
  deciding is replayed once, a second death in that decision is the agent's forfeit, and the
  other games of its chunks are handed out again.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyanitsa.agents.sandbox import using
from pyanitsa.agents.seeding import AgentKey
from pyanitsa.agents.specs import make_agent
from pyanitsa.folder_lock import FolderLock
from pyanitsa.protocol import check_game
from pyanitsa.tournaments.anchor import anchor_index
from pyanitsa.tournaments.config import TournamentConfig, TournamentConfigError, TournamentError
from pyanitsa.tournaments.events import (
    EventSink,
    Progress,
    file_size,
    game_event,
    standings_event,
)
from pyanitsa.tournaments.fallbacks import say_fallbacks
from pyanitsa.tournaments.live import STANDINGS_SECONDS, LiveStandings, SprtTracker
from pyanitsa.tournaments.sandboxing import say_sandbox
from pyanitsa.tournaments.schedule import schedule_of, worker_config
from pyanitsa.tournaments.store import Store, hold_folder
from pyanitsa.workers.deaths import Chunk, Deaths
from pyanitsa.workers.games import GameRow
from pyanitsa.workers.schedule import GameKey, Schedule
from pyanitsa.workers.worker import WorkerError

FIRST_CHUNK = 16
"""Games in the first chunks, before any game has been timed."""
CHUNK_SECONDS = 0.25
"""The play time a chunk aims at once games have been timed."""
MAX_CHUNK = 1024
WORKER_LOG = "workers.log"
"""Workers' stdout and stderr, in the output folder (capped: workers/output.py)."""


@dataclass
class RunResult:
    """What a run did."""

    output: Path
    played: int
    """Games played and stored by this run."""
    games: int
    """Games in the database now."""
    seconds: float
    sprt: dict[int, str] = field(default_factory=dict)
    """Pairings stopped by the SPRT: pairing -> ``H0`` / ``H1``."""
    worker_output: int = 0
    """Bytes the workers (their agents, mostly) wrote to ``OUTPUT/workers.log`` in this run."""


def check_agents(config: TournamentConfig) -> None:
    """Build every agent once here, so a bad spec, or an agent that cannot play these rules,
    fails before any worker starts."""
    rules = config.build_rules()
    for i, entry in enumerate(config.agents):
        try:
            with using(config.sandbox_policy()):
                check_game([make_agent(entry.spec)], rules, config.players)
        except Exception as exc:
            raise TournamentConfigError(f"agents.{i}.spec: {' '.join(str(exc).split())}") \
                from None


def make_backend(config: TournamentConfig, workers: int, key: AgentKey) -> Any:
    """The workers, handed what they need of the config and the agent key (which only they
    and the database hold: it is not part of the config)."""
    wanted = worker_config(config, key)
    if config.backend == "ray":
        try:
            from pyanitsa.workers.ray_backend import RayBackend
        except ImportError as exc:
            raise TournamentError(f"backend: ray is not installed ({exc}); install the "
                                  "'ray' extra: pip install 'pyanitsa[ray]'") from None
        return RayBackend(wanted, workers, config.ray_address, key, log=worker_log(config))
    from pyanitsa.workers.pool import LocalBackend
    return LocalBackend(wanted, workers, key, log=worker_log(config))


def worker_log(config: TournamentConfig) -> Path:
    """Where workers' stdout and stderr go: on the console, agents' prints would garble the
    progress bar and the table."""
    return config.output_dir.resolve() / WORKER_LOG


def run_tournament(config: TournamentConfig, *, resume: bool = False, overwrite: bool = False,
                   progress: bool = False, events: EventSink | None = None,
                   poll: float = 0.25, lock: FolderLock | None = None,
                   logged: set[tuple[int, int, int]] | None = None,
                   key: AgentKey | None = None,
                   standings_every: float = STANDINGS_SECONDS) -> RunResult:
    """Play (or finish) a tournament into ``config.output_dir``; see the module docstring.

    The run holds the output folder's lock (:mod:`~pyanitsa.folder_lock`) from before
    the database is opened (or, with ``overwrite``, deleted) to its end; pass ``lock`` when
    the caller holds it already (the CLI keeps it through the reports).

    ``logged``: the games whose ``game`` events the sink holds already (a resumed run that
    appends to its events file). Stored games missing from it, whose events a kill between a
    commit and its events lost, are sent first, so the sink ends with each stored game once.

    ``key``: the agent key of a new database (default: a fresh random one). Two tournaments
    of the same config and key play the same games; the database keeps its key for resume.

    ``standings_every``: seconds between live standings (:mod:`~pyanitsa.tournaments.live`),
    shown with the progress and sent as ``standings`` events.
    """
    start = time.perf_counter()
    config.build_rules()
    say_sandbox(config)
    check_agents(config)
    say_fallbacks(config)
    held = lock if lock is not None else hold_folder(config.output_dir)
    try:
        store = Store.create(config.output_dir, config, resume=resume, overwrite=overwrite,
                             key=key)
        try:
            config = store.config()  # with the seed a seedless config was given
            schedule = schedule_of(config, store.agent_key())
            return _Run(config, schedule, store, progress, events, poll, logged=logged,
                        standings_every=standings_every).run(start)
        finally:
            store.close()
    finally:
        if lock is None:
            held.release()


class _Run:
    def __init__(self, config: TournamentConfig, schedule: Schedule, store: Store,
                 progress: bool, events: EventSink | None, poll: float, *,
                 logged: set[tuple[int, int, int]] | None = None,
                 standings_every: float = STANDINGS_SECONDS) -> None:
        self.config = config
        self.schedule = schedule
        self.store = store
        self.events = events
        self.poll = poll
        self.logged = logged
        self.show_progress = progress
        self.names = config.names
        self.done = store.keys()
        self.sprt = SprtTracker(config, schedule) if config.sprt is not None else None
        self.bar: Progress | None = None
        self.live = LiveStandings(self.names, standings_every, anchor_index(config)) \
            if progress or events is not None else None
        # the games still to play, block by block in hand-out order: generated as they are
        # handed out (``deals`` may be huge), counted from the stored keys alone
        self.todo: Iterator[list[GameKey]] = schedule.missing(self.done)
        stored = [k for k in self.done if k.deal < schedule.deals]
        per_pairing = schedule.deals * schedule.block_size
        self.unissued: dict[int, int] = dict.fromkeys(range(len(schedule.pairings)), per_pairing)
        for key in stored:
            self.unissued[key.pairing] -= 1
        blocks: dict[tuple[int, int], int] = {}
        for key in stored:
            blocks[key.pairing, key.deal] = blocks.get((key.pairing, key.deal), 0) + 1
        complete = sum(1 for (_, deal), n in blocks.items()
                       if n == len(schedule.rotations(deal)))
        pending_blocks = len(schedule.pairings) * schedule.deals - complete
        if self.done and (self.sprt is not None or self.live is not None):
            for row in store.iter_rows():  # a resumed run: its stored games count too
                if self.sprt is not None:
                    self._count_sprt(row, announce=False)
                if self.live is not None:
                    self.live.add(row)
        self.chunk_ids = iter(range(1 << 62))
        self.deaths = Deaths(schedule, self.names, self.chunk_ids)
        self.played = 0
        remaining = self.left
        workers = max(1, min(config.workers, pending_blocks))
        # at least 8 chunks per worker, so the last ones balance; SPRT stops need small chunks
        self.max_chunk = max(1, min(MAX_CHUNK, remaining // (workers * 8)))
        if config.sprt is not None:
            self.max_chunk = min(self.max_chunk, 4 * schedule.block_size)
        self.chunk_games = min(FIRST_CHUNK, self.max_chunk)
        self.timed_games = 0
        self.timed_seconds = 0.0
        self.workers = workers

    # -- bookkeeping ----------------------------------------------------------------------------

    @property
    def decisions(self) -> dict[int, str]:
        """Pairings stopped by the SPRT: pairing -> ``H0`` / ``H1``."""
        if self.sprt is None:
            return {}
        return {p: t.decision for p, t in self.sprt.tests.items() if t.decision is not None}

    @property
    def left(self) -> int:
        """Games not yet handed out, of pairings still running."""
        return sum(n for p, n in self.unissued.items() if not self._stopped(p))

    def _stopped(self, pairing: int) -> bool:
        return self.sprt is not None and self.sprt.stopped(pairing)

    def _emit(self, event: dict[str, Any]) -> None:
        if self.events is not None:
            self.events(event)

    def _count_sprt(self, row: GameRow, *, announce: bool = True) -> None:
        assert self.sprt is not None
        pairing = row.pairing
        decision = self.sprt.add(row)
        if decision is None:  # add returns a decision once: with the game that reached it
            return
        test = self.sprt.tests[pairing]
        dropped = self.unissued[pairing]
        self.unissued[pairing] = 0
        if self.bar is not None:
            self.bar.set_total(max(self.bar.n, self.bar.total - dropped))
        if announce:
            a, b = self.schedule.pairings[pairing].entries
            self._emit({"event": "sprt", "pairing": pairing,
                        "agents": [self.names[a], self.names[b]], "decision": decision,
                        "llr": test.llr, "blocks": test.n, "score": test.mean})

    def _next_chunk(self, wid: int) -> Chunk | None:
        for queue in (self.deaths.pinned[wid], self.deaths.retry):
            while queue:
                chunk = queue.popleft()
                chunk.keys = [k for k in chunk.keys if not self._stopped(k.pairing)]
                if chunk.keys:
                    return chunk
        keys: list[GameKey] = []
        # guided: near the end, chunks shrink so the workers finish together
        size = min(self.chunk_games, max(1, self.left // (4 * self.workers)))
        while len(keys) < size and self.left:  # left: not through 10**12 stopped blocks
            block = next(self.todo, None)
            if block is None:
                break
            pairing = block[0].pairing
            if self._stopped(pairing):
                continue
            self.unissued[pairing] -= len(block)
            keys.extend(block)
        return Chunk(next(self.chunk_ids), keys) if keys else None

    def _resize_chunks(self, rows: list[GameRow]) -> None:
        """Aim chunks at CHUNK_SECONDS of play from the games' measured times: fast agents get
        big chunks (fewer round trips and database commits), slow ones small (a killed worker
        loses less)."""
        self.timed_games += len(rows)
        self.timed_seconds += sum(r.seconds for r in rows)
        per_game = self.timed_seconds / self.timed_games
        want = int(CHUNK_SECONDS / per_game) if per_game > 0 else self.max_chunk
        self.chunk_games = max(1, min(self.max_chunk, want))

    def _store(self, rows: list[GameRow]) -> None:
        if rows:
            self._resize_chunks(rows)
        new = self.store.add(rows)
        self.played += new
        if self.bar is not None:
            self.bar.update(new)
        for row in rows:
            if row.key in self.done:
                continue
            self.done.add(row.key)
            if self.live is not None:
                self.live.add(row)
            if self.sprt is not None or self.events is not None:
                if self.events is not None:
                    self._emit(game_event(row, self.names))
                if self.sprt is not None:
                    self._count_sprt(row)
        if self.live is not None and self.live.due():
            self._standings()

    def _standings(self) -> None:
        assert self.live is not None
        rows = self.live.rows()
        if self.bar is not None:
            self.bar.show(rows)
        self._emit(standings_event(self.live.games, rows))

    # -- the loop -------------------------------------------------------------------------------

    def run(self, start: float) -> RunResult:
        total_known = self.schedule.total_games
        already = sum(1 for k in self.done if k.deal < self.schedule.deals)
        to_play = self.left
        self._emit({"event": "start", "name": self.config.name,
                    "output": str(self.config.output_dir), "scheduled": total_known,
                    "stored": len(self.done), "to_play": to_play, "workers": self.workers,
                    "backend": self.config.backend})
        if self.logged is not None and self.events is not None \
                and any(k not in self.logged for k in self.done):
            # one row at a time: the records of a big tournament need not all be in memory
            for row in self.store.iter_rows():
                if row.key not in self.logged:
                    self._emit(game_event(row, self.names))
        log = worker_log(self.config)
        log_before = file_size(log)
        if to_play:
            backend = make_backend(self.config, self.workers, self.store.agent_key())
            try:
                backend.start()
                if self.show_progress:
                    self.bar = Progress(already + to_play, already, self.config.name)
                self._loop(backend)
                if self.live is not None and self.events is not None:
                    self._emit(standings_event(self.live.games, self.live.rows()))
            finally:
                backend.close()
                if self.bar is not None:
                    self.bar.close()
        seconds = time.perf_counter() - start
        games = self.store.count()
        self._emit({"event": "finish", "played": self.played, "games": games,
                    "seconds": seconds})
        return RunResult(self.config.output_dir, self.played, games, seconds,
                         self.decisions, file_size(log) - log_before)

    def _loop(self, backend: Any) -> None:
        inflight: dict[int, list[Chunk]] = {wid: [] for wid in backend.ids}
        self.deaths.pinned = {wid: deque() for wid in backend.ids}
        kill_after = self.config.kill_after
        last_check = time.monotonic()
        check_every = 0.0 if backend.name == "local" else max(1.0, (kill_after or 0) / 4)
        while True:
            for wid in backend.ids:
                while len(inflight[wid]) < backend.depth:
                    chunk = self._next_chunk(wid)
                    if chunk is None:
                        break
                    backend.submit(wid, chunk.id, chunk.keys)
                    inflight[wid].append(chunk)
            if not any(inflight.values()):
                return
            for message in backend.wait(self.poll):
                kind, wid = message[0], message[1]
                if kind == "done":
                    chunk_id, rows = message[2], message[3]
                    inflight[wid] = [c for c in inflight[wid] if c.id != chunk_id]
                    self.deaths.idle = 0
                    self._store(rows)
                elif kind == "failed":
                    raise WorkerError(f"worker {wid} failed: {message[3].strip()}")
                elif kind == "died":
                    self._lost(backend, wid, inflight, message[3], "error",
                               f"worker process died ({message[2]})")
                    backend.restart(wid)
            if kill_after is not None and time.monotonic() - last_check >= check_every:
                last_check = time.monotonic()
                for wid in backend.ids:
                    if not inflight[wid]:
                        continue
                    snap = backend.snapshot(wid)
                    if snap is None or snap.seat < 0 or snap.elapsed <= kill_after:
                        continue
                    for message in backend.kill(wid):
                        if message[0] == "done":
                            inflight[wid] = [c for c in inflight[wid] if c.id != message[2]]
                            self._store(message[3])
                    self._lost(backend, wid, inflight, snap, "timeout",
                               f"still deciding after {snap.elapsed:.1f} s (kill after "
                               f"{kill_after:g} s); its worker was killed")

    def _lost(self, backend: Any, wid: int, inflight: dict[int, list[Chunk]], snap: Any,
              kind: str, what: str) -> None:
        """A worker is gone with its chunks: see :meth:`Deaths.lost`."""
        chunks, inflight[wid] = inflight[wid], []
        self.deaths.lost(wid, chunks, snap, kind, what, done=self.done, store=self._store,
                         emit=self._emit)
