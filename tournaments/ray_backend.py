"""The Ray backend: the same chunks of games, played by one actor per worker on a Ray cluster.

Imported only for ``backend: ray`` (Ray is the optional ``ray`` extra). Each actor builds the
agents once and plays chunks in order on one thread, while a second thread lets the parent read
its decision status, so a hung decision is killed and scored as a forfeit as with the local
pool. When an actor dies, Ray cannot say which decision it was in, so its chunks are retried on
a fresh actor, game by game once a chunk has killed two (see :mod:`pyanitsa.tournaments.deaths`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

from pyanitsa.agents.seeding import AgentKey
from pyanitsa.tournaments.schedule import GameKey
from pyanitsa.tournaments.worker import DecisionStatus, Message, Snapshot, WorkerContext


class _Actor:
    def __init__(self, config_json: str, key: AgentKey) -> None:
        self.status = DecisionStatus()
        self.context = WorkerContext(config_json, key, self.status)

    @ray.method(concurrency_group="play")
    def play(self, chunk: int, keys: Sequence[tuple[int, int, int]]) -> list[tuple[Any, ...]]:
        return self.context.play(chunk, [GameKey(*k) for k in keys])

    @ray.method(concurrency_group="control")
    def snapshot(self) -> Snapshot:
        return self.status.snapshot()


# One thread plays chunks in order; another answers snapshot() while it plays.
RayActor = ray.remote(num_cpus=1, concurrency_groups={"play": 1, "control": 1})(_Actor)


class RayBackend:
    """Actors on a Ray cluster: an existing one, ``address``, or a local one started here."""

    depth = 2
    name = "ray"

    def __init__(self, config_json: str, workers: int, address: str | None,
                 key: AgentKey) -> None:
        self.config_json = config_json
        self.key = key
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
        self.inflight: dict[Any, tuple[int, int]] = {}  # ref -> (wid, chunk)

    @property
    def ids(self) -> range:
        return range(len(self.actors))

    def start(self) -> None:
        for wid in self.ids:
            self.actors[wid] = RayActor.remote(self.config_json, self.key)

    def submit(self, wid: int, chunk: int, keys: Sequence[GameKey]) -> None:
        ref = self.actors[wid].play.remote(chunk, [tuple(k) for k in keys])
        self.inflight[ref] = (wid, chunk)

    def wait(self, timeout: float) -> list[Message]:
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
                    out.append(("died", wid, None, None))
            except RayTaskError as exc:
                out.append(("failed", wid, chunk, str(exc)))
        return out

    def snapshot(self, wid: int) -> Snapshot | None:
        try:
            return ray.get(self.actors[wid].snapshot.remote(), timeout=10)
        except (GetTimeoutError, RayActorError):
            return None

    def _forget(self, wid: int) -> None:
        for ref in [r for r, (w, _) in self.inflight.items() if w == wid]:
            del self.inflight[ref]

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
        self.restart(wid)
        return out

    def restart(self, wid: int) -> None:
        self._forget(wid)
        self.actors[wid] = RayActor.remote(self.config_json, self.key)

    def close(self) -> None:
        for actor in self.actors:
            if actor is not None:
                ray.kill(actor, no_restart=True)
        self.actors = [None] * len(self.actors)
        self.inflight.clear()
        if self.started:
            ray.shutdown()
