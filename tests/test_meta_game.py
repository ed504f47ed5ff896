"""The meta-game of a head-to-head matrix: the maximum-entropy Nash mixture, scores against it,
cycles at 95% and upsets of the rating order (solvers/meta_game.py), the report's section and
console line (tournaments/meta.py), and the docs' example."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from pyanitsa.ratings.scores import mean_interval
from pyanitsa.solvers.meta_game import max_entropy_nash, meta_game, payoff_matrix
from pyanitsa.tournaments.meta import console_line, markdown_section

DOCS = Path(__file__).resolve().parent.parent / "docs" / "tournaments.md"


def from_blocks(n, blocks):
    """Head-to-head score/low/high matrices from ``{(i, j): i's block scores against j}``, with
    the stats' own Student-t interval (j's blocks against i are the complements)."""
    score = [[None] * n for _ in range(n)]
    low = [[None] * n for _ in range(n)]
    high = [[None] * n for _ in range(n)]
    for (i, j), xs in blocks.items():
        for a, b, ys in ((i, j, xs), (j, i, [1.0 - x for x in xs])):
            score[a][b], low[a][b], high[a][b] = mean_interval(ys)
    return score, low, high


RPS = ["rock", "paper", "scissors"]
WINS = [(1, 0), (2, 1), (0, 2)]  # paper beats rock, scissors paper, rock scissors


def rps_blocks(xs):
    return {pair: list(xs) for pair in WINS}


def test_rock_paper_scissors_is_uniform_with_its_one_cycle():
    score, low, high = from_blocks(3, rps_blocks([1.0] * 10))
    m = meta_game(RPS, score, low)
    assert m.nash == pytest.approx([1 / 3] * 3, abs=1e-6)
    assert m.vs_nash == pytest.approx([0.5] * 3, abs=1e-9)
    assert m.cycles == [("rock", "scissors", "paper")]  # one rotation, from the first agent
    assert m.support == RPS and m.missing_pairs == 0


def test_a_noisy_but_significant_cycle_is_uniform_too():
    score, low, _ = from_blocks(3, rps_blocks([1.0, 0.5, 0.5, 1.0, 0.0, 1.0] * 10))
    assert all(low[i][j] > 0.5 for i, j in WINS)
    m = meta_game(RPS, score, low)
    assert m.nash == pytest.approx([1 / 3] * 3, abs=1e-6)
    assert m.cycles == [("rock", "scissors", "paper")]


def test_the_same_cycle_on_too_few_blocks_is_not_flagged():
    few = [1.0, 0.5, 0.0, 1.0, 0.5]  # mean 0.6 over 5 blocks: the interval reaches below 1/2
    score, low, _ = from_blocks(3, rps_blocks(few))
    assert all(score[i][j] == pytest.approx(0.6) and low[i][j] < 0.5 for i, j in WINS)
    m = meta_game(RPS, score, low)
    assert m.cycles == [] and m.nash == pytest.approx([1 / 3] * 3, abs=1e-6)
    score, low, _ = from_blocks(3, rps_blocks(few * 20))  # same mean, 100 blocks: significant
    assert meta_game(RPS, score, low).cycles == [("rock", "scissors", "paper")]


def test_one_insignificant_edge_or_a_single_block_breaks_the_cycle():
    blocks = rps_blocks([1.0] * 10)
    blocks[(0, 2)] = [1.0, 0.0, 0.5, 1.0, 0.5]
    assert meta_game(RPS, *from_blocks(3, blocks)[:2]).cycles == []
    single = rps_blocks([1.0])  # one block: no interval, never significant
    score, low, _ = from_blocks(3, single)
    assert low[1][0] is None and meta_game(RPS, score, low).cycles == []


def test_a_transitive_field_has_a_pure_nash_on_the_top_agent_and_no_cycle():
    names = ["a", "b", "c", "d"]
    score, low, _ = from_blocks(4, {(i, j): [0.7, 0.8, 0.6, 0.7] * 5
                                    for i, j in itertools.combinations(range(4), 2)})
    m = meta_game(names, score, low, [150.0, 50.0, -50.0, -150.0])
    assert m.nash == pytest.approx([1.0, 0.0, 0.0, 0.0], abs=1e-9)
    assert m.vs_nash == pytest.approx([0.5, 0.3, 0.3, 0.3], abs=1e-9)
    assert m.cycles == [] and m.inversions == [] and m.support == ["a"]
    reversed_elo = meta_game(names, score, low, [-150.0, -50.0, 50.0, 150.0])
    assert len(reversed_elo.inversions) == 6 and ("a", "d") in reversed_elo.inversions


def test_max_entropy_splits_evenly_between_copies():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float) * 0.4
    idx = [0, 0, 1, 2, 2, 2]  # rock twice, scissors three times
    p = max_entropy_nash(rps[np.ix_(idx, idx)])
    assert p == pytest.approx([1 / 6, 1 / 6, 1 / 3, 1 / 9, 1 / 9, 1 / 9], abs=1e-9)
    assert max_entropy_nash(np.zeros((4, 4))) == pytest.approx([0.25] * 4, abs=1e-9)


def test_max_entropy_nash_of_random_games_with_clones():
    """Every answer is an equilibrium; clones share their original's probability evenly (the
    maximum-entropy property), whichever agents are in the support."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(2, 7))
        B = rng.normal(size=(n, n))
        B = B - B.T
        idx = sorted([*range(n), *rng.integers(0, n, size=int(rng.integers(1, 4)))])
        A = B[np.ix_(idx, idx)]
        p, q = max_entropy_nash(A), max_entropy_nash(B)
        assert (A @ p).max() <= 1e-8 and p.min() >= 0 and p.sum() == pytest.approx(1.0)
        for g in range(n):
            members = [k for k, v in enumerate(idx) if v == g]
            assert p[members] == pytest.approx([q[g] / len(members)] * len(members), abs=1e-9)


def test_payoff_matrix_is_antisymmetric_and_missing_pairs_are_even():
    payoff = payoff_matrix([[None, 0.7, None], [0.3, None, 0.6], [None, 0.4, None]])
    assert payoff == pytest.approx(np.array([[0, 0.2, 0], [-0.2, 0, 0.1], [0, -0.1, 0]]))


def test_gauntlet_matrix_counts_unmet_pairs_as_even_and_drops_agents_without_games():
    names = ["cand", "x", "y", "idle"]
    score, low, _ = from_blocks(4, {(0, 1): [1.0] * 8, (0, 2): [1.0, 0.5] * 4})
    m = meta_game(names, score, low)
    assert m.names == ["cand", "x", "y"] and m.missing_pairs == 1
    assert m.nash == pytest.approx([1, 0, 0], abs=1e-9)
    assert m.vs_nash == pytest.approx([0.5, 0.0, 0.25], abs=1e-9)
    assert meta_game(names, [[None] * 4 for _ in range(4)], [[None] * 4 for _ in range(4)]) \
        is None


def test_the_section_and_console_line_show_the_mixture_cycles_and_upsets():
    score, low, high = from_blocks(3, rps_blocks([1.0, 0.5, 1.0] * 10))
    elo = {"rock": -20.0, "paper": 5.0, "scissors": 15.0}
    m = meta_game(RPS, score, low, list(elo.values()))
    text = "\n".join(markdown_section(m, RPS, score, low, high, elo))
    assert text.startswith("## The meta-game, and why Elo alone misleads")
    assert "| rock | 33.3 | 50.0 | -20 |" in text
    assert "rock > scissors > paper > rock: rock 83.3 [" in text
    assert "rock scores 83.3 [" in text and "rated 35 Elo below it" in text
    line = console_line(m)
    assert line == ("meta-game: Nash mix rock 33%, paper 33%, scissors 33%; 1 cycle(s) at 95%: "
                    "rock > scissors > paper > rock")
    assert m.to_json()["cycles"] == [["rock", "scissors", "paper"]]


def test_the_docs_example_runs_as_written(capsys):
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## The meta-game, and why Elo alone misleads", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, str(DOCS), "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    expected = [line.split("# ", 1)[1] for line in code.splitlines() if "print(" in line]
    assert len(printed) == len(expected) == 4
    for got, want in zip(printed, expected, strict=True):
        assert want.startswith(got), (got, want)
