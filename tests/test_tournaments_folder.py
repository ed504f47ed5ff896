"""A run owns its output folder (issue 12): a lock against a second run, workers killed from
outside replayed rather than forfeited, ``--events`` appended on resume, worker output kept off
the console, and bad databases or huge schedules answered at once. Agents come from
tests/tournament_agents.py by spec."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from pyanitsa.cli import main
from pyanitsa.tournaments.store import DB_NAME

TESTS = Path(__file__).resolve().parent
ENV = {**os.environ, "PYTHONPATH": str(TESTS)}


@pytest.fixture(autouse=True)
def test_agents(monkeypatch):
    """``tournament_agents:Class`` specs import here and in forked workers."""
    monkeypatch.syspath_prepend(str(TESTS))


def A(cls, name=None):
    return {"name": name or cls.split("(")[0].lower(), "spec": f"tournament_agents:{cls}"}


def write_config(tmp_path, name="t", **fields):
    data = {"name": name, "rules": {"preset": "tactical"}, "deals": 4, "seed": 3,
            "bootstrap": 0, "output": str(tmp_path / "out"), **fields}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def stored(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def start_run(path: Path, *args: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pyanitsa", "tournament", str(path), "--quiet", *args]
    return subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_for_games(proc: subprocess.Popen, db: Path, games: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while stored(db) < games:
        assert proc.poll() is None, f"the run ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "the run stored no games"
        time.sleep(0.02)


# -- finding 5: a lock on the output folder ------------------------------------------------------


def test_a_second_run_refuses_the_folder_while_the_first_holds_it(tmp_path, capsys):
    path = write_config(tmp_path, agents=[A("Sleepy(delay=0.02)", "s"), A("Weak")], deals=30)
    db = tmp_path / "out" / DB_NAME
    first = start_run(path)
    try:
        wait_for_games(first, db, 2)
        for flag in ("--resume", "--overwrite"):
            assert main(["tournament", str(path), "--quiet", flag]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1, err
            assert f"{tmp_path / 'out'} is in use by another run (pid {first.pid})" in err
        assert db.exists()
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err
    assert stored(db) == 2 * 30  # --overwrite deleted nothing under the first run
    # the folder is free again once the first run has ended
    assert main(["tournament", str(path), "--quiet", "--resume"]) == 0


def test_the_lock_dies_with_its_run_not_with_a_forked_worker(tmp_path):
    """A forked worker inherits the lock's open file; it must not keep the folder held after
    the run that forked it has let go (or was killed)."""
    import multiprocessing

    from pyanitsa.folder_lock import FolderLockedError
    from pyanitsa.tournaments.store import hold_folder

    folder = tmp_path / "out"
    lock = hold_folder(folder)
    with pytest.raises(FolderLockedError, match=f"pid {os.getpid()}"):
        hold_folder(folder)
    ctx = multiprocessing.get_context("fork")
    running = ctx.Event()

    def worker():
        running.set()
        time.sleep(30)

    child = ctx.Process(target=worker)
    child.start()
    try:
        assert running.wait(10)
        lock.release()
        hold_folder(folder).release()  # the child still runs, and holds nothing
    finally:
        child.kill()
        child.join()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pyanitsa.tournaments.store import "
         "hold_folder\nhold_folder(sys.argv[1]); print('held', flush=True); "
         "time.sleep(60)", str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(FolderLockedError, match=f"pid {holder.pid}"):
            hold_folder(folder)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    hold_folder(folder).release()  # a holder killed with -9 leaves no stale lock


# -- finding 4: a worker killed from outside is replayed, not forfeited ---------------------------


class PlannedDeaths:
    """A backend whose workers play chunks in this process and "die" where a plan says: at a
    game (key), in the decision of a seat (or outside any decision, seat None). It records
    which worker incarnation played each chunk."""

    name = "local"
    depth = 2

    def __init__(self, config, workers, plan, key):
        from pyanitsa.workers.worker import WorkerContext

        self.context = WorkerContext(config, key)
        self.queues = {wid: [] for wid in range(workers)}
        self.incarnation = dict.fromkeys(self.queues, 0)
        self.plan = list(plan)
        self.played = []  # (wid, incarnation, keys)
        self.deaths = 0

    ids = property(lambda self: range(len(self.queues)))

    def start(self):
        pass

    def submit(self, wid, chunk, keys):
        self.queues[wid].append((chunk, [tuple(k) for k in keys]))

    def wait(self, timeout):
        from pyanitsa.workers.worker import Snapshot

        for wid, queue in self.queues.items():
            if not queue:
                continue
            chunk, keys = queue.pop(0)
            for i, (key, seat) in enumerate(self.plan):
                if key in keys:
                    del self.plan[i]
                    self.queues[wid] = []
                    self.deaths += 1
                    if seat == "start":  # died before it began to play
                        snap = Snapshot(-1, -1, -1, 0.0)
                    else:
                        snap = Snapshot(chunk, keys.index(key), -1 if seat is None else seat,
                                        0.1)
                    return [("died", wid, -9, snap)]
            self.played.append((wid, self.incarnation[wid], keys))
            return [("done", wid, chunk, self.context.play(chunk, keys))]
        return []

    def snapshot(self, wid):
        return None

    def restart(self, wid):
        self.queues[wid] = []
        self.incarnation[wid] += 1

    def close(self):
        pass


def key_of(folder):
    """A tournament's agent key: a run with it plays the same games as that tournament (random
    agents' generators included); a fresh run draws its own."""
    from pyanitsa.tournaments.store import Store

    with Store.open(Path(folder)) as store:
        return store.agent_key()


def run_with_deaths(monkeypatch, config, plan, events=None, key=None):
    from pyanitsa.tournaments import runner
    from pyanitsa.tournaments.schedule import worker_config

    backends = []

    def make(cfg, workers, key):
        backends.append(PlannedDeaths(worker_config(cfg, key), workers, plan, key))
        return backends[-1]

    monkeypatch.setattr(runner, "make_backend", make)
    result = runner.run_tournament(config, events=events, key=key)
    return result, backends[0]


def deterministic_rows(folder):
    from pyanitsa.tournaments.store import Store

    with Store.open(folder) as store:
        return {r.key: r for r in store.rows()}


def tiny(tmp_path, sub, **fields):
    from pyanitsa.tournaments.config import parse_config

    data = {"name": "t", "rules": {"preset": "tactical"}, "deals": 6, "seed": 5,
            "bootstrap": 0, "output": str(tmp_path / sub),
            "agents": [A("Strong"), A("Random"), A("Weak")], "workers": 2, **fields}
    return parse_config(data)


def test_a_worker_killed_in_a_decision_has_the_game_replayed_in_a_fresh_worker(
        tmp_path, monkeypatch):
    from pyanitsa.tournaments.runner import run_tournament

    clean = tiny(tmp_path, "clean")
    run_tournament(clean)
    want = deterministic_rows(clean.output_dir)
    victim = (1, 2, 1)  # killed once while seat 0 of this game was deciding
    events = []
    result, backend = run_with_deaths(monkeypatch, tiny(tmp_path, "killed"), [(victim, 0)],
                                      events.append, key=key_of(clean.output_dir))
    got = deterministic_rows(tmp_path / "killed")
    assert backend.deaths == 1 and result.games == len(want)
    assert {k: r.deterministic() for k, r in got.items()} == \
        {k: r.deterministic() for k, r in want.items()}
    assert all(r.forfeit_kind is None for r in got.values())
    # the replay ran in the worker started in place of the dead one, on its own
    replays = [(wid, inc) for wid, inc, keys in backend.played if victim in keys]
    assert len(replays) == 1 and replays[0][1] == 1
    assert [keys for _, _, keys in backend.played if victim in keys] == [[victim]]
    [event] = [e for e in events if e["event"] == "worker"]
    assert event["game"] == list(victim) and event["seat"] == 0
    assert event["action"] == "replay"


def test_only_a_second_death_in_the_same_decision_is_the_agents_forfeit(tmp_path, monkeypatch):
    from pyanitsa.tournaments.runner import run_tournament

    clean = tiny(tmp_path, "clean")
    run_tournament(clean)
    want = deterministic_rows(clean.output_dir)
    victim = (0, 3, 0)
    _, backend = run_with_deaths(monkeypatch, tiny(tmp_path, "killed"),
                                 [(victim, 1), (victim, 1)], key=key_of(clean.output_dir))
    got = deterministic_rows(tmp_path / "killed")
    assert backend.deaths == 2
    row = got.pop(victim)
    assert (row.outcome, row.forfeit_seat, row.forfeit_kind) == ("forfeit", 1, "error")
    assert "twice" in row.forfeit_reason
    del want[victim]
    assert {k: r.deterministic() for k, r in got.items()} == \
        {k: r.deterministic() for k, r in want.items()}


def test_unrelated_deaths_in_one_chunk_never_stop_the_run(tmp_path, monkeypatch):
    """Three deaths on the first chunk's games, in decisions of different games and outside
    any decision: every game is still played, exactly, and none is forfeited."""
    from pyanitsa.tournaments.runner import run_tournament

    clean = tiny(tmp_path, "clean", workers=1)
    run_tournament(clean)
    want = deterministic_rows(clean.output_dir)
    plan = [((0, 0, 0), None), ((0, 0, 1), 1), ((1, 0, 0), 0), ((0, 0, 1), None)]
    result, backend = run_with_deaths(monkeypatch, tiny(tmp_path, "killed", workers=1), plan,
                                      key=key_of(clean.output_dir))
    assert backend.deaths == 4 and result.games == len(want)
    got = deterministic_rows(tmp_path / "killed")
    assert {k: r.deterministic() for k, r in got.items()} == \
        {k: r.deterministic() for k, r in want.items()}


def test_deaths_no_agent_caused_stop_the_run_only_when_they_repeat_on_one_game(
        tmp_path, monkeypatch):
    """A chunk that kills its worker twice outside any decision is retried game by game; one
    game that does it twice on its own stops the run, naming it, as do workers that die three
    times in a row before they play. Without these bounds the run would loop forever."""
    from pyanitsa.workers.worker import WorkerError

    with pytest.raises(WorkerError, match=r"game \(0, 1, 1\) killed its worker twice"):
        run_with_deaths(monkeypatch, tiny(tmp_path, "a", workers=1), [((0, 1, 1), None)] * 4)
    with pytest.raises(WorkerError, match="died 3 times in a row before playing"):
        run_with_deaths(monkeypatch, tiny(tmp_path, "b", workers=1), [((0, 0, 0), "start")] * 3)
    # three deaths on one chunk's game, not in a row on its own: the run goes on
    result, _ = run_with_deaths(monkeypatch, tiny(tmp_path, "c", workers=1),
                                [((0, 1, 1), None)] * 3)
    assert result.games == 3 * 6 * 2


def test_a_real_worker_killed_mid_decision_is_replayed_not_forfeited(tmp_path):
    """os.kill on a worker process while its agent decides (every decision sleeps)."""
    import multiprocessing

    from pyanitsa.tournaments.runner import run_tournament

    slow = tiny(tmp_path, "slow", agents=[A("Slow(delay=0.1)", "slow"), A("Weak")], deals=4,
                workers=1)
    from kill_timing import kill_in_next_decision

    def kill():
        [worker] = [p for p in multiprocessing.active_children()
                    if p.name == "pyanitsa-tournament-worker"]
        os.kill(worker.pid, signal.SIGKILL)

    events, sink, thread = kill_in_next_decision(kill)
    thread.start()
    run_tournament(slow, events=sink, poll=0.05)
    thread.join()
    [died] = [e for e in events if e["event"] == "worker"]
    assert died["seat"] is not None and died["action"] == "replay", died
    got = deterministic_rows(slow.output_dir)
    assert all(r.forfeit_kind is None for r in got.values())
    # Slow plays like Weak: the same games as a clean run of Weak against Weak
    clean = tiny(tmp_path, "clean", agents=[A("Weak", "slow"), A("Weak")], deals=4)
    run_tournament(clean, key=key_of(slow.output_dir))
    want = deterministic_rows(clean.output_dir)
    assert {k: r.deterministic() for k, r in got.items()} == \
        {k: r.deterministic() for k, r in want.items()}


# -- finding 9: --events appends on resume; worker output stays off the console -----------------


def read_events(path):
    import json

    return [json.loads(line) for line in path.read_text().splitlines()]


def game_keys(events):
    return [(e["pairing"], e["deal"], e["rotation"]) for e in events if e["event"] == "game"]


def test_events_append_on_resume_with_each_stored_game_once(tmp_path, capsys):
    agents = [A("Strong"), A("Weak"), A("Random")]
    events = tmp_path / "events.jsonl"
    path = write_config(tmp_path, agents=agents, deals=2)
    assert main(["tournament", str(path), "--quiet", "--events", str(events)]) == 0
    first = read_events(events)
    assert len(game_keys(first)) == 3 * 2 * 2
    path = write_config(tmp_path, agents=agents, deals=4)
    assert main(["tournament", str(path), "--quiet", "--resume", "--events", str(events)]) == 0
    both = read_events(events)
    assert both[:len(first)] == first  # appended, not truncated
    assert [e["event"] for e in both].count("start") == 2
    keys = game_keys(both)
    assert len(keys) == len(set(keys)) == 3 * 4 * 2


def test_events_catch_up_on_games_stored_before_a_kill(tmp_path, capsys):
    """A kill between a chunk's commit and its events leaves stored games the file lacks (and
    perhaps half a line); resuming writes those games' events once, and nothing twice."""
    agents = [A("Strong"), A("Weak"), A("Random")]
    events = tmp_path / "events.jsonl"
    path = write_config(tmp_path, agents=agents, deals=2)
    assert main(["tournament", str(path), "--quiet", "--events", str(events)]) == 0
    lines = events.read_text().splitlines(keepends=True)
    games = [i for i, line in enumerate(lines) if '"event": "game"' in line]
    kept = lines[:games[-3]]  # the last three games' events were never written
    events.write_text("".join(kept) + '{"event": "game", "pairi')
    path = write_config(tmp_path, agents=agents, deals=3)
    assert main(["tournament", str(path), "--quiet", "--resume", "--events", str(events)]) == 0
    keys = game_keys(read_events(events))  # every line parses: the torn one is gone
    assert len(keys) == len(set(keys)) == 3 * 3 * 2


def test_worker_output_goes_to_a_log_in_the_output_folder_not_the_console(tmp_path):
    path = write_config(tmp_path, agents=[A("Noisy"), A("Weak")], deals=2, workers=2)
    run = subprocess.run([sys.executable, "-m", "pyanitsa", "tournament", str(path)],
                         env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    for said in ("noisy stdout", "noisy stderr", "noisy raw"):
        assert said not in run.stdout and said not in run.stderr
    log = (tmp_path / "out" / "workers.log").read_text()
    assert log.count("noisy stdout") == log.count("noisy stderr") == 4  # 2 deals, 2 rotations
    assert log.count("noisy raw fd") == 4
    assert "workers.log" in run.stdout  # the console says where the output went


# -- finding 6: bad database files, and schedules that stream -------------------------------------


def _limit_memory():
    import resource

    # before streaming, deals: 10**12 built every key first, at 90 MB/s, and never started
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_a_huge_schedule_starts_playing_at_once(tmp_path):
    path = write_config(tmp_path, agents=[A("Strong"), A("Weak")], deals=10**12)
    db = tmp_path / "out" / DB_NAME
    cmd = [sys.executable, "-m", "pyanitsa", "tournament", str(path), "--quiet"]
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_limit_memory)
    try:
        wait_for_games(proc, db, 100, timeout=30)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted; the finished games are in" in err


@pytest.mark.parametrize("bad", ["garbage", "directory", "directory-overwrite"])
def test_a_bad_database_file_is_one_line(tmp_path, capsys, bad):
    path = write_config(tmp_path, agents=[A("Strong"), A("Weak")], deals=1)
    db = tmp_path / "out" / DB_NAME
    db.parent.mkdir()
    if bad == "garbage":
        db.write_bytes(b"\x00\xffnot a database at all\n" * 64)
    else:
        db.mkdir()
    flags = ["--overwrite"] if bad.endswith("overwrite") else ["--resume"]
    assert main(["tournament", str(path), "--quiet", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(db) in err, err
    assert main(["report", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(db) in err, err
    assert db.exists()  # nothing of the user's was deleted
