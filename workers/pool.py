"""The local backend: a pool of worker processes, one pipe each, that the parent can kill.

Unlike ``concurrent.futures``, each worker is ours: the parent reads its decision status from
shared memory, kills it (by its own pid) when a decision hangs, sees it die, and starts a
fresh one, while the other workers go on. Workers are forked where the platform allows it
(then agent modules on the parent's ``sys.path`` are importable as they are) and spawned
elsewhere.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from pyanitsa.agents.game import warm_up
from pyanitsa.agents.seeding import AgentKey
from pyanitsa.workers.output import CappedLog, OutputTap, redirect, start_pump
from pyanitsa.workers.schedule import GameKey
from pyanitsa.workers.worker import (
    DecisionStatus,
    Message,
    Snapshot,
    WorkerConfig,
    WorkerContext,
)


def _exit_with_parent(parent: int) -> None:
    """End this worker once its parent is gone (say, killed with SIGKILL).

    A forked worker also holds the parent's end of its siblings' pipes, so the parent's death
    does not always reach a worker as end-of-file; polling the parent pid always works.
    """
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def _torch_after_fork() -> None:
    """Run torch single-threaded in a forked worker whose parent had loaded it: the parent
    built every agent (a ``ppo:`` policy among them), and torch's OpenMP pool does not survive
    a fork: the first forward pass in the child hangs until the worker is killed. A policy
    decides on one hand at a time, so one thread costs nothing."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _worker_main(config: WorkerConfig, key: AgentKey, conn: Connection, values: Any,
                 parent: int, output: tuple[int | None, str | None, Any]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # on the console an agent's prints would garble the parent's progress bar and table
    fd, log, used = output
    tap = None
    if fd is not None:  # forked: the parent's pipe
        redirect(fd)
    elif log is not None:
        tap = OutputTap(CappedLog(log, used=used).write)
    _torch_after_fork()
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    status = DecisionStatus(values)
    try:
        context = WorkerContext(config, key, status)
    except Exception as exc:  # a spec that does not build here: report, then stop
        conn.send(("failed", -1, f"building the agents: {type(exc).__name__}: {exc}"))
        return
    try:
        _serve(context, conn)
    finally:
        context.close()  # out-of-process bots end with their worker
        if tap is not None:
            tap.close()


def _serve(context: WorkerContext, conn: Connection) -> None:
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if message is None:
            return
        chunk, keys = message
        try:
            rows = context.play(chunk, keys)
            reply = ("done", chunk, rows)
        except Exception:
            reply = ("failed", chunk, traceback.format_exc(limit=8))
        try:
            conn.send(reply)
        except OSError:  # the parent is gone
            return


class _Worker:
    def __init__(self, ctx: Any, config: WorkerConfig, key: AgentKey,
                 output: tuple[int | None, str | None, Any]) -> None:
        self.conn, child = ctx.Pipe()
        self.values = ctx.Array("d", [-1.0, -1.0, -1.0, 0.0], lock=False)
        self.status = DecisionStatus(self.values)
        self.process = ctx.Process(target=_worker_main,
                                   args=(config, key, child, self.values, os.getpid(),
                                         output),
                                   daemon=True, name="pyanitsa-tournament-worker")
        self.process.start()
        child.close()


class LocalBackend:
    """Worker processes on this machine."""

    depth = 2
    """Chunks handed to a worker at once, so it never waits for the parent."""
    name = "local"

    def __init__(self, config: WorkerConfig, workers: int, key: AgentKey, *,
                 log: Path | None = None) -> None:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() \
            and sys.platform != "darwin" else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.config = config
        self.log = None if log is None else str(log)
        """Where the workers' stdout and stderr go (none: where the parent's go)."""
        self.used = self.ctx.Value("q", 0)
        """Bytes the workers wrote to the log in this run (its cap is shared)."""
        self.pipe: int | None = None
        """Forked workers' stdout and stderr: the write end of a pipe the parent reads."""
        self.pump: threading.Thread | None = None
        self.key = key
        self.workers: list[_Worker | None] = [None] * workers

    @property
    def ids(self) -> range:
        return range(len(self.workers))

    def start(self) -> None:
        if self.ctx.get_start_method() == "fork" and self.config.engine == "batch":
            # load the batch core once here; forked workers share it instead of each loading it
            warm_up(self.config.rules, self.config.players)
        for wid in self.ids:
            self.workers[wid] = _Worker(self.ctx, self.config, self.key, self._output())

    def _output(self) -> tuple[int | None, str | None, Any]:
        if self.pipe is None and self.log is not None \
                and self.ctx.get_start_method() == "fork":
            self.pipe, self.pump = start_pump(CappedLog(self.log, used=self.used).write)
        return self.pipe, self.log, self.used

    def _get(self, wid: int) -> _Worker:
        worker = self.workers[wid]
        assert worker is not None
        return worker

    def submit(self, wid: int, chunk: int, keys: Sequence[GameKey]) -> None:
        # A worker that just died cannot take it; wait() reports the death and the runner
        # hands the chunk out again.
        with contextlib.suppress(OSError):
            self._get(wid).conn.send((chunk, [tuple(k) for k in keys]))

    def wait(self, timeout: float) -> list[Message]:
        """Messages that arrived within ``timeout`` seconds (results before deaths)."""
        by_handle: dict[Any, tuple[int, str]] = {}
        for wid in self.ids:
            w = self._get(wid)
            by_handle[w.conn] = (wid, "conn")
            by_handle[w.process.sentinel] = (wid, "sentinel")
        out: list[Message] = []
        dead: list[int] = []
        for handle in wait(list(by_handle), timeout):
            wid, what = by_handle[handle]
            if what == "conn":
                out.extend(self._drain(wid))
            elif wid not in dead:
                dead.append(wid)
        for wid in dead:
            out.extend(self._drain(wid))
            w = self._get(wid)
            w.process.join(1)
            out.append(("died", wid, f"exit code {w.process.exitcode}", self.snapshot(wid)))
        return out

    def _drain(self, wid: int) -> list[Message]:
        conn = self._get(wid).conn
        out = []
        with contextlib.suppress(EOFError, OSError):
            while conn.poll():
                kind, chunk, payload = conn.recv()
                out.append((kind, wid, chunk, payload))
        return out

    def snapshot(self, wid: int) -> Snapshot:
        return self._get(wid).status.snapshot()

    def kill(self, wid: int) -> list[Message]:
        """Kill a worker (results it already sent are returned) and start a fresh one."""
        w = self._get(wid)
        messages = self._drain(wid)
        if w.process.is_alive():
            w.process.kill()
        w.process.join(5)
        self.restart(wid)
        return messages

    def restart(self, wid: int) -> None:
        """Replace a worker that died."""
        w = self._get(wid)
        w.conn.close()
        self.workers[wid] = _Worker(self.ctx, self.config, self.key, self._output())

    def close(self) -> None:
        for w in self.workers:
            if w is None:
                continue
            with contextlib.suppress(OSError):
                w.conn.send(None)
        for w in self.workers:
            if w is None:
                continue
            w.process.join(2)
            if w.process.is_alive():
                w.process.kill()
                w.process.join(2)
            w.conn.close()
        self.workers = [None] * len(self.workers)
        if self.pipe is not None:
            assert self.pump is not None
            os.close(self.pipe)
            self.pump.join(5)  # a process an agent started may still hold the pipe
            self.pipe = self.pump = None
