"""Decks, notation and rank order (RULES.md §1)."""

from __future__ import annotations

import pytest

from pyanitsa import Deck, InvalidCardError, InvalidDeckError, PyanitsaError
from pyanitsa.cards import strengths

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def _standard_names(low_rank: str, jokers: int = 0) -> list[str]:
    ranks = RANKS[RANKS.index(low_rank):]
    return [r + s for r in ranks for s in SUITS] + [f"X{j + 1}" for j in range(jokers)]


# -- sizes and names ---------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "size", "low_rank", "jokers"), [
    ("36", 36, "6", 0),
    ("32", 32, "7", 0),
    ("52", 52, "2", 0),
    ("54", 54, "2", 2),
])
def test_standard_deck_sizes_and_names(name: str, size: int, low_rank: str, jokers: int) -> None:
    deck = Deck.parse(name)
    assert deck.size == size == len(deck)
    assert not deck.is_research
    assert str(deck) == name
    assert deck.to_json() == name
    expected = _standard_names(low_rank, jokers)
    assert len(expected) == size
    # Canonical order: ranks ascending, suits c d h s within a rank, jokers last.
    assert list(deck.names) == expected
    assert [deck.is_joker(c) for c in range(size)] == [n.startswith("X") for n in expected]


@pytest.mark.parametrize(("spec", "size", "names"), [
    ("ranks=4,suits=2", 8, ["1", "1", "2", "2", "3", "3", "4", "4"]),
    ("ranks=3,suits=1,jokers=2", 5, ["1", "2", "3", "X1", "X2"]),
    ("ranks=1", 1, ["1"]),
    ("ranks=60,suits=8,jokers=4", 484, None),
])
def test_research_deck_sizes_and_names(spec: str, size: int, names: list[str] | None) -> None:
    deck = Deck.parse(spec)
    assert deck.is_research
    assert deck.size == size
    if names is not None:
        assert list(deck.names) == names
    # Research values are 1..N; jokers rank as N + 1.
    assert deck.low == 1
    assert deck.high == deck.ranks
    assert min(deck.values) == 1
    assert max(deck.values) == deck.ranks + (1 if deck.jokers else 0)


def test_deck_parse_examples() -> None:
    assert Deck.parse("36") == Deck.standard("36")
    d = Deck.parse("ranks=4,suits=2")
    assert (d.ranks, d.suits, d.jokers) == (4, 2, 0)
    assert d.to_json() == {"ranks": 4, "suits": 2}
    d = Deck.parse("ranks=3,suits=1,jokers=2")
    assert (d.ranks, d.suits, d.jokers) == (3, 1, 2)
    assert d.to_json() == {"ranks": 3, "suits": 1, "jokers": 2}
    # str() pastes back into parse.
    assert Deck.parse(str(d)) == d


def test_deck_from_json_defaults() -> None:
    # §5: a research deck object may leave out suits (1) and jokers (0).
    d = Deck.from_json({"ranks": 5})
    assert (d.ranks, d.suits, d.jokers) == (5, 1, 0)
    assert Deck.from_json("52") == Deck.standard("52")


# -- deck errors -------------------------------------------------------------------------------

@pytest.mark.parametrize(("spec", "fragment"), [
    ("37", "37"),
    ("ranks=0", "ranks"),
    ("ranks=61,suits=1", "ranks"),
    ("ranks=2,suits=9", "suits"),
    ("suits=9", "suits=9"),
    ("ranks=2,suits=0", "suits"),
    ("ranks=4,jokers=5", "jokers"),
    ("jokers=5", "jokers=5"),
    ("ranks=x", "ranks"),
    ("ranks=3,colour=2", "colour"),
])
def test_bad_decks(spec: str, fragment: str) -> None:
    with pytest.raises(InvalidDeckError) as info:
        Deck.parse(spec)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_errors_subclass_value_error() -> None:
    for cls in (InvalidDeckError, InvalidCardError, PyanitsaError):
        assert issubclass(cls, ValueError)


# -- notation round trip -----------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["36", "32", "52", "54"])
def test_standard_card_name_round_trip(spec: str) -> None:
    deck = Deck.parse(spec)
    for card in range(deck.size):
        name = deck.card_name(card)
        assert deck.parse_card(name) == card
        assert deck.card_json(card) == name
    # A whole deck parses back to itself, in order.
    assert deck.parse_cards(deck.names) == list(range(deck.size))
    assert deck.parse_hand(",".join(deck.names)) == list(range(deck.size))


@pytest.mark.parametrize("spec", ["ranks=4,suits=2", "ranks=3,suits=1,jokers=2",
                                  "ranks=6,suits=3,jokers=1"])
def test_research_card_round_trip(spec: str) -> None:
    deck = Deck.parse(spec)
    for card in range(deck.size):
        name = deck.card_name(card)
        # Any copy is as good: the name gives a card of the same value.
        assert deck.values[deck.parse_card(name)] == deck.values[card]
        as_json = deck.card_json(card)
        if deck.is_joker(card):
            assert as_json == name and name.startswith("X")
        else:
            assert as_json == deck.values[card] and isinstance(as_json, int)
            assert deck.parse_card(as_json) == deck.parse_card(name)
    # Naming every card once hands out every card exactly once.
    cards = deck.parse_cards(deck.cards_json(range(deck.size)))
    assert sorted(cards) == list(range(deck.size))


def test_research_hand_gives_distinct_copies() -> None:
    deck = Deck.parse("ranks=4,suits=3")
    cards = deck.parse_cards([4, 4, "4", 1])
    assert len(set(cards)) == 4
    assert [deck.values[c] for c in cards] == [4, 4, 4, 1]
    assert deck.parse_hand("2, 2,3") == deck.parse_cards([2, 2, 3])


def test_card_named_too_often() -> None:
    deck = Deck.parse("ranks=4,suits=2")
    with pytest.raises(InvalidCardError) as info:
        deck.parse_cards([3, 3, 3])
    assert "3" in str(info.value)
    d36 = Deck.parse("36")
    with pytest.raises(InvalidCardError) as info:
        d36.parse_cards(["As", "Kd", "As"])
    assert "As" in str(info.value)
    # Cards already handed out to earlier seats count too.
    used = set(d36.parse_cards(["Qh"]))
    with pytest.raises(InvalidCardError, match="Qh"):
        d36.parse_cards(["Qh"], used=used)


@pytest.mark.parametrize(("spec", "name"), [
    ("36", "2c"),     # no deuces in 36
    ("32", "6s"),     # no sixes in 32
    ("52", "X1"),     # no jokers in 52
    ("54", "X3"),
    ("36", "Zz"),
    ("ranks=4,suits=2", 5),
    ("ranks=4,suits=2", 0),
    ("ranks=4,suits=2", "As"),
])
def test_unknown_card(spec: str, name: str | int) -> None:
    deck = Deck.parse(spec)
    with pytest.raises(InvalidCardError) as info:
        deck.parse_card(name)
    assert str(name) in str(info.value)
    assert isinstance(info.value, ValueError)


# -- rank order --------------------------------------------------------------------------------

def test_jokers_rank_above_ace() -> None:
    deck = Deck.parse("54")
    strength, weakest, ace = strengths(deck, weakest_beats_ace=False)
    x1, x2, ace_s, deuce = (deck.parse_card(n) for n in ("X1", "X2", "As", "2c"))
    assert strength[x1] == strength[x2] > strength[ace_s] > strength[deuce]
    assert weakest == strength[deuce]
    assert ace == strength[ace_s]


def test_research_jokers_rank_n_plus_one() -> None:
    deck = Deck.parse("ranks=5,suits=1,jokers=2")
    strength, weakest, ace = strengths(deck, weakest_beats_ace=True)
    assert strength[deck.parse_card("X1")] == 6
    assert weakest == 1
    assert ace == 5


def test_weakest_beats_ace_54_puts_jokers_lowest() -> None:
    # §1: with weakest_beats_ace in 54 only, the jokers rank below the 2 and are the weakest.
    deck = Deck.parse("54")
    strength, weakest, ace = strengths(deck, weakest_beats_ace=True)
    x1, deuce, ace_s = (deck.parse_card(n) for n in ("X1", "2c", "As"))
    assert strength[x1] < strength[deuce] < strength[ace_s]
    assert weakest == strength[x1] == min(strength)
    assert ace == strength[ace_s]


@pytest.mark.parametrize(("spec", "weakest_name"), [
    ("36", "6c"), ("32", "7c"), ("52", "2c"), ("ranks=7,suits=2", 1),
])
def test_weakest_rank_per_deck(spec: str, weakest_name: str | int) -> None:
    deck = Deck.parse(spec)
    strength, weakest, ace = strengths(deck, weakest_beats_ace=True)
    assert weakest == strength[deck.parse_card(weakest_name)] == min(strength)
    assert ace == max(strength)


def test_the_shared_name_table_is_read_only_and_names_every_card():
    """Decks of one kind share one name table (reading a tournament builds a deck a record):
    no deck, nor a view's copy handed to an agent, can change what another deck parses."""
    a, b = Deck.parse("36"), Deck.parse("36").copy()
    with pytest.raises(TypeError):
        a._by_name["6c"] = (35,)  # type: ignore[index]
    assert b.parse_card("6c") == 0 and a.parse_card("As") == 35
    for deck in (Deck.parse("54"), Deck.parse("ranks=5,suits=3,jokers=2")):
        assert [deck.parse_cards([n])[0] for n in dict.fromkeys(deck.names)] == [
            deck.names.index(n) for n in dict.fromkeys(deck.names)]
        assert all(deck.card_name(c) == deck.names[c] for c in range(deck.size))
