"""The ``nash`` agent against exact values on tiny deals, where ``solve`` is exact.

Stated tolerances (measured: the learned strategy keeps a tie run of two or more as one
carried tie, so it is close to, not at, the equilibrium): on six-card hands its exact
exploitability is at most 0.3 cards a game and at most half of uniform random's on the same
deals, and the value of its own strategy pair is within 0.3 of the game value.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyanitsa import preset
from pyanitsa.agents import make_agent
from pyanitsa.dealing import deal
from pyanitsa.protocol import hand_view
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng, derive_seed
from pyanitsa.rules import Rules
from pyanitsa.solvers.best_response import payoffs
from pyanitsa.solvers.exact import solve_deal
from pyanitsa.solvers.exploitability import exploit_deals
from pyanitsa.solvers.mixes import OrderMix, rank_mix

TOLERANCE = 0.3


def research(ranks: int, suits: int, **opts: object) -> Rules:
    return Rules.from_options({"mode": "tactical", "deck": {"ranks": ranks, "suits": suits},
                               **opts})


@pytest.mark.parametrize("opts", [{}, {"misere": True}, {"weakest_beats_ace": True}])
def test_exploitability_is_small_and_under_half_of_random(opts: dict) -> None:
    rules = research(6, 2, **opts)
    nash = exploit_deals(rules, make_agent("nash"), deals=25)
    rand = exploit_deals(rules, make_agent("random"), deals=25)
    assert nash["method"] == rand["method"] == "exact"
    assert nash["exploitability"] <= TOLERANCE
    assert nash["exploitability"] <= rand["exploitability"] / 2


def test_the_value_of_its_strategy_pair_is_near_the_game_value() -> None:
    rules = research(6, 2)
    table = rank_table(rules)
    agent = make_agent("nash")
    for i in range(10):
        hands = deal(rules, 2, Rng(derive_seed(4, i))).seats
        views = [hand_view(rules, s, hands, 0) for s in (0, 1)]
        mixes = [rank_mix(v, agent.mix(v)) for v in views]
        value = float(mixes[0].probs @ payoffs(rules, mixes[0].orders, mixes[1]))
        exact = solve_deal(rules, [table.rank_of[c] for c in hands[0]],
                           [table.rank_of[c] for c in hands[1]]).value
        assert value == pytest.approx(exact, abs=TOLERANCE)


def test_mix_is_a_distribution_that_order_hand_samples() -> None:
    rules = research(5, 2)
    hands = deal(rules, 2, Rng(derive_seed(1, 0))).seats
    view = hand_view(rules, 0, hands, 0)
    agent = make_agent("nash")
    listed = agent.mix(view)
    assert listed is not None
    assert sum(p for _, p in listed) == pytest.approx(1.0)
    assert all(sorted(o) == sorted(view.hand) for o, _ in listed)
    mix = rank_mix(view, listed)
    rank_of = view.ranks.rank_of
    draws = [tuple(rank_of[c] for c in agent.order_hand(view, np.random.default_rng(k)))
             for k in range(4000)]
    freq = OrderMix.of(draws, exact=False)
    expected = {tuple(o): p for o, p in zip(mix.orders.tolist(), mix.probs, strict=True)}
    for order, p in zip(freq.orders.tolist(), freq.probs, strict=True):
        assert abs(p - expected[tuple(order)]) < 4 * np.sqrt(expected[tuple(order)] / 4000) + 1e-3


def test_deterministic_given_the_hands_and_rng_and_shared_by_both_seats() -> None:
    rules = preset("tactical")
    hands = deal(rules, 2, Rng(derive_seed(9, 0))).seats
    views = [hand_view(rules, s, hands, 0) for s in (0, 1)]
    a = make_agent("nash(iterations=20)")
    first = [a.order_hand(views[0], np.random.default_rng(3))]
    solved = a.last_info["solve_seconds"]
    first.append(a.order_hand(views[1], np.random.default_rng(3)))
    assert a.last_info["solve_seconds"] == solved  # the seat swap reuses the solved deal
    b = make_agent("nash(iterations=20)")
    assert [b.order_hand(v, np.random.default_rng(3)) for v in views] == first
    assert sorted(first[0]) == sorted(views[0].hand)
    assert first[0] != a.order_hand(views[0], np.random.default_rng(4))  # it does mix


def test_falls_back_and_says_why() -> None:
    rules = preset("tactical")
    hands = deal(rules, 5, Rng(1)).seats  # 3, 4 and 6 players have a stored strategy
    agent = make_agent("nash")
    view = hand_view(rules, 0, hands, 1)
    order = agent.order_hand(view, np.random.default_rng(0))
    assert sorted(order) == sorted(view.hand)
    assert agent.last_info["solved"] is False and "5 players" in agent.last_info["reason"]
    assert agent.mix(view) is None


def test_dcfr_plays_near_the_equilibrium_and_differs_from_cfr_plus() -> None:
    """``algorithm="dcfr"`` is another path to the same equilibrium: within the stated tolerance
    of exact on six-card hands and under half of random's exploitability, by other strategies
    than CFR+'s after the same iterations."""
    rules = research(6, 2)
    dcfr = make_agent('nash(algorithm="dcfr")')
    ex = exploit_deals(rules, dcfr, deals=25)
    rand = exploit_deals(rules, make_agent("random"), deals=25)
    assert ex["method"] == "exact"
    assert ex["exploitability"] <= min(TOLERANCE, rand["exploitability"] / 2)
    hands = deal(rules, 2, Rng(derive_seed(4, 0))).seats
    view = hand_view(rules, 0, hands, 0)
    assert dcfr.mix(view) != make_agent("nash").mix(view)
    with pytest.raises(ValueError, match="algorithm='cfr'"):
        make_agent('nash(algorithm="cfr")')


def test_a_fallback_is_said_once_on_stderr(capfd, monkeypatch):
    """nash and equilibrium cannot solve a five-player table (nash has stored strategies for
    3, 4 and 6): they play their fallback, and say so once a process (agent, fallback and
    why), not at every hand."""
    from pyanitsa.agents import warm

    monkeypatch.setattr(warm, "_SAID", set())
    rules = preset("tactical")
    for spec, name, fallback in (("nash", "nash", "random"),
                                 ("equilibrium(fallback=random)", "equilibrium", "random")):
        agent = make_agent(spec)
        for seed in range(3):
            dealt = deal(rules, 5, Rng(seed))
            order = agent.order_hand(hand_view(rules, 0, dealt.seats, len(dealt.set_aside)),
                                     np.random.default_rng(seed))
            assert sorted(order) == sorted(dealt.seats[0])
        err = capfd.readouterr().err.splitlines()
        assert len(err) == 1, err
        assert err[0].startswith(f"pyanitsa: {name} plays {fallback} instead (5 players")
        assert agent.last_info["solved"] is False
