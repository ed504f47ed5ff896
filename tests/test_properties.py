"""Property tests (hypothesis): invariants of RULES.md §4 and §2/§3 over random rules and deals."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_space import option_strategies, valid_rules

from pyanitsa import ClassicGame, Deck, Record, Rng, Rules, TacticalGame, deal
from pyanitsa.classic import PickupRequest
from pyanitsa.rules import OPTION_CHOICES

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
CHOICES = OPTION_CHOICES
"""Every option's values from the ``Literal`` types of ``Rules``: a new value is drawn here (and
played on every engine) the day it exists."""
FIXED_ORDERS = [o for o in CHOICES["pickup_order"] if o != "agent"]

decks = st.one_of(
    st.sampled_from(["36", "32", "52", "54"]).map(Deck.standard),
    st.builds(Deck.research, ranks=st.integers(1, 8), suits=st.integers(1, 4),
              jokers=st.integers(0, 2)).filter(lambda d: d.size >= 2),
)
seeds = st.integers(0, 2**64 - 1)


@st.composite
def classic_setups(draw, *, pickup_orders=FIXED_ORDERS):
    """Rules with every classic option drawn (tests/rules_space.py: a new option is drawn here
    the day it exists), players, and a seed."""
    deck = draw(decks)
    players = draw(st.integers(2, min(8, deck.size)))
    shape = {"pickup_order": st.sampled_from(pickup_orders),
             "max_rounds": st.one_of(st.just(300), st.integers(1, 300))}
    options = draw(option_strategies("classic", shape))
    options["dealer"] = draw(st.one_of(st.just("random"), st.integers(0, players - 1)))
    return valid_rules(options, "classic", deck), players, draw(seeds)


@st.composite
def tactical_setups(draw):
    deck = draw(decks)
    players = draw(st.integers(2, min(8, deck.size)))
    return valid_rules(draw(option_strategies("tactical")), "tactical", deck), players, draw(seeds)


def seeded_agent(seed: int):
    """A pickup agent that picks a random order from its own seeded generator."""
    rnd = random.Random(seed)

    def agent(request: PickupRequest):
        cards = list(request.cards)
        rnd.shuffle(cards)
        return cards

    return agent


def start_classic(rules: Rules, players: int, seed: int, *, log: bool = False, agent=None):
    rng = Rng(seed)
    d = deal(rules, players, rng)
    game = ClassicGame(rules, d.seats, dealer=d.dealer, rng=rng, pickup=agent, log=log)
    return d, game


def classic_places(game: ClassicGame) -> list[int]:
    cards = [c for s in game.stacks for c in s] + [c for p in game.piles for c in p]
    return cards + list(game.table) + list(game.out_of_game)


def check_deal(rules: Rules, d) -> list[int]:
    dealt = [c for s in d.seats for c in s]
    everything = dealt + list(d.set_aside)
    assert sorted(everything) == list(range(rules.deck.size))
    if rules.deal == "equal":
        assert len({len(s) for s in d.seats}) == 1
        assert len(d.set_aside) == rules.deck.size % len(d.seats)
    else:
        assert not d.set_aside
        assert max(map(len, d.seats)) - min(map(len, d.seats)) <= 1
    return dealt


# -- (a) card conservation ---------------------------------------------------------------------

@SETTINGS
@given(classic_setups())
def test_classic_conservation_every_round(setup) -> None:
    rules, players, seed = setup
    d, game = start_classic(rules, players, seed)
    dealt = Counter(check_deal(rules, d))
    while True:
        places = classic_places(game)
        assert len(places) == len(set(places))  # each card in exactly one place
        assert Counter(places) == dealt
        assert all(game.count(s) > 0 for s in game.alive()) or game.is_over
        for s in range(players):
            if not game.in_game[s]:
                assert game.count(s) == 0
        if not game.play_round():
            break
    assert game.is_over
    # The table holds cards only after a draw ended the game mid-dispute.
    if game.table:
        assert rules.dispute_exhausted == "draw" and game.result.outcome == "draw"
    if game.out_of_game:
        assert rules.dispute_exhausted in ("discard", "drops_out")


@SETTINGS
@given(tactical_setups())
def test_tactical_conservation_every_round(setup) -> None:
    rules, players, seed = setup
    d = deal(rules, players, Rng(seed))
    dealt = check_deal(rules, d)
    assert len(d.set_aside) == rules.deck.size % players  # §3.1 equal deal
    game = TacticalGame(rules, d.seats)
    while True:
        places = [c for s in range(players) for c in game.hands[s][game.next[s]:]]
        places += [c for k in game.kopilki for c in k] + list(game.out_of_game)
        assert len(places) == len(set(places))
        assert Counter(places) == Counter(dealt)
        if not game.play_round():
            break
    res = game.result
    assert sum(res.scores) + res.removed == len(dealt)
    assert res.scores == tuple(len(k) for k in game.kopilki)
    assert all(game.left(s) == 0 for s in range(players))
    assert res.showdowns >= res.rounds


# -- (b) same seed, same game ------------------------------------------------------------------

@SETTINGS
@given(classic_setups())
def test_classic_same_seed_same_game(setup) -> None:
    rules, players, seed = setup
    d1, g1 = start_classic(rules, players, seed, log=True)
    d2, g2 = start_classic(rules, players, seed, log=True)
    assert d1 == d2
    assert g1.play() == g2.play()
    assert g1.events == g2.events


@SETTINGS
@given(tactical_setups())
def test_tactical_same_seed_same_game(setup) -> None:
    rules, players, seed = setup
    games = []
    for _ in range(2):
        d = deal(rules, players, Rng(seed))
        game = TacticalGame(rules, d.seats, log=True)
        game.play()
        games.append((d, game.result, game.events))
    assert games[0] == games[1]


# -- (c) a record of the game replays to the same result ---------------------------------------

@SETTINGS
@given(classic_setups())
def test_classic_record_replays(setup) -> None:
    rules, players, seed = setup
    rng = Rng(seed)
    d = deal(rules, players, rng)
    after_deal = rng.state
    game = ClassicGame(rules, d.seats, dealer=d.dealer, rng=rng)
    expected = game.play()
    rec = Record(rules, d.seats, dealer=d.dealer,
                 seed=after_deal if rules.random_play else None)
    text = json.dumps(rec.to_json())
    again = Record.from_json(text)
    assert again.play() == expected
    assert again.play().to_json() == expected.to_json()


@SETTINGS
@given(tactical_setups())
def test_tactical_record_replays(setup) -> None:
    rules, players, seed = setup
    d = deal(rules, players, Rng(seed))
    expected = TacticalGame(rules, d.seats).play()
    rec = Record(rules, d.seats)
    assert Record.from_json(json.dumps(rec.to_json())).play() == expected


@SETTINGS
@given(classic_setups(pickup_orders=["agent"]), st.integers(0, 2**32))
def test_agent_decisions_replay(setup, agent_seed) -> None:
    rules, players, seed = setup
    d, game = start_classic(rules, players, seed, agent=seeded_agent(agent_seed), log=True)
    rng_after_deal = Rng(seed)
    deal(rules, players, rng_after_deal)
    expected = game.play()
    deck = rules.deck
    decisions = tuple(tuple(deck.card_json(c) for c in order) for order in game.decisions)
    # One decision per collected table, in order (§5).
    assert [e.pickup for e in game.events if e.end == "taken"] == list(game.decisions)
    rec = Record(rules, d.seats, dealer=d.dealer, decisions=decisions,
                 seed=rng_after_deal.state if rules.random_play else None)
    again = Record.from_json(json.dumps(rec.to_json()))
    assert again.play() == expected


# -- (d) counters and results ------------------------------------------------------------------

@SETTINGS
@given(classic_setups())
def test_classic_result_shape(setup) -> None:
    rules, players, seed = setup
    _, game = start_classic(rules, players, seed)
    res = game.play()
    # Every round has at least one showdown (its first), §2.10.
    assert res.showdowns >= res.rounds
    assert res.rounds <= rules.max_rounds
    assert len(res.eliminated) == len(set(res.eliminated))
    assert set(res.eliminated) <= set(range(players))
    assert res.eliminated == tuple(game.eliminated)
    if res.outcome == "win":
        assert res.winner is not None
        if rules.misere:
            # §2.8 misère: the winner is the first out in the last round, listed too.
            assert res.winner in res.eliminated
        else:
            assert res.winner not in res.eliminated
            assert sorted([*res.eliminated, res.winner]) == list(range(players))
    else:
        assert res.winner is None
    if res.outcome == "capped":
        assert res.rounds == rules.max_rounds
    if res.outcome == "cycle":
        assert rules.cycle_detection
        assert res.cycle_length >= 1 and res.cycle_start + res.cycle_length == res.rounds
    else:
        assert res.cycle_start is None and res.cycle_length is None


# -- (e) tactical misère flips the winners -----------------------------------------------------

@SETTINGS
@given(tactical_setups())
def test_tactical_misere_flips_winners(setup) -> None:
    rules, players, seed = setup
    d = deal(rules, players, Rng(seed))
    normal = TacticalGame(rules.replace(misere=False), d.seats).play()
    misere = TacticalGame(rules.replace(misere=True), d.seats).play()
    assert normal.scores == misere.scores
    top, bottom = max(normal.scores), min(normal.scores)
    assert normal.winners == tuple(s for s in range(players) if normal.scores[s] == top)
    assert misere.winners == tuple(s for s in range(players) if misere.scores[s] == bottom)
    for res in (normal, misere):
        assert res.outcome == ("win" if len(res.winners) == 1 else "draw")


# -- (f) copy() is independent -----------------------------------------------------------------

def _snapshot(game: ClassicGame) -> tuple:
    return (game.key(), game.rounds, game.showdowns, tuple(game.eliminated),
            tuple(game.in_game), tuple(game.table), tuple(game.out_of_game),
            None if game.rng is None else game.rng.state, game.result,
            tuple(game.events or ()))


@SETTINGS
@given(classic_setups(), st.integers(0, 40))
def test_classic_copy_is_independent(setup, steps) -> None:
    rules, players, seed = setup
    _, game = start_classic(rules, players, seed, log=True)
    for _ in range(steps):
        if not game.play_round():
            break
    before = _snapshot(game)
    twin = game.copy()
    twin_result = twin.play()
    assert _snapshot(game) == before
    assert game.play() == twin_result
    assert game.events == twin.events


# -- the generator and the deal (§1 Deal, §4) --------------------------------------------------

def test_splitmix64_reference_sequence() -> None:
    # The published SplitMix64 sequence for seed 1234567 (Steele, Lea & Flood; Rosetta Code).
    rng = Rng(1234567)
    assert [rng.next_u64() for _ in range(5)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423,
        4593380528125082431, 16408922859458223821]


@SETTINGS
@given(classic_setups(), st.booleans())
def test_deal_one_card_at_a_time_from_left_of_dealer(setup, equal) -> None:
    # §1 Deal: shuffle, then one card at a time clockwise starting left of the dealer; the first
    # card a seat receives is its top card; ``equal`` sets aside the last D mod P cards.
    rules, players, seed = setup
    rules = rules.replace(deal="equal" if equal else "all")
    d = deal(rules, players, Rng(seed))
    # Rebuild the shuffled deck: dealing walks it in order, seat after seat.
    order = []
    seat_pos = [0] * players
    for i in range(rules.deck.size - len(d.set_aside)):
        seat = (d.dealer + 1 + i) % players
        order.append(d.seats[seat][seat_pos[seat]])
        seat_pos[seat] += 1
    assert seat_pos == [len(s) for s in d.seats]
    shuffled = order + list(d.set_aside)
    # The same generator, drawn as deal() documents: the lot (if random), then the shuffle.
    rng = Rng(seed)
    dealer = rng.randbelow(players) if rules.dealer == "random" else rules.dealer
    assert dealer == d.dealer
    expected = list(range(rules.deck.size))
    rng.shuffle(expected)
    assert shuffled == expected
    if not equal:
        # Earlier seats (from the dealer's left) may get one card more.
        sizes = [len(d.seats[(d.dealer + 1 + i) % players]) for i in range(players)]
        assert sizes == sorted(sizes, reverse=True)
