"""End-to-end runs of the ``pyanitsa`` command: real subprocesses, real output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pyanitsa.cli import main


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyanitsa", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_play_json_replays_to_the_same_result() -> None:
    played = run("play", "--preset", "classic-ru", "--players", "4", "--seed", "11", "--json")
    assert played.returncode == 0, played.stderr
    game = json.loads(played.stdout)
    assert set(game) == {"record", "result"}
    assert len(game["record"]["stacks"]) == 4
    replayed = run("replay", "--check", "-", stdin=played.stdout)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == game["result"]


def test_play_shuffled_pickups_carries_a_seed_and_replays() -> None:
    played = run("play", "--deck", "52", "--set", "pickup_order=shuffled", "--set",
                 "pickup_to=won_pile", "--set", "refill=shuffle", "--seed", "3", "--json")
    assert played.returncode == 0, played.stderr
    game = json.loads(played.stdout)
    assert isinstance(game["record"]["seed"], int)
    replayed = run("replay", "-", stdin=json.dumps(game["record"]))
    assert json.loads(replayed.stdout) == game["result"]


def test_play_log_is_readable_and_ends_with_the_result() -> None:
    out = run("play", "--preset", "tactical", "--players", "3", "--seed", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "tactical game, deck 36, 3 players, seed 2"
    assert sum(line.startswith("P") and "hand (12)" in line for line in lines) == 3
    assert any(line.startswith("round    1: ") for line in lines)
    assert lines[-1].startswith("result: ")


def test_same_seed_same_game_in_two_processes() -> None:
    a = run("play", "--preset", "war-52", "--seed", "99", "--json")
    b = run("play", "--preset", "war-52", "--seed", "99", "--json")
    c = run("play", "--preset", "war-52", "--seed", "100", "--json")
    assert a.stdout == b.stdout
    assert a.stdout != c.stdout


def test_rules_file_and_set_override(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("preset: classic-ua\ndeck: 32\npickup_order: natural\n")
    out = run("play", "--rules", str(rules), "--set", "pickup_order=high_first", "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)["record"]
    assert record["deck"] == "32"
    assert record["rules"]["pickup_order"] == "high_first"
    assert record["rules"]["dispute_exhausted"] == "earliest_wins"


def test_replay_conformance_vectors_check(vectors_path: Path) -> None:
    out = run("replay", "--check", str(vectors_path))
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == len(vectors_path.read_text().splitlines())


def test_replay_check_reports_a_wrong_expectation() -> None:
    line = {"record": {"mode": "tactical", "deck": {"ranks": 4, "suits": 2}, "rules": {},
                       "hands": [[4, 3, 2, 1], [1, 2, 3, 4]]},
            "expected": {"outcome": "win", "winners": [0], "scores": [5, 3], "removed": 0,
                         "rounds": 4, "showdowns": 4}}
    out = run("replay", "--check", "-", stdin=json.dumps(line))
    assert out.returncode == 1
    assert "1 result(s) differ" in out.stderr


def test_replay_keeps_results_before_a_bad_line() -> None:
    good = '{"mode": "tactical", "deck": "36", "hands": [["As"], ["Ks"]]}'
    out = run("replay", "-", stdin=good + "\n" + '{"mode": "classic", "deck": "36"}\n')
    assert out.returncode == 2
    assert json.loads(out.stdout.splitlines()[0])["winners"] == [0]
    assert out.stderr.strip() == "pyanitsa replay: error: line 2: stacks: missing"


@pytest.mark.parametrize(("stdin", "needle"), [
    ("{bad", "bad JSON"),
    ('{"mode": "classic", "deck": "36", "stacks": [["As"], ["Zz"]]}', "'Zz'"),
    ('{"mode": "classic", "deck": "36", "stacks": [["As"], ["As"]]}', "'As' appears more often"),
    ('{"mode": "classic", "deck": "36", "stacks": [["As"], ["Ks"]], "extra": 1}', "'extra'"),
    ('{"mode": "classic", "deck": "36", "rules": {"bogus": 1}, "stacks": [["As"], ["Ks"]]}',
     "'bogus'"),
    ('{"mode": "tactical", "deck": "36", "rules": {"preset": "war-52"}, "hands": [["As"], '
     '["Ks"]]}', "classic preset"),
    ('{"mode": "tactical", "deck": "36", "rules": {"pickup_order": "natural"}, "hands": '
     '[["As"], ["Ks"]]}', "pickup_order"),
    ('{"mode": "war", "deck": "36", "stacks": [["As"], ["Ks"]]}', "mode"),
    (json.dumps({"mode": "classic", "deck": {"ranks": 9, "suits": 1},
                 "stacks": [[i] for i in range(1, 10)]}), "9 seats"),
    ('{"mode": "classic", "deck": {"ranks": 1}, "stacks": [[1], [1]]}', "appears more often"),
    ('{"mode": "classic", "deck": "36", "stacks": [["As"], []]}', "seat 1 has no cards"),
    ('{"mode": "classic", "deck": "36", "rules": {"stakes": 2}, "stacks": [["As"], ["Ks"]]}',
     "stakes"),
])
def test_replay_bad_input_is_one_line_without_traceback(stdin: str, needle: str) -> None:
    out = run("replay", "-", stdin=stdin)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr
    assert needle in out.stderr


@pytest.mark.parametrize(("args", "needle"), [
    (["--players", "9"], "9 seats"),
    (["--deck", "ranks=2,suits=1", "--players", "3"], "too few for 3 seats"),
    (["--deck", "ranks=99"], "ranks=99"),
    (["--set", "stakes=2"], "stakes"),
    (["--set", "dispute=sideways"], "sideways"),
    (["--set", "noequals"], "KEY=VALUE"),
    (["--preset", "tactical", "--set", "max_rounds=5"], "max_rounds"),
    (["--preset", "nope"], "nope"),
    (["--rules", "/nonexistent/rules.yaml"], "/nonexistent/rules.yaml"),
    (["--set", "pickup_order=agent"], "agent"),
])
def test_play_bad_rules_are_one_line(args: list[str], needle: str) -> None:
    out = run("play", *args)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr
    assert needle in out.stderr


def test_enumerate_json_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["enumerate", "--deck", "ranks=3,suits=2", "--json", "--no-progress"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert {"deals", "cycles", "mean_rounds", "mean_showdowns", "longest", "wins",
            "draws"} <= set(out)
    assert out["deals"] == 48  # 6!/(2!^3) = 90 arrangements, 6 of them their own swap
    assert out["deals"] == out["cycles"] + out["capped"] + sum(out["wins"]) + out["draws"]
    longest = out["longest"]
    replayed = json.loads(run("replay", "-", stdin=json.dumps({
        "mode": "classic", "deck": {"ranks": 3, "suits": 2}, "dealer": 0,
        "stacks": longest["deal"]})).stdout)
    assert (replayed["rounds"], replayed["showdowns"]) == (longest["rounds"],
                                                          longest["showdowns"])


def test_enumerate_refuses_tactical_rules() -> None:
    out = run("enumerate", "--preset", "tactical")
    assert out.returncode == 2
    assert "classic" in out.stderr


def test_demo_runs() -> None:
    out = run("demo")
    assert out.returncode == 0, out.stderr
    assert "== classic-ru" in out.stdout and "== tactical" in out.stdout
    assert "deals:" in out.stdout


def test_help_lists_the_subcommands() -> None:
    """Each subcommand on a line of its own under COMMAND (a word in a description, "play"
    inside "replay", does not count)."""
    import re

    out = run("--help")
    listed = set(re.findall(r"^    ([a-z]+)(?:  |$)", out.stdout, re.M))
    assert {"play", "replay", "enumerate", "simulate", "demo", "agents", "solve",
            "exploit", "tournament", "report", "match", "train"} <= listed, listed
    assert "bench" not in listed  # benchmarks/run.py: benchmark code is not in the product


def test_python_m_pyanitsa_and_python_m_pyanitsa_cli_are_one_command() -> None:
    """``python -m pyanitsa`` runs the installed console script (the core names no module of
    the CLI); ``python -m pyanitsa.cli`` runs the CLI package itself: the same output."""
    via_core = run("--help")
    direct = subprocess.run([sys.executable, "-m", "pyanitsa.cli", "--help"],
                            capture_output=True, text=True, timeout=120)
    assert via_core.returncode == direct.returncode == 0, direct.stderr
    assert via_core.stdout == direct.stdout
    assert "usage: pyanitsa" in direct.stdout


def test_python_m_pyanitsa_without_the_console_script_is_one_line(monkeypatch, capsys) -> None:
    import importlib
    from importlib.metadata import PackageNotFoundError

    entry = importlib.import_module("pyanitsa.__main__")

    def missing(name: str):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(entry, "distribution", missing)
    assert entry.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'pyanitsa' console script" in err


def test_simulate_with_agents_plays_the_referees_games(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    from pyanitsa.agents import make_agent, play_game
    from pyanitsa.rng import derive_seed
    from pyanitsa.rules import preset

    code = main(["simulate", "--preset", "tactical", "--agents", "tie_aware,descending",
                 "--games", "40", "--seed", "5", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 40 and out["players"] == 2
    agents = [make_agent("tie_aware"), make_agent("descending")]
    results = [play_game(preset("tactical"), agents, derive_seed(5, i)).result
               for i in range(40)]
    assert out["wins"] == [sum(r.winners == (s,) for r in results) for s in (0, 1)]
    assert out["mean_rounds"] == sum(r.rounds for r in results) / 40


def test_simulate_agent_pickups_need_agents() -> None:
    out = run("simulate", "--preset", "classic-ru", "--set", "pickup_order=agent")
    assert out.returncode == 2
    assert "--agents" in out.stderr


@pytest.mark.parametrize("engine", ["batch", "reference"])
def test_enumerate_gives_the_published_table_for_3_ranks_4_suits(capsys, engine) -> None:
    """Mathieu & Delahaye's figures for 3 ranks x 4 suits, natural pickup, discard: 17,370
    deals, 360 cycles, 13.43 cards played on average, longest 37 rounds / 54 cards."""
    assert main(["enumerate", "--deck", "ranks=3,suits=4", "--set", "pickup_order=natural",
                 "--set", "dispute_exhausted=discard", "--engine", engine, "--json",
                 "--no-progress"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["deals"], got["cycles"], got["capped"]) == (17_370, 360, 0)
    assert round(got["mean_showdowns"], 2) == 13.43
    assert (got["longest"]["rounds"], got["longest"]["showdowns"]) == (37, 54)
