"""The exact two-player game: payoff matrices, LP and double-oracle solutions, the agent, and
the ``solve`` command (exploitability: tests/test_exploit.py).

As OpenSpiel's tests do, these check known theoretical values: an LP-free brute force (support
enumeration with numpy) gives the same game value on tiny deals, and the LP's mixes are a Nash
equilibrium of the payoff matrix built by the *reference engine* over card orders (no pure
deviation gains more than 1e-9).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from pyanitsa.agents import make_agent, play_game
from pyanitsa.agents.kernels import distinct_orders
from pyanitsa.cards import Deck
from pyanitsa.cli import main
from pyanitsa.dealing import deal
from pyanitsa.protocol import hand_view
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules
from pyanitsa.solvers.exact import (
    EquilibriumAgent,
    GameTooLargeError,
    payoff_matrix,
    solve_deal,
)
from pyanitsa.tactical import TacticalGame

TOL = 1e-9


def research(ranks: int, suits: int, **opts) -> Rules:
    return Rules.default("tactical").replace(deck=Deck.research(ranks, suits), **opts)


def brute_force_value(a: np.ndarray) -> float:
    """The value of a small zero-sum game by support enumeration (numpy only, no LP).

    For every pair of equal-size supports, solve the indifference equations; keep solutions
    with non-negative mixes from which no pure strategy of either side gains.
    """
    k, m = a.shape
    for size in range(1, min(k, m) + 1):
        for rows in itertools.combinations(range(k), size):
            for cols in itertools.combinations(range(m), size):
                sub = a[np.ix_(rows, cols)]
                # y over cols: sub @ y = v 1, sum y = 1;  x over rows: x @ sub = v 1, sum x = 1
                lhs = np.zeros((size + 1, size + 1))
                lhs[:size, :size] = sub
                lhs[:size, size] = -1
                lhs[size, :size] = 1
                rhs = np.zeros(size + 1)
                rhs[size] = 1
                lhs2 = lhs.copy()
                lhs2[:size, :size] = sub.T
                try:
                    ys = np.linalg.solve(lhs, rhs)
                    xs = np.linalg.solve(lhs2, rhs)
                except np.linalg.LinAlgError:
                    continue
                y, v = ys[:size], ys[size]
                x = xs[:size]
                if (y < -1e-12).any() or (x < -1e-12).any():
                    continue
                full_y = np.zeros(m)
                full_y[list(cols)] = y
                full_x = np.zeros(k)
                full_x[list(rows)] = x
                if (a @ full_y).max() <= v + 1e-9 and (full_x @ a).min() >= v - 1e-9:
                    return float(v)
    raise AssertionError("no equilibrium found")


def reference_matrix(rules: Rules, hand0: list[int], hand1: list[int]) -> tuple:
    """Score difference over every *card* order of both hands, by the reference engine."""
    p0 = list(itertools.permutations(hand0))
    p1 = list(itertools.permutations(hand1))
    out = np.zeros((len(p0), len(p1)))
    for i, h0 in enumerate(p0):
        for j, h1 in enumerate(p1):
            s0, s1 = TacticalGame(rules, [h0, h1]).play().scores
            out[i, j] = s0 - s1
    return out, p0, p1


def rank_mix_to_cards(rules: Rules, orders: np.ndarray, mix: np.ndarray,
                      perms: list[tuple]) -> np.ndarray:
    """A mix over rank orders as a mix over card orders (spread evenly over equal copies)."""
    table = rank_table(rules)
    index = {tuple(r): i for i, r in enumerate(orders.tolist())}
    keys = [index[tuple(table.rank_of[c] for c in p)] for p in perms]
    counts = np.bincount(keys, minlength=len(orders))
    return np.array([mix[k] / counts[k] for k in keys])


@pytest.mark.parametrize("seed", range(8))
def test_lp_equilibrium_is_a_nash_equilibrium_of_the_reference_game(seed: int) -> None:
    opts = [{}, {"weakest_beats_ace": True}, {"misere": True},
            {"weakest_beats_ace": True, "misere": True}][seed % 4]
    rules = research(4, 2, **opts) if seed < 4 else research(6, 1, **opts)
    hands = deal(rules, 2, Rng(seed)).seats
    hands = [list(h[:4]) for h in hands]
    sol = solve_deal(rules, *[[rank_table(rules).rank_of[c] for c in h] for h in hands])
    ref, p0, p1 = reference_matrix(rules, *hands)
    pay = -ref if rules.misere else ref
    x = rank_mix_to_cards(rules, sol.orders[0], sol.mixes[0], p0)
    y = rank_mix_to_cards(rules, sol.orders[1], sol.mixes[1], p1)
    assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
    # no pure deviation of either seat gains more than 1e-9
    assert (pay @ y).max() <= sol.value + TOL
    assert (x @ pay).min() >= sol.value - TOL
    # the expected scores come from the same mixes and sum to the cards dealt (none removed)
    assert sum(sol.expected_scores) == pytest.approx(len(hands[0]) + len(hands[1]))
    assert sol.expected_scores[0] - sol.expected_scores[1] == pytest.approx(
        -sol.value if rules.misere else sol.value, abs=1e-7)


@pytest.mark.parametrize("seed", range(6))
def test_lp_value_equals_a_brute_force_solution(seed: int) -> None:
    rules = research(5, 2, weakest_beats_ace=seed % 2 == 1)
    table = rank_table(rules)
    hands = deal(rules, 2, Rng(100 + seed)).seats
    ranks = [[table.rank_of[c] for c in h[:3]] for h in hands]
    for objective in ("margin", "win"):
        sol = solve_deal(rules, *ranks, objective=objective)
        pay = payoff_matrix(rules, sol.orders[0], sol.orders[1]).astype(float)
        if objective == "win":
            pay = np.sign(pay)
        assert sol.value == pytest.approx(brute_force_value(pay), abs=TOL)


def test_known_values() -> None:
    rules = research(8, 1)
    # every card of seat 0 beats every card of seat 1: it takes all eight
    assert solve_deal(rules, [4, 5, 6, 7], [0, 1, 2, 3]).value == pytest.approx(8)
    assert solve_deal(rules, [4, 5, 6, 7], [0, 1, 2, 3]).expected_scores == pytest.approx(
        (8, 0))
    # identical rank multisets: a symmetric game, value 0
    sym = research(4, 2)
    assert solve_deal(sym, [0, 1, 2, 3], [0, 1, 2, 3]).value == pytest.approx(0, abs=TOL)
    # misère flips the objective: the strong hand now loses by as much as it can avoid
    mis = research(8, 1, misere=True)
    assert solve_deal(mis, [4, 5, 6, 7], [0, 1, 2, 3]).value == pytest.approx(-8)
    # one card each: a pure showdown; a tie on the last card is split
    assert solve_deal(sym, [3], [1]).value == pytest.approx(2)
    assert solve_deal(sym, [2], [2]).expected_scores == pytest.approx((1, 1))
    # weakest beats ace: the deuce takes the ace
    wba = research(4, 1, weakest_beats_ace=True)
    assert solve_deal(wba, [0], [3]).value == pytest.approx(2)


def test_payoff_matrix_matches_the_reference_engine() -> None:
    rules = research(5, 2, weakest_beats_ace=True)
    hands = deal(rules, 2, Rng(8)).seats
    table = rank_table(rules)
    a = distinct_orders([table.rank_of[c] for c in hands[0]])
    b = distinct_orders([table.rank_of[c] for c in hands[1]])
    pay = payoff_matrix(rules, a, b)
    rng = np.random.default_rng(0)
    pools = {}
    for c in range(rules.deck.size):
        pools.setdefault(table.rank_of[c], []).append(c)
    for _ in range(200):
        i, j = int(rng.integers(len(a))), int(rng.integers(len(b)))
        left = {r: list(cs) for r, cs in pools.items()}
        h0 = [left[r].pop() for r in a[i].tolist()]
        h1 = [left[r].pop() for r in b[j].tolist()]
        s0, s1 = TacticalGame(rules, [h0, h1]).play().scores
        assert pay[i, j] == s0 - s1


def test_agent_plays_its_equilibrium_mix_or_says_why_not() -> None:
    rules = research(4, 2)
    hands = deal(rules, 2, Rng(1)).seats
    for seat in (0, 1):
        agent = EquilibriumAgent()
        view = hand_view(rules, seat, hands, 0)
        orders = {tuple(agent.order_hand(view, np.random.default_rng(k))) for k in range(20)}
        assert all(sorted(o) == sorted(view.hand) for o in orders)
        info = agent.last_info
        assert info["solved"] is True and info["support"] >= 1
        # its mix guarantees the value against every opponent order
        table = rank_table(rules)
        sol = solve_deal(rules, view.hand_ranks(),
                         [table.rank_of[c] for c in hands[1 - seat]])
        assert info["value"] == pytest.approx(sol.value)
        pay = payoff_matrix(rules, sol.orders[0], sol.orders[1]).astype(float)
        assert (sol.mixes[0] @ pay).min() >= sol.value - TOL
    # cards set aside: the opponent's hand is unknown, so it falls back to mc_search
    odd = Rules.from_options({}, mode="tactical", deck="ranks=5,suits=1")
    agent = make_agent("equilibrium(fallback='mc_search(samples=8)')")
    out = play_game(odd, [agent, make_agent("descending")], seed=2)
    assert agent.last_info["solved"] is False
    assert "set aside" in agent.last_info["reason"]
    assert agent.last_info["fallback_info"]["agent"] == "mc_search"
    assert len(out.record.seats[0]) == 2
    # too many orders: falls back too, and says so
    agent = make_agent("equilibrium(max_orders=10, fallback='descending')")
    play_game(rules, [agent, make_agent("random")], seed=0)
    assert agent.last_info["solved"] is False and "max_orders" in agent.last_info["reason"]


def test_solve_deal_refuses_oversized_hands() -> None:
    with pytest.raises(GameTooLargeError, match="distinct rank orders"):
        solve_deal(research(9, 1), list(range(8)), [8], max_orders=5040)


# -- the command line --------------------------------------------------------------------------


def test_solve_json_end_to_end() -> None:
    proc = subprocess.run([sys.executable, "-m", "pyanitsa", "solve", "--deck",
                           "ranks=6,suits=2", "--hand", "6,4,3,1", "--hand", "5,5,2,1",
                           "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sum(out["value"]) == pytest.approx(8)
    assert len(out["strategies"]) == 2
    for seat, hand in enumerate(([6, 4, 3, 1], [5, 5, 2, 1])):
        strat = out["strategies"][seat]
        assert sum(s["p"] for s in strat) == pytest.approx(1)
        assert all(sorted(s["order"]) == sorted(hand) for s in strat)
    assert out["value"][0] - out["value"][1] == pytest.approx(out["margin"])


def test_solve_text_and_standard_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--deck", "36", "--hand", "As,Kd,6c", "--hand", "Ah,7s,6d"]) == 0
    out = capsys.readouterr().out
    assert "expected scores" in out and "seat 1 equilibrium" in out


@pytest.mark.parametrize("argv, message", [
    (["--deck", "36", "--hand", "As,Kd"], "exactly two --hand"),
    (["--deck", "36", "--hand", "As,Kd", "--hand", "Zz"], "not in deck"),
    (["--deck", "36", "--hand", "As,Kd", "--hand", "As,Qd"], "more often than deck"),
    (["--deck", "ranks=4,suits=1", "--hand", "4,3", "--hand", "4,1"], "more often than deck"),
    (["--deck", "ranks=12,suits=1", "--hand", "1,2,3,4,5,6,7,8,9,10,11", "--hand", "12"],
     "distinct rank orders"),
    (["--deck", "ranks=9,suits=1", "--hand", "1,2,3,4,5,6,7,8", "--hand", "9", "--max-orders",
      "5040"], "distinct rank orders"),
    (["--deck", "36", "--hand", "As,Kd", "--hand", "Qs,Jd", "--max-orders", "1"],
     "distinct rank orders"),
    (["--deck", "36", "--mode", "classic", "--hand", "As", "--hand", "Kd"], "tactical"),
    (["--preset", "classic-ru", "--hand", "As", "--hand", "Kd"], "classic preset"),
    (["--deck", "ranks=4,suits=1", "--hand", "", "--hand", "1"], "no cards"),
])
def test_solve_bad_input_is_a_one_line_error(argv: list[str], message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("pyanitsa solve: error:")
    assert message in err
