"""Best responses in two-player tactical deals against known values.

The dynamic programme against a fixed order must equal brute force over every distinct order
(scored by the batch core and, for a few, by the reference engine); the search must find the
exact best response against fixed orders on full 36-card hands; enumeration against a mix must
equal the row maximum of the exact payoff matrix.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyanitsa.agents.kernels import distinct_orders
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules
from pyanitsa.solvers.best_response import (
    OrderMix,
    best_response,
    dp_response,
    expected_payoff,
    payoffs,
)
from pyanitsa.solvers.exact import payoff_matrix, zero_sum_payoff
from pyanitsa.tactical import TacticalGame


def research(ranks: int, suits: int, **opts: object) -> Rules:
    return Rules.from_options({"mode": "tactical", "deck": {"ranks": ranks, "suits": suits},
                               **opts})


def brute(rules: Rules, mine: np.ndarray, opp: np.ndarray, objective: str) -> float:
    orders = distinct_orders(mine)
    return float(payoffs(rules, orders, OrderMix.of([opp], exact=True), objective).max())


def reference_margin(rules: Rules, a: np.ndarray, b: np.ndarray) -> int:
    """Seat 0's score minus seat 1's by the reference engine, cards built from rank orders."""
    table = rank_table(rules)
    deck = list(range(rules.deck.size))
    pools: list[list[int]] = [[c for c in deck if table.rank_of[c] == r]
                              for r in range(table.num_ranks)]
    hands = [[pools[int(r)].pop() for r in a], [pools[int(r)].pop() for r in b]]
    result = TacticalGame(rules, hands).play()
    return result.scores[0] - result.scores[1]


hands = st.integers(min_value=2, max_value=6).flatmap(
    lambda ranks: st.tuples(
        st.just(ranks),
        st.lists(st.integers(0, ranks - 1), min_size=1, max_size=7),
        st.lists(st.integers(0, ranks - 1), min_size=1, max_size=7),
        st.booleans(), st.booleans(), st.sampled_from(["margin", "win"])))


@settings(max_examples=150, deadline=None)
@given(hands)
def test_dynamic_programme_equals_brute_force(case: tuple) -> None:
    ranks, mine, opp, special, misere, objective = case
    rules = research(ranks, 8, weakest_beats_ace=special, misere=misere)
    mine_a = np.array(mine, np.int8)
    opp_a = np.array(opp, np.int8)
    value, order = dp_response(rules, mine_a, opp_a, objective)
    assert sorted(order.tolist()) == sorted(mine)
    assert value == pytest.approx(brute(rules, mine_a, opp_a, objective))
    assert expected_payoff(rules, order, OrderMix.of([opp_a], exact=True),
                           objective) == pytest.approx(value)


def test_dynamic_programme_scores_agree_with_the_reference_engine() -> None:
    rules = research(5, 4, weakest_beats_ace=True)
    rng = np.random.default_rng(3)
    for _ in range(20):
        deck = rng.permutation(np.repeat(np.arange(5), 4))
        mine, opp = np.sort(deck[:8]), deck[8:16]
        value, order = dp_response(rules, mine, opp)
        assert reference_margin(rules, order, opp) == value


def test_search_finds_the_exact_response_to_fixed_orders_on_full_hands() -> None:
    """36 cards, 18 a hand: the search (started without the programme's answer) reaches the
    programme's exact value against every fixed order tried."""
    from pyanitsa import preset

    rules = preset("tactical")
    rng = np.random.default_rng(11)
    deck = np.repeat(np.arange(9), 4)
    for _ in range(6):
        p = rng.permutation(deck)
        mine, opp = np.sort(p[:18]), p[18:]
        exact, _ = dp_response(rules, mine, opp)
        # two copies of the order with different weights: not a single order, so no DP path
        mix = OrderMix(np.stack([opp, opp]).astype(np.int8), np.array([0.5, 0.5]), exact=True)
        br = best_response(rules, mine, mix, rng=np.random.default_rng(0))
        assert br.method == "search"
        assert br.value == pytest.approx(exact)


def test_enumeration_equals_the_payoff_matrix_row_maximum() -> None:
    rules = research(6, 2, misere=True)
    rng = np.random.default_rng(5)
    mine = np.array([0, 1, 1, 3, 4, 5], np.int8)
    theirs = np.array([0, 2, 2, 3, 4, 5], np.int8)
    cols = distinct_orders(theirs)
    pick = rng.choice(len(cols), 7, replace=False)
    q = rng.random(7)
    mix = OrderMix.of(cols[pick], q, exact=True)
    br = best_response(rules, mine, mix)
    assert br.method == "enumeration"
    rows = distinct_orders(mine)
    pay = zero_sum_payoff(payoff_matrix(rules, rows, cols[pick]), "margin", rules.misere)
    assert br.value == pytest.approx(float((pay @ (q / q.sum())).max()))
