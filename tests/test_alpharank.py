"""α-Rank of a symmetric empirical game (solvers/alpharank.py): known values at two to four
seats, the fixation probability's closed form, the log-space stationary distribution."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pyanitsa.solvers.alpharank import alpha_rank, log_fixation, log_stationary, seating_alpha_rank

# -- α-Rank: known values ---------------------------------------------------------------------------


def rps_points(table: tuple[int, ...]) -> dict[int, float]:
    """Rock (0), paper (1), scissors (2) at a table, scored as a tournament scores a game: the
    point is split among the seats nobody at the table beats (everybody, when all three throws
    or only one are there)."""
    throws = set(table)
    if len(throws) != 2:
        return {a: 1.0 / len(table) for a in throws}
    a, b = sorted(throws)
    win = a if (a - b) % 3 == 1 else b
    return {win: 1.0 / table.count(win), (b if win == a else a): 0.0}


def all_seatings(n: int, k: int, points) -> dict[tuple[int, ...], dict[int, float]]:
    return {t: points(t)
            for t in itertools.combinations_with_replacement(range(n), k) if len(set(t)) > 1}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_alpha_rank_of_a_symmetric_rock_paper_scissors_table_is_uniform(players):
    p = seating_alpha_rank(3, players, all_seatings(3, players, rps_points))
    assert p == pytest.approx([1 / 3] * 3, abs=1e-12)


def test_a_dominant_agent_gets_all_the_mass():
    def points(table):  # agent 2 wins whenever it sits at the table, else agent 0
        win = 2 if 2 in table else min(table)
        return {a: (1.0 / table.count(win) if a == win else 0.0) for a in set(table)}

    p = seating_alpha_rank(4, 3, all_seatings(4, 3, points))
    assert p[2] == pytest.approx(1.0, abs=1e-12) and sum(p) == pytest.approx(1.0)


def test_two_player_constant_sum_fixation_matches_the_closed_form():
    """α-Rank's constant-sum case (Omidshafiei et al. 2019, and OpenSpiel):
    ρ = (1 - e^-u) / (1 - e^-mu), u = α m / (m - 1) (payoff(r, s) - 1/2)."""
    m, alpha = 50, 3.0
    for a in (0.7, 0.5 + 1e-3, 0.2):
        u = alpha * m / (m - 1) * (a - 0.5)
        closed = (1 - math.exp(-u)) / (1 - math.exp(-m * u))
        got = log_fixation([a, 0.5], [0.5, 1 - a], players=2, alpha=alpha, population=m)
        assert math.exp(got) == pytest.approx(closed, rel=1e-12)


def test_biased_rock_paper_scissors_matches_the_markov_chain_tree_theorem():
    """A cycle with unequal margins: the stationary distribution from the closed-form fixation
    probabilities and the three spanning trees into each state (Markov chain tree theorem)."""
    win = {(1, 0): 0.9, (2, 1): 0.6, (0, 2): 0.55}  # paper beats rock by most
    score = {**win, **{(b, a): 1 - v for (a, b), v in win.items()}}
    m, alpha = 50, 2.0

    def rho(r, s):  # r invades s
        u = alpha * m / (m - 1) * (score[r, s] - 0.5)
        return (1 - math.exp(-u)) / (1 - math.exp(-m * u))

    q = {(s, r): rho(r, s) / 2 for s in range(3) for r in range(3) if r != s}
    trees = [q[1, 0] * q[2, 0] + q[1, 2] * q[2, 0] + q[1, 0] * q[2, 1],
             q[0, 1] * q[2, 1] + q[0, 2] * q[2, 1] + q[0, 1] * q[2, 0],
             q[0, 2] * q[1, 2] + q[0, 1] * q[1, 2] + q[0, 2] * q[1, 0]]
    want = np.array(trees) / sum(trees)

    def payoff(r, s, count):
        return 0.5 if count == 2 else score[r, s]

    got = alpha_rank(3, 2, payoff, alpha=alpha, population=m)
    assert got == pytest.approx(want, rel=1e-10)
    assert not np.allclose(got, 1 / 3, atol=1e-2)  # the bias shows


def test_log_stationary_solves_the_chain_even_with_tiny_rates():
    rng = np.random.default_rng(5)
    R = rng.random((5, 5)) * 0.2
    np.fill_diagonal(R, 0.0)
    T = R + np.diag(1 - R.sum(axis=1))
    w, v = np.linalg.eig(T.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    assert np.exp(log_stationary(np.log(R + np.eye(5)))) == pytest.approx(pi / pi.sum(),
                                                                         abs=1e-14)
    # a two-state chain whose rates underflow as floats: pi_0 / pi_1 = q10 / q01 = e^-2000
    logs = np.array([[0.0, -1000.0], [-3000.0, 0.0]])
    got = log_stationary(logs)
    assert got[0] - got[1] == pytest.approx(-2000.0)


def test_alpha_rank_needs_every_table_of_two_agents():
    some = {t: p for t, p in all_seatings(3, 3, rps_points).items() if t != (0, 0, 1)}
    assert seating_alpha_rank(3, 3, some) is None
