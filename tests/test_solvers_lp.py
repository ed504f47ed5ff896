"""The solvers' zero-sum LP on matrix games with known solutions (solvers/lp.py): the value and
both optimal mixes, and the union of the optimal supports that the meta-game reads."""

from __future__ import annotations

import numpy as np
import pytest

from pyanitsa.solvers.lp import optimal_support, solve_lp

RPS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)


def test_rock_paper_scissors_is_uniform_with_value_zero():
    v, x, y = solve_lp(RPS)
    assert v == pytest.approx(0.0, abs=1e-9)
    assert x == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert y == pytest.approx([1 / 3] * 3, abs=1e-9)


def test_matching_pennies_has_value_zero_and_even_mixes():
    v, x, y = solve_lp(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    assert v == pytest.approx(0.0, abs=1e-9)
    assert x == pytest.approx([0.5, 0.5], abs=1e-9)
    assert y == pytest.approx([0.5, 0.5], abs=1e-9)


def test_a_two_by_two_with_a_known_mixed_solution():
    # [[3, -1], [-2, 1]]: rows indifferent at y = (2/7, 5/7), columns at x = (3/7, 4/7),
    # value (3 * 1 - (-1) * (-2)) / (3 + 1 + 2 + 1) = 1/7
    v, x, y = solve_lp(np.array([[3.0, -1.0], [-2.0, 1.0]]))
    assert v == pytest.approx(1 / 7, abs=1e-9)
    assert x == pytest.approx([3 / 7, 4 / 7], abs=1e-9)
    assert y == pytest.approx([2 / 7, 5 / 7], abs=1e-9)


def test_a_saddle_point_is_pure():
    v, x, y = solve_lp(np.array([[4.0, 2.0, 5.0], [1.0, 0.0, 3.0]]))
    assert v == pytest.approx(2.0)
    assert x == pytest.approx([1.0, 0.0], abs=1e-9)
    assert y == pytest.approx([0.0, 1.0, 0.0], abs=1e-9)


def test_optimal_support_is_the_union_over_every_optimal_mix():
    # rock twice: optimal mixes split its third between the copies any way they like, so
    # both are in the union; the last row, rock weakened by 1/2, is strictly dominated
    pay = RPS[[0, 0, 1, 2, 0]]
    pay[4] -= 0.5
    v = solve_lp(pay)[0]
    assert v == pytest.approx(0.0, abs=1e-9)
    found = optimal_support(pay, v)
    assert found is not None
    on, x = found
    assert on.tolist() == [True, True, True, True, False]
    assert x[:2].sum() == pytest.approx(1 / 3)
    assert x[2:4] == pytest.approx([1 / 3, 1 / 3]) and x[4] == 0.0
    assert (x @ pay).min() >= v - 1e-9  # the mix returned is optimal itself


def test_optimal_support_of_a_symmetric_game_and_an_unreachable_value():
    on, x = optimal_support(-RPS.T, 0.0)
    assert on.all() and x == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert optimal_support(RPS, 0.5) is None  # no mix guarantees more than the value
