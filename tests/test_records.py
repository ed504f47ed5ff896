"""Game records (RULES.md §5): validation errors, the §5 examples, reading several records."""

from __future__ import annotations

import json

import pytest

from pyanitsa import InvalidRecordError, Record, replay
from pyanitsa.records import read_records

EXAMPLE_CLASSIC = {"mode": "classic", "deck": "36",
                   "rules": {"preset": "classic-ru", "pickup_order": "winner_first"},
                   "dealer": 0, "stacks": [["As", "6d"], ["Kh", "7c"]]}
EXAMPLE_TACTICAL = {"mode": "tactical", "deck": {"ranks": 4, "suits": 2}, "rules": {},
                    "hands": [[4, 3, 2, 1], [1, 2, 3, 4]]}
RESULT_CLASSIC = {"outcome": "win", "winner": 0, "rounds": 4, "showdowns": 4, "eliminated": [1],
                  "cycle_start": None, "cycle_length": None}
RESULT_TACTICAL = {"outcome": "draw", "winners": [0, 1], "scores": [4, 4], "removed": 0,
                   "rounds": 4, "showdowns": 4}

C = {"mode": "classic", "deck": "36", "stacks": [["As", "7c"], ["Kd", "8h"]]}
T = {"mode": "tactical", "deck": {"ranks": 4, "suits": 2}, "hands": [[4, 1], [2, 3]]}


def test_section5_examples() -> None:
    assert Record.from_json(EXAMPLE_CLASSIC).play().to_json() == RESULT_CLASSIC
    assert Record.from_json(EXAMPLE_TACTICAL).play().to_json() == RESULT_TACTICAL
    # The same through the JSON text and replay().
    assert replay(json.dumps(EXAMPLE_CLASSIC)).to_json() == RESULT_CLASSIC
    assert replay(json.dumps(EXAMPLE_TACTICAL)).to_json() == RESULT_TACTICAL


@pytest.mark.parametrize(("data", "fragments"), [
    ("{not json", ["JSON"]),
    ("[1, 2]", ["object"]),
    ({**C, "foo": 1}, ["foo"]),
    ({**C, "stacks": [["Zz"], ["Kd"]]}, ["Zz", "seat 0"]),
    ({**C, "stacks": [["As", "7c"], ["Kd", "As"]]}, ["As", "seat 1"]),
    ({**T, "hands": [[5, 1], [2]]}, ["5", "seat 0"]),
    ({**T, "hands": [[4, 4], [2, 4]]}, ["4", "seat 1"]),
    ({**C, "mode": "poker"}, ["poker"]),
    ({k: v for k, v in C.items() if k != "mode"}, ["mode"]),
    ({**C, "stacks": [[r + "c"] for r in "6789TJQKA"]}, ["9 seats"]),
    ({**C, "stacks": [["As"]]}, ["1 seat;"]),
    ({**C, "stacks": [["As"], []]}, ["seat 1"]),
    ({**C, "stacks": [["As"], ["Kd"], [], ["Qd"]]}, ["seat 2"]),
    ({**C, "hands": [["As"], ["Kd"]]}, ["hands"]),
    ({**T, "stacks": [[1], [2]]}, ["stacks"]),
    ({**T, "dealer": 0}, ["dealer"]),
    ({**T, "rules": {"pickup_to": "won_pile"}}, ["pickup_to"]),
    ({**C, "rules": {"preset": "tactical"}}, ["preset"]),
    ({**C, "rules": {"nonsense": True}}, ["nonsense"]),
    ({**C, "decisions": [["As", "Kd"]]}, ["decisions"]),
    ({**C, "deck": "37"}, ["37"]),
    ({**C, "deck": {"ranks": 4, "colour": 2}}, ["colour"]),
    ({**C, "dealer": 2}, ["dealer"]),
    ({**C, "rules": {"dealer": 5}}, ["dealer"]),
    ({k: v for k, v in C.items() if k != "stacks"}, ["stacks"]),
    ({k: v for k, v in C.items() if k != "deck"}, ["deck"]),
])
def test_record_errors(data: str | dict, fragments: list[str]) -> None:
    with pytest.raises(InvalidRecordError) as info:
        Record.from_json(data)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert isinstance(info.value, ValueError)


def test_shuffled_without_seed_fails_at_play_time() -> None:
    rec = Record.from_json({**C, "rules": {"pickup_order": "shuffled"}})  # parses fine
    with pytest.raises(InvalidRecordError, match="seed"):
        rec.play()
    rec = Record.from_json({**C, "rules": {"pickup_to": "won_pile", "refill": "shuffle"}})
    with pytest.raises(InvalidRecordError, match="seed"):
        rec.play()
    # With a seed it plays.
    rec = Record.from_json({**C, "rules": {"pickup_order": "shuffled"}, "seed": 12345})
    assert rec.play().outcome == "win"


def test_agent_record_needs_decisions() -> None:
    rec = Record.from_json({**C, "rules": {"pickup_order": "agent"}})
    with pytest.raises(InvalidRecordError, match="decisions"):
        rec.play()


def test_agent_decisions_replay_and_bad_decisions() -> None:
    # Round 1: As beats Kd; round 2: 7c beats 6h and seat 1 is out. Two tables collected.
    good = {"mode": "classic", "deck": "36", "rules": {"pickup_order": "agent"}, "dealer": 0,
            "stacks": [["As", "7c"], ["Kd", "6h"]], "decisions": [["Kd", "As"], ["6h", "7c"]]}
    game = Record.from_json(good).game(log=True)
    result = game.play()
    assert result.to_json()["winner"] == 0 and result.rounds == 2
    deck = game.rules.deck
    assert [deck.cards_json(e.pickup) for e in game.events] == good["decisions"]
    # After round 1 seat 0's stack is 7c, then the chosen order Kd, As.
    game = Record.from_json(good).game()
    game.play_round()
    assert deck.cards_json(game.stacks[0]) == ["7c", "Kd", "As"]
    # A decision that is not a permutation of the table.
    bad = {**good, "decisions": [["Kd", "Kd"], ["6h", "7c"]]}
    with pytest.raises(InvalidRecordError, match="decisions"):
        Record.from_json(bad).play()
    # Too few decisions for the tables collected.
    short = {**good, "decisions": [["Kd", "As"]]}
    with pytest.raises(InvalidRecordError, match="decisions"):
        Record.from_json(short).play()
    # A card that is not in the deck at all fails when parsed.
    with pytest.raises(InvalidRecordError, match="Zz"):
        Record.from_json({**good, "decisions": [["Zz", "As"]]})


def test_research_deck_defaults_in_records() -> None:
    # §5: a research deck object may leave out suits (1) and jokers (0).
    rec = Record.from_json({"mode": "tactical", "deck": {"ranks": 4}, "hands": [[4, 1], [2, 3]]})
    assert (rec.deck.suits, rec.deck.jokers) == (1, 0)
    with pytest.raises(InvalidRecordError, match="4"):
        Record.from_json({"mode": "tactical", "deck": {"ranks": 4}, "hands": [[4, 1], [4, 3]]})


def test_record_dealer_resolution() -> None:
    # §5: the record's dealer, else the rules' dealer when it names a seat, else seat 0.
    base = {"mode": "classic", "deck": "36", "stacks": [["As"], ["Kd"], ["Qh"]]}
    assert Record.from_json(base).leader == 0
    assert Record.from_json({**base, "rules": {"dealer": 2}}).leader == 2
    assert Record.from_json({**base, "rules": {"dealer": 2}, "dealer": 1}).leader == 1
    assert Record.from_json({**base, "rules": {"dealer": "random"}}).leader == 0


def test_fewer_cards_than_deck_and_uneven_hands() -> None:
    # §5: records may hold fewer cards than the deck; tactical hands may differ in length.
    rec = Record.from_json({"mode": "tactical", "deck": "36", "hands": [["As", "7c", "8c"],
                                                                         ["Kd"]]})
    result = rec.play()
    # A beats K (2 cards), then seat 0 alone holds 7c 8c and banks them (§3.6).
    assert result.to_json() == {"outcome": "win", "winners": [0], "scores": [4, 0],
                                "removed": 0, "rounds": 1, "showdowns": 1}


def test_to_json_round_trip() -> None:
    for data in (EXAMPLE_CLASSIC, EXAMPLE_TACTICAL):
        rec = Record.from_json(data)
        again = Record.from_json(rec.dumps())
        assert again == rec
        assert again.play() == rec.play()


# -- read_records ------------------------------------------------------------------------------

def test_read_one_pretty_printed_object() -> None:
    text = json.dumps(EXAMPLE_CLASSIC, indent=2)
    assert text.count("\n") > 3
    records = list(read_records(text))
    assert len(records) == 1
    lineno, rec = records[0]
    assert lineno == 1
    assert rec.play().to_json() == RESULT_CLASSIC


def test_read_json_lines() -> None:
    text = "\n".join([json.dumps(EXAMPLE_CLASSIC), "", json.dumps(EXAMPLE_TACTICAL), ""])
    records = list(read_records(text))
    assert [n for n, _ in records] == [1, 3]
    assert [r.play().to_json() for _, r in records] == [RESULT_CLASSIC, RESULT_TACTICAL]


def test_read_json_lines_error_names_line() -> None:
    bad = {**EXAMPLE_CLASSIC, "stacks": [["As", "Zz"], ["Kh"]]}
    text = "\n".join([json.dumps(EXAMPLE_CLASSIC), json.dumps(EXAMPLE_TACTICAL), json.dumps(bad)])
    with pytest.raises(InvalidRecordError) as info:
        list(read_records(text))
    assert "line 3" in str(info.value)
    assert "Zz" in str(info.value)
    text = json.dumps(EXAMPLE_CLASSIC) + "\n{oops\n"
    with pytest.raises(InvalidRecordError, match="line 2"):
        list(read_records(text))


def test_read_records_rejects_empty_and_arrays() -> None:
    with pytest.raises(InvalidRecordError):
        list(read_records("  \n "))
    with pytest.raises(InvalidRecordError):
        list(read_records(json.dumps([EXAMPLE_CLASSIC])))


@pytest.mark.parametrize(("name", "overrides"), [
    ("classic-ru", {}), ("classic-ru", {"refill": "shuffle"}), ("tactical", {}),
    ("war-52", {"pickup_order": "shuffled"})])
def test_deal_from_seed_is_game_seeds_deal_and_record(name: str, overrides: dict) -> None:
    from pyanitsa import Rng, deal, deal_from_seed, preset

    rules = preset(name, **overrides)
    for seed in (0, 1, 2**64 - 1):
        rng = Rng(seed)
        by_hand = deal(rules, 3, rng)
        got = deal_from_seed(rules, 3, seed)
        assert (got.dealer, got.seats, got.set_aside) == \
            (by_hand.dealer, by_hand.seats, by_hand.set_aside)
        assert got.play_seed == (rng.state if rules.random_play else None)
        record = Record.dealt(rules, 3, seed)
        assert record.seats == got.seats and record.seed == got.play_seed
