"""Showdowns (RULES.md §1): the top set, weakest_beats_ace and cycle_rule."""

from __future__ import annotations

import pytest

from pyanitsa import Deck, Rules
from pyanitsa.showdown import Judge

CASES = [
    # (deck, weakest_beats_ace, cycle_rule, cards, expected top indices or None)
    # Plain: the highest rank; equal highest tie; two equal below a third start nothing.
    ("36", False, "void", ["Ks", "9c"], [0]),
    ("36", False, "void", ["7c", "As", "Kd"], [1]),
    ("36", False, "void", ["Qc", "Qd", "9s"], [0, 1]),
    ("36", False, "void", ["9c", "9d", "Ks"], [2]),
    ("36", False, "void", ["6c", "As"], [1]),
    # With weakest_beats_ace: the 6 beats the ace in 36 ...
    ("36", True, "void", ["As", "6d"], [1]),
    ("36", True, "void", ["6d", "As"], [0]),
    # ... and nothing else.
    ("36", True, "void", ["6d", "7c"], [1]),
    ("36", True, "void", ["Ks", "6d"], [0]),
    ("36", True, "void", ["As", "Kd"], [0]),
    # 7 in 32, 2 in 52.
    ("32", True, "void", ["Ah", "7c"], [1]),
    ("52", True, "void", ["Ah", "2c"], [1]),
    ("52", True, "void", ["Ah", "3c"], [0]),
    # A, K, 6 is a cycle: void gives None, weakest_wins gives the 6.
    ("36", True, "void", ["As", "Kd", "6h"], None),
    ("36", True, "weakest_wins", ["As", "Kd", "6h"], [2]),
    ("36", True, "weakest_wins", ["6c", "Kd", "As", "6h"], [0, 3]),
    ("36", True, "void", ["6c", "Kd", "As", "6h"], None),
    # A, 6, 6: both sixes beat the ace, nothing beats them: they tie.
    ("36", True, "void", ["As", "6c", "6d"], [1, 2]),
    ("36", True, "weakest_wins", ["As", "6c", "6d"], [1, 2]),
    # Two aces and a six: the six wins alone.
    ("36", True, "void", ["Ac", "6d", "As"], [1]),
    # Without weakest_beats_ace A, K, 6 is no cycle.
    ("36", False, "void", ["As", "Kd", "6h"], [0]),
    # 54 + wba: the jokers are the weakest rank and beat the ace; the deuce does not.
    ("54", True, "void", ["As", "X1"], [1]),
    ("54", True, "void", ["X1", "2c"], [1]),
    ("54", True, "void", ["As", "2c"], [0]),
    ("54", True, "void", ["As", "X1", "5c"], None),
    ("54", True, "weakest_wins", ["As", "X1", "5c"], [1]),
    # 54 without wba: jokers above the ace, equal to each other.
    ("54", False, "void", ["As", "X1"], [1]),
    ("54", False, "void", ["X2", "X1", "As"], [0, 1]),
    # Research: the weakest is value 1, the ace value N.
    ({"ranks": 5}, True, "void", [5, 1], [1]),
    ({"ranks": 5}, True, "void", [2, 1], [0]),
    ({"ranks": 5}, True, "void", [5, 3, 1], None),
    ({"ranks": 5, "suits": 2}, False, "void", [5, 1, 5], [0, 2]),
    # Research with jokers + wba: a joker (N + 1) beats both the weakest and the ace.
    ({"ranks": 5, "jokers": 1}, True, "void", ["X1", 1], [0]),
    ({"ranks": 5, "jokers": 1}, True, "void", ["X1", 5], [0]),
    ({"ranks": 5, "jokers": 1}, True, "void", [5, "X1", 1], [1]),
    ({"ranks": 5, "jokers": 2}, True, "void", [1, "X1", 5, "X2"], [1, 3]),
    # ... and the weakest still beats the ace when no joker is out.
    ({"ranks": 5, "jokers": 1}, True, "void", [5, 1], [1]),
    # Research N = 1 with wba does nothing: equal cards tie.
    ({"ranks": 1, "suits": 3}, True, "void", [1, 1, 1], [0, 1, 2]),
    ({"ranks": 1, "suits": 2, "jokers": 1}, True, "void", [1, "X1"], [1]),
    # N = 2: 1 beats 2; no middle card, so no cycle is possible.
    ({"ranks": 2, "suits": 2}, True, "void", [2, 1, 2], [1]),
]


def _id(case: tuple) -> str:
    deck, wba, rule, cards, _ = case
    name = deck if isinstance(deck, str) else ",".join(f"{k}={v}" for k, v in deck.items())
    return f"{name}-{'wba' if wba else 'plain'}-{rule}-{'_'.join(map(str, cards))}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_top(case: tuple) -> None:
    deck_spec, wba, rule, names, expected = case
    deck = Deck.from_json(deck_spec)
    rules = Rules.from_options({"weakest_beats_ace": wba, "cycle_rule": rule}, deck=deck)
    cards = deck.parse_cards(names)
    assert Judge(rules).top(cards) == expected


def test_cycle_needs_three_contenders() -> None:
    # §1: a cycle is only possible with three or more contenders: any pair has an unbeaten card.
    deck = Deck.parse("36")
    judge = Judge(Rules(weakest_beats_ace=True))
    for a in range(deck.size):
        for b in range(deck.size):
            if a != b:
                top = judge.top([a, b])
                assert top is not None and len(top) >= 1
