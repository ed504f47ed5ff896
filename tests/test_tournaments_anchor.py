"""``anchor: AGENT``: that agent's Elo is 0 and every rating and interval is relative to it."""

from __future__ import annotations

import math

import pytest
from scipy import optimize

from pyanitsa.ratings.plackett_luce import ELO_PER_NAT, PRIOR_SD_ELO
from pyanitsa.tournaments.config import TournamentConfigError, parse_config
from pyanitsa.tournaments.report import console_table
from pyanitsa.tournaments.stats import summarize
from pyanitsa.workers.games import GameRow, points_from_places


def config(**fields):
    return parse_config({"agents": ["a", "b"], "rules": "tactical", "deals": 20,
                         "bootstrap": 0, **fields})


def row(deal, rotation, seats, places):
    return GameRow(0, deal, rotation, 1, tuple(seats), "win", points_from_places(places),
                   tuple(places), None, 10, 10, None, None, None, None, None, 0.0)


def three_of_four():
    """20 duplicate pairs of a against b: a wins both games of 10, one of the other 10 (30 of
    40 games)."""
    rows = []
    for deal in range(20):
        rows.append(row(deal, 0, (0, 1), (1, 2)))                              # a wins
        rows.append(row(deal, 1, (1, 0), (2, 1) if deal < 10 else (1, 2)))    # a wins, loses
    return rows


def map_half_difference(wins, games):
    """By hand: with ratings +t and -t (the prior centres them), the MAP of Bradley-Terry with
    the Gaussian prior solves wins - games * sigmoid(2t) - t / sd^2 = 0 (in natural units)."""
    inv_var = (ELO_PER_NAT / PRIOR_SD_ELO) ** 2
    t = optimize.brentq(lambda t: wins - games / (1 + math.exp(-2 * t)) - inv_var * t, 0, 5,
                        xtol=1e-14)
    return t * ELO_PER_NAT


def ratings_of(summary):
    return {a.name: a.rating for a in summary.agents}


def test_anchor_is_zero_and_the_other_rating_is_the_difference_by_hand():
    rows = three_of_four()
    half = map_half_difference(30, 40)
    assert 2 * half == pytest.approx(400 * math.log10(3), abs=1.0)  # 190.8: 3 to 1, odds 3
    free = ratings_of(summarize(config(), rows))
    assert free["a"] == pytest.approx(half, abs=1e-6)
    assert free["b"] == pytest.approx(-half, abs=1e-6)
    on_b = ratings_of(summarize(config(anchor="b"), rows))
    assert on_b["b"] == 0.0
    assert on_b["a"] == pytest.approx(2 * half, abs=1e-6)
    on_a = ratings_of(summarize(config(anchor="a"), rows))
    assert on_a == {"a": 0.0, "b": pytest.approx(-2 * half, abs=1e-6)}


def test_anchored_intervals_are_those_of_the_difference():
    rows = three_of_four()
    free = summarize(config(bootstrap=300), rows)
    on_b = summarize(config(bootstrap=300, anchor="b"), rows)
    a_free, a_on_b = free.agents[0], on_b.agents[0]
    b_on_b = on_b.agents[1]
    assert (b_on_b.rating_low, b_on_b.rating_high) == (0.0, 0.0)
    # two agents, each refit centred: a - b = 2a in every refit, so the quantiles double
    assert a_on_b.rating_low == pytest.approx(2 * a_free.rating_low, abs=1e-6)
    assert a_on_b.rating_high == pytest.approx(2 * a_free.rating_high, abs=1e-6)
    assert a_on_b.rating_low < a_on_b.rating < a_on_b.rating_high
    assert on_b.ratings.los == free.ratings.los  # a common shift keeps every order


def test_anchor_keeps_differences_in_a_field_of_three():
    names = ["a", "b", "c"]
    rows = []
    pairings = [(0, 1), (0, 2), (1, 2)]
    for p, (x, y) in enumerate(pairings):
        for deal in range(8):
            wins = deal < (6, 7, 5)[p]  # x beats y in most deals
            rows.append(GameRow(p, deal, 0, 1, (x, y), "win", (1.0, 0.0) if wins else
                                (0.0, 1.0), (1, 2) if wins else (2, 1), None, 1, 1, None,
                                None, None, None, None, 0.0))
            rows.append(GameRow(p, deal, 1, 1, (y, x), "win", (0.0, 1.0), (2, 1), None, 1, 1,
                                None, None, None, None, None, 0.0))
    base = {"agents": names, "rules": "tactical", "deals": 8, "bootstrap": 50}
    free = summarize(parse_config(base), rows)
    on_c = summarize(parse_config(base | {"anchor": "c"}), rows)
    f, c = ratings_of(free), ratings_of(on_c)
    assert c["c"] == 0.0
    for x in names:
        assert c[x] == pytest.approx(f[x] - f["c"], abs=1e-9)
    assert sum(f.values()) == pytest.approx(0.0, abs=1e-6)  # without an anchor: mean 0
    assert on_c.agents[2].rating_low == on_c.agents[2].rating_high == 0.0


def test_reports_name_the_anchor():
    rows = three_of_four()
    assert "anchor b: Elo 0" in console_table(summarize(config(anchor="b"), rows))
    assert "anchor" not in console_table(summarize(config(), rows))


def test_anchor_must_be_an_agent():
    with pytest.raises(TournamentConfigError, match=r"anchor: 'z' is not one of the agents "
                                                    r"\(a, b\)"):
        config(anchor="z")
