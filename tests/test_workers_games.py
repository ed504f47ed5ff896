"""A game's row as a worker scores it: places (ties share the best place they cover) and
points (1 a game, split among the seats in place 1), forfeits last alone."""

from __future__ import annotations

import pytest

from pyanitsa.results import ClassicResult, TacticalResult, Termination
from pyanitsa.rules import preset
from pyanitsa.workers.games import (
    forfeit_places,
    place_groups,
    places_from_groups,
    points_from_places,
)

# -- places and points -------------------------------------------------------------------------


def tactical(scores, winners):
    outcome = Termination.WIN if len(winners) == 1 else Termination.DRAW
    return TacticalResult(outcome, tuple(winners), tuple(scores), 0, 10, 10)


def places(result, rules, players):
    return places_from_groups(place_groups(result, rules, players), players)


def test_tactical_places_and_points():
    rules = preset("tactical")
    p = places(tactical([10, 20, 6], [1]), rules, 3)
    assert p == (2, 1, 3) and points_from_places(p) == (0.0, 1.0, 0.0)
    p = places(tactical([12, 12, 8, 4], [0, 1]), rules, 4)
    assert p == (1, 1, 3, 4) and points_from_places(p) == (0.5, 0.5, 0.0, 0.0)
    p = places(tactical([10, 20, 6], [2]), rules.replace(misere=True), 3)
    assert p == (2, 3, 1)


def test_classic_places_and_points():
    rules = preset("classic-ru")
    win = ClassicResult(Termination.WIN, 2, 100, 120, (0, 1, 3))
    assert places(win, rules, 4) == (4, 3, 1, 2)
    cycle = ClassicResult(Termination.CYCLE, None, 100, 120, (1,), 50, 10)
    p = places(cycle, rules, 4)
    assert p == (1, 4, 1, 1)
    assert points_from_places(p) == pytest.approx((1 / 3, 0, 1 / 3, 1 / 3))
    nobody = ClassicResult(Termination.DRAW, None, 5, 5, (1, 0))
    assert places(nobody, rules, 2) == (1, 1)
    misere = ClassicResult(Termination.WIN, 1, 9, 9, (1, 3))
    assert places(misere, preset("misere"), 4) == (3, 1, 3, 2)


def test_forfeit_places():
    assert forfeit_places(3, 1) == (1, 3, 1)
    assert points_from_places(forfeit_places(2, 0)) == (0.0, 1.0)
