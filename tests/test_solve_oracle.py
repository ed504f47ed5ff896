"""``solve`` without the full payoff matrix: the streaming double oracle.

Its best responses score every distinct order of a seat against the other seat's restricted mix
through a compiled kernel that never sees the payoff matrix. These tests check that kernel
against the matrix (:func:`payoff_matrix`, itself checked against the reference engine in
``test_equilibrium.py``), that the oracle's value equals one LP's on random small deals (both
objectives, misère, ``weakest_beats_ace``), and that its mixes are exact equilibria: a brute
force best response over *every* order of the whole game, computed through the matrix kernel,
gains no more than 1e-9 against them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from pyanitsa.agents.kernels import cmp_table, distinct_orders, order_values2, support_table
from pyanitsa.cards import Deck
from pyanitsa.cli import main
from pyanitsa.dealing import deal
from pyanitsa.errors import PyanitsaError
from pyanitsa.protocol import hand_view
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules
from pyanitsa.solvers import exact as equilibrium
from pyanitsa.solvers import lp as zero_sum
from pyanitsa.solvers.exact import (
    EquilibriumAgent,
    GameTooLargeError,
    StreamedGame,
    payoff_matrix,
    solve_deal,
    solve_lp,
    solve_streaming,
    zero_sum_payoff,
)

TOL = 1e-9
VARIANTS = [{}, {"weakest_beats_ace": True}, {"misere": True},
            {"weakest_beats_ace": True, "misere": True}]


def research(ranks: int, suits: int, **opts) -> Rules:
    return Rules.default("tactical").replace(deck=Deck.research(ranks, suits), **opts)


def dealt_ranks(rules: Rules, seed: int, n0: int, n1: int) -> tuple[list[int], list[int]]:
    table = rank_table(rules)
    hands = deal(rules, 2, Rng(seed)).seats
    return ([table.rank_of[c] for c in hands[0][:n0]], [table.rank_of[c] for c in hands[1][:n1]])


def brute_force_gains(rules: Rules, objective: str, x: np.ndarray, y: np.ndarray,
                      a: np.ndarray, b: np.ndarray, v: float) -> tuple[float, float]:
    """How much each seat's best response over every one of its orders gains against the
    other's mix, each order played through the matrix kernel (``play_pair``) against the other
    seat's support: independent of the streaming kernel."""
    ix, iy = np.flatnonzero(x > 0), np.flatnonzero(y > 0)
    rows = zero_sum_payoff(payoff_matrix(rules, a, b[iy]), objective, rules.misere) @ y[iy]
    cols = x[ix] @ zero_sum_payoff(payoff_matrix(rules, a[ix], b), objective, rules.misere)
    return float(rows.max()) - v, v - float(cols.min())


@pytest.mark.parametrize("variant", range(4))
def test_order_values_match_the_payoff_matrix(variant: int) -> None:
    rules = research(6, 2, **VARIANTS[variant])
    cmp = cmp_table(rank_table(rules))
    rng = np.random.default_rng(variant)
    sign = -1.0 if rules.misere else 1.0
    for _ in range(12):
        cards = rng.permutation(12) // 2
        n0, n1 = (int(k) for k in rng.integers(1, 7, 2))  # unequal lengths too
        a, b = distinct_orders(cards[:n0]), distinct_orders(cards[6:6 + n1])
        for objective in ("margin", "win"):
            pay = zero_sum_payoff(payoff_matrix(rules, a, b), objective, rules.misere)
            y = rng.random(len(b))
            y /= y.sum()
            x = rng.random(len(a))
            x /= x.sum()
            win = objective == "win"
            for chunk in (1, 5, 4096):  # block boundaries replay from the first card
                rows = order_values2(a, support_table(cmp, b, min(n0, n1)), y, n0 - n1, win,
                                     sign, chunk)
                cols = order_values2(b, support_table(cmp, a, min(n0, n1)), x, n1 - n0, win,
                                     sign, chunk)
                np.testing.assert_allclose(rows, pay @ y, atol=1e-12)
                np.testing.assert_allclose(cols, -(x @ pay), atol=1e-12)  # seat 1's own payoff


@pytest.mark.parametrize("seed", range(8))
def test_streaming_double_oracle_equals_one_lp(seed: int) -> None:
    rules = research(6, 2, **VARIANTS[seed % 4]) if seed < 4 else research(7, 2,
                                                                           **VARIANTS[seed % 4])
    rng = np.random.default_rng(seed)
    for _ in range(3):
        n0, n1 = (int(k) for k in rng.integers(2, 6, 2))
        a, b = (distinct_orders(r) for r in dealt_ranks(rules, int(rng.integers(10**6)), n0, n1))
        for objective in ("margin", "win"):
            pay = zero_sum_payoff(payoff_matrix(rules, a, b), objective, rules.misere)
            v_lp, _, _ = solve_lp(pay)
            v, x, y, rounds, gap = solve_streaming(StreamedGame.of(rules, a, b, objective))
            assert v == pytest.approx(v_lp, abs=1e-8)
            assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
            assert (x >= 0).all() and (y >= 0).all() and rounds >= 1
            # an exact equilibrium of the whole game: no order of either seat gains
            assert (pay @ y).max() <= v + TOL and (x @ pay).min() >= v - TOL
            assert gap == pytest.approx(max((pay @ y).max() - v, v - (x @ pay).min(), 0),
                                        abs=1e-12)


def test_without_warm_highs_the_dense_lp_gives_the_same_equilibrium(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rules = research(7, 2, weakest_beats_ace=True)
    a, b = (distinct_orders(r) for r in dealt_ranks(rules, 3, 6, 6))
    game = StreamedGame.of(rules, a, b, "margin")
    v_warm = solve_streaming(game)[0]
    monkeypatch.setattr(zero_sum, "_highs_core", lambda: None)
    v, x, y, _, gap = solve_streaming(game)
    pay = zero_sum_payoff(payoff_matrix(rules, a, b), "margin", False)
    assert v == pytest.approx(v_warm, abs=1e-8) and gap <= TOL
    assert (pay @ y).max() <= v + TOL and (x @ pay).min() >= v - TOL


@pytest.mark.parametrize("variant, objective", [(0, "margin"), (1, "win"), (2, "margin"),
                                                (3, "win")])
def test_medium_deal_solves_without_the_matrix_and_is_exact(variant: int,
                                                            objective: str) -> None:
    # 8 cards a seat, 10,080 x 10,080 orders: a 100M-cell matrix (1.3 GB) the old solver built
    rules = research(8, 2, **VARIANTS[variant])
    ranks = dealt_ranks(rules, 0, 8, 8)
    sol = solve_deal(rules, *ranks, max_orders=20_000, objective=objective)
    assert [len(o) for o in sol.orders] == [10_080, 10_080]
    assert sol.method.startswith("double_oracle(") and "streamed" in sol.method
    a, b = sol.orders
    gains = brute_force_gains(rules, objective, *sol.mixes, a, b, sol.value)
    assert max(gains) <= TOL and sol.gap <= TOL
    assert sol.gap == pytest.approx(max(*gains, 0.0), abs=1e-9)
    # what the command and the agent read: support, expected scores
    for seat in (0, 1):
        support = sol.support(seat)
        assert support and sum(p for _, p in support) == pytest.approx(1)
        assert all(sorted(order.tolist()) == sorted(ranks[seat]) for order, _ in support)
    assert sum(sol.expected_scores) == pytest.approx(16)
    if objective == "margin":
        margin = sol.expected_scores[0] - sol.expected_scores[1]
        assert margin == pytest.approx(-sol.value if rules.misere else sol.value, abs=1e-7)


def test_small_games_keep_one_lp_and_report_its_gap() -> None:
    rules = research(6, 2)
    ranks = dealt_ranks(rules, 4, 5, 5)
    sol = solve_deal(rules, *ranks)
    assert sol.method == "lp" and 0 <= sol.gap <= TOL
    a, b = sol.orders
    assert max(brute_force_gains(rules, "margin", *sol.mixes, a, b, sol.value)) <= TOL


def test_agent_plays_a_streamed_equilibrium() -> None:
    # seven cards a seat with pairs: 2,520 orders each, over one LP's cells but within the
    # agent's max_orders
    rules = research(7, 2)
    hands = deal(rules, 2, Rng(0)).seats
    agent = EquilibriumAgent()
    view = hand_view(rules, 0, hands, 0)
    order = agent.order_hand(view, np.random.default_rng(1))
    assert sorted(order) == sorted(view.hand)
    info = agent.last_info
    assert info["solved"] is True and info["method"].startswith("double_oracle(")
    assert info["orders"][0] * info["orders"][1] > equilibrium.LP_MAX_CELLS
    assert info["support"] >= 1


def test_too_large_is_a_game_too_large_error_naming_the_size(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(GameTooLargeError, match="39,916,800 distinct rank orders") as exc:
        solve_deal(research(12, 1), list(range(11)), [11], max_orders=3_628_800)
    assert isinstance(exc.value, PyanitsaError)
    # past the order bound, memory decides: a one-line refusal, never a MemoryError
    monkeypatch.setattr(equilibrium, "MEMORY_BUDGET", 1024**2)
    with pytest.raises(GameTooLargeError, match=r"40,320 x 40,320 distinct rank orders.*GB"):
        solve_deal(research(8, 2), list(range(8)), list(range(8)), max_orders=10**9)


def test_solve_command_refuses_large_games_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "pyanitsa", "solve", "--deck", "ranks=12,suits=1",
                           "--hand", "1,2,3,4,5,6,7,8,9,10,11", "--hand", "12"],
                          capture_output=True, text=True, timeout=120)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and "\n" not in err and "Traceback" not in err
    assert err.startswith("pyanitsa solve: error:")
    assert "39,916,800 distinct rank orders" in err and "3,628,800" in err
    # a bound raised past memory: twelve cards are 479,001,600 orders, refused in one line
    assert main(["solve", "--deck", "ranks=13,suits=1", "--hand", "1,2,3,4,5,6,7,8,9,10,11,12",
                 "--hand", "13", "--max-orders", "10000000000"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "479,001,600 x 1 distinct rank orders" in err and "GB" in err


def test_solve_command_default_allows_ten_cards() -> None:
    from pyanitsa.cli import build_parser

    args = build_parser().parse_args(["solve", "--hand", "1", "--hand", "2"])
    assert args.max_orders == equilibrium.SOLVE_MAX_ORDERS == 3_628_800  # 10!: ten cards


def test_progress_hears_every_round_down_to_the_tolerance() -> None:
    rules = research(7, 2)
    a, b = (distinct_orders(r) for r in dealt_ranks(rules, 5, 7, 7))
    heard: list[tuple[int, float, int, int]] = []
    _, x, y, rounds, gap = solve_streaming(StreamedGame.of(rules, a, b, "margin"),
                                           progress=lambda *r: heard.append(r))
    assert [h[0] for h in heard] == list(range(1, rounds + 1))
    assert heard[-1][1] == pytest.approx(gap, abs=1e-15)
    assert gap <= zero_sum.ORACLE_TOLERANCE
    assert heard[-1][2:] == ((x > 0).sum(), (y > 0).sum())
    assert heard[0][1] > heard[-1][1]


@pytest.mark.parametrize("flag", [[], ["--no-progress"]])
def test_solve_command_shows_its_rounds_on_stderr_unless_asked_not_to(
        flag: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--deck", "ranks=9,suits=2", "--hand", "9,9,8,8,6,5,4,3,2",
            "--hand", "7,7,6,5,4,3,2,1,1", "--json", *flag]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["method"].startswith("double_oracle")
    assert ("solve:" in err and "gap" in err and "round" in err) == (not flag)
