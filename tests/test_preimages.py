"""Mathieu & Delahaye's sorted-pickup figures for 11 ranks × 4 suits, and the search back from
their period-1,125 cycle to deals that reach it (``pyanitsa.research.preimages``).

The published positions are copied from their code's records file for ``rangement optimisé``
(``sorted(pile, reverse=True)``: our ``high_first``), values 1..11 (docs/research.md)."""

import pytest

from pyanitsa.errors import InvalidRulesError
from pyanitsa.ranks import rank_table
from pyanitsa.records import Record
from pyanitsa.research.preimages import (
    preimages,
    rank_positions,
    record_of,
    search_back,
    sorted_descending,
)
from pyanitsa.rules import Rules

RULES = {"pickup_order": "high_first", "dispute_exhausted": "discard", "max_rounds": 20000}
DECK = {"ranks": 11, "suits": 4}
CYCLE_1125 = [[11, 6, 6, 2, 8, 3, 4, 1, 11, 10, 9, 5, 9, 7, 3, 1, 10, 10, 8, 4, 8, 6, 5, 2],
              [10, 4, 6, 1, 11, 8, 7, 5, 9, 2, 5, 1, 11, 7, 7, 3, 9, 4, 3, 2]]
RECORD_15136 = [[3, 8, 3, 10, 4, 3, 9, 4, 10, 1, 1, 3, 4, 2, 7, 7, 8, 11, 6, 7, 9, 6],
                [5, 11, 8, 10, 5, 9, 2, 5, 7, 6, 2, 10, 11, 1, 8, 5, 11, 9, 6, 4, 1, 2]]


def record(stacks):
    return Record.from_json({"mode": "classic", "deck": DECK, "rules": RULES, "dealer": 0,
                             "stacks": stacks})


def ranks_of(game):
    rank_of = rank_table(game.rules).rank_of
    return tuple(tuple(rank_of[c] for c in s) for s in game.stacks)


def cycle_positions():
    out = rank_positions(record(CYCLE_1125), 2000)
    assert len(out) == len(set(out)) == 1125  # the game stops as a cycle at the first repeat
    return out


def test_the_published_figures_replay_in_our_units():
    """Their *plis* are our rounds, their *cartes posées* our showdowns, their cycle size our
    period: the listed cycle position cycles at once with period 1,125, and the listed record
    deal is won by seat 1 in 15,136 rounds and 15,642 showdowns."""
    cyc = record(CYCLE_1125).play()
    assert (cyc.outcome.value, cyc.cycle_start, cyc.cycle_length) == ("cycle", 0, 1125)
    rec = record(RECORD_15136).play()
    assert (rec.outcome.value, rec.winner, rec.rounds, rec.showdowns) == \
        ("win", 1, 15136, 15642)


def test_no_position_of_the_cycle_is_a_deal():
    """Seat 0 holds 24 to 28 cards all round the cycle: a 22 + 22 deal never stands on it, so
    a hunt over deals meets it only after a transient."""
    sizes = {len(a) for a, b in cycle_positions()}
    assert sizes == {24, 25, 26, 27, 28}


def test_each_preimage_plays_into_its_position():
    rules = record(CYCLE_1125).rules
    assert sorted_descending(rules)
    for pos in cycle_positions()[:40]:
        before = preimages(pos)
        assert before
        for b in before:
            game = record_of(rules, b).game()
            game.play_round()
            assert ranks_of(game) == pos


def test_search_back_finds_deals_that_enter_the_cycle():
    """One round back, 23 deals of 22 + 22 cards enter the cycle; the reference engine plays
    each into a cycle of period 1,125 from round 1."""
    rules = record(CYCLE_1125).rules
    deals = [(d, p) for d, p in search_back(cycle_positions(), max_depth=1)
             if len(p[0]) == len(p[1]) == 22]
    assert len(deals) == 23 and {d for d, _ in deals} == {1}
    for _, pair in deals[:3]:
        rec = record_of(rules, pair)
        assert sorted(c for s in rec.seats for c in s) == list(range(44))
        result = rec.play()
        assert (result.outcome.value, result.cycle_start, result.cycle_length) == \
            ("cycle", 1, 1125)


def test_preimages_refuse_rules_they_cannot_undo():
    with pytest.raises(InvalidRulesError, match="pickup_order"):
        sorted_descending(Rules.from_options({"pickup_order": "natural"},
                                             deck="ranks=4,suits=4"))
    with pytest.raises(InvalidRulesError, match="dispute"):
        sorted_descending(Rules.from_options({"pickup_order": "low_first",
                                              "dispute": "down_up"}, deck="ranks=4,suits=4"))


def test_the_batch_core_sees_the_deal_the_hunt_would_draw():
    """The hunt plays deals on the batch core: given a 22 + 22 deal found one round back, it
    reports the cycle as the reference engine does (period 1,125 from round 1)."""
    import numpy as np

    from pyanitsa.batch.encode import CYCLE, R_CLEN, R_CSTART, R_OUTCOME
    from pyanitsa.research.hunt import Hunt, play_deals

    rules = record(CYCLE_1125).rules
    _, pair = next((d, p) for d, p in search_back(cycle_positions(), max_depth=1)
                   if len(p[0]) == len(p[1]))
    deal = np.array([[c for s in record_of(rules, pair).seats for c in s]], np.int64)
    hunt = Hunt(rules)
    out = play_deals(hunt.prm, hunt.table, deal, hunt.dealer, hunt.cap)
    assert (out[0, R_OUTCOME], out[0, R_CSTART], out[0, R_CLEN]) == (CYCLE, 1, 1125)
