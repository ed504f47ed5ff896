"""`pyanitsa enumerate --output DIR`: the range store, kill -9 and --resume, --ranges, Ray."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pyanitsa.classic import ClassicGame
from pyanitsa.cli import main
from pyanitsa.research.enumeration import rank_of, unrank
from pyanitsa.research.enumeration_store import DB_NAME, rules_from_key

pytest.importorskip("pyanitsa.batch")

NATURAL = ["--set", "pickup_order=natural", "--set", "dispute_exhausted=discard"]
SMALL = ["enumerate", "--deck", "ranks=4,suits=3", *NATURAL, "--json", "--no-progress"]
"""184,800 deals, 164 cycles: a second's work."""
STORE_ONLY = ("seconds", "store", "partial")


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def exit_code(argv: list[str]) -> int:
    """``main``'s exit code, argparse's refusals (a SystemExit) included."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def figures(out: dict) -> dict:
    return {k: v for k, v in out.items() if k not in STORE_ONLY}


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyanitsa", *args], capture_output=True,
                          text=True, timeout=timeout)


def committed(folder: Path) -> int:
    try:
        with sqlite3.connect(folder / DB_NAME, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM ranges").fetchone()[0]
    except sqlite3.Error:  # not created yet
        return 0


def test_unrank_and_rank_of_are_inverse() -> None:
    values = sorted([1, 1, 2, 2, 2, 3, 4, 4])
    for rank in (0, 1, 17, 839, 1679):
        assert rank_of(values, unrank(values, rank)) == rank
    assert unrank(values, 0) == values


def test_store_figures_equal_a_run_without_store(capsys, tmp_path) -> None:
    plain = run_json(capsys, [*SMALL, "--workers", "2"])
    stored = run_json(capsys, [*SMALL, "--workers", "2", "--output", str(tmp_path / "s"),
                               "--range-size", "5000"])
    assert figures(stored) == figures(plain)
    assert stored["store"]["ranges_done"] == stored["store"]["ranges"] == 74
    assert "partial" not in stored


def test_ranges_in_parts_and_any_order_merge_to_the_whole(capsys, tmp_path) -> None:
    plain = run_json(capsys, [*SMALL, "--workers", "2"])
    out = [*SMALL, "--output", str(tmp_path / "s"), "--range-size", "5000"]
    late = run_json(capsys, [*out, "--ranges", "50:"])
    assert late["partial"] is True and late["store"]["ranges_done"] == 24
    assert late["deals"] < plain["deals"]
    early = run_json(capsys, [*out, "--resume", "--ranges", ":20"])
    assert early["store"]["ranges_done"] == 44
    more = run_json(capsys, [*out, "--resume", "--ranges", "20:30,40:50,25:35"])
    assert more["store"]["ranges_done"] == 44 + 25
    whole = run_json(capsys, [*out, "--resume", "--ranges", "35:40"])
    assert figures(whole) == figures(plain)
    assert "partial" not in whole


def test_stored_cycles_replay_as_cycles_with_their_start_and_period(capsys, tmp_path) -> None:
    out = run_json(capsys, [*SMALL, "--output", str(tmp_path), "--range-size", "20000"])
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        rules = rules_from_key(dict(db.execute("SELECT key, value FROM meta"))["rules"])
        cycles = db.execute("SELECT start, period, deal FROM cycles ORDER BY rank").fetchall()
        longest = db.execute("SELECT longest_rounds, longest_showdowns, longest_deal FROM ranges "
                             "ORDER BY longest_showdowns DESC, longest_rounds DESC, idx"
                             ).fetchone()
    assert len(cycles) == out["cycles"] == 164
    for start, period, deal in cycles:
        stacks = [rules.deck.parse_cards(s) for s in json.loads(deal)]
        result = ClassicGame(rules, stacks).play()
        assert (result.outcome.value, result.cycle_start, result.cycle_length) == (
            "cycle", start, period)
    lg = out["longest"]
    assert longest == (lg["rounds"], lg["showdowns"], json.dumps(lg["deal"]))


def test_kill_9_mid_run_then_resume_gives_the_uninterrupted_figures(tmp_path) -> None:
    """A subprocess on 3.7 M deals (a few seconds on one thread) is killed with SIGKILL once
    some ranges are committed, almost surely inside a range; --resume then replays the rest."""
    args = ["enumerate", "--deck", "ranks=6,suits=2", *NATURAL, "--json", "--no-progress",
            "--workers", "1"]
    plain = cli(*args)
    assert plain.returncode == 0, plain.stderr
    folder = tmp_path / "run"
    store = [*args, "--output", str(folder), "--range-size", str(1 << 16)]
    proc = subprocess.Popen([sys.executable, "-m", "pyanitsa", *store],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while committed(folder) < 10 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    done = committed(folder)
    assert 10 <= done < 115
    resumed = cli(*store, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    got = json.loads(resumed.stdout)
    assert got["store"]["ranges_done"] == got["store"]["ranges"] == 115
    assert figures(got) == figures(json.loads(plain.stdout))


def test_ctrl_c_mid_run_says_what_is_kept_then_resume_gives_the_uninterrupted_figures(
        tmp_path) -> None:
    """SIGINT to a run on 4 x 5 ranges once some are committed, almost surely inside the
    compiled kernel (where a KeyboardInterrupt came out as a SystemError line): the stop
    message names the committed ranges and --resume, and resuming completes the ranges with
    the figures of a run that was never stopped."""
    args = ["enumerate", "--deck", "ranks=5,suits=4", *NATURAL, "--json", "--no-progress",
            "--workers", "1", "--range-size", str(1 << 16), "--ranges", "0:60"]
    folder = tmp_path / "run"
    store = [*args, "--output", str(folder)]
    proc = subprocess.Popen([sys.executable, "-m", "pyanitsa", *store],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a Ctrl-C must reach it even if this run ignores SIGINT
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 240
        while committed(folder) < 5 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert out == ""
    done = committed(folder)
    assert 5 <= done < 60
    assert err == (f"pyanitsa enumerate: interrupted; {done} of 4,662,174 ranges are committed "
                   f"in {folder} ({done} this run); the same command with --resume "
                   "continues\n")
    resumed = cli(*store, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    got = json.loads(resumed.stdout)
    assert got["store"]["ranges_done"] == 60
    whole = cli(*args, "--output", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    assert figures(got) == figures(json.loads(whole.stdout))


def test_ray_and_local_backends_agree(tmp_path) -> None:
    pytest.importorskip("ray")
    args = ["enumerate", "--deck", "ranks=3,suits=4", *NATURAL, "--json", "--no-progress",
            "--range-size", "3000", "--workers", "2"]
    local = cli(*args, "--output", str(tmp_path / "local"))
    ray = cli(*args, "--output", str(tmp_path / "ray"), "--backend", "ray")
    assert local.returncode == 0, local.stderr
    assert ray.returncode == 0, ray.stderr
    want, got = json.loads(local.stdout), json.loads(ray.stdout)
    assert figures(got) == figures(want)
    assert got["deals"] == 17370 and got["cycles"] == 360
    with sqlite3.connect(tmp_path / "ray" / DB_NAME) as db:
        assert {b for (b,) in db.execute("SELECT DISTINCT backend FROM ranges")} == {"ray"}


@pytest.mark.parametrize(("extra", "named"), [
    (["--ranges", "0:99"], "0:99"),
    (["--ranges", "7:3"], "7:3"),
    (["--ranges", "x"], "'x'"),
    (["--ranges", "0:2,70:75"], "70:75"),
    (["--range-size", "0"], "--range-size"),
])
def test_bad_ranges_are_one_line_and_exit_2(capsys, tmp_path, extra, named) -> None:
    size = [] if extra[0] == "--range-size" else ["--range-size", "5000"]
    assert exit_code([*SMALL, "--output", str(tmp_path), *size, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err, err
    assert not (tmp_path / DB_NAME).exists()  # nothing made: the same command, fixed, runs


def test_resume_refuses_another_deck_or_rules(capsys, tmp_path) -> None:
    run_json(capsys, [*SMALL, "--output", str(tmp_path), "--ranges", "0:1"])
    other_deck = ["enumerate", "--deck", "ranks=3,suits=4", *NATURAL, "--no-progress"]
    assert main([*other_deck, "--output", str(tmp_path), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ranks=4,suits=3" in err and "ranks=3,suits=4" in err
    other_rules = ["enumerate", "--deck", "ranks=4,suits=3", "--set", "pickup_order=natural",
                   "--no-progress", "--output", str(tmp_path), "--resume"]
    assert main(other_rules) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "dispute_exhausted=discard" in err, err
    assert main([*SMALL, "--output", str(tmp_path)]) == 2  # a store needs --resume
    assert "--resume" in capsys.readouterr().err
    assert main([*SMALL, "--output", str(tmp_path / "none"), "--resume"]) == 2
    assert "holds no enumeration" in capsys.readouterr().err


@pytest.mark.parametrize("flag", [["--resume"], ["--ranges", "0:1"], ["--backend", "ray"]])
def test_store_flags_need_output(capsys, flag) -> None:
    assert main([*SMALL, *flag]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag[0] in err and "--output" in err


def test_a_folder_in_use_is_refused(capsys, tmp_path) -> None:
    import fcntl

    from pyanitsa.research.enumeration_store import LOCK_NAME

    run_json(capsys, [*SMALL, "--output", str(tmp_path), "--ranges", "0:1"])
    with open(tmp_path / LOCK_NAME, "a") as held:  # another run holds the folder
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert main([*SMALL, "--output", str(tmp_path), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "in use" in err, err
    assert run_json(capsys, [*SMALL, "--output", str(tmp_path), "--resume"])["deals"] == 184800
