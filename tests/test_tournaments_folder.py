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

    from pyanitsa.tournaments.lock import FolderLock, TournamentLockedError

    folder = tmp_path / "out"
    lock = FolderLock.acquire(folder)
    with pytest.raises(TournamentLockedError, match=f"pid {os.getpid()}"):
        FolderLock.acquire(folder)
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
        FolderLock.acquire(folder).release()  # the child still runs, and holds nothing
    finally:
        child.kill()
        child.join()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pyanitsa.tournaments.lock import "
         "FolderLock\nFolderLock.acquire(sys.argv[1]); print('held', flush=True); "
         "time.sleep(60)", str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(TournamentLockedError, match=f"pid {holder.pid}"):
            FolderLock.acquire(folder)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    FolderLock.acquire(folder).release()  # a holder killed with -9 leaves no stale lock
