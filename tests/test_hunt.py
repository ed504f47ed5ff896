"""``pyanitsa hunt``: it finds known cycles, its finds replay, and a resumed hunt is the same hunt."""

from __future__ import annotations

import json
import sqlite3

import pytest

from pyanitsa.cli import main
from pyanitsa.records import Record

NATURAL_44 = ["--deck", "ranks=4,suits=4", "--set", "pickup_order=natural",
              "--set", "dispute_exhausted=discard"]
"""The 4 × 4 deck with natural pickup: 8,545 of its 31,532,760 deals cycle (docs/research.md)."""


def hunt(*argv: str) -> int:
    return main(["hunt", "--no-progress", *argv])


def finds(folder) -> list[dict]:
    db = sqlite3.connect(folder / "hunt.sqlite")
    try:
        return [{"kind": k, "rounds": r, "showdowns": s, "period": p, "start": st,
                 "record": json.loads(rec)}
                for k, r, s, p, st, rec in db.execute(
                    "SELECT kind, rounds, showdowns, period, start, record FROM finds "
                    "ORDER BY id")]
    finally:
        db.close()


def state(folder) -> str:
    db = sqlite3.connect(folder / "hunt.sqlite")
    try:
        return db.execute("SELECT value FROM state").fetchone()[0]
    finally:
        db.close()


def test_finds_a_cycle_that_replays_with_its_period(tmp_path, capsys):
    out = tmp_path / "h"
    assert hunt(*NATURAL_44, "--target", "cycle", "--deals", "50000", "--seed", "3",
                "--output", str(out)) == 0
    cycles = [f for f in finds(out) if f["kind"] == "cycle"]
    assert cycles, "no cycle found"
    for c in cycles:
        result = Record.from_json(c["record"]).play()
        assert result.outcome.value == "cycle"
        assert (result.cycle_length, result.cycle_start, result.rounds) == \
            (c["period"], c["start"], c["rounds"])
    assert "cycles: " in capsys.readouterr().out


# README's hunt example runs this very hunt as written (192 cycles, period 48) and replays its
# export with replay --check, in the default suite
@pytest.mark.slow
def test_the_cycle_hunt_finds_a_32_card_natural_cycle_of_period_48(tmp_path, capsys):
    """Mathieu & Delahaye's 32-card cycle: period 48, here from the first round of a deal."""
    out = tmp_path / "h"
    assert hunt("--deck", "32", "--set", "pickup_order=natural", "--target", "cycle",
                "--deals", "256", "--seed", "1", "--output", str(out)) == 0
    cycles = [f for f in finds(out) if f["kind"] == "cycle"]
    assert cycles
    for c in cycles[:20]:
        record = Record.from_json(c["record"])
        assert [len(s) for s in record.seats] == [16, 16]
        assert sorted(card for s in record.seats for card in s) == list(range(32))
        result = record.play()
        assert (result.outcome.value, result.cycle_length, result.cycle_start) == \
            ("cycle", 48, 0)
        assert (c["period"], c["start"]) == (48, 0)
    export = tmp_path / "finds.jsonl"
    assert hunt("--output", str(out), "--export", str(export)) == 0
    capsys.readouterr()
    assert main(["replay", "--check", str(export)]) == 0
    assert "all match" in capsys.readouterr().err


# 600,000 deals; the climb on this deck (high_first, 11 ranks) to a replayed cycle is held by
# test_quick_restarts_find_a_period_1125_cycle_on_11_ranks_high_first, 1,280 deals
@pytest.mark.slow
def test_the_climbing_hunt_finds_an_11_rank_high_first_cycle(tmp_path, capsys):
    """``high_first`` on 11 ranks, the deck where Mathieu & Delahaye list a cycle (of period
    1,125): the climbing hunt's seed 1 finds its first cycle in 600,000 deals (period 5,684 from
    round 1,425, docs/research.md), and the stored record replays to it."""
    out = tmp_path / "h"
    assert hunt("--deck", "ranks=11,suits=4", "--set", "pickup_order=high_first",
                "--set", "dispute_exhausted=discard", "--target", "cycle", "--method", "climb",
                "--deals", "600000", "--seed", "1", "--output", str(out)) == 0
    (cycle,) = [f for f in finds(out) if f["kind"] == "cycle"]
    assert (cycle["period"], cycle["start"]) == (5684, 1425)
    result = Record.from_json(cycle["record"]).play()
    assert (result.outcome.value, result.cycle_length, result.cycle_start) == \
        ("cycle", 5684, 1425)
    capsys.readouterr()


def test_quick_restarts_find_a_period_1125_cycle_on_11_ranks_high_first(tmp_path, capsys):
    """The period Mathieu & Delahaye publish for sorted pickup on 11 ranks, found from scratch:
    quick restarts (``--patience 0``), seed 1031: the first cycle, at deal 1,077, has period
    1,125 from round 234. The deck has many cycles of that period: it was the first cycle's in
    10 of 70 seeds, ten different cycles, none the one of their listed position
    (docs/research.md)."""
    out = tmp_path / "h"
    assert hunt("--deck", "ranks=11,suits=4", "--set", "pickup_order=high_first",
                "--set", "dispute_exhausted=discard", "--target", "cycle", "--method", "climb",
                "--patience", "0", "--deals", "1280", "--seed", "1031",
                "--output", str(out)) == 0
    (cycle,) = [f for f in finds(out) if f["kind"] == "cycle"]
    assert (cycle["period"], cycle["start"]) == (1125, 234)
    record = Record.from_json(cycle["record"])
    assert [len(s) for s in record.seats] == [22, 22]
    result = record.play()
    assert (result.outcome.value, result.cycle_length, result.cycle_start) == \
        ("cycle", 1125, 234)
    capsys.readouterr()


def test_every_cycling_pair_comes_back_and_its_blocks_never_meet_others():
    """Each listed pair, played alone by the reference engine, stands again as itself after
    its steps; and two of them stacked one after the other cycle as the module says."""
    from pyanitsa.batch.encode import params
    from pyanitsa.classic import ClassicGame
    from pyanitsa.research.hunt_blocks import pair_library
    from pyanitsa.rules import Rules
    rules = Rules.from_options({"pickup_order": "natural", "dispute_exhausted": "discard"},
                               deck="ranks=8,suits=8")
    pats, steps, rounds = pair_library(params(rules), 4, 4, 5, 4, 1 << 10)
    assert len(pats) == 36 and set(steps.tolist()) == {4}
    assert set(rounds.tolist()) == {12}

    def cards(ranks, shift, suit):  # distinct ids: rank r + shift, suits from ``suit`` on
        return [int(r + shift) * 8 + suit + i for i, r in enumerate(ranks)]

    for p, r in zip(pats, rounds, strict=True):
        game = ClassicGame(rules, [cards(p[:4], 0, 0), cards(p[4:], 0, 4)])
        start = game.key()
        for _ in range(r):
            game.play_round()
        assert game.key() == start
    a, b = pats[0], pats[-1]  # a's ranks 0..2, b's moved up to 3..7: they never meet
    assert a.max() < 3
    game = ClassicGame(rules, [cards(a[:4], 0, 0) + cards(b[:4], 3, 0),
                               cards(a[4:], 0, 4) + cards(b[4:], 3, 4)])
    result = game.play()
    assert (result.outcome.value, result.cycle_start, result.cycle_length) == ("cycle", 0, 24)


def test_every_stored_find_replays_with_pyanitsa_replay(tmp_path, capsys):
    out = tmp_path / "h"
    assert hunt(*NATURAL_44, "--deals", "3000", "--seed", "5", "--output", str(out)) == 0
    stored = finds(out)
    records = [f for f in stored if f["kind"] == "record"]
    assert len(records) >= 2
    rounds = [f["rounds"] for f in records]
    assert rounds == sorted(rounds)  # each record at least as long as the one before
    export = tmp_path / "finds.jsonl"
    assert hunt("--output", str(out), "--export", str(export)) == 0
    capsys.readouterr()
    assert main(["replay", "--check", str(export)]) == 0
    assert "all match" in capsys.readouterr().err
    for line, f in zip(export.read_text().splitlines(), stored, strict=True):
        assert json.loads(line)["expected"]["rounds"] == f["rounds"]


def test_a_resumed_hunt_equals_an_uninterrupted_one(tmp_path):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    args = [*NATURAL_44, "--seed", "11", "--chains", "8", "--proposals", "4",
            "--patience", "5"]
    assert hunt(*args, "--deals", "4000", "--output", str(whole)) == 0
    assert hunt(*args, "--deals", "1000", "--output", str(parts)) == 0
    assert state(parts) != state(whole)
    assert hunt("--resume", "--deals", "2500", "--output", str(parts)) == 0
    assert hunt("--resume", "--deals", "4000", "--output", str(parts)) == 0
    assert state(parts) == state(whole)
    assert finds(parts) == finds(whole)


def test_the_same_seed_hunts_the_same_and_another_seed_differently(tmp_path):
    args = [*NATURAL_44, "--deals", "1000", "--chains", "8"]
    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        assert hunt(*args, "--seed", seed, "--output", str(tmp_path / name)) == 0
    assert state(tmp_path / "a") == state(tmp_path / "b")
    assert state(tmp_path / "a") != state(tmp_path / "c")


@pytest.mark.parametrize(("argv", "message"), [
    (["--deck", "36", "--set", "pickup_order=shuffled"], "pickup_order: shuffled"),
    (["--preset", "tactical"], "mode: hunt plays classic deals"),
    (["--ray-address", "auto"], "--ray-address: needs --backend ray"),
    (["--resume"], "holds no hunt"),
    (["--deck", "52", "--set", "pickup_order=natural", "--target", "cycle"],
     "no composition of the"),
    (["--deck", "32", "--set", "dispute=down_up", "--method", "blocks"], "dispute: down_up"),
    (["--seed", "-1"], "--seed"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:  # argparse's own errors exit; ours return 2
        code = hunt(*argv, "--deals", "10", "--output", str(tmp_path / "x"))
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_several_searchers_resume_exactly(tmp_path):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    args = [*NATURAL_44, "--seed", "4", "--searchers", "3", "--chains", "4", "--proposals", "4",
            "--patience", "5"]
    assert hunt(*args, "--deals", "3000", "--output", str(whole)) == 0
    assert hunt(*args, "--deals", "1200", "--output", str(parts)) == 0
    assert hunt("--resume", "--deals", "3000", "--output", str(parts)) == 0
    assert state(parts) == state(whole)
    # the same finds; in the store, searcher by searcher within each round, so the rounds'
    # cut (1,200 deals, then the rest) orders them otherwise
    key = lambda f: json.dumps(f, sort_keys=True)  # noqa: E731
    assert sorted(finds(parts), key=key) == sorted(finds(whole), key=key)
    assert len(finds(whole)) >= 10
    assert len(json.loads(state(whole))["searchers"]) == 3
    one = tmp_path / "one"  # searcher 0 is the one-searcher hunt of the same seed
    assert hunt(*NATURAL_44, "--seed", "4", "--chains", "4", "--proposals", "4",
                "--patience", "5", "--deals", "1000", "--output", str(one)) == 0
    first = json.loads(state(whole))["searchers"][0]
    del first["cycles"]
    assert first["played"] == 1008 and json.loads(state(one)) == first


def test_ray_and_local_backends_find_the_same(tmp_path):
    pytest.importorskip("ray")
    import subprocess
    import sys
    args = ["hunt", *NATURAL_44, "--seed", "3", "--searchers", "3", "--chains", "8",
            "--proposals", "4", "--deals", "6000", "--no-progress", "--json"]
    local = tmp_path / "local"
    assert hunt(*args[1:-2], "--output", str(local)) == 0
    ray = subprocess.run([sys.executable, "-m", "pyanitsa", *args, "--backend", "ray",
                          "--workers", "2", "--output", str(tmp_path / "ray")],
                         capture_output=True, text=True, timeout=300)
    assert ray.returncode == 0, ray.stderr
    assert json.loads(ray.stdout)["deals"] == 6048
    assert state(tmp_path / "ray") == state(local)
    assert finds(tmp_path / "ray") == finds(local)


def test_a_second_hunt_in_the_same_folder_needs_resume(tmp_path, capsys):
    out = str(tmp_path / "h")
    assert hunt(*NATURAL_44, "--deals", "256", "--output", out) == 0
    assert hunt(*NATURAL_44, "--deals", "256", "--output", out) == 2
    assert "add --resume" in capsys.readouterr().err
    assert hunt("--resume", "--seed", "9", "--deals", "512", "--output", out) == 2
    assert "started with seed=0" in capsys.readouterr().err
