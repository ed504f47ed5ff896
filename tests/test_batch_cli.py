"""`pyanitsa simulate`, `pyanitsa enumerate --engine` and benchmarks/run.py on the batch core."""

from __future__ import annotations

import json

import pytest

from pyanitsa.cli import main

pytest.importorskip("pyanitsa.batch")


def run_json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_json_fields(capsys) -> None:
    out = run_json(capsys, ["simulate", "--preset", "war-52", "--games", "300", "--seed", "3",
                            "--json", "--workers", "1"])
    for key in ("games", "mean_rounds", "median_rounds", "p90_rounds", "wins", "draws",
                "cycles", "capped", "seconds"):
        assert key in out
    assert out["games"] == 300
    assert len(out["wins"]) == 2
    assert sum(out["wins"]) + out["draws"] + out["cycles"] + out["capped"] == 300
    again = run_json(capsys, ["simulate", "--preset", "war-52", "--games", "300", "--seed", "3",
                              "--json", "--workers", "2"])
    assert {**again, "seconds": 0} == {**out, "seconds": 0}


def test_simulate_tactical_text_and_plot(capsys, tmp_path) -> None:
    png = tmp_path / "h.png"
    assert main(["simulate", "--preset", "tactical", "--players", "3", "--games", "500",
                 "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "rounds: mean" in text and "wins:" in text
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_simulate_rejects_agent_pickups(capsys) -> None:
    assert main(["simulate", "--set", "pickup_order=agent", "--games", "5"]) == 2
    assert "agent" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [[], ["--set", "pickup_order=natural",
                                        "--set", "dispute_exhausted=discard"]])
def test_enumerate_engines_agree(capsys, extra: list[str]) -> None:
    base = ["enumerate", "--deck", "ranks=3,suits=3", *extra, "--json", "--no-progress"]
    batch = run_json(capsys, [*base, "--engine", "batch", "--workers", "2"])
    ref = run_json(capsys, [*base, "--engine", "reference"])
    batch.pop("seconds")
    ref.pop("seconds")
    assert batch == ref


def test_bench_quick_json(capsys, benchmark_module) -> None:
    bench = benchmark_module("run")
    assert bench.main(["--quick", "--json", "--only", "tactical-36", "--games", "2000",
                       "--repeats", "1", "--no-reference"]) == 0
    out = json.loads(capsys.readouterr().out)
    w = out["workloads"]["tactical-36"]
    assert w["games"] == 2000 and w["games_per_s"] > 0 and w["first_call_seconds"] > 0
    assert w["target"]["metric"] == "games_per_s"
