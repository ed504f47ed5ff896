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
* A worker that dies is not yet the deciding agent's fault (it may have been killed from
  outside): the game it was deciding is replayed on its own in the worker started in its place,
  with the same seeds, and only a second death in the same seat's decision of that game is the
  agent's forfeit (``error``). Other games of its chunks are handed out again. A chunk a worker
  died in twice outside any decision is retried game by game; the run stops only if one game,
  played alone, kills two workers outside any decision, or workers die three times in a row
  before playing anything (then no agent is to blame: the engine or the machine failed).
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyanitsa.agents.seeding import AgentKey
from pyanitsa.agents.specs import make_agent
from pyanitsa.tournaments.config import TournamentConfig, TournamentConfigError, TournamentError
from pyanitsa.tournaments.games import GameRow, forfeit_row
from pyanitsa.tournaments.lock import FolderLock
from pyanitsa.tournaments.schedule import GameKey, Schedule
from pyanitsa.tournaments.stats import Sprt, block_score
from pyanitsa.tournaments.store import Store

FIRST_CHUNK = 16
"""Games in the first chunks, before any game has been timed."""
CHUNK_SECONDS = 0.25
"""The play time a chunk aims at once games have been timed."""
MAX_CHUNK = 1024
WORKER_LOG = "workers.log"
"""Local workers' stdout and stderr, in the output folder."""

EventSink = Callable[[dict[str, Any]], None]


@dataclass
class Chunk:
    id: int
    keys: list[GameKey]
    crashes: int = 0


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


class SprtTracker:
    """The SPRT of every pairing, fed complete blocks in deal order (as the statistics are)."""

    def __init__(self, config: TournamentConfig, schedule: Schedule) -> None:
        assert config.sprt is not None
        self.schedule = schedule
        self.tests = {p.index: Sprt(config.sprt) for p in schedule.pairings}
        self.next_deal = dict.fromkeys(self.tests, 0)
        self.partial: dict[tuple[int, int], list[GameRow]] = {}
        self.ready: dict[tuple[int, int], float] = {}

    def stopped(self, pairing: int) -> bool:
        return self.tests[pairing].decision is not None

    def add(self, row: GameRow) -> str | None:
        """Count a game; return the pairing's decision if this game completed it."""
        pairing, deal = row.pairing, row.deal
        if deal >= self.schedule.deals or self.stopped(pairing):
            return None
        block = self.partial.setdefault((pairing, deal), [])
        block.append(row)
        if len(block) < self.schedule.block_size:
            return None
        # the same block score the statistics use (stats.count_blocks)
        first = self.schedule.pairings[pairing].entries[0]
        self.ready[(pairing, deal)] = block_score(block, first)
        del self.partial[(pairing, deal)]
        test = self.tests[pairing]
        while (pairing, self.next_deal[pairing]) in self.ready and test.decision is None:
            test.add(self.ready.pop((pairing, self.next_deal[pairing])))
            self.next_deal[pairing] += 1
        return test.decision


def check_agents(config: TournamentConfig) -> None:
    """Build every agent once here, so a bad spec fails before any worker starts."""
    for i, entry in enumerate(config.agents):
        try:
            make_agent(entry.spec)
        except Exception as exc:
            raise TournamentConfigError(f"agents.{i}.spec: {' '.join(str(exc).split())}") \
                from None


def make_backend(config: TournamentConfig, workers: int, key: AgentKey) -> Any:
    """The workers, handed the config and the agent key (which only they and the database
    hold: it is not part of the config)."""
    config_json = config.model_dump_json()
    if config.backend == "ray":
        try:
            from pyanitsa.tournaments.ray_backend import RayBackend
        except ImportError as exc:
            raise TournamentError(f"backend: ray is not installed ({exc}); install the "
                                  "'ray' extra: pip install 'pyanitsa[ray]'") from None
        return RayBackend(config_json, workers, config.ray_address, key)
    from pyanitsa.tournaments.pool import LocalBackend
    return LocalBackend(config_json, workers, key, log=worker_log(config))


def worker_log(config: TournamentConfig) -> Path:
    """Where local workers' stdout and stderr go: on the console, agents' prints would garble
    the progress bar and the table."""
    return config.output_dir.resolve() / WORKER_LOG


def run_tournament(config: TournamentConfig, *, resume: bool = False, overwrite: bool = False,
                   progress: bool = False, events: EventSink | None = None,
                   poll: float = 0.25, lock: FolderLock | None = None,
                   logged: set[tuple[int, int, int]] | None = None,
                   key: AgentKey | None = None) -> RunResult:
    """Play (or finish) a tournament into ``config.output_dir``; see the module docstring.

    The run holds the output folder's lock (:mod:`~pyanitsa.tournaments.lock`) from before
    the database is opened (or, with ``overwrite``, deleted) to its end; pass ``lock`` when
    the caller holds it already (the CLI keeps it through the reports).

    ``logged``: the games whose ``game`` events the sink holds already (a resumed run that
    appends to its events file). Stored games missing from it, whose events a kill between a
    commit and its events lost, are sent first, so the sink ends with each stored game once.

    ``key``: the agent key of a new database (default: a fresh random one). Two tournaments
    of the same config and key play the same games; the database keeps its key for resume.
    """
    start = time.perf_counter()
    config.build_rules()
    check_agents(config)
    schedule = Schedule.from_config(config)
    held = lock if lock is not None else FolderLock.acquire(config.output_dir)
    try:
        store = Store.create(config.output_dir, config, resume=resume, overwrite=overwrite,
                             key=key)
        try:
            return _Run(config, schedule, store, progress, events, poll,
                        logged=logged).run(start)
        finally:
            store.close()
    finally:
        if lock is None:
            held.release()


class _Run:
    def __init__(self, config: TournamentConfig, schedule: Schedule, store: Store,
                 progress: bool, events: EventSink | None, poll: float, *,
                 logged: set[tuple[int, int, int]] | None = None) -> None:
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
        self.bar: Any = None
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
        if self.sprt is not None:  # a resumed run: its stored games count towards the tests
            for row in store.iter_rows():
                self._count_sprt(row, announce=False)
        self.retry: deque[Chunk] = deque()
        # games replayed after their worker died in a decision, each for that worker's
        # successor; deaths counted per (game, seat deciding)
        self.pinned: dict[int, deque[Chunk]] = {}
        self.deaths: dict[tuple[GameKey, int], int] = {}
        self.idle_deaths = 0
        self.chunk_ids = iter(range(1 << 62))
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
            self.bar.total = max(self.bar.n, self.bar.total - dropped)
            self.bar.refresh()
        if announce:
            a, b = self.schedule.pairings[pairing].entries
            self._emit({"event": "sprt", "pairing": pairing,
                        "agents": [self.names[a], self.names[b]], "decision": decision,
                        "llr": test.llr, "blocks": test.n, "score": test.mean})

    def _next_chunk(self, wid: int) -> Chunk | None:
        for queue in (self.pinned[wid], self.retry):
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

    def _resize_chunks(self, rows: list[tuple[Any, ...]]) -> None:
        """Aim chunks at CHUNK_SECONDS of play from the games' measured times: fast agents get
        big chunks (fewer round trips and database commits), slow ones small (a killed worker
        loses less)."""
        self.timed_games += len(rows)
        self.timed_seconds += sum(float(r[-1]) for r in rows)
        per_game = self.timed_seconds / self.timed_games
        want = int(CHUNK_SECONDS / per_game) if per_game > 0 else self.max_chunk
        self.chunk_games = max(1, min(self.max_chunk, want))

    def _store(self, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self._resize_chunks(rows)
        new = self.store.add_sql(rows)
        self.played += new
        if self.bar is not None:
            self.bar.update(new)
        for sql in rows:
            key = GameKey(*sql[:3])
            if key in self.done:
                continue
            self.done.add(key)
            if self.sprt is not None or self.events is not None:
                row = GameRow.from_sql(sql)
                if self.events is not None:
                    self._emit(self._game_event(row))
                if self.sprt is not None:
                    self._count_sprt(row)

    def _game_event(self, row: GameRow) -> dict[str, Any]:
        forfeit = None if row.forfeit_seat is None else {
            "seat": row.forfeit_seat, "agent": self.names[row.seats[row.forfeit_seat]],
            "kind": row.forfeit_kind, "reason": row.forfeit_reason}
        return {"event": "game", "pairing": row.pairing, "deal": row.deal,
                "rotation": row.rotation, "agents": [self.names[i] for i in row.seats],
                "outcome": row.outcome, "points": list(row.points), "places": list(row.places),
                "rounds": row.rounds, "forfeit": forfeit}

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
                    self._emit(self._game_event(row))
        log = worker_log(self.config)
        log_before = _size(log)
        if to_play:
            backend = make_backend(self.config, self.workers, self.store.agent_key())
            try:
                backend.start()
                self.bar = _progress_bar(already + to_play, already, self.config.name,
                                         self.show_progress)
                self._loop(backend)
            finally:
                backend.close()
                if self.bar is not None:
                    self.bar.close()
        seconds = time.perf_counter() - start
        games = self.store.count()
        self._emit({"event": "finish", "played": self.played, "games": games,
                    "seconds": seconds})
        return RunResult(self.config.output_dir, self.played, games, seconds,
                         self.decisions, _size(log) - log_before)

    def _loop(self, backend: Any) -> None:
        inflight: dict[int, list[Chunk]] = {wid: [] for wid in backend.ids}
        self.pinned = {wid: deque() for wid in backend.ids}
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
                    self.idle_deaths = 0
                    self._store(rows)
                elif kind == "failed":
                    raise TournamentError(f"worker {wid} failed: {message[3].strip()}")
                elif kind == "died":
                    self._lost(backend, wid, inflight, message[3], "error",
                               f"worker process died (exit code {message[2]})")
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
        """A worker is gone with its chunks; score or replay the decision it was in, hand the
        other games out again.

        A hang (``timeout``) is the deciding agent's forfeit at once: the parent timed it. A
        death is no evidence against the agent yet (anything may kill a worker from outside),
        so that game is replayed on its own in the fresh worker, with the same seeds; only a
        second death in the same seat's decision of that game is the agent's forfeit.
        """
        chunks, inflight[wid] = inflight[wid], []
        deciding = _deciding(chunks, snap)
        action = "retry"
        if deciding is not None:
            key, seat = deciding
            strikes = self.deaths[deciding] = self.deaths.get(deciding, 0) + 1
            if kind == "timeout" or strikes >= 2:
                name = self.names[self.schedule.seats(key)[seat]]
                again = "" if kind == "timeout" else \
                    "; it died in this decision twice, the second time replayed in a fresh worker"
                row = forfeit_row(self.schedule, key, seat, kind,
                                  f"seat {seat}: agent {name!r}: {what}{again}")
                self._store([row.to_sql()])
                action = "forfeit"
            else:
                self.pinned[wid].append(Chunk(next(self.chunk_ids), [key]))
                action = "replay"
        self._emit({"event": "worker", "worker": wid, "what": kind, "detail": what,
                    "game": None if deciding is None else list(deciding[0]),
                    "seat": None if deciding is None else deciding[1], "action": action})
        self._requeue(chunks, None if deciding is None else deciding[0],
                      None if deciding is not None else _running(chunks, snap), what)

    def _requeue(self, chunks: list[Chunk], replayed: GameKey | None, struck: int | None,
                 what: str) -> None:
        """Hand the unfinished games of lost chunks out again. ``struck`` is the chunk the
        worker died in outside any decision: twice, and its games are tried one by one; a
        single game that kills two workers on its own, outside any decision, stops the run
        (no agent was deciding: the engine or the machine failed)."""
        if struck is None:
            self.idle_deaths += 1
            if self.idle_deaths >= 3:
                raise TournamentError(f"workers died {self.idle_deaths} times in a row before "
                                      f"playing a game ({what}); fix the cause and continue "
                                      "with --resume")
        for chunk in reversed(chunks):
            chunk.keys = [k for k in chunk.keys if k != replayed and k not in self.done]
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
                raise TournamentError(
                    f"game {tuple(chunk.keys[0])} killed its worker twice on its own, outside "
                    f"any agent decision ({what}); fix the cause and continue with --resume")


def _deciding(chunks: list[Chunk], snap: Any) -> tuple[GameKey, int] | None:
    """The game and seat whose decision a worker was in, from its last snapshot."""
    if snap is None or snap.seat < 0:
        return None
    for chunk in chunks:
        if chunk.id == snap.chunk and 0 <= snap.position < len(chunk.keys):
            return chunk.keys[snap.position], snap.seat
    return None


def _running(chunks: list[Chunk], snap: Any) -> int | None:
    """The chunk a worker was playing when it died outside a decision: its snapshot's, or
    with no snapshot (Ray) the oldest in flight, since a worker plays its chunks in order."""
    if snap is None:
        return chunks[0].id if chunks else None
    return snap.chunk if any(c.id == snap.chunk for c in chunks) else None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _progress_bar(total: int, initial: int, name: str, show: bool) -> Any:
    if not show:
        return None
    from tqdm import tqdm

    # no monitor thread: workers may be forked later, and a fork should copy one thread only
    saved, tqdm.monitor_interval = tqdm.monitor_interval, 0
    try:
        return tqdm(total=total, initial=initial, unit="game", desc=name, file=sys.stderr,
                    dynamic_ncols=True, smoothing=0.05)
    finally:
        tqdm.monitor_interval = saved
