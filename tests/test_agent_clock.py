"""The time limit measures the agent: its own work and its sleeps count, the time its thread
stood ready while a CPU served something else does not, nor does a full garbage collection of
the whole process.

Contention is made real, not simulated: this process and a busy child are pinned to one CPU,
so the deciding thread gets about half of it and waits on the run queue the rest of the time.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time

import pytest

from pyanitsa.agents.clock import run_delay, timed_decision
from pyanitsa.agents.game import AgentFailure, play_game
from pyanitsa.protocol import BaseAgent
from pyanitsa.records import replay
from pyanitsa.rules import preset

pytestmark = pytest.mark.skipif(
    run_delay() is None or not hasattr(os, "sched_setaffinity"),
    reason="the kernel reports no run-queue delay here: the clock is wall time")


def _spin(cpu_seconds: float) -> None:
    """Compute until this thread has used ``cpu_seconds`` of CPU."""
    end = time.thread_time() + cpu_seconds
    while time.thread_time() < end:
        pass


def _busy() -> None:
    while True:
        pass


@pytest.fixture
def one_shared_cpu():
    """This process and a CPU-bound child on the same single CPU, for the test's duration."""
    before = os.sched_getaffinity(0)
    cpu = min(before)
    os.sched_setaffinity(0, {cpu})
    child = multiprocessing.get_context("spawn").Process(target=_busy, daemon=True)
    child.start()
    try:
        os.sched_setaffinity(child.pid, {cpu})
        _spin(0.05)  # let the scheduler share the CPU out before anything is timed
        yield
    finally:
        child.kill()
        child.join()
        os.sched_setaffinity(0, before)


def test_waiting_for_a_cpu_is_not_the_agents_time(one_shared_cpu):
    start = time.perf_counter()
    with timed_decision(10.0) as clock:
        _spin(0.2)
    wall = time.perf_counter() - start
    assert wall > 0.3  # the child took its share of the CPU: half of it, give or take
    assert 0.2 <= clock.elapsed < 0.27  # 0.2 s of computing, plus the clock's own reads
    assert clock.waited > 0.1
    assert clock.elapsed + clock.waited == pytest.approx(wall, abs=0.01)


def test_sleeping_and_computing_are_the_agents_time():
    with timed_decision(10.0) as clock:
        time.sleep(0.15)
        _spin(0.05)
    assert clock.elapsed >= 0.2


def test_a_full_collection_is_not_the_agents_time():
    junk = [[i, []] for i in range(300_000)]  # a large heap makes the full pass long
    for pair in junk:
        pair[1].append(pair)  # cycles, so every object is tracked
    start = time.perf_counter()
    with timed_decision(10.0) as clock:
        gc.collect()
    wall = time.perf_counter() - start
    assert clock.collecting > 0.01
    assert clock.elapsed < 0.2 * wall  # the pass was most of the block, and none of it counts
    assert gc.callbacks.count(clock._on_gc) == 0  # the clock leaves no hook behind
    del junk


def test_no_limit_no_clock():
    with timed_decision(None) as clock:
        pass
    assert clock is None


class _Starved(BaseAgent):
    """Decides with 0.1 s of computing: under the limit on its own, over it in wall time when
    it gets half a CPU."""

    name = "starved"

    def order_hand(self, view, rng):
        _spin(0.1)
        return list(view.hand)


class _Sleeper(BaseAgent):
    """Sleeps past the limit: its own choice, so its own time."""

    name = "sleeper"

    def order_hand(self, view, rng):
        time.sleep(0.25)
        return list(view.hand)


def test_the_referee_charges_the_agent_not_the_machine(one_shared_cpu):
    start = time.perf_counter()
    outcome = play_game(preset("tactical"), [_Starved(), _Starved()], seed=3, time_limit=0.15)
    assert time.perf_counter() - start > 0.3  # over the limit in wall time, both decisions
    assert replay(outcome.record) == outcome.result  # played to the end, no forfeit
    with pytest.raises(AgentFailure, match=r"'sleeper' took 0\.2\d\d s, over the 0\.15 s limit"):
        play_game(preset("tactical"), [_Sleeper(), _Starved()], seed=3, time_limit=0.15)
