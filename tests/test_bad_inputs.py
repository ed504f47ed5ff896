"""Issue 12, findings 6/7: every bad input is one line on stderr and exit code 2, never a
traceback, a hang or a MemoryError.

Each case runs in-process through ``pyanitsa.cli.main`` with ``--debug`` before the command: the
top-level guard then lets an unexpected exception through, so only an input refused at its
cause (a ``PyanitsaError``, an ``OSError``, an argparse error) passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pyanitsa.cli import main

HUGE = "1" * 5000  # over Python's 4,300-digit limit for int()

TOURNAMENT = ("agents: [pickup_table, pickup_natural]\nrules: {preset: classic-ru, pickup_order: "
              "agent}\nplayers: 2\n"
              "deals: 2\noutput: {tmp}/out\n")


def _files(tmp: Path) -> None:
    (tmp / "empty.yaml").write_text("")
    (tmp / "empty.jsonl").write_text("")
    (tmp / "adir").mkdir()
    (tmp / "list.yaml").write_text("- a\n- b\n")
    (tmp / "huge.yaml").write_text(f"preset: classic-ru\nmax_rounds: {HUGE}\n")
    (tmp / "binary.yaml").write_bytes(b"\xff\xfe\x00garbage")
    (tmp / "garbage.json").write_text("{not json")
    (tmp / "rules_bad.yaml").write_text("pickup_order: sideways\n")
    t = TOURNAMENT.replace("{tmp}", str(tmp))
    bad = {
        "t_maxrounds": t.replace("agent}", "agent, max_rounds: 9223372036854775808}"),
        "t_seed_huge": t + f"seed: {HUGE}\n",
        "t_seed_neg": t + "seed: -1\n",
        "t_deals_neg": t.replace("deals: 2", "deals: -3"),
        "t_deals_bool": t.replace("deals: 2", "deals: true"),
        "t_workers0": t + "workers: 0\n",
        "t_time_nan": t + "time_limit: .nan\n",
        "t_time_inf": t + "time_limit: .inf\n",
        "t_agent": t.replace("pickup_natural", "no_such_agent"),
        "t_players": t.replace("players: 2", "players: 99"),
        "t_deck": t.replace("agent}", "agent, deck: ranks=0,suits=0}"),
        "t_rules_list": t.replace("{preset: classic-ru, pickup_order: agent}", "[1, 2]"),
        "t_preset_map": t.replace("preset: classic-ru", "preset: {a: 1}"),
        "t_unknown": t + "colour: blue\n",
        "t_format": t + "format: swiss_cheese\n",
    }
    for name, text in bad.items():
        (tmp / f"{name}.yaml").write_text(text)


CASES: list[tuple[str, list[str]]] = [
    # play
    ("play-seed-neg", ["play", "--seed", "-1"]),
    ("play-seed-huge", ["play", "--seed", HUGE]),
    ("play-seed-word", ["play", "--seed", "abc"]),
    ("play-maxrounds-2^63", ["play", "--set", "max_rounds=9223372036854775808"]),
    ("play-maxrounds-huge", ["play", "--set", f"max_rounds={HUGE}"]),
    ("play-maxrounds-zero", ["play", "--set", "max_rounds=0"]),
    ("play-maxrounds-float", ["play", "--set", "max_rounds=1.5"]),
    ("play-stakes-nan", ["play", "--set", "stakes=.nan"]),
    ("play-unknown-option", ["play", "--set", "colour=blue"]),
    ("play-set-no-equals", ["play", "--set", "max_rounds"]),
    ("play-preset", ["play", "--preset", "nope"]),
    ("play-deck-word", ["play", "--deck", "banana"]),
    ("play-deck-zero", ["play", "--deck", "ranks=0,suits=4"]),
    ("play-deck-huge", ["play", "--deck", f"ranks={HUGE},suits=4"]),
    ("play-players", ["play", "--players", "9"]),
    ("play-rules-missing", ["play", "--rules", "{tmp}/missing.yaml"]),
    ("play-rules-dir", ["play", "--rules", "{tmp}/adir"]),
    ("play-rules-list", ["play", "--rules", "{tmp}/list.yaml"]),
    ("play-rules-huge-int", ["play", "--rules", "{tmp}/huge.yaml"]),
    ("play-rules-binary", ["play", "--rules", "{tmp}/binary.yaml"]),
    ("play-rules-bad-value", ["play", "--rules", "{tmp}/rules_bad.yaml"]),
    ("play-agent", ["play", "--agents", "no_such_agent,random"]),
    ("play-mode", ["play", "--mode", "chess"]),
    # simulate
    ("simulate-games-zero", ["simulate", "--games", "0"]),
    ("simulate-games-neg", ["simulate", "--games", "-5"]),
    ("simulate-games-huge", ["simulate", "--games", str(2**62 + 1)]),
    ("simulate-games-huge-digits", ["simulate", "--games", HUGE]),
    ("simulate-games-float", ["simulate", "--games", "1e6"]),
    ("simulate-workers-zero", ["simulate", "--games", "5", "--workers", "0"]),
    ("simulate-seed-huge", ["simulate", "--games", "5", "--seed", HUGE]),
    ("simulate-maxrounds-2^63", ["simulate", "--games", "5", "--set",
                                 "max_rounds=9223372036854775808"]),
    ("simulate-maxrounds-huge", ["simulate", "--games", "5", "--set", f"max_rounds={HUGE}"]),
    ("simulate-plot-ext", ["simulate", "--games", "5", "--plot", "{tmp}/x.xyz"]),
    ("simulate-plot-dir", ["simulate", "--games", "5", "--plot", "{tmp}/adir"]),
    ("simulate-players", ["simulate", "--games", "5", "--players", "1"]),
    ("simulate-deck-small", ["simulate", "--games", "5", "--deck", "ranks=1,suits=1"]),
    ("simulate-agent", ["simulate", "--games", "5", "--agents", "random,os:system"]),
    # tournament
    ("tournament-missing", ["tournament", "{tmp}/missing.yaml"]),
    ("tournament-dir", ["tournament", "{tmp}/adir"]),
    ("tournament-empty", ["tournament", "{tmp}/empty.yaml"]),
    ("tournament-list", ["tournament", "{tmp}/list.yaml"]),
    ("tournament-binary", ["tournament", "{tmp}/binary.yaml"]),
    *[(f"tournament-{n}", ["tournament", f"{{tmp}}/{n}.yaml", "--quiet"]) for n in (
        "t_maxrounds", "t_seed_huge", "t_seed_neg", "t_deals_neg", "t_deals_bool", "t_workers0",
        "t_time_nan", "t_time_inf", "t_agent", "t_players", "t_deck", "t_rules_list",
        "t_preset_map", "t_unknown", "t_format")],
    ("tournament-set-huge", ["tournament", "{tmp}/t_seed_neg.yaml", "--quiet",
                             "--set", f"seed={HUGE}"]),
    ("tournament-set-index", ["tournament", "{tmp}/t_seed_neg.yaml", "--quiet",
                              "--set", "agents.9=random"]),
    # replay
    ("replay-missing", ["replay", "{tmp}/missing.json"]),
    ("replay-dir", ["replay", "{tmp}/adir"]),
    ("replay-garbage", ["replay", "{tmp}/garbage.json"]),
    ("replay-binary", ["replay", "{tmp}/binary.yaml"]),
    # enumerate
    ("enumerate-one-card", ["enumerate", "--deck", "ranks=1,suits=1"]),
    ("enumerate-big-deck", ["enumerate", "--deck", "52"]),
    ("enumerate-tactical", ["enumerate", "--preset", "tactical"]),
    ("enumerate-workers", ["enumerate", "--deck", "ranks=2,suits=2", "--workers", "-1"]),
    ("enumerate-engine", ["enumerate", "--engine", "gpu"]),
    # solve
    ("solve-max-orders-neg", ["solve", "--hand", "1", "--hand", "2", "--max-orders", "-5"]),
    ("solve-max-orders-huge-digits", ["solve", "--hand", "1", "--hand", "2",
                                      "--max-orders", HUGE]),
    ("solve-one-hand", ["solve", "--hand", "As"]),
    ("solve-bad-card", ["solve", "--hand", "Zz", "--hand", "As"]),
    ("solve-too-big", ["solve", "--deck", "ranks=13,suits=1", "--hand",
                       "1,2,3,4,5,6,7,8,9,10,11,12", "--hand", "13",
                       "--max-orders", "100000000000000000000"]),
    ("solve-classic", ["solve", "--mode", "classic", "--hand", "1", "--hand", "2"]),
    # exploit
    ("exploit-agent", ["exploit", "no_such_agent"]),
    ("exploit-deals-neg", ["exploit", "random", "--deals", "-1"]),
    ("exploit-seed-neg", ["exploit", "random", "--seed", "-1"]),
    ("exploit-samples-nan", ["exploit", "random", "--samples", "nan"]),
    # report
    ("report-missing", ["report", "{tmp}/nowhere"]),
    ("report-empty-dir", ["report", "{tmp}/adir"]),
    ("report-bootstrap", ["report", "{tmp}/adir", "--bootstrap", "-1"]),
    # agents, and the top level
    ("agents-extra", ["agents", "extra"]),
    ("unknown-command", ["frobnicate"]),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name,argv", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, name, argv):
    _files(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        code = main(["--debug", *argv])
    except SystemExit as exc:  # argparse refusing an argument
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 40
    assert {a[0] for _, a in CASES} >= {"play", "simulate", "tournament", "replay", "enumerate",
                                        "solve", "exploit", "report", "agents"}


def test_messages_name_the_key(tmp_path, capsys):
    _files(tmp_path)
    for argv, words in (
            (["simulate", "--games", "5", "--set", "max_rounds=9223372036854775808"],
             ("max_rounds", "2^62")),
            (["play", "--set", f"max_rounds={HUGE}"], ("max_rounds", "4,300 digits")),
            (["play", "--rules", f"{tmp_path}/huge.yaml"], ("max_rounds", "line 2")),
            (["tournament", f"{tmp_path}/t_seed_huge.yaml"], ("seed", "4,300 digits")),
            (["tournament", f"{tmp_path}/t_maxrounds.yaml"], ("max_rounds",)),
            (["simulate", "--games", str(2**62 + 1)], ("--games", "limit")),
            (["simulate", "--games", "5", "--plot", "x.xyz"], (".xyz", "png", "svg")),
            (["enumerate", "--deck", "ranks=1,suits=1"], ("deck", "too few"))):
        try:
            code = main(["--debug", *argv])
        except SystemExit as exc:
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        for word in words:
            assert word in err, (argv, err)


def test_the_plot_format_is_checked_before_the_games(monkeypatch, capsys):
    import importlib

    batch = importlib.import_module("pyanitsa.batch")

    def never(*a, **k):
        raise AssertionError("simulated before checking --plot")
    monkeypatch.setattr(batch, "simulate", never)
    assert main(["--debug", "simulate", "--games", "5", "--plot", "out.xyz"]) == 2


def test_max_rounds_is_bounded_in_the_rules():
    from pyanitsa.errors import InvalidRulesError
    from pyanitsa.rules import MAX_ROUNDS_LIMIT, Rules

    assert Rules(max_rounds=MAX_ROUNDS_LIMIT).max_rounds == 2**62
    with pytest.raises(InvalidRulesError, match="max_rounds"):
        Rules(max_rounds=2**63)
