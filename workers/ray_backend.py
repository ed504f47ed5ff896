"""The Ray backend: the same chunks of games, played by one actor per worker on a Ray cluster.

Imported only for ``backend: ray`` (Ray is the optional ``ray`` extra). Each actor builds the
agents once and plays chunks in order on one thread, while a second thread lets the parent read
its decision status, so a hung decision is killed and scored as a forfeit as with the local
pool.

An actor keeps its decision status in a small memory-mapped file on its own node (``/dev/shm``
where there is one), which outlives the actor: when an actor dies, however (``ray.kill``,
SIGKILL of its process, an agent's ``os._exit``), a task on that node reads where it was, and
the run replays or forfeits the game it was deciding exactly as with the local pool (see
:mod:`pyanitsa.workers.deaths`). An actor's stdout and stderr are collected by the parent
about once a second into ``workers.log``, capped (:mod:`pyanitsa.workers.output`).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import secrets
import struct
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from pyanitsa.agents.seeding import AgentKey
from pyanitsa.workers.games import GameRow
from pyanitsa.workers.output import Buffer, CappedLog, OutputTap
from pyanitsa.workers.schedule import GameKey
from pyanitsa.workers.worker import (
    DecisionStatus,
    Message,
    Snapshot,
    WorkerConfig,
    WorkerContext,
)

STATUS_BYTES = 4 * 8
"""A decision status: four doubles (see :class:`~pyanitsa.workers.worker.DecisionStatus`)."""
COLLECT_EVERY = 1.0
"""Seconds between collections of the actors' output."""


NODE_WAIT = 60.0
"""Seconds to wait for a new actor to say where it runs before it gets its first games."""


def _status_path(name: str) -> str:
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    return os.path.join(folder, name)


def _status_board(name: str) -> memoryview:
    """A decision status in a file mapped into memory: writing it costs what the local pool's
    shared memory does, and its last value survives the process."""
    fd = os.open(_status_path(name), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.ftruncate(fd, STATUS_BYTES)
        values = memoryview(mmap.mmap(fd, STATUS_BYTES)).cast("d")
    finally:
        os.close(fd)
    for i, value in enumerate(DecisionStatus().values):
        values[i] = value
    return values


@ray.remote(num_cpus=0, max_retries=0)
def _read_status(name: str) -> Snapshot | None:
    """Where a dead actor was, read on its node; the file is removed."""
    path = _status_path(name)
    try:
        with open(path, "rb") as board:
            data = board.read(STATUS_BYTES)
        os.unlink(path)
    except OSError:
        return None
    if len(data) != STATUS_BYTES:
        return None
    return DecisionStatus(list(struct.unpack("4d", data))).snapshot()


class _Actor:
    def __init__(self, config: WorkerConfig, key: AgentKey, status_name: str,
                 capture: bool) -> None:
        self.output = Buffer()
        self.tap = OutputTap(self.output.write) if capture else None
        self.status_name = status_name
        self.status = DecisionStatus(_status_board(status_name))
        self.context = WorkerContext(config, key, self.status)

    @ray.method(concurrency_group="play")
    def play(self, chunk: int, keys: Sequence[tuple[int, int, int]]) -> list[GameRow]:
        return self.context.play(chunk, [GameKey(*k) for k in keys])

    @ray.method(concurrency_group="control")
    def snapshot(self) -> Snapshot:
        return self.status.snapshot()

    @ray.method(concurrency_group="control")
    def node(self) -> str:
        return ray.get_runtime_context().get_node_id()

    @ray.method(concurrency_group="control")
    def collect(self) -> tuple[bytes, int]:
        """Output since the last call, and how many bytes of it were dropped."""
        return self.output.take()

    @ray.method(concurrency_group="control")
    def shutdown(self) -> tuple[bytes, int]:
        """End the agents (``cmd:`` bots' processes) and return the last output."""
        self.context.close()
        if self.tap is not None:
            self.tap.close()
        with contextlib.suppress(OSError):
            os.unlink(_status_path(self.status_name))
        return self.output.take()


# One thread plays chunks in order; another answers snapshot() while it plays.
RayActor = ray.remote(num_cpus=1, concurrency_groups={"play": 1, "control": 1})(_Actor)


class RayBackend:
    """Actors on a Ray cluster: an existing one, ``address``, or a local one started here."""

    depth = 2
    name = "ray"

    def __init__(self, config: WorkerConfig, workers: int, address: str | None,
                 key: AgentKey, *, log: Path | None = None) -> None:
        self.config = config
        self.key = key
        self.log = None if log is None else CappedLog(log)
        """The actors' output, collected (none: left to Ray)."""
        self.started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "warning",
                                      "log_to_driver": True}
            if address is None:
                kwargs["num_cpus"] = workers
                # user agents (``pkg.mod:Class``) import in the actors as they do here
                path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
                kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
            ray.init(address=address, **kwargs)
            self.started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers_wanted = max(1, min(workers, cpus))
        self.actors: list[Any] = [None] * self.workers_wanted
        self.boards = [""] * self.workers_wanted
        """Each actor's status file name (unique to this run and actor)."""
        self.nodes: list[Any] = [None] * self.workers_wanted
        self.located: set[int] = set()
        """Actors whose node is known: only they are given games (see :meth:`submit`)."""
        """Each actor's node id, as a reference (it answers once built)."""
        self.token = secrets.token_hex(8)
        self.generation = 0
        self.inflight: dict[Any, tuple[int, int]] = {}  # ref -> (wid, chunk)
        self.outputs: dict[int, Any] = {}  # wid -> pending collect()
        self.collected = time.monotonic()

    @property
    def ids(self) -> range:
        return range(len(self.actors))

    def start(self) -> None:
        for wid in self.ids:
            self._new_actor(wid)

    def _new_actor(self, wid: int) -> None:
        self.generation += 1
        self.boards[wid] = f"pyanitsa-status-{self.token}-{wid}-{self.generation}"
        self.actors[wid] = RayActor.remote(self.config, self.key, self.boards[wid],
                                           self.log is not None)
        self.nodes[wid] = self.actors[wid].node.remote()
        self.located.discard(wid)

    def submit(self, wid: int, chunk: int, keys: Sequence[GameKey]) -> None:
        if wid not in self.located:
            # A dead actor's decision status is read on its node. Asked for at creation, the
            # node could still be unanswered when a game killed the actor (the play thread
            # won on a loaded machine): its death then looked like one outside any decision.
            with contextlib.suppress(RayError):  # died while being built, or slow: as before
                ray.get(self.nodes[wid], timeout=NODE_WAIT)
            self.located.add(wid)
        ref = self.actors[wid].play.remote(chunk, [tuple(k) for k in keys])
        self.inflight[ref] = (wid, chunk)

    def wait(self, timeout: float) -> list[Message]:
        self._collect()
        if not self.inflight:
            return []
        refs = list(self.inflight)
        ready, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        out: list[Message] = []
        dead: set[int] = set()
        for ref in ready:
            wid, chunk = self.inflight.pop(ref)
            try:
                out.append(("done", wid, chunk, ray.get(ref)))
            except RayActorError:
                if wid not in dead:
                    dead.add(wid)
                    out.append(("died", wid, "its Ray actor is gone", self._last_status(wid)))
            except RayTaskError as exc:
                out.append(("failed", wid, chunk, str(exc)))
        return out

    def _last_status(self, wid: int, *, wait: bool = True) -> Snapshot | None:
        """A dead (or killed) actor's last decision status, read on its node (none if the
        node is gone too); ``wait=False`` only removes the file."""
        try:
            node = ray.get(self.nodes[wid], timeout=30)
        except RayError:  # it died before it was built: it decided nothing
            return None
        strategy = NodeAffinitySchedulingStrategy(node, soft=False)
        ref = _read_status.options(scheduling_strategy=strategy).remote(self.boards[wid])
        if not wait:
            return None
        try:
            return ray.get(ref, timeout=30)
        except RayError:
            return None

    def _collect(self, *, now: bool = False) -> None:
        """Write the actors' output to the log, at most once every COLLECT_EVERY seconds
        (without waiting for an actor that is busy being built)."""
        if self.log is None or not now and time.monotonic() - self.collected < COLLECT_EVERY:
            return
        self.collected = time.monotonic()
        for wid, ref in list(self.outputs.items()):
            ready, _ = ray.wait([ref], timeout=0)
            if ready:
                del self.outputs[wid]
                self._write(ref)
        for wid, actor in enumerate(self.actors):
            if actor is not None and wid not in self.outputs:
                self.outputs[wid] = actor.collect.remote()

    def _write(self, ref: Any, timeout: float = 0) -> None:
        assert self.log is not None
        try:
            data, dropped = ray.get(ref, timeout=timeout)
        except RayError:  # the actor died: what it wrote since the last collection is lost
            return
        self.log.write(data)
        if dropped:
            self.log.overflow()

    def snapshot(self, wid: int) -> Snapshot | None:
        try:
            return ray.get(self.actors[wid].snapshot.remote(), timeout=10)
        except (GetTimeoutError, RayActorError):
            return None

    def _forget(self, wid: int) -> None:
        for ref in [r for r, (w, _) in self.inflight.items() if w == wid]:
            del self.inflight[ref]
        self.outputs.pop(wid, None)

    def kill(self, wid: int) -> list[Message]:
        """Kill an actor (chunks it already finished are returned) and start a fresh one."""
        mine = [r for r, (w, _) in self.inflight.items() if w == wid]
        ready, _ = ray.wait(mine, num_returns=len(mine), timeout=0) if mine else ([], [])
        out: list[Message] = []
        for ref in ready:
            _, chunk = self.inflight.pop(ref)
            with contextlib.suppress(RayActorError, RayTaskError):
                out.append(("done", wid, chunk, ray.get(ref)))
        ray.kill(self.actors[wid], no_restart=True)
        self._last_status(wid, wait=False)  # remove its status file
        self.restart(wid)
        return out

    def restart(self, wid: int) -> None:
        self._forget(wid)
        self._new_actor(wid)

    def close(self) -> None:
        """Shut the actors down (their bots end, their last output is written), then kill
        them."""
        endings = {wid: a.shutdown.remote() for wid, a in enumerate(self.actors)
                   if a is not None}
        pending = [*self.outputs.values(), *endings.values()]
        if pending:  # the collections under way hold output too: in order, before the last
            ray.wait(pending, num_returns=len(pending), timeout=10)
        for ref in self.outputs.values():
            self._write(ref)
        for wid, ref in endings.items():
            if self.log is not None:
                self._write(ref)
            else:
                with contextlib.suppress(RayError):
                    ray.get(ref, timeout=0)
            ray.kill(self.actors[wid], no_restart=True)
        self.actors = [None] * len(self.actors)
        self.inflight.clear()
        self.outputs.clear()
        if self.started:
            ray.shutdown()
