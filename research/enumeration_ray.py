"""Ranges of the deal ranking played as Ray tasks, one core each, on a local or remote cluster.

Ray is the optional ``ray`` extra, so it is imported only when this backend runs: the core
imports no module that imports Ray at load time (``tests/test_layout.py``). A task gets the rules
as their canonical JSON and two arrangement ranks, and returns the range's
:class:`~pyanitsa.research.enumeration_batch.RangeResult`; the parent commits each as it arrives, in
whatever order the tasks finish (the store merges them in range order).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from pyanitsa.errors import PyanitsaError
from pyanitsa.research.enumeration_batch import DEFAULT_CHUNK, RangeResult

OnDone = Callable[[int, RangeResult, float, float], None]


def _play_range(key: str, lo: int, hi: int, chunk: int) -> tuple[RangeResult, float, float]:
    """One range on one thread of a worker; returns it with the wall and CPU seconds it took
    there."""
    from pyanitsa.research.enumeration_batch import enumerate_range
    from pyanitsa.research.enumeration_store import rules_from_key

    start, cpu = time.perf_counter(), time.process_time()
    result = enumerate_range(rules_from_key(key), lo, hi, workers=1, chunk=chunk)
    return result, time.perf_counter() - start, time.process_time() - cpu


def start_ray(address: str | None, cpus: int | None) -> bool:
    """Connect to the cluster at ``address``, or start a local one of ``cpus`` CPUs; True if
    this call started Ray (and so should shut it down)."""
    try:
        import ray
    except ImportError:
        raise PyanitsaError("backend='ray': Ray is not installed (pip install 'pyanitsa[ray]')"
                            ) from None

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "warning",
                              "log_to_driver": False}
    if address is None:
        kwargs["num_cpus"] = cpus or os.cpu_count() or 1
        # a local cluster's workers import pyanitsa from where this process does
        path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
        kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
        # Ray starts its workers 15 niceness steps below the driver, for a cluster whose
        # workers are background jobs; here they are the run, so they run as the command does
        # (on a busy machine they would otherwise get almost no CPU).
        os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(address=address, **kwargs)
    return True


def run_ray(key: str, bounds: Iterable[tuple[int, int, int]], on_done: OnDone, *,
            chunk: int = DEFAULT_CHUNK) -> None:
    """Play each ``(idx, lo, hi)`` as a task on the running cluster; ``on_done`` gets each
    result as it arrives. Two tasks per CPU are in flight, so a core never waits on the parent."""
    import ray

    task = ray.remote(num_cpus=1, max_retries=2)(_play_range)
    depth = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    todo = iter(bounds)
    pending: dict[Any, int] = {}
    try:
        while True:
            while len(pending) < depth:
                nxt = next(todo, None)
                if nxt is None:
                    break
                idx, lo, hi = nxt
                pending[task.remote(key, lo, hi, chunk)] = idx
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                result, seconds, cpu = ray.get(ref)
                on_done(pending.pop(ref), result, seconds, cpu)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
