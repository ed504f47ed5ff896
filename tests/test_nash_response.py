"""``nash(model=..., confidence=p)``: the restricted Nash response, against exact values.

On six-card hands every distribution is listed and every payoff below is exact. The frontier
of Johanson, Zinkevich & Bowling (2008) is what is checked: as ``p`` grows, the response gains
more against the model and becomes more exploitable; at ``p = 1`` it is a best response to the
model; at small ``p`` it gains against the model at a cost in exploitability far below that
gain. Tolerance: the learned strategy counts a tie run of two or more as one carried tie
(:mod:`pyanitsa.solvers.cfr_kernels`), so values are within :data:`TOL` of exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyanitsa.agents import make_agent
from pyanitsa.agents.kernels import cmp_table, distinct_orders
from pyanitsa.dealing import deal
from pyanitsa.protocol import hand_view
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng, derive_seed
from pyanitsa.rules import Rules
from pyanitsa.solvers import cfr_kernels as nk
from pyanitsa.solvers.best_response import payoffs
from pyanitsa.solvers.exploitability import exploit_deals
from pyanitsa.solvers.mixes import rank_mix, sampled_mix

TOL = 0.3
RULES = Rules.from_options({"mode": "tactical", "deck": {"ranks": 6, "suits": 2}})
DEALS = 12


def _gain(agent, model, i: int) -> float:
    """The agent's exact payoff against ``model``, averaged over both seats of deal ``i``."""
    hands = deal(RULES, 2, Rng(derive_seed(8, i))).seats
    out = 0.0
    for seat in (0, 1):
        me, them = hand_view(RULES, seat, hands, 0), hand_view(RULES, 1 - seat, hands, 0)
        listed = model.mix(them)
        theirs = (rank_mix(them, listed) if listed else
                  sampled_mix(model, them, [derive_seed(9, i, seat, k) for k in range(512)]))
        mine = rank_mix(me, agent.mix(me))
        out += float(mine.probs @ payoffs(RULES, mine.orders, theirs)) / 2
    return out


def _frontier(model_spec: str, ps: tuple[float, ...]) -> list[tuple[float, float]]:
    model = make_agent(model_spec)
    rows = []
    for p in ps:
        spec = "nash" if p == 0 else f'nash(model="{model_spec}", confidence={p})'
        gain = np.mean([_gain(make_agent(spec), model, i) for i in range(DEALS)])
        ex = exploit_deals(RULES, make_agent(spec), deals=DEALS, seed=8)
        assert ex["method"] == "exact"
        rows.append((float(gain), float(ex["exploitability"])))
    return rows


@pytest.mark.parametrize("model", ["descending", "tie_aware"])
def test_gain_and_exploitability_grow_with_confidence(model: str) -> None:
    rows = _frontier(model, (0.0, 0.25, 0.5, 1.0))
    gains, exps = [g for g, _ in rows], [e for _, e in rows]
    assert all(b >= a - 0.02 for a, b in zip(gains, gains[1:], strict=False)), rows
    assert all(b >= a - 0.02 for a, b in zip(exps, exps[1:], strict=False)), rows
    assert gains[-1] > gains[0] + 0.5, rows  # the heuristics are exploitable ...
    # ... and a little confidence buys much more against the model than it costs elsewhere
    assert gains[1] - gains[0] > 2 * (exps[1] - exps[0]), rows


def _learned_payoff(cmp: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The payoff CFR+ learns on, written out: a showdown that is not a tie is worth
    ``2 (1 + [the previous showdown tied])`` to its winner (hands here are the same size)."""
    out = 0.0
    for t in range(len(a)):
        carried = t > 0 and a[t - 1] == b[t - 1]
        out += 2.0 * cmp[a[t], b[t]] * (1 + carried)
    return out


def test_full_confidence_is_a_best_response_to_the_model_in_the_learned_payoff() -> None:
    model = make_agent("descending")
    agent = make_agent('nash(model="descending", confidence=1)')
    cmp = cmp_table(rank_table(RULES)).astype(np.int64)
    for i in range(DEALS):
        hands = deal(RULES, 2, Rng(derive_seed(8, i))).seats
        me, them = hand_view(RULES, 0, hands, 0), hand_view(RULES, 1, hands, 0)
        (theirs,) = rank_mix(them, model.mix(them)).orders
        best = max(_learned_payoff(cmp, o, theirs) for o in distinct_orders(me.hand_ranks()))
        mine = rank_mix(me, agent.mix(me))
        got = sum(p * _learned_payoff(cmp, o, theirs)
                  for o, p in zip(mine.orders, mine.probs, strict=True))
        assert got == pytest.approx(best, abs=0.05)


def test_no_confidence_is_plain_cfr() -> None:
    table = rank_table(RULES)
    cmp = cmp_table(table).astype(np.int64)
    hands = deal(RULES, 2, Rng(3)).seats
    c = [np.bincount([table.rank_of[x] for x in h], minlength=table.num_ranks)
         .astype(np.int64) for h in hands]
    model = nk.model_marginals(np.array([[5, 4, 3, 2, 1, 0]]), np.ones(1), table.num_ranks, 6)

    def run(*extra):
        avg = [np.zeros((nk.multipliers(x)[1] * (table.num_ranks + 1), table.num_ranks),
                        np.float32) for x in c]
        nk.cfr(c[0], c[1], cmp, 1, 30, *avg, *extra)
        return avg

    plain, zero = run(), run(0.0, model, 0.0, model)
    assert all(np.array_equal(a, b) for a, b in zip(plain, zero, strict=True))
    assert not np.array_equal(plain[0], run(0.5, model, 0.0, None)[0])


def test_the_response_is_a_function_of_the_deal() -> None:
    hands = deal(RULES, 2, Rng(11)).seats
    view = hand_view(RULES, 1, hands, 0)
    a, b = (make_agent('nash(model="tie_aware", confidence=0.3)') for _ in range(2))
    assert a.mix(view) == b.mix(view)


@pytest.mark.parametrize("spec, key", [('nash(model="tie_aware")', "confidence"),
                                       ("nash(confidence=0.2)", "model"),
                                       ('nash(model="tie_aware", confidence=0.2, response="both")', "response"),
                                       ('nash(model="tie_aware", confidence=1.5)',
                                        "confidence=1.5")])
def test_bad_parameters_are_one_error(spec: str, key: str) -> None:
    with pytest.raises(ValueError, match=key):
        make_agent(spec)


@pytest.mark.slow  # 30 s; the mutual response's code path is also run by test_distill's mutual teacher
def test_mutual_responses_are_each_a_best_response_to_the_blend_in_the_learned_payoff() -> None:
    """``response="mutual"``: each seat's strategy is a best response, in the payoff CFR+ learns
    on, to ``p`` of the model and ``1 - p`` of the other seat's strategy (the equilibrium of the
    strategically zero-sum game :func:`pyanitsa.solvers.cfr.respond_mutual` describes)."""
    p = 0.4
    model = make_agent("descending")
    agent = make_agent(f'nash(model="descending", confidence={p}, response="mutual", '
                       f'iterations=400)')
    cmp = cmp_table(rank_table(RULES)).astype(np.int64)
    for i in range(DEALS):
        hands = deal(RULES, 2, Rng(derive_seed(8, i))).seats
        views = [hand_view(RULES, s, hands, 0) for s in (0, 1)]
        mixes = [rank_mix(v, agent.mix(v)) for v in views]
        for me in (0, 1):
            (fixed,) = rank_mix(views[1 - me], model.mix(views[1 - me])).orders
            other = mixes[1 - me]
            values = {tuple(o): p * _learned_payoff(cmp, o, fixed) + (1 - p) * sum(
                q * _learned_payoff(cmp, o, b)
                for b, q in zip(other.orders, other.probs, strict=True))
                for o in distinct_orders(views[me].hand_ranks())}
            got = sum(q * values[tuple(o)]
                      for o, q in zip(mixes[me].orders, mixes[me].probs, strict=True))
            best = max(values.values())
            assert got == pytest.approx(best, abs=0.1), (i, me)


def test_mutual_with_both_seatings_is_one_solve_and_no_confidence_is_nash() -> None:
    hands = deal(RULES, 2, Rng(5)).seats
    agent = make_agent('nash(model="tie_aware", confidence=0.3, response="mutual")')
    for seat in (0, 1):
        agent.mix(hand_view(RULES, seat, hands, 0))
    assert len(agent._responses) == 1
    # at p -> 0 the blend is the learned seat alone: the same passes as plain CFR+
    table = rank_table(RULES)
    c = [np.bincount([table.rank_of[x] for x in h], minlength=table.num_ranks) for h in hands]
    from pyanitsa.solvers import cfr as nash

    zero = nash.respond_mutual(RULES, hands, 30, make_agent("tie_aware"), 0.0)
    plain = nash._cfr(RULES, c[0], c[1], 30, "cfr+")
    assert all(np.array_equal(a, b) for a, b in zip(zero.avg, plain.avg, strict=True))
