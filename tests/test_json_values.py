"""One JSON pair per core value: ``Rules``, round events, results. Every value drawn round-trips
through JSON text, and bad input raises the value's error naming the key."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_space import option_strategies, valid_rules

from pyanitsa import Deck, Record, Rules, preset
from pyanitsa.errors import InvalidRulesError
from pyanitsa.events import InvalidEventError, RoundEvent
from pyanitsa.research.enumeration_store import rules_from_key, rules_key
from pyanitsa.results import (
    ClassicResult,
    InvalidResultError,
    TacticalResult,
    Termination,
    result_from_json,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SHIPPED = Path(__file__).resolve().parent.parent / "policies" / "shipped" / "tactical-2p.json"

decks = st.one_of(
    st.sampled_from(["36", "32", "52", "54"]).map(Deck.standard),
    st.builds(Deck.research, ranks=st.integers(1, 8), suits=st.integers(1, 4),
              jokers=st.integers(0, 2)).filter(lambda d: d.size >= 2),
)


@st.composite
def any_rules(draw, modes=("classic", "tactical")):
    """Rules with every option of a mode drawn (tests/rules_space.py), the dealer too."""
    mode = draw(st.sampled_from(modes))
    shape = {"max_rounds": st.integers(1, 300)} if mode == "classic" else {}
    options = draw(option_strategies(mode, shape))
    options["dealer"] = draw(st.one_of(st.just("random"), st.integers(0, 1)))
    return valid_rules(options, mode, draw(decks))


def through_text(obj):
    return json.loads(json.dumps(obj))


# -- Rules ----------------------------------------------------------------------------------------

@SETTINGS
@given(any_rules(), st.booleans())
def test_rules_round_trip_in_both_shapes(rules: Rules, every: bool) -> None:
    got = Rules.from_json(through_text(rules.to_json(every_option=every)))
    assert got == rules and got.to_json() == rules.to_json()


@SETTINGS
@given(any_rules())
def test_rules_shapes(rules: Rules) -> None:
    # the compact shape stored by sidecars and tournament databases: changed options only
    assert rules.to_json() == {"mode": rules.mode, "deck": rules.deck.to_json(),
                               **rules.to_options()}
    # what cmd bots read (docs/bots.md): every option, mode and deck first
    full = rules.to_json(every_option=True)
    assert list(full)[:2] == ["mode", "deck"]
    assert {k: v for k, v in full.items() if k not in ("mode", "deck")} == \
        {k: getattr(rules, k) for k in full if k not in ("mode", "deck")}
    assert set(full) == {f.name for f in dataclasses.fields(Rules)}


def test_cmd_bots_are_told_the_rules_as_before() -> None:
    # docs/bots.md is the contract: every option, in the fields' order, mode and deck first
    wire = ('{"mode": "tactical", "deck": "36", "weakest_beats_ace": false, "cycle_rule": "void", '
            '"misere": false, "dealer": "random", "deal": "equal", "dispute": "one_up", '
            '"stakes": 1, "dispute_exhausted": "takes_pot", "pickup_to": "bottom", '
            '"refill": "turn_over", "pickup_order": "table", "new_tour_on_elimination": false, '
            '"detect_cycles": true, "max_rounds": 10000}')
    assert json.dumps(preset("tactical").to_json(every_option=True)) == wire


def test_shipped_sidecar_rules_still_read() -> None:
    rules = json.loads(SHIPPED.read_text(encoding="utf-8"))["rules"]
    assert Rules.from_json(rules) == preset("tactical")


@SETTINGS
@given(any_rules())
def test_enumeration_store_key_keeps_its_shape(rules: Rules) -> None:
    key = rules_key(rules)
    assert json.loads(key) == {"mode": rules.mode, "deck": rules.deck.to_json(),
                               "options": rules.to_options()}
    assert rules_from_key(key) == rules


def test_enumeration_store_key_of_an_existing_store() -> None:
    # as stores written before Rules.to_json hold it, byte for byte
    old = ('{"deck": {"ranks": 4, "suits": 2}, "mode": "classic", "options": '
           '{"dispute_exhausted": "discard", "pickup_order": "natural"}}')
    rules = Rules.from_options({"pickup_order": "natural", "dispute_exhausted": "discard"},
                               deck="ranks=4,suits=2")
    assert rules_key(rules) == old and rules_from_key(old) == rules


@pytest.mark.parametrize(("obj", "named"), [
    ([], "rules: a JSON object"),
    ({"deck": "36"}, "mode: None"),
    ({"mode": "chess", "deck": "36"}, "mode: 'chess'"),
    ({"mode": "classic"}, "deck: missing"),
    ({"mode": "classic", "deck": "37"}, "deck:"),
    ({"mode": "classic", "deck": "36", "pickup_ordr": "table"}, "'pickup_ordr'"),
    ({"mode": "classic", "deck": "36", "stakes": "2"}, "stakes:"),
    ({"mode": "classic", "deck": "36", "misere": 1}, "misere:"),
    ({"mode": "tactical", "deck": "36", "dispute": "down_up"}, "dispute:"),
    ({"mode": "tactical", "deck": "36", "deal": "all"}, "deal:"),
    ({"mode": "tactical", "deck": "36", "detect_cycles": 1}, "detect_cycles:"),
    ({"mode": "classic", "deck": "36", "preset": "classic-ru"}, "'preset'"),
])
def test_bad_rules_json_names_the_key(obj: object, named: str) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules.from_json(obj)
    assert named in str(info.value)


# -- results and round events --------------------------------------------------------------------

@SETTINGS
@given(any_rules(), st.integers(0, 2**64 - 1))
def test_results_and_events_round_trip(rules: Rules, seed: int) -> None:
    if rules.pickup_order == "agent":
        rules = rules.replace(pickup_order="table")
    result, events = Record.dealt(rules, 2, seed).play_logged()
    assert result_from_json(through_text(result.to_json())) == result
    assert type(result).from_json(through_text(result.to_json())) == result
    for event in events:
        assert RoundEvent.from_json(through_text(event.to_json())) == event


CLASSIC = ClassicResult(Termination.WIN, 1, 12, 14, (0,)).to_json()
TACTICAL = TacticalResult(Termination.DRAW, (0, 1), (10, 10), 16, 18, 18).to_json()


@pytest.mark.parametrize(("obj", "named"), [
    ("win", "a classic result: a JSON object"),
    ({**CLASSIC, "loser": 0}, "unknown key 'loser'"),
    ({k: v for k, v in CLASSIC.items() if k != "rounds"}, "rounds: missing"),
    ({**CLASSIC, "outcome": "won"}, "outcome: 'won'"),
    ({**CLASSIC, "winner": None}, "winner: None"),
    ({**CLASSIC, "rounds": -1}, "rounds: -1"),
    ({**CLASSIC, "showdowns": True}, "showdowns: True"),
    ({**CLASSIC, "eliminated": [0, "1"]}, "eliminated:"),
    ({**CLASSIC, "cycle_length": 0}, "cycle_length: 0"),
    ({**TACTICAL, "outcome": "cycle"}, "outcome: 'cycle'"),
    ({**TACTICAL, "winners": [0]}, "winners: [0]"),
    ({**TACTICAL, "scores": {}}, "scores:"),
])
def test_bad_result_json_names_the_key(obj: object, named: str) -> None:
    with pytest.raises(InvalidResultError) as info:
        result_from_json(obj)
    assert named in str(info.value)


EVENT = Record.dealt(preset("classic-ru"), 2, 7).play_logged()[1][0].to_json()


@pytest.mark.parametrize(("change", "named"), [
    ({"number": 0}, "number: 0"),
    ({"end": "won"}, "end: 'won'"),
    ({"exhausted": "shrug"}, "exhausted: 'shrug'"),
    ({"plays": [{"seat": 0, "card": 1, "face_up": "yes", "step": 0}]},
     "plays: entry 0: face_up: 'yes'"),
    ({"showdowns": [{"step": 0, "seats": [0, 1], "cards": [3], "top": None}]},
     "showdowns: entry 0: cards:"),
    ({"gains": [[0]]}, "gains:"),
    ({"colour": "red"}, "unknown key 'colour'"),
])
def test_bad_event_json_names_the_key(change: dict, named: str) -> None:
    with pytest.raises(InvalidEventError) as info:
        RoundEvent.from_json({**EVENT, **change})
    assert named in str(info.value)
