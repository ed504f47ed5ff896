"""The clock of a timed decision: the agent's time, not the machine's.

A time limit is about the agent: how long *it* takes to decide. Wall time alone also charges
it with two costs that are not its own, and on a loaded machine they can be most of the time:

* the time its thread stood ready to run while the CPUs served other work (a tournament's
  other worker, a test suite beside it, a training run). Linux reports that wait per thread
  (``/proc/thread-self/schedstat``, the run-queue delay); the clock subtracts it. Where the
  kernel does not report it (another OS), the clock is plain wall time;
* a full pass of Python's cyclic garbage collector (generation 2) that happens to start
  during the decision: it walks every object of the process (about 200,000 once numba is
  loaded: 0.1 s on a quiet machine), most of them not the agent's. Its duration, reported by
  ``gc.callbacks``, is subtracted too. The young generations' passes stay on the clock: their
  cost follows the objects the agent itself made. The collector is not held back, so memory
  behaves as in untimed play.

Everything else the agent does stays on its clock: computing, sleeping, waiting on a pipe or
on the disk.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_SCHEDSTAT = Path("/proc/thread-self/schedstat")


def run_delay() -> float | None:
    """Seconds the calling thread has waited on a run queue since it started (None where the
    kernel does not say)."""
    try:
        return int(_SCHEDSTAT.read_bytes().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


@dataclass
class Clock:
    """One timed decision: its limit, and once it is over, the agent's seconds."""

    limit: float
    """The time limit, in seconds."""
    elapsed: float = 0.0
    """Wall seconds of the decision less ``waited`` and ``collecting``: the agent's time."""
    waited: float = 0.0
    """Seconds the deciding thread waited for a CPU (not counted in ``elapsed``)."""
    collecting: float = 0.0
    """Seconds of full garbage collections during the decision (not counted either)."""
    _start: tuple[float, float | None] = field(default=(0.0, None), repr=False)
    _pass: tuple[float, float | None] | None = field(default=None, repr=False)

    def discounted(self) -> str:
        """`` (... not counted)``, naming what was taken off the wall time, or ``""``."""
        parts = [f"{s:.3f} s {what}" for s, what in ((self.waited, "waiting for a CPU"),
                 (self.collecting, "collecting garbage")) if s >= 0.0005]
        return f" ({' and '.join(parts)} not counted)" if parts else ""

    def start(self) -> None:
        gc.callbacks.append(self._on_gc)
        self._start = _now()

    def stop(self) -> None:
        wall, waited = _since(self._start)
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._on_gc)
        self.waited = waited
        self.elapsed = max(0.0, wall - waited - self.collecting)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._pass = _now()
        elif self._pass is not None:  # the pass's own time: its waits are in ``waited`` already
            wall, waited = _since(self._pass)
            self.collecting += max(0.0, wall - waited)
            self._pass = None


def _now() -> tuple[float, float | None]:
    return time.perf_counter(), run_delay()


def _since(start: tuple[float, float | None]) -> tuple[float, float]:
    """Wall seconds since ``start`` and the seconds of it spent waiting for a CPU."""
    wall, before = time.perf_counter() - start[0], start[1]
    now = run_delay()
    return wall, (0.0 if before is None or now is None else min(wall, max(0.0, now - before)))


@contextlib.contextmanager
def timed_decision(limit: float | None) -> Iterator[Clock | None]:
    """Time the block as the agent's decision when there is a ``limit`` (``None``: no clock
    and nothing changed, so untimed play pays nothing). Read in the thread that runs the
    block: the run-queue delay is per thread."""
    if limit is None:
        yield None
        return
    clock = Clock(limit)
    clock.start()
    try:
        yield clock
    finally:
        clock.stop()
