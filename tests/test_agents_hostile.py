"""Hostile agents (issue 12): nothing an in-process agent returns, raises or does to what it is
handed reaches the game, another game or a stored record.

* lenient answers: only integers forming an exact permutation are orders;
"""

from __future__ import annotations

import numpy as np
import pytest

from pyanitsa.agents import AgentFailure, BaseAgent, check_order, play_game
from pyanitsa.errors import IllegalActionError
from pyanitsa.rules import preset

TACTICAL = preset("tactical")


class Answers(BaseAgent):
    """Returns ``answer(view)`` as its hand order."""

    def __init__(self, answer) -> None:
        self.answer = answer

    def order_hand(self, view, rng):
        return self.answer(view)


class Descending(BaseAgent):
    def order_hand(self, view, rng):
        return list(reversed(view.hand))


# -- lenient answers (finding 7) ------------------------------------------------------------------

HAND = (0, 5, 9, 30)

LENIENT = {
    "strings": [str(c) for c in HAND],
    "floats": [float(c) for c in HAND],
    "numpy floats": list(np.array(HAND, np.float64)),
    "float array": np.array(HAND, np.float64),
    "fractions": [c + 0.7 for c in HAND],
    "bools": [True, False],
    "numpy bools": np.array([True, False]),
    "a dict": dict.fromkeys(HAND, "x"),
    "a set": set(HAND),
    "a generator": (c for c in HAND),
    "a string": "0 5 9 30",
    "an object array": np.array(HAND, dtype=object),
    "a 2-d array": np.array([HAND]),
    "None": None,
    "a huge int": [10**5000, 5, 9, 30],
}


@pytest.mark.parametrize("name", list(LENIENT))
def test_check_order_accepts_only_integers(name):
    with pytest.raises(IllegalActionError) as info:
        check_order(LENIENT[name], HAND, "hand order", TACTICAL)
    message = str(info.value)
    assert message.startswith("hand order: ") and "\n" not in message and len(message) < 400


@pytest.mark.parametrize("answer", [
    list(HAND), tuple(reversed(HAND)), np.array(HAND), np.array(HAND, np.uint8),
    [np.int64(c) for c in HAND], [np.int8(c) for c in HAND], list(np.array(HAND, np.int32))])
def test_check_order_accepts_python_and_numpy_integers(answer):
    out = check_order(answer, HAND, "hand order", TACTICAL)
    assert sorted(out) == list(HAND) and all(type(c) is int for c in out)


def test_a_lenient_order_is_its_agents_forfeit():
    for name in ("strings", "fractions", "a dict"):
        def lenient(view, name=name):
            return {"strings": [str(c) for c in view.hand],
                    "fractions": [c + 0.7 for c in view.hand],
                    "a dict": dict.fromkeys(view.hand, 1)}[name]
        with pytest.raises(AgentFailure) as info:
            play_game(TACTICAL, [Descending(), Answers(lenient)], seed=3)
        assert info.value.seat == 1 and info.value.kind == "illegal", name
