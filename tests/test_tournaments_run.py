"""Running tournaments for real: duplicate fairness, forfeits, workers, kill -9 and resume, SPRT,
the CLI and its reports. Agents come from tests/tournament_agents.py by spec."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from pyanitsa.agents.seeding import new_key
from pyanitsa.cli import main
from pyanitsa.tournaments.config import TournamentConfigError, parse_config
from pyanitsa.tournaments.runner import run_tournament
from pyanitsa.tournaments.stats import summarize
from pyanitsa.tournaments.store import DB_NAME, Store, TournamentStoreError

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
EXAMPLES = REPO / "configs" / "tournaments"


@pytest.fixture(autouse=True)
def test_agents(monkeypatch):
    """``tournament_agents:Class`` specs import here and in forked workers."""
    monkeypatch.syspath_prepend(str(TESTS))


def A(cls, name=None):
    return {"name": name or cls.split("(")[0].lower(), "spec": f"tournament_agents:{cls}"}


def make(tmp_path, sub="out", **fields):
    data = {"name": "t", "rules": {"preset": "tactical"}, "deals": 4, "seed": 3,
            "bootstrap": 0, "output": str(tmp_path / sub), **fields}
    return parse_config(data)


def rows_of(folder):
    with Store.open(Path(folder)) as store:
        return [r.deterministic() for r in store.rows()]


def key_of(folder):
    """A tournament's agent key: another run with it plays the same games (random agents'
    generators included); a fresh run draws its own."""
    with Store.open(Path(folder)) as store:
        return store.agent_key()


def test_duplicate_self_play_comes_out_exactly_even(tmp_path):
    c = make(tmp_path, agents=[A("Strong", "s1"), A("Strong", "s2"), A("Random", "r1"),
                               A("Random", "r2")], deals=12, workers=2)
    run_tournament(c)
    with Store.open(c.output_dir) as store:
        rows = store.rows()
    summary = summarize(c, rows)
    h = summary.h2h.score
    assert h[0][1] == h[1][0] == 0.5      # deterministic agent against itself
    assert h[2][3] == h[3][2] == 0.5      # random too: its generator follows the seat
    assert summary.h2h.low[0][1] == summary.h2h.high[0][1] == 0.5  # every single block is even
    by_block = {}
    for r in rows:
        if set(r.seats) == {0, 1}:
            by_block.setdefault(r.deal, []).append(r.points[r.seats.index(0)])
    assert all(sum(v) == 1.0 for v in by_block.values())


def test_forfeits_for_raising_cheating_and_slow_agents(tmp_path):
    c = make(tmp_path, agents=[A("Weak"), A("Raising"), A("Cheating"), A("Slow(delay=0.2)")],
             deals=1, time_limit=0.1, workers=2)
    result = run_tournament(c)
    assert result.games == 12
    with Store.open(c.output_dir) as store:
        rows = store.rows()
    summary = summarize(c, rows)
    weak, raising, cheating, slow = summary.agents
    assert weak.forfeits == {} and weak.points == 6.0
    # seats answer in order, so the first bad agent at the table is the one that forfeits:
    # each bad agent loses its 2 games against weak and the 2 where it sits in seat 0
    assert raising.forfeits == {"error": 4} and raising.points == 2  # 2 wins by forfeit
    assert cheating.forfeits == {"illegal": 4} and slow.forfeits == {"timeout": 4}
    for r in rows:
        if r.outcome == "forfeit":
            assert r.record is None and r.points[r.forfeit_seat] == 0.0
            assert sum(r.points) == 1.0
    reasons = {r.forfeit_kind: r.forfeit_reason for r in rows if r.forfeit_kind}
    assert "RuntimeError: boom" in reasons["error"]
    assert "not a permutation" in reasons["illegal"]
    assert "over the 0.1 s limit" in reasons["timeout"]


def test_hung_and_crashing_agents_lose_their_worker_not_the_tournament(tmp_path):
    c = make(tmp_path, agents=[A("Weak"), A("Hanging"), A("Crashing")], deals=1,
             hang_timeout=0.8, workers=2)
    events = []
    run_tournament(c, events=events.append, poll=0.05)
    summary = summarize(c, Store.open(c.output_dir).rows())
    weak, hanging, crashing = summary.agents
    assert summary.counted == 6
    assert hanging.forfeits == {"timeout": 2}    # in seat 0 of both its pairings
    assert crashing.forfeits == {"error": 1}     # in seat 1, against weak
    assert weak.forfeits == {}
    kinds = sorted((e["what"], e["action"]) for e in events if e["event"] == "worker")
    # the crash is replayed once in a fresh worker before it counts as the agent's forfeit
    assert kinds == [("error", "forfeit"), ("error", "replay"), ("timeout", "forfeit"),
                     ("timeout", "forfeit")]


def test_one_and_two_workers_give_identical_games(tmp_path):
    agents = [A("Strong"), A("Weak"), A("Random")]
    one = make(tmp_path, "one", agents=agents, deals=6, workers=1)
    two = make(tmp_path, "two", agents=agents, deals=6, workers=2)
    run_tournament(one)
    run_tournament(two, key=key_of(one.output_dir))
    assert rows_of(one.output_dir) == rows_of(two.output_dir)
    assert len(rows_of(one.output_dir)) == 3 * 6 * 2


@pytest.mark.parametrize(("rules", "players"), [
    ({"preset": "tactical"}, 2),
    ({"preset": "tactical-52", "weakest_beats_ace": True}, 3),
    ({"preset": "war-52", "pickup_order": "shuffled", "max_rounds": 3000}, 2),
    ({"preset": "classic-ru", "pickup_to": "won_pile", "refill": "shuffle"}, 3),
    ({"preset": "classic-ru", "pickup_order": "agent", "max_rounds": 300}, 2),
])
def test_batch_and_reference_engines_give_identical_games(tmp_path, rules, players):
    """The batch core plays a chunk's games in one call; every stored column but the timing
    is what the reference engine gives, forfeits included."""
    agents = [A("Strong"), A("Random"), A("Cheating"), A("Weak")]
    runs = {}
    key = new_key()
    for engine in ("batch", "reference"):
        c = make(tmp_path, engine, agents=agents, rules=rules, players=players, deals=3,
                 engine=engine, workers=1)
        run_tournament(c, key=key)
        runs[engine] = rows_of(c.output_dir)
    assert runs["batch"] == runs["reference"]
    outcomes = {r[5] for r in runs["batch"]}
    assert outcomes - {"forfeit"}  # games were played to the end
    if rules["preset"].startswith("tactical"):  # the cheater forfeits its hand orders
        assert "forfeit" in outcomes


def test_resume_extends_and_refuses_other_tournaments(tmp_path):
    agents = [A("Strong"), A("Random"), A("Weak")]
    part = make(tmp_path, "part", agents=agents, players=3, deals=2, workers=2)
    run_tournament(part)
    with pytest.raises(TournamentStoreError, match="resume=True"):
        run_tournament(part)
    more = make(tmp_path, "part", agents=agents, players=3, deals=5, workers=1)
    assert run_tournament(more, resume=True).played == 3 * 3  # 3 more deals, 3 rotations
    whole = make(tmp_path, "whole", agents=agents, players=3, deals=5)
    run_tournament(whole, key=key_of(part.output_dir))
    assert rows_of(more.output_dir) == rows_of(whole.output_dir)
    other = make(tmp_path, "part", agents=agents, players=3, deals=5, seed=4)
    with pytest.raises(TournamentStoreError, match="seed differs"):
        run_tournament(other, resume=True)
    bad = make(tmp_path, "bad", agents=[A("Strong"), {"name": "x", "spec": "no_such_agent"}])
    with pytest.raises(TournamentConfigError, match=r"agents\.1\.spec: unknown agent"):
        run_tournament(bad)


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_kill_minus_nine_then_resume_equals_an_uninterrupted_run(tmp_path):
    agents = [A("Sleepy(delay=0.004)", "s"), A("Random"), A("Weak"), A("Strong")]
    fields = {"name": "k", "agents": agents, "rules": {"preset": "tactical"}, "deals": 20,
              "seed": 8, "workers": 2, "bootstrap": 0}
    path = tmp_path / "k.yaml"
    path.write_text(yaml.safe_dump({**fields, "output": str(tmp_path / "killed")}))
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    cmd = [sys.executable, "-m", "pyanitsa", "tournament", str(path), "--quiet"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    db = tmp_path / "killed" / DB_NAME
    total = 6 * 20 * 2
    done = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=1) as conn:
                    done = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                done = 0
        if done >= 60:
            break
        time.sleep(0.02)
    workers = _children(proc.pid)
    assert workers, "the tournament started no worker processes"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    # Orphaned workers must notice and exit, not wait forever on their pipes.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers), "worker processes outlived their parent"
    with sqlite3.connect(db) as conn:
        partial = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 60 <= partial < total, f"kill landed at {partial} games: {proc.stderr.read()}"
    resumed = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True,
                             timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    clean = parse_config({**fields, "output": str(tmp_path / "clean")})
    run_tournament(clean, key=key_of(tmp_path / "killed"))
    killed = rows_of(tmp_path / "killed")
    assert len(killed) == total
    assert killed == rows_of(clean.output_dir)


def test_sprt_gauntlet_stops_early_the_same_way_on_any_workers(tmp_path):
    agents = [A("Weak"), A("Strong"), A("Raising")]
    fields = {"agents": agents, "format": "gauntlet", "deals": 200,
              "sprt": {"elo0": 0, "elo1": 60}}
    one = make(tmp_path, "one", workers=1, **fields)
    two = make(tmp_path, "two", workers=2, **fields)
    r1, r2 = run_tournament(one), run_tournament(two)
    assert r1.sprt == r2.sprt == {0: "H1", 1: "H1"}
    s1 = summarize(one, Store.open(one.output_dir).rows())
    s2 = summarize(two, Store.open(two.output_dir).rows())
    assert [(s.decision, s.blocks) for s in s1.sprt] == [(s.decision, s.blocks) for s in s2.sprt]
    assert s1.counted == s2.counted < s1.scheduled
    assert s1.agents[0].games == s2.agents[0].games
    assert all(s.blocks < 100 for s in s1.sprt)


def test_sprt_resume_after_decisions_keeps_them_and_plays_nothing_more(tmp_path):
    """Resuming an SPRT run whose pairings were decided replays the stored games into the
    tests, keeps the decisions and hands out no more games of those pairings."""
    fields = {"agents": [A("Weak"), A("Strong"), A("Raising")], "format": "gauntlet",
              "deals": 200, "sprt": {"elo0": 0, "elo1": 60}}
    first = make(tmp_path, "run", workers=1, **fields)
    r1 = run_tournament(first)
    assert r1.sprt == {0: "H1", 1: "H1"}
    before = rows_of(first.output_dir)
    again = make(tmp_path, "run", workers=1, **{**fields, "deals": 300})
    r2 = run_tournament(again, resume=True)
    assert r2.played == 0 and r2.sprt == r1.sprt
    assert rows_of(again.output_dir) == before


def test_classic_four_player_round_robin(tmp_path):
    c = make(tmp_path, agents=[A("Strong"), A("Random"), A("Weak"), A("Random", "random2")],
             rules={"preset": "classic-ru", "pickup_order": "agent", "max_rounds": 300},
             players=4, deals=2, workers=2)
    run_tournament(c)
    with Store.open(c.output_dir) as store:
        rows = store.rows()
    assert len(rows) == 8
    for r in rows:
        assert sorted(r.seats) == [0, 1, 2, 3]
        assert sum(r.points) == pytest.approx(1.0) and min(r.places) == 1
        assert r.outcome in ("win", "capped", "draw", "cycle")
        assert r.record.rules.pickup_order == "agent"


def test_cli_runs_reports_and_exports_replayable_records(tmp_path, capsys):
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({
        "agents": [A("Strong"), A("Weak"), A("Raising")], "rules": "tactical", "deals": 3,
        "output": str(tmp_path / "out"), "bootstrap": 30}))
    events = tmp_path / "events.jsonl"
    assert main(["tournament", str(path), "--set", "workers=2", "--events", str(events)]) == 0
    out = capsys.readouterr().out
    assert "t: round robin, 3 agents" in out and "head-to-head score" in out
    lines = [json.loads(x) for x in events.read_text().splitlines()]
    assert lines[0]["event"] == "start" and lines[-1]["event"] == "finish"
    assert sum(e["event"] == "game" for e in lines) == 18
    for name in ("report.md", "results.csv", "results.json", "heatmap.png", "ratings.png"):
        (tmp_path / "out" / name).unlink()
    records = tmp_path / "games.jsonl"
    assert main(["report", str(tmp_path / "out"), "--records", str(records)]) == 0
    report = json.loads((tmp_path / "out" / "results.json").read_text())
    assert report["counted"] == 18 and len(report["agents"]) == 3
    assert (tmp_path / "out" / "heatmap.png").read_bytes()[:4] == b"\x89PNG"
    assert len((tmp_path / "out" / "results.csv").read_text().splitlines()) == 19
    assert len(records.read_text().splitlines()) == 6   # raising's 12 forfeits have no record
    capsys.readouterr()
    assert main(["replay", "--check", str(records)]) == 0


def test_reports_carry_the_meta_game(tmp_path, capsys):
    c = make(tmp_path, agents=[A("Strong"), A("Weak"), A("Random")], deals=6, workers=1)
    run_tournament(c)
    assert main(["report", str(c.output_dir)]) == 0
    assert "meta-game: Nash mix " in capsys.readouterr().out
    meta = json.loads((c.output_dir / "results.json").read_text())["meta_game"]
    assert set(meta) >= {"nash", "vs_nash", "cycles", "method"}
    assert list(meta["nash"]) == ["strong", "weak", "random"]
    assert sum(meta["nash"].values()) == pytest.approx(1.0)
    for name, p in meta["nash"].items():  # the support scores 1/2, nobody beats the mix
        assert meta["vs_nash"][name] <= 0.5 + 1e-9
        if p > 1e-9:
            assert meta["vs_nash"][name] == pytest.approx(0.5)
    assert meta["cycles"] == []  # three agents, and no cycle among these scripted ones
    report = (c.output_dir / "report.md").read_text()
    assert "## The meta-game, and why Elo alone misleads" in report
    assert "| agent | Nash mix % | score vs Nash % | Elo |" in report


def test_cli_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({"agents": ["descending", {"name": "x", "spec": 5}]}))
    assert main(["tournament", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"pyanitsa tournament: error: {path}: agents.1.spec: Input should be a " \
                  "valid string\n"
    assert main(["report", str(tmp_path)]) == 2
    assert "no tournament.db" in capsys.readouterr().err


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_example_configs_validate(path):
    from pyanitsa.tournaments.runner import check_agents

    check_agents(parse_config(yaml.safe_load(path.read_text()), source=path.name))


def test_tournament_bench_quick_json(capsys, benchmark_module):
    bench = benchmark_module("tournament_bench")
    assert bench.main(["--quick", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(r["workers"], r["engine"]) for r in report["runs"]] == [
        (1, "batch"), (2, "batch"), (1, "reference")]
    assert all(r["games"] == 28 * 10 * 2 and r["games_per_s"] > 0 for r in report["runs"])


def test_exploit_field_adds_full_deal_exploitability(tmp_path, capsys):
    c = make(tmp_path, agents=["descending", "random", "ascending"], deals=4, workers=1,
             exploit={"deals": 3, "samples": 8, "fresh": 16})
    run_tournament(c)
    assert main(["report", str(c.output_dir)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines()
                if ln.startswith("exploitability (cards a game"))
    # an exact value as it is, a lower bound as ">=" (floored at 0)
    assert re.search(r"descending \d+\.\d\d\b", line) and re.search(r"random >=\d", line)
    ex = json.loads((c.output_dir / "results.json").read_text())["exploitability"]
    assert set(ex) == {"descending", "random", "ascending"}
    assert ex["descending"]["method"] == "exact" and ex["random"]["method"] == "lower_bound"
    assert ex["descending"]["exploitability"] > 10 * max(ex["random"]["exploitability"], 0.1)
    report = (c.output_dir / "report.md").read_text()
    assert "## Exploitability on full deals" in report
    cached = (c.output_dir / "exploit.json").read_text()
    assert main(["report", str(c.output_dir)]) == 0  # a second report reuses the measurements
    assert (c.output_dir / "exploit.json").read_text() == cached


def test_exploit_field_needs_tactical(tmp_path):
    with pytest.raises(TournamentConfigError, match="exploit: is measured on tactical deals"):
        make(tmp_path, agents=["descending", "random", "ascending"], rules="classic-ru",
             exploit={})
    assert make(tmp_path, agents=["descending", "random", "ascending"], players=3,
                exploit={}).exploit is not None  # any table size (NashConv / N at 3+)


def test_a_policy_agent_decides_in_forked_workers(tmp_path):
    """The parent builds every agent (torch and its thread pool loaded) before forking; a
    worker's first forward pass used to hang until it was killed, forfeiting every game."""
    c = make(tmp_path, agents=["random", {"name": "ppo", "spec": "ppo:tactical-2p"}], deals=2,
             workers=2, time_limit=5.0, hang_timeout=30.0)
    run_tournament(c)
    with Store.open(c.output_dir) as store:
        assert [r.forfeit_kind for r in store.rows()] == [None] * 4
