"""Smoke test of benchmarks/solve_bench.py: a 5-card deal solved by the CLI in its own process
passes the brute-force check, and the check fails a wrong mix or a wrong value."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

HANDS = ((5, 5, 3, 2, 1), (4, 4, 3, 2, 1))
NAME = "pyanitsa_benchmarks_solve_bench"


@pytest.fixture(scope="module")
def bench():
    """benchmarks/solve_bench.py as a module (for the whole file: the solve below is shared)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "solve_bench.py"
    spec = importlib.util.spec_from_file_location(NAME, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module  # dataclasses look their module up in sys.modules
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(NAME, None)


@pytest.fixture(scope="module")
def solved(bench):
    """The module, the CLI's report on the case and the case's rules and rank lists."""
    case = bench.Case(5, 0, HANDS)
    row = bench.run_cli(bench.cli_command(case), timeout=120)
    assert row["status"] == "ok", row["stderr"]
    assert row["rss_mb"] > 10 and row["wall_s"] >= row["report"]["seconds"]
    rules = bench.case_rules(case.deck, row["report"]["rules"])
    ranks = [bench.hand_ranks(rules, h) for h in HANDS]
    return bench, row["report"], rules, ranks


def test_returned_equilibrium_passes(solved):
    bench, rep, rules, ranks = solved
    mixes = bench.report_mixes(rules, rep)
    assert min(len(o) for o, _ in mixes) > 1  # mixed: a pure order is exploitable below
    chk = bench.check_exact(rules, ranks, mixes, rep["game_value"])
    assert chk["passed"], chk
    assert chk["orders"] == rep["orders"] == [60, 60]  # 5! / 2! each
    assert -1e-9 <= chk["gain"] <= 1e-6


def test_wrong_mix_or_value_fails(solved):
    bench, rep, rules, ranks = solved
    mixes = bench.report_mixes(rules, rep)
    pure = (mixes[1][0][:1], np.ones(1))  # seat 1 always plays its likeliest order
    chk = bench.check_exact(rules, ranks, [mixes[0], pure], rep["game_value"])
    assert not chk["passed"] and chk["gains"][0] > 1e-3
    off = bench.check_exact(rules, ranks, mixes, rep["game_value"] + 1e-3)
    assert not off["passed"] and off["value_err"] > 1e-4
    scaled = bench.check_exact(rules, ranks, [(mixes[0][0], 2 * mixes[0][1]), mixes[1]],
                               rep["game_value"])
    assert not scaled["passed"] and scaled["mass_err"] > 0.5


def test_workers_agree(solved):
    """The forked chunked scoring gives the in-process answer."""
    bench, rep, rules, ranks = solved
    mixes = bench.report_mixes(rules, rep)
    one = bench.check_exact(rules, ranks, mixes, rep["game_value"], chunk=7)
    two = bench.check_exact(rules, ranks, mixes, rep["game_value"], workers=2, chunk=7)
    assert one["gains"] == two["gains"] and one["best_orders"] == two["best_orders"]


def test_cases(bench):
    cases = bench.build_cases([4, 3], 2, 2026, worst=True)
    assert [(c.cards, c.deal) for c in cases] == [(4, 0), (4, 1), (4, "worst"), (3, 0), (3, 1),
                                                  (3, "worst")]
    for c in cases:  # every card of the 2-suit deck dealt: each value twice
        assert sorted(c.hands[0] + c.hands[1]) == sorted(list(range(1, c.cards + 1)) * 2)
    assert cases[:2] == bench.seeded_cases(4, 2, 2026)  # a generator per N: reproducible


def test_timeout_kills(bench):
    """A case past --timeout is killed and recorded, never waited for."""
    row = bench.run_cli([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.3)
    assert row["status"] == "timeout" and row["report"] is None and row["wall_s"] < 10
    bad = bench.run_cli([sys.executable, "-c", "raise SystemExit(3)"], timeout=30)
    assert bad["status"] == "error" and bad["returncode"] == 3
