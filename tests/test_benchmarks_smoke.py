"""Smoke test of benchmarks/run.py: a tiny tactical run, in-process, JSON and table output."""

import json

import pytest


@pytest.fixture
def bench(benchmark_module):
    """benchmarks/run.py as a module."""
    return benchmark_module("run")


def test_quick_json_tactical(bench, capsys):
    assert bench.main(["--quick", "--json", "--only", "tactical-36", "--games", "200"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) >= {"machine", "workloads"}
    assert report["machine"]["python"]
    assert list(report["workloads"]) == ["tactical-36"]
    result = report["workloads"]["tactical-36"]
    assert result["games"] == 200
    assert result["games_per_s"] > 0
    assert result["rounds_per_s"] > 0
    assert result["median_seconds"] > 0
    # 18 cards a hand; a tie carries the pot into the same round, so a game has 18 rounds or fewer
    assert 1 <= result["mean_rounds"] <= 18
    if result["c"] is not None:  # gcc and ../shared/yardstick available
        assert result["ratio_games_per_s"] > 0
    else:
        assert report["notes"]


def test_table_output(bench, capsys):
    assert bench.main(["--only", "tactical-36", "--games", "20", "--repeats", "1",
                       "--no-c"]) == 0
    out = capsys.readouterr().out
    assert "tactical-36" in out and "games/s" in out


def test_rollouts_bench_quick_json(capsys, benchmark_module):
    """The rollouts benchmark runs and its batch and reference rollouts agree (it exits
    otherwise)."""
    module = benchmark_module("rollouts_bench")
    assert module.main(["--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {r["workload"] for r in out["rows"]} == set(module.WORKLOADS)
    for r in out["rows"]:
        assert r["positions"] == 2000 and r["rollouts_per_s"] > 0 and r["mean_rounds"] > 0


def test_policy_bench_quick_json(capsys, benchmark_module):
    """The policy benchmark measures the shipped policy and random on the same deals: the
    paired difference is the difference of their means, and the greedy order is exact."""
    module = benchmark_module("policy_bench")
    assert module.main(["--quick", "--json", "--only", "exploit", "--only", "untrained"]) == 0
    out = json.loads(capsys.readouterr().out)
    ex = out["exploit"]
    assert ex["greedy"]["method"] == "exact" and ex["policy"]["method"] == "lower_bound"
    diff = ex["policy_minus_random"]
    assert diff["deals"] == 3
    assert diff["mean"] == pytest.approx(ex["policy"]["exploitability"]
                                         - ex["random"]["exploitability"])
    assert set(out["untrained"]) == {"none", "hand", "random"}
