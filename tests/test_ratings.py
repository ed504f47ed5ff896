"""The ratings wing on plain inputs: the Plackett–Luce / Bradley–Terry fit, anchoring and the
bootstrap, the SPRT, the one interval of a mean score and the figures of duplicate pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from pyanitsa.ratings.plackett_luce import ELO_PER_NAT, RankingData, anchored, bradley_terry, rate
from pyanitsa.ratings.scores import (
    PairCounts,
    half_width,
    likelihood_of_superiority,
    mean_interval,
    mean_var,
)
from pyanitsa.ratings.sprt import Sprt, elo_of_score, expected_score, sprt_bounds, sprt_llr

# -- Plackett–Luce / Bradley–Terry --------------------------------------------------------------------


def two_player_games(wins, draws, losses):
    return [((0, 1), (1, 2))] * wins + [((0, 1), (1, 1))] * draws + [((0, 1), (2, 1))] * losses


def test_bradley_terry_matches_the_closed_form():
    # Two agents: the MLE is the Elo difference of the score, draws counting half.
    data = RankingData.build(2, two_player_games(30, 10, 10))
    elo = data.fit(prior_sd=None)
    assert elo[0] - elo[1] == pytest.approx(elo_of_score(0.7), abs=1e-3)
    assert elo_of_score(0.7) == pytest.approx(147.19, abs=0.01)
    assert expected_score(elo_of_score(0.7)) == pytest.approx(0.7)
    assert RankingData.build(2, two_player_games(0, 7, 0)).fit() == pytest.approx([0, 0],
                                                                                   abs=1e-6)


def test_ties_are_the_mean_log_likelihood_over_tie_breaks():
    # one game, places (1, 1, 2): the mean of the log-likelihoods of orders 0>1>2 and 1>0>2
    data = RankingData.build(3, [((0, 1, 2), (1, 1, 2))])
    rng = np.random.default_rng(3)

    def ll(w, order):
        left = list(order)
        total = 0.0
        for i in order:
            total += math.log(w[i] / sum(w[j] for j in left))
            left.remove(i)
        return total

    for _ in range(5):
        elo = rng.normal(0, 200, 3)
        w = np.exp(elo / ELO_PER_NAT)
        assert data.log_likelihood(elo) == pytest.approx((ll(w, (0, 1, 2)) + ll(w, (1, 0, 2)))
                                                         / 2)


def test_plackett_luce_recovers_simulated_ratings():
    rng = np.random.default_rng(11)
    true = np.array([0.0, 120.0, 240.0, -360.0, 60.0])
    strength = np.exp(true / ELO_PER_NAT)
    games = []
    for _ in range(6000):
        table = rng.choice(5, size=4, replace=False)
        left = list(range(4))
        order = []
        while left:
            p = strength[table[left]] / strength[table[left]].sum()
            order.append(left.pop(rng.choice(len(left), p=p)))
        seat_places = [0] * 4
        for place, seat in enumerate(order, 1):
            seat_places[seat] = place
        games.append((tuple(int(a) for a in table), tuple(seat_places)))
    elo = RankingData.build(5, games).fit()
    assert elo == pytest.approx(true - true.mean(), abs=25)


def test_plackett_luce_counts_an_agent_twice_at_a_table():
    """Seats (0, 1, 1), places 1, 2, 3: P = e^a / (e^a + 2 e^b) * 1/2 (either copy second)."""
    data = RankingData.build(2, [((0, 1, 1), (1, 2, 3))])
    a, b = 0.3, -0.2
    want = a - math.log(math.exp(a) + 2 * math.exp(b)) - math.log(2)
    assert data.log_likelihood(np.array([a, b]) * ELO_PER_NAT) == pytest.approx(want)


def test_bradley_terry_of_two_agents_is_the_elo_of_the_score():
    wins = [[0.0, 75.0, 0.0], [25.0, 0.0, 0.0], [0.0, 0.0, 0.0]]  # 75 of 100 to the first
    a, b, nobody = bradley_terry(wins, [[0, 100, 0], [100, 0, 0], [0, 0, 0]])
    assert nobody is None and a == pytest.approx(-b)
    assert a - b == pytest.approx(elo_of_score(75.5 / 101), abs=1e-6)  # one virtual draw


# -- SPRT ------------------------------------------------------------------------------------------


def test_sprt_formula_and_bounds():
    low, high = sprt_bounds(0.05, 0.05)
    assert (low, high) == pytest.approx((-2.944439, 2.944439))
    s0, s1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    assert sprt_llr(400, 0.56, 0.08, 0, 20) == \
        pytest.approx(400 * (s1 - s0) * (2 * 0.56 - s0 - s1) / (2 * 0.08))
    assert sprt_llr(0, 0.9, 0.1, 0, 20) == 0.0


@pytest.mark.parametrize(("true_elo", "expect"), [(0.0, "H0"), (40.0, "H1")])
def test_sprt_error_rates_on_simulated_pairs(true_elo, expect):
    rng = np.random.default_rng(5)
    p = expected_score(true_elo)
    right = 0
    runs = 150
    for _ in range(runs):
        test = Sprt(elo0=0, elo1=40, alpha=0.05, beta=0.05)
        while test.decision is None:
            test.add(rng.binomial(2, p) / 2)  # a duplicate pair: two games
        right += test.decision == expect
    assert right / runs >= 0.9


# -- intervals and pair figures -----------------------------------------------------------------------


def test_mean_interval_is_student_t():
    xs = [0.0, 0.5, 1.0, 1.0, 0.5, 1.0]
    mean, lo, hi = mean_interval(xs)
    ref = sps.t.interval(0.95, len(xs) - 1, loc=np.mean(xs), scale=sps.sem(xs))
    assert mean == pytest.approx(np.mean(xs))
    assert (lo, hi) == pytest.approx((ref[0], min(1.0, ref[1])))
    assert mean_interval([0.5]) == (0.5, None, None)


def test_the_normal_interval_is_the_customary_1_96_standard_errors():
    xs = [0.0, 0.5, 1.0, 1.0, 0.5, 1.0, 0.75, 0.25]
    se = np.std(xs, ddof=1) / math.sqrt(len(xs))
    assert half_width(xs, spread="normal") == pytest.approx(1.96 * se, rel=1e-12)
    assert half_width(xs) == pytest.approx(sps.t.ppf(0.975, len(xs) - 1) * se, rel=1e-12)
    assert half_width(xs) > half_width(xs, spread="normal")
    assert half_width([0.5]) is None and half_width([0.5], spread="normal") is None
    mean, var = mean_var(xs)
    assert (mean, var) == pytest.approx((np.mean(xs), np.var(xs, ddof=1)))
    assert mean_var([0.25]) == (0.25, 0.0)


def test_pair_counts_and_likelihood_of_superiority():
    scores = [0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0]
    assert PairCounts.of(scores) == PairCounts(3, 2, 2, (1, 1, 2, 1, 2))
    mean, var = mean_var(scores)
    assert likelihood_of_superiority(scores) == pytest.approx(
        sps.norm.cdf((mean - 0.5) / math.sqrt(var / len(scores))))
    assert likelihood_of_superiority([1.0, 1.0]) == 1.0
    assert likelihood_of_superiority([0.5, 0.5]) == 0.5
    assert likelihood_of_superiority([0.75]) is None


def test_rate_anchors_and_bootstraps_blocks_within_strata():
    # agent 0 beats 1 in 4, 3, then 2 games of 4 (blocks 0-2); agent 2 plays 1 evenly
    won = ((1, 2), (1, 2), (1, 2), (1, 2))
    lost = ((2, 1), (2, 1))
    games, game_block = [], []
    for block in range(6):
        results = won[:4 - block] + lost[:block] if block < 3 else won[:2] + lost
        agents = (0, 1) if block < 3 else (2, 1)
        for places in results:
            games.append((agents, places))
            game_block.append(block)
    strata = [[0, 1, 2], [3, 4, 5]]
    plain = rate(3, games)
    assert plain.low is None and plain.bootstrap == 0
    assert sum(plain.elo) == pytest.approx(0.0, abs=1e-9)
    held = rate(3, games, anchor=1, bootstrap=40, game_block=game_block, strata=strata, seed=7)
    assert held.elo[1] == 0.0 and held.low[1] == held.high[1] == 0.0
    assert held.elo == pytest.approx(anchored(np.array(plain.elo), 1))
    assert held.elo[0] > 0 and held.low[0] < held.elo[0] < held.high[0]
    assert held.los[0][1] > 0.5 and held.los[1][0] == pytest.approx(1 - held.los[0][1])
    again = rate(3, games, anchor=1, bootstrap=40, game_block=game_block, strata=strata, seed=7)
    assert again == held
    other = rate(3, games, anchor=1, bootstrap=40, game_block=game_block, strata=strata, seed=8)
    assert other.elo == held.elo and other != held  # the seed moves the bootstrap alone
