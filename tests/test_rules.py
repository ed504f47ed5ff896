"""The rules configuration (RULES.md §1-§3 options, §6 presets) and its validation."""

from __future__ import annotations

import dataclasses

import pytest

from pyanitsa import Deck, InvalidRulesError, Rules, preset

# RULES.md's defaults, written out here on purpose (not imported from pyanitsa).
DEFAULTS = {
    "weakest_beats_ace": False,
    "cycle_rule": "void",
    "misere": False,
    "dealer": "random",
    "deal": "all",
    "dispute": "one_up",
    "stakes": 1,
    "dispute_exhausted": "takes_pot",
    "pickup_to": "bottom",
    "refill": "turn_over",
    "pickup_order": "table",
    "new_tour_on_elimination": False,
    "detect_cycles": True,
    "max_rounds": 10000,
}

_RU = {"pickup_to": "won_pile", "dispute": "one_up", "dispute_exhausted": "takes_pot"}
# RULES.md §6: preset -> (mode, deck, what it fixes).
PRESET_TABLE = {
    "classic-ru": ("classic", "36", _RU),
    "classic-ua": ("classic", "36", {"pickup_to": "bottom", "pickup_order": "table",
                                     "dispute_exhausted": "earliest_wins",
                                     "new_tour_on_elimination": True}),
    "classic-zaklad": ("classic", "36", {**_RU, "dispute": "down_up"}),
    "weak-ace": ("classic", "36", {**_RU, "weakest_beats_ace": True}),
    "misere": ("classic", "36", {**_RU, "misere": True}),
    "war-52": ("classic", "52", {"pickup_to": "bottom", "dispute": "down_up",
                                 "dispute_exhausted": "drops_out"}),
    "tactical": ("tactical", "36", {}),
    "tactical-52": ("tactical", "52", {}),
}


def test_classic_defaults() -> None:
    rules = Rules.from_options({})
    assert rules.mode == "classic"
    assert rules.deck == Deck.standard("36")
    for key, value in DEFAULTS.items():
        assert getattr(rules, key) == value, key
    assert Rules() == rules == Rules.default("classic")
    assert rules.to_options() == {}


def test_tactical_defaults() -> None:
    rules = Rules.from_options({}, mode="tactical")
    assert rules.mode == "tactical"
    assert rules.deal == "equal"  # §3.1: always equal
    for key, value in DEFAULTS.items():
        if key != "deal":
            assert getattr(rules, key) == value, key
    assert rules == Rules.default("tactical")


@pytest.mark.parametrize("name", sorted(PRESET_TABLE))
def test_preset_loads(name: str) -> None:
    mode, deck, fixed = PRESET_TABLE[name]
    for rules in (preset(name), Rules.from_options({"preset": name})):
        assert rules.mode == mode
        assert rules.deck == Deck.standard(deck)
        for key, value in DEFAULTS.items():
            want = fixed.get(key, "equal" if key == "deal" and mode == "tactical" else value)
            assert getattr(rules, key) == want, (name, key)


def test_preset_overrides_and_deck() -> None:
    # §6: options given with a preset override its options; an explicit deck overrides its deck.
    rules = Rules.from_options({"preset": "classic-ru", "pickup_order": "winner_first"},
                               deck="52")
    assert rules.pickup_to == "won_pile"
    assert rules.pickup_order == "winner_first"
    assert rules.deck == Deck.standard("52")
    rules = preset("classic-zaklad", stakes=3)
    assert (rules.dispute, rules.stakes) == ("down_up", 3)
    rules = preset("war-52", dispute="one_up")
    assert rules.dispute == "one_up"
    assert rules.deck == Deck.standard("52")
    rules = Rules.from_options({"preset": "tactical-52"}, mode="tactical",
                               deck=Deck.parse("ranks=4,suits=2"))
    assert rules.deck.size == 8


@pytest.mark.parametrize(("options", "mode", "key"), [
    ({"foo": 1}, None, "foo"),
    ({"pickup_order": "sideways"}, None, "pickup_order"),
    ({"cycle_rule": "spin"}, None, "cycle_rule"),
    ({"dispute_exhausted": "cry"}, None, "dispute_exhausted"),
    ({"misere": "yes"}, None, "misere"),
    ({"max_rounds": 0}, None, "max_rounds"),
    ({"dealer": 8}, None, "dealer"),
    ({"dealer": "left"}, None, "dealer"),
    ({"stakes": 2}, None, "stakes"),                       # stakes without down_up
    ({"stakes": 1}, None, "stakes"),                       # even the default value
    ({"preset": "classic-ru", "stakes": 2}, None, "stakes"),
    ({"dispute": "down_up", "stakes": 4}, None, "stakes"),
    ({"dispute": "down_up", "stakes": 0}, None, "stakes"),
    ({"pickup_to": "won_pile"}, "tactical", "pickup_to"),   # a classic option in tactical
    ({"max_rounds": 50}, "tactical", "max_rounds"),
    ({"dispute": "down_up"}, "tactical", "dispute"),
    ({"deal": "all"}, "tactical", "deal"),
    ({"preset": "tactical"}, "classic", "preset"),          # tactical preset, classic record
    ({"preset": "classic-ru"}, "tactical", "preset"),
    ({"preset": "no-such-preset"}, None, "preset"),
    ({"mode": "poker"}, None, "mode"),
])
def test_invalid_options(options: dict, mode: str | None, key: str) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules.from_options(options, mode=mode)
    assert key in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bad_deck_is_a_rules_error() -> None:
    with pytest.raises(InvalidRulesError, match="deck"):
        Rules.from_options({}, deck="37")


def test_tactical_accepts_shared_options() -> None:
    rules = Rules.from_options({"weakest_beats_ace": True, "cycle_rule": "weakest_wins",
                                "misere": True, "deal": "equal"}, mode="tactical")
    assert rules.weakest_beats_ace and rules.misere and rules.cycle_rule == "weakest_wins"


@pytest.mark.parametrize(("rules", "players", "key"), [
    (Rules(), 9, "players"),
    (Rules(), 1, "players"),
    (Rules(), 0, "players"),
    (Rules.from_options({}, deck="ranks=1,suits=2"), 3, "deck"),
    (Rules(dealer=5), 3, "dealer"),
])
def test_check_players_errors(rules: Rules, players: int, key: str) -> None:
    with pytest.raises(InvalidRulesError) as info:
        rules.check_players(players)
    assert key in str(info.value)


@pytest.mark.parametrize(("rules", "players"), [
    (Rules(), 2), (Rules(), 8), (Rules.from_options({}, deck="ranks=1,suits=2"), 2),
    (Rules(dealer=2), 3),
])
def test_check_players_ok(rules: Rules, players: int) -> None:
    rules.check_players(players)  # no error


def test_replace_validates() -> None:
    rules = Rules().replace(dispute="down_up", stakes=3)
    assert rules.stakes == 3
    with pytest.raises(InvalidRulesError, match="bogus"):
        Rules().replace(bogus=1)
    with pytest.raises(InvalidRulesError, match="stakes"):
        Rules().replace(stakes=2)


ROUND_TRIP = [
    Rules(),
    Rules.default("tactical"),
    preset("classic-ru"),
    preset("classic-ua"),
    preset("classic-zaklad", stakes=2),
    preset("weak-ace", cycle_rule="weakest_wins"),
    preset("misere"),
    preset("war-52"),
    preset("tactical", misere=True, weakest_beats_ace=True),
    preset("tactical-52"),
    Rules(dealer=3, deal="equal", pickup_order="natural", max_rounds=77, detect_cycles=False,
          pickup_to="won_pile", refill="shuffle", dispute="down_up", stakes=3,
          dispute_exhausted="draw", new_tour_on_elimination=True),
]


@pytest.mark.parametrize("rules", ROUND_TRIP, ids=range(len(ROUND_TRIP)))
def test_to_options_round_trip(rules: Rules) -> None:
    options = rules.to_options()
    assert "mode" not in options and "deck" not in options
    again = Rules.from_options(options, mode=rules.mode, deck=rules.deck)
    assert again == rules


def test_option_domains_cover_every_option() -> None:
    """Every option has a domain the test generators draw from (tests/rules_space.py); a
    tactical game's leaves out the classic-only options, and a range's ends are the limits
    ``Rules`` itself enforces."""
    from pyanitsa.rules import CLASSIC_ONLY, option_domains

    fields = {f.name for f in dataclasses.fields(Rules)} - {"mode", "deck", "dealer"}
    classic, tactical = option_domains("classic"), option_domains("tactical")
    assert set(classic) == fields
    assert set(tactical) == fields - CLASSIC_ONLY
    base = Rules.default("classic").replace(dispute="down_up")
    for name, domain in classic.items():
        if isinstance(domain, range):
            for ok in (domain.start, domain.stop - 1):
                assert getattr(base.replace(**{name: ok}), name) == ok
            for bad in (domain.start - 1, domain.stop):
                with pytest.raises(InvalidRulesError, match=f"^{name}: "):
                    base.replace(**{name: bad})
        else:  # each value is taken, or refused alone as a combination naming the option
            for v in domain:
                try:
                    assert getattr(Rules.from_options({name: v}), name) == v
                except InvalidRulesError as exc:
                    assert str(exc).startswith(f"{name}: {v} needs "), exc
