"""The batch core's option codes come from the ``Literal`` types of ``Rules``: every value of
every option has a kernel branch or is refused by name, never played as another value."""

from __future__ import annotations

import pytest

from pyanitsa.batch import encode, pieces
from pyanitsa.errors import InvalidRulesError
from pyanitsa.rules import OPTION_CHOICES, Rules


def test_every_literal_value_has_a_code_or_is_refused() -> None:
    assert set(pieces.PLAYED) == set(OPTION_CHOICES)
    for option, values in OPTION_CHOICES.items():
        for value in values:
            coded = encode.CODES[option][value] in pieces.PLAYED[option]
            assert coded != ((option, value) in encode.REFUSED), (option, value)


def test_codes_follow_the_literal_order() -> None:
    # the kernels were written against these numbers; the conformance vectors guard the rest
    assert (pieces.TABLE, pieces.HIGH_FIRST, pieces.SHUFFLED) == (0, 4, 7)
    assert (pieces.TAKES_POT, pieces.EX_DRAW) == (0, 4)
    assert encode.params(Rules(cycle_rule="weakest_wins"))[encode.WEAKEST_WINS] == 1


def test_a_value_without_a_kernel_branch_is_an_error(monkeypatch) -> None:
    played = dict(pieces.PLAYED, pickup_order=(pieces.TABLE,))
    monkeypatch.setattr(pieces, "PLAYED", played)
    with pytest.raises(InvalidRulesError, match="^pickup_order: natural is not supported"):
        encode.params(Rules(pickup_order="natural"))
    encode.params(Rules(pickup_order="table"))


def test_agent_pickups_are_refused_by_name() -> None:
    with pytest.raises(InvalidRulesError, match="^pickup_order: agent .*reference engine"):
        encode.params(Rules(pickup_order="agent"))
