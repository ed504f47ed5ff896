"""`pyanitsa simulate` streams: the same figures as the in-memory run, for any chunking.

``data/simulate_golden.jsonl`` holds the text (seconds masked) and JSON (without ``seconds``)
that the in-memory implementation (commit 102ee7f, 7 arrays a game) printed for each case.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pyanitsa.cli import main

pytest.importorskip("pyanitsa.batch")

GOLDEN = [json.loads(line) for line in
          (Path(__file__).parent / "data" / "simulate_golden.jsonl").read_text().splitlines()]


def run(capsys, argv: list[str]) -> tuple[int, str]:
    code = main(["simulate", *argv])
    return code, capsys.readouterr().out


def masked(text: str) -> str:
    return re.sub(r"\(\d+\.\d+ s\)", "(S s)", text)


@pytest.mark.parametrize("chunk", [None, 1, 7])
@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: " ".join(c["argv"]))
def test_simulate_prints_what_the_in_memory_run_printed(capsys, monkeypatch, case, chunk):
    import pyanitsa.cli.simulate as sim

    if chunk is not None:  # the first chunk, which then grows; the figures must not move
        monkeypatch.setattr(sim, "FIRST_CHUNK", chunk)
        monkeypatch.setattr(sim, "AGENT_CHUNK", chunk)
    argv = case["argv"]
    code, out = run(capsys, [*argv, "--json", "--no-progress"])
    assert code == 0
    got = json.loads(out)
    got.pop("seconds")
    if "--agents" in argv:  # agent runs gain keys (names, per-agent figures); none changes
        got = {k: got[k] for k in case["json"]}
    assert got == case["json"]
    code, out = run(capsys, [*argv, "--no-progress"])
    assert code == 0
    if "--agents" in argv:  # the wins line names the agents now
        out = re.sub(r"P(\d) [\w(),=]+ ", r"P\1 ", out)
        out = "\n".join(line for line in out.splitlines()
                        if not line.startswith(("agents:", "(each"))) + "\n"
    assert masked(out) == case["text"]


def test_the_tally_gives_numpys_percentiles_median_and_means():
    import numpy as np

    from pyanitsa.batch.tally import median, percentile

    rng = np.random.default_rng(3)
    for n in [*range(1, 120), 1001, 65_537]:
        for hi in (2, 40, 9000):
            r = rng.integers(0, hi, n)
            hist = np.bincount(r)
            for q in (1, 10, 25, 50, 75, 90, 99):
                assert percentile(hist, q) == float(np.percentile(r, q)), (n, hi, q)
            assert median(hist) == float(np.median(r)), (n, hi)


class FakeCore:
    """Stands in for ``pyanitsa.batch.simulate``: real games for the first calls (so the
    figures can be checked), then a Ctrl-C; it records how many games each call held."""

    def __init__(self, interrupt_at: int | None = None) -> None:
        from pyanitsa.batch.api import simulate  # the core itself, even when a fake stands in

        self.real = simulate
        self.calls: list[int] = []
        self.interrupt_at = interrupt_at

    def __call__(self, rules, players, games, seed, *, workers=None, first=0):
        if len(self.calls) == self.interrupt_at:
            raise KeyboardInterrupt
        self.calls.append(games)
        return self.real(rules, players, games, seed, workers=workers, first=first)


def test_a_huge_run_is_accepted_streams_and_ctrl_c_prints_partial_figures(capsys, monkeypatch):
    import pyanitsa.cli.simulate as sim
    from pyanitsa import batch

    core = FakeCore(interrupt_at=4)
    monkeypatch.setattr(batch, "simulate", core)
    argv = ["--preset", "tactical", "--seed", "9", "--no-progress"]
    code, out = run(capsys, [*argv, "--games", str(10**15), "--json"])
    assert code == 130
    got = json.loads(out)
    played = sum(core.calls)
    assert len(core.calls) == 4 and max(core.calls) <= sim.MAX_CHUNK  # never the whole run
    assert got["partial"] is True and got["games_requested"] == 10**15
    assert got["games"] == played
    monkeypatch.setattr(batch, "simulate", FakeCore())
    code, whole = run(capsys, [*argv, "--games", str(played), "--json"])
    assert code == 0  # the partial figures are exactly those of the games played
    assert {**got, "seconds": 0, "partial": 0, "games_requested": 0} == {
        **json.loads(whole), "seconds": 0, "partial": 0, "games_requested": 0}
    monkeypatch.setattr(batch, "simulate", FakeCore(interrupt_at=2))
    code, out = run(capsys, [*argv, "--games", str(10**15)])
    assert code == 130
    assert out.startswith("partial: interrupted after ")
    assert "of 1,000,000,000,000,000 games" in out.splitlines()[0]
    assert "rounds: mean" in out


def test_a_ctrl_c_before_the_first_chunk_says_so(capsys, monkeypatch):
    from pyanitsa import batch

    monkeypatch.setattr(batch, "simulate", FakeCore(interrupt_at=0))
    code, out = run(capsys, ["--games", "50", "--no-progress"])
    assert code == 130
    assert out == "partial: interrupted after 0 of 50 games; the figures below are for " \
                  "those games\n"


def test_games_over_the_64_bit_bound_are_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--games", str(2**62 + 1)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--games" in err and "limit" in err and err.count("\n") == 1


def test_sigint_stops_a_long_run_with_partial_figures():
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "pyanitsa", "simulate", "--preset",
                             "tactical", "--games", str(10**12), "--json", "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = ""
        deadline = time.monotonic() + 120
        while not re.search(r"\| *[1-9][\d.]*[kMGT]?/", seen):  # the bar counts games
            assert time.monotonic() < deadline and proc.poll() is None, seen
            seen += proc.stderr.read(1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    got = json.loads(out)
    assert got["partial"] is True and 0 < got["games"] < 10**12
    assert "Traceback" not in err


# -- agents: names and seat swap ------------------------------------------------------------------


def referee_results(specs: list[str], seatings: list[list[int]], games: int, seed: int):
    """Each deal ``derive_seed(seed, i)`` played with each seating, one game at a time."""
    from pyanitsa.agents import make_agent, play_game
    from pyanitsa.rng import derive_seed
    from pyanitsa.rules import preset

    agents = [make_agent(s) for s in specs]
    return [(seating, play_game(preset("tactical"), [agents[a] for a in seating],
                                derive_seed(seed, i)).result)
            for i in range(games) for seating in seatings]


def test_agents_are_named_by_seat(capsys):
    code, out = run(capsys, ["--preset", "tactical", "--agents", "tie_aware,descending",
                             "--games", "30", "--seed", "2", "--no-progress"])
    assert code == 0
    wins = next(line for line in out.splitlines() if line.startswith("wins:"))
    assert re.fullmatch(r"wins: P0 tie_aware \d+\.\d\d%, P1 descending \d+\.\d\d%", wins)
    assert "--swap plays every deal in both seatings" in out
    code, out = run(capsys, ["--preset", "tactical", "--agents", "tie_aware,descending",
                             "--games", "30", "--seed", "2", "--no-progress", "--json"])
    got = json.loads(out)
    assert got["swap"] is False
    assert [a["agent"] for a in got["by_agent"]] == ["tie_aware", "descending"]
    assert [a["games_by_seat"] for a in got["by_agent"]] == [[30, 0], [0, 30]]
    assert [a["wins"] for a in got["by_agent"]] == got["wins"]


def test_swap_plays_every_deal_in_both_seatings(capsys):
    specs = ["tie_aware", "descending"]
    code, out = run(capsys, ["--preset", "tactical", "--agents", ",".join(specs), "--swap",
                             "--games", "15", "--seed", "4", "--no-progress", "--json"])
    assert code == 0
    got = json.loads(out)
    played = referee_results(specs, [[0, 1], [1, 0]], 15, 4)
    assert got["games"] == 30 and got["deals"] == 15 and got["swap"] is True
    for a, agent in enumerate(got["by_agent"]):
        assert agent["agent"] == specs[a]
        assert agent["games"] == 30 and agent["games_by_seat"] == [15, 15]
        by_seat = [sum(r.winners == (s,) and seating[s] == a for seating, r in played)
                   for s in (0, 1)]
        assert agent["wins_by_seat"] == by_seat and agent["wins"] == sum(by_seat)
    assert got["wins"] == [sum(r.winners == (s,) for _, r in played) for s in (0, 1)]
    assert got["draws"] == sum(len(r.winners) > 1 for _, r in played)
    code, text = run(capsys, ["--preset", "tactical", "--agents", ",".join(specs), "--swap",
                              "--games", "15", "--seed", "4", "--no-progress"])
    assert "30 games (15 deals, both seatings)" in text
    for agent in got["by_agent"]:
        share = agent["wins"] / 30
        p0, p1 = (w / 15 for w in agent["wins_by_seat"])
        assert (f"  {agent['agent']}: wins {share:.2%} of 30 games (P0 {p0:.2%}, P1 {p1:.2%})"
                in text.splitlines())


@pytest.mark.parametrize("agents", [None, "random,random,random"])
def test_swap_needs_two_agents(capsys, agents):
    argv = ["simulate", "--preset", "tactical", "--games", "5", "--swap"]
    assert main([*argv, *(["--agents", agents] if agents else [])]) == 2
    err = capsys.readouterr().err
    assert "--swap: needs two --agents" in err and err.count("\n") == 1


# -- the length histogram -------------------------------------------------------------------------


def test_the_histogram_marks_cycled_and_capped_games(capsys):
    import matplotlib.pyplot as plt

    from pyanitsa.batch import simulate
    from pyanitsa.batch.tally import Tally
    from pyanitsa.cli.simulate import length_figure
    from pyanitsa.rules import Deck, Rules

    rules = Rules(deck=Deck(ranks=3, suits=4), max_rounds=30)
    tally = Tally(rules, 2, 2)
    tally.add(simulate(rules, 2, 500, 2))
    summary = tally.summary()
    fig = length_figure(tally)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [f"finished ({500 - summary['cycles'] - summary['capped']})",
                      f"cycled ({summary['cycles']})",
                      f"capped at max_rounds=30 ({summary['capped']})"]
    bars = [sum(p.get_height() for p in c) for c in ax.containers]
    assert bars[-1] == summary["capped"] > 0
    plt.close(fig)
