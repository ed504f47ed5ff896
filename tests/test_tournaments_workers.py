"""Workers own what they start and what they write (issue 12): no ``cmd:`` bot process outlives
its worker (one that ignores end-of-file and SIGTERM included), however the worker ends, and a
run writes at most WORKER_LOG_LIMIT bytes of worker output to OUTPUT/workers.log, on both
backends. The Ray cases run on a local Ray cluster of 2 CPUs and are skipped without Ray."""

from __future__ import annotations

import multiprocessing
import os
import shlex
import signal
import sys
import time
import uuid
from pathlib import Path

import pytest

from pyanitsa.tournaments.config import parse_config
from pyanitsa.tournaments.runner import run_tournament
from pyanitsa.tournaments.store import Store
from pyanitsa.workers.output import WORKER_LOG_LIMIT, truncated_line

TESTS = Path(__file__).resolve().parent
IMMORTAL = TESTS / "bots" / "immortal.py"


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="error",
             runtime_env={"env_vars": {"PYTHONPATH": str(TESTS)}})
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(params=["local", "ray"])
def backend(request):
    if request.param == "ray":
        request.getfixturevalue("ray_cluster")
    return request.param


@pytest.fixture(autouse=True)
def test_agents(monkeypatch):
    """``tournament_agents:Class`` and ``hostile_agents:Class`` specs import in workers."""
    monkeypatch.syspath_prepend(str(TESTS))


def immortal(marker: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(IMMORTAL), marker])


def config(tmp_path, backend, agents, **fields):
    return parse_config({"name": "w", "rules": {"preset": "tactical"}, "deals": 2, "seed": 6,
                         "bootstrap": 0, "workers": 2, "backend": backend,
                         "output": str(tmp_path / backend), "agents": agents, **fields})


def processes_with(marker: str) -> list[int]:
    """Live processes whose argv holds ``marker`` (Linux /proc), outermost only: a sandboxed
    bot is bubblewrap, its init and the bot, and the worker started the first."""
    marked = _marked(marker)
    return [pid for pid in marked if parent_pid(pid) not in marked]


def _marked(marker: str) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in argv and state != "Z":
            out.append(int(entry.name))
    return out


def left_after(marker: str, seconds: float = 5.0) -> list[int]:
    """The marked processes still alive after a bounded wait (then killed, so a failing test
    leaves none behind)."""
    deadline = time.monotonic() + seconds
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def ray_actor_pids() -> list[int]:
    """Ray names an actor's process ``ray::_Actor...`` (our actor class is ``_Actor``)."""
    prefix = "ray::_Actor"
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().startswith(prefix.encode()):
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def test_no_bot_outlives_a_tournament(tmp_path, backend):
    marker = f"pyanitsa-test-{uuid.uuid4().hex}"
    c = config(tmp_path, backend, [{"name": "immortal", "spec": immortal(marker)},
                                   {"name": "weak", "spec": "tournament_agents:Weak"}])
    assert run_tournament(c).games == 4
    assert processes_with(marker) == [] or left_after(marker) == []


def test_no_bot_outlives_a_run_killed_with_sigkill(tmp_path):
    """kill -9 of the tournament itself: its local workers notice and exit at once (with no
    chance to close their agents), and their bots must go with them."""
    import subprocess

    import yaml

    marker = f"pyanitsa-test-{uuid.uuid4().hex}"
    agents = [{"name": "immortal", "spec": immortal(marker)},
              {"name": "slow", "spec": "tournament_agents:Slow(delay=0.05)"}]
    path = tmp_path / "k.yaml"
    path.write_text(yaml.safe_dump({"name": "k", "rules": {"preset": "tactical"}, "deals": 50,
                                    "seed": 6, "bootstrap": 0, "workers": 2,
                                    "output": str(tmp_path / "out"), "agents": agents}))
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    run = subprocess.Popen([sys.executable, "-m", "pyanitsa", "tournament", str(path),
                            "--quiet"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(processes_with(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(processes_with(marker)) == 2  # one bot per worker
        time.sleep(0.3)
    finally:
        run.kill()
        run.wait()
    assert left_after(marker, 10.0) == []


def parent_pid(pid: int) -> int:
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _worker_pids(backend, marker):
    """This run's workers. Ray actors are found in /proc, so with other tests' Ray clusters
    alive beside this one (pytest-xdist) only the actors that started this test's bot count."""
    if backend == "ray":
        parents = {parent_pid(b) for b in processes_with(marker)}
        return [pid for pid in ray_actor_pids() if pid in parents]
    return [p.pid for p in multiprocessing.active_children()
            if p.name == "pyanitsa-tournament-worker"]


def test_a_worker_killed_mid_decision_takes_its_bot_along_and_the_game_is_replayed(
        tmp_path, backend):
    """SIGKILL of a worker (a local process or a Ray actor's) while Slow decides: its bot
    ends too, and the game is replayed in a fresh worker rather than forfeited."""
    marker = f"pyanitsa-test-{uuid.uuid4().hex}"
    agents = [{"name": "slow", "spec": "tournament_agents:Slow(delay=0.1)"},
              {"name": "immortal", "spec": immortal(marker)}]
    c = config(tmp_path, backend, agents, deals=4, workers=1)
    from kill_timing import kill_in_next_decision

    victims = []

    def kill():
        [worker] = _worker_pids(backend, marker)
        victims.append(processes_with(marker))
        os.kill(worker, signal.SIGKILL)

    events, sink, thread = kill_in_next_decision(kill)
    thread.start()
    run_tournament(c, events=sink, poll=0.05)
    thread.join()
    [died] = [e for e in events if e["event"] == "worker"]
    assert died["seat"] is not None and died["action"] == "replay", died
    with Store.open(c.output_dir) as store:
        rows = store.rows()
    assert len(rows) == 8 and all(r.forfeit_kind is None for r in rows)
    assert victims[0]  # the killed worker's bot was running
    assert left_after(marker) == []


def test_worker_output_is_capped_per_run(tmp_path, backend):
    agents = [{"name": "flood", "spec": "hostile_agents:Flooding(mib=1.0)"},
              {"name": "weak", "spec": "tournament_agents:Weak"}]
    c = config(tmp_path, backend, agents)
    result = run_tournament(c)
    with Store.open(c.output_dir) as store:
        rows = store.rows()
    assert len(rows) == 4 and all(r.forfeit_kind is None for r in rows)  # flooding is allowed
    log = (c.output_dir / "workers.log").read_bytes()
    line = truncated_line(WORKER_LOG_LIMIT)
    # (Ray actors hold what they write until the parent collects it: one may drop its excess
    # before the log is full, and the line then comes a little early)
    assert WORKER_LOG_LIMIT // 2 < len(log) <= WORKER_LOG_LIMIT + len(line) + 1
    assert log.count(line) == 1 and log.endswith(line)
    assert result.worker_output == len(log)


def test_what_a_local_worker_wrote_just_before_it_died_reaches_the_log(tmp_path):
    agents = [{"name": "last", "spec": "hostile_agents:LastWords"},
              {"name": "weak", "spec": "tournament_agents:Weak"}]
    c = config(tmp_path, "local", agents, deals=1, workers=1)
    run_tournament(c)
    log = (c.output_dir / "workers.log").read_bytes()
    assert log.count(b"last words\n") == 2  # it died in that decision twice
