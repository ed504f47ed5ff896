"""The batch core against the reference engine: random records over every option, the
conformance vectors, seeded simulations with one and two workers, and enumeration."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from rules_space import random_options, valid_rules

from pyanitsa.batch.api import CAPPED, CYCLE, DRAW, WIN
from pyanitsa.batch.deals import SeededDealer
from pyanitsa.cards import Deck
from pyanitsa.records import Record
from pyanitsa.research.enumeration import enumerate_deals
from pyanitsa.results import Termination
from pyanitsa.rng import derive_seed
from pyanitsa.rules import OPTION_CHOICES, Rules, option_domains

batch = pytest.importorskip("pyanitsa.batch")


CHOICES = OPTION_CHOICES
"""Every value of every option, from the ``Literal`` types of ``Rules``: a value added there is
drawn here (and so played on both engines) the day it exists."""
PICKUP_ORDERS = tuple(o for o in CHOICES["pickup_order"] if o != "agent")
FIXED_ORDERS = tuple(o for o in PICKUP_ORDERS if o != "shuffled")


def random_deck(rnd: random.Random) -> Deck:
    if rnd.random() < 0.3:
        return Deck.standard(rnd.choice(["36", "32", "52", "54"]))
    return Deck.research(rnd.randint(1, 13), rnd.randint(1, 4), rnd.choice([0, 0, 0, 1, 2]))


SHAPE = {
    # caps that games reach, and the common settings more often than a uniform draw would
    "max_rounds": lambda rnd: rnd.choice([1, 5, 40, 150, 400, 1500]),
    "detect_cycles": lambda rnd: rnd.random() < 0.85,
    "misere": lambda rnd: rnd.random() < 0.15,
}
"""How some options are drawn; every other option, a new one included, is drawn uniformly from
``option_domains`` (tests/rules_space.py)."""
REFUSED = {"pickup_order": ("agent",)}
"""The batch core refuses agent pickups (it has no agent to ask)."""


def random_rules(rnd: random.Random, mode: str) -> Rules:
    deck = random_deck(rnd)
    return valid_rules(random_options(rnd, mode, SHAPE, REFUSED), mode, deck)


def random_record(rnd: random.Random) -> Record:
    mode = "classic" if rnd.random() < 0.7 else "tactical"
    rules = random_rules(rnd, mode)
    while rules.deck.size < 2:
        rules = random_rules(rnd, mode)
    players = rnd.randint(2, min(8, rules.deck.size))
    if rnd.random() < 0.6:  # a seeded deal, as `pyanitsa play` makes them
        rules = rules.replace(dealer=rnd.choice(["random", rnd.randrange(players)]))
        return Record.dealt(rules, players, rnd.getrandbits(64))
    # explicit seats: a random subset of the deck, uneven lengths
    cards = list(range(rules.deck.size))
    rnd.shuffle(cards)
    cards = cards[:rnd.randint(players, len(cards))]
    cuts = sorted(rnd.sample(range(1, len(cards)), players - 1))
    seats = tuple(tuple(cards[a:b]) for a, b in zip([0, *cuts], [*cuts, len(cards)],
                                                     strict=True))
    if mode == "tactical":
        return Record(rules, seats)
    seed = rnd.getrandbits(64) if rules.random_play else None
    return Record(rules, seats, dealer=rnd.randrange(players), seed=seed)


def test_random_rules_draw_every_value() -> None:
    """The generator reaches every value of every option of both modes (agent pickups aside:
    the batch core refuses them), so a new option or value is never left out of the parity
    tests."""
    rnd = random.Random(3)
    for mode in ("classic", "tactical"):
        drawn = [random_rules(rnd, mode) for _ in range(400)]
        for option, values in option_domains(mode).items():
            if isinstance(values, range):
                continue
            missed = set(values) - set(REFUSED.get(option, ())) - {getattr(r, option)
                                                                     for r in drawn}
            assert not missed, f"random_rules never draws {mode} {option}: {sorted(missed)}"


def check_parity(records: list[Record]) -> None:
    got = batch.play_records(records)
    for rec, res in zip(records, got, strict=True):
        want = rec.play()
        assert res == want, f"{rec.dumps()}\nbatch: {res.to_json()}\nreference: {want.to_json()}"


def test_random_records_parity() -> None:
    rnd = random.Random(20240601)
    check_parity([random_record(rnd) for _ in range(3000)])


@pytest.mark.slow
def test_random_records_parity_many() -> None:
    rnd = random.Random(99)
    check_parity([random_record(rnd) for _ in range(30000)])


def test_two_player_fast_kernel_parity() -> None:
    """Two players with won cards under the stack: the fast kernel's shape, every other option
    random (cycles, caps and the hand-over to the general engine included)."""
    rnd = random.Random(77)
    records = []
    for _ in range(1500):
        rules = random_rules(rnd, "classic")
        while rules.deck.size < 2:
            rules = random_rules(rnd, "classic")
        rules = rules.replace(pickup_to="bottom", refill="turn_over",
                              dealer=rnd.choice(["random", 0, 1]))
        records.append(Record.dealt(rules, 2, rnd.getrandbits(64)))
    check_parity(records)


def test_cycles_at_and_near_the_cap() -> None:
    """Cycles that close just before, at and after max_rounds (Brent's late detection)."""
    rnd = random.Random(5)
    records = []
    for _ in range(300):
        deck = Deck.research(rnd.randint(2, 5), rnd.randint(1, 3))
        rules = Rules.from_options({"pickup_order": rnd.choice(FIXED_ORDERS),
                                    "max_rounds": rnd.randint(1, 120),
                                    "pickup_to": rnd.choice(CHOICES["pickup_to"])},
                                   deck=deck)
        records.append(Record.dealt(rules, 2, rnd.getrandbits(32)))
    check_parity(records)
    assert any(r.outcome == "cycle" for r in batch.play_records(records))


def test_conformance_vectors(vectors_path) -> None:
    vectors = [json.loads(line) for line in vectors_path.read_text().splitlines() if line.strip()]
    records = [Record.from_json(v["record"]) for v in vectors]
    usable = [(r, v) for r, v in zip(records, vectors, strict=True)
              if not (r.mode == "classic" and r.rules.pickup_order == "agent")]
    got = batch.play_records([r for r, _ in usable])
    for (_, v), res in zip(usable, got, strict=True):
        assert res.to_json() == v["expected"]


def test_agent_pickup_is_refused() -> None:
    from pyanitsa.errors import InvalidRulesError
    rules = Rules.from_options({"pickup_order": "agent"})
    rec = Record(rules, ((0, 1), (2, 3)), dealer=0, decisions=())
    with pytest.raises(InvalidRulesError, match="agent"):
        batch.play_records([rec])


CODES = {Termination.WIN: WIN, Termination.DRAW: DRAW, Termination.CYCLE: CYCLE,
         Termination.CAPPED: CAPPED}
"""The batch core's outcome code of each reference termination (tactical: win or draw)."""


@pytest.mark.parametrize(("spec", "players"), [
    ({"preset": "war-52", "pickup_order": "winner_first"}, 2),
    ({"preset": "war-52", "pickup_order": "shuffled"}, 3),
    ({"preset": "classic-ru", "refill": "shuffle"}, 4),
    ({"preset": "classic-ua", "deal": "equal", "dealer": 1}, 5),
    ({"preset": "tactical"}, 2),
    ({"preset": "tactical-52", "weakest_beats_ace": True}, 5),
])
def test_simulate_matches_reference_and_workers(spec: dict, players: int) -> None:
    rules = Rules.from_options(spec)
    one = batch.simulate(rules, players, 600, seed=11, workers=1)
    two = batch.simulate(rules, players, 600, seed=11, workers=2)
    assert one.summary() | {"seconds": 0} == two.summary() | {"seconds": 0}
    for arr in ("rounds", "showdowns", "outcome", "winner"):
        assert np.array_equal(getattr(one, arr), getattr(two, arr))
    for i in range(0, 600, 37):
        want = Record.dealt(rules, players, derive_seed(11, i)).play()
        assert want.rounds == one.rounds[i] and want.showdowns == one.showdowns[i]
        if rules.mode == "classic":
            winner = want.winner if want.winner is not None else -1
        else:
            winner = want.winners[0] if len(want.winners) == 1 else -1
        assert winner == one.winner[i]
        assert CODES[want.outcome] == one.outcome[i]


def test_tactical_scores_matches_reference() -> None:
    rules = Rules.default("tactical").replace(weakest_beats_ace=True)
    rnd = np.random.default_rng(3)
    hands = np.stack([rnd.permutation(36).reshape(3, 12) for _ in range(500)])
    out = batch.tactical_scores(rules, hands)
    for g in range(0, 500, 7):
        want = Record(rules, tuple(tuple(int(c) for c in h) for h in hands[g])).play()
        assert tuple(out.scores[g]) == want.scores
        assert tuple(np.flatnonzero(out.winners[g])) == want.winners
        assert out.rounds[g] == want.rounds and out.removed[g] == want.removed


NATURAL_DISCARD = {"pickup_order": "natural", "dispute_exhausted": "discard"}


@pytest.mark.parametrize(("deck", "options"), [
    ("ranks=3,suits=4", NATURAL_DISCARD),
    ("ranks=4,suits=2", {}),
    ("ranks=4,suits=2", {"preset": "war-52", "pickup_order": "loser_first"}),
    ("ranks=5,suits=1", {"pickup_to": "won_pile"}),
    ("ranks=3,suits=3", NATURAL_DISCARD),
    ("ranks=3,suits=3", {"preset": "classic-ru", "max_rounds": 40}),
    ("ranks=2,suits=2,jokers=1", {"weakest_beats_ace": True}),
])
def test_enumerate_matches_reference(deck: str, options: dict) -> None:
    from pyanitsa.research.enumeration_batch import enumerate_batch
    rules = Rules.from_options(options, deck=deck)
    want = enumerate_deals(rules).to_json()
    got = enumerate_batch(rules, workers=2, chunk=97).to_json()
    assert got == want


# -- games continued from positions (the rollouts of search agents) ------------------------------


def reference_continue(rules: Rules, pos, horizon: int | None):
    """The reference engine's game from ``pos``, with the horizon as a lower cap."""
    from pyanitsa.classic import ClassicGame
    from pyanitsa.results import Termination

    stop = rules.max_rounds if horizon is None else min(rules.max_rounds, pos.rounds + horizon)
    game = ClassicGame.from_position(rules.replace(max_rounds=max(stop, 1)), pos)
    result = game.play() if stop > 0 else None
    if stop == 0 or (result.outcome is Termination.CAPPED and result.rounds < rules.max_rounds):
        result = None
    return result, game.rounds, [game.count(s) for s in range(len(pos.stacks))]


def random_position(rnd: random.Random):
    """A classic game of random rules played a random number of rounds on the reference
    engine (piles, eliminated seats, generator states and counters included)."""
    while True:
        rec = random_record(rnd)
        if rec.mode == "classic":
            break
    game = rec.game()
    for _ in range(rnd.choice([0, 1, 3, 10, 40, 200])):
        if not game.play_round():
            break
    return rec.rules, game.position()


def test_positions_parity() -> None:
    check_positions(random.Random(4242), 2500)


@pytest.mark.slow
def test_positions_parity_many() -> None:
    check_positions(random.Random(777), 25000)


def check_positions(rnd: random.Random, count: int) -> None:
    cases = [(*random_position(rnd), rnd.choice([None, 0, 1, 2, 7, 30, 60, 400]))
             for _ in range(count)]
    kinds = set()
    for rules, pos, horizon in cases:
        got = batch.play_positions(rules, [pos], horizon=horizon)
        want, rounds, counts = reference_continue(rules, pos, horizon)
        res = got.result(0)
        ctx = f"{rules.to_options()} {pos} horizon={horizon}"
        assert res == want, f"{ctx}\nbatch: {res}\nreference: {want}"
        assert got.rounds[0] == rounds, ctx
        assert list(got.counts[0][:len(counts)]) == counts, ctx
        kinds.add("unfinished" if res is None else res.outcome.value)
    assert kinds == {"win", "draw", "cycle", "capped", "unfinished"}, kinds


def test_positions_in_one_call_match_one_by_one() -> None:
    rnd = random.Random(8)
    rules = Rules.from_options({"preset": "classic-ru", "pickup_to": "won_pile"})
    positions = []
    for i in range(200):
        game = Record.dealt(rules, 2 + i % 5, rnd.getrandbits(64)).game()
        for _ in range(i % 50):
            game.play_round()
        positions.append(game.position())
    together = batch.play_positions(rules, positions, horizon=80)
    for i, pos in enumerate(positions):
        alone = batch.play_positions(rules, [pos], horizon=80)
        assert together.result(i) == alone.result(0)
        assert together.outcome[i] == alone.outcome[0]
        assert list(together.counts[i][:pos.players]) == list(alone.counts[0][:pos.players])


def test_position_from_a_deal_is_the_record() -> None:
    rnd = random.Random(21)
    for _ in range(200):
        rec = random_record(rnd)
        if rec.mode != "classic":
            continue
        got = batch.play_positions(rec.rules, [rec.game().position()])
        assert got.result(0) == rec.play()


@pytest.mark.parametrize(("change", "message"), [
    ({"leader": 5}, "leader: seat 5"),
    ({"stacks": ((0, 1), (1, 2))}, "held twice"),
    ({"stacks": ((0, 99), (2,))}, "card 99"),
    ({"piles": ((),)}, "piles: 1 piles for 2 stacks"),
    ({"eliminated": (0,)}, "eliminated: seat 0"),
    ({"rounds": -1}, "rounds"),
])
def test_impossible_positions_are_named(change: dict, message: str) -> None:
    import dataclasses

    from pyanitsa.classic import ClassicGame, ClassicPosition
    from pyanitsa.errors import InvalidPositionError

    rules = Rules.default()
    pos = dataclasses.replace(ClassicPosition(((0, 1), (2, 3)), ((), ()), 0), **change)
    with pytest.raises(InvalidPositionError, match=message):
        batch.play_positions(rules, [pos])
    with pytest.raises(InvalidPositionError, match=message):
        ClassicGame.from_position(rules, pos)


# -- the compiled seeded deal: SeededDealer(rules, players)(seed) is Record.dealt(rules, players,
# seed), the cards, the dealer and the generator state after the deal
@pytest.mark.parametrize("mode", ["classic", "tactical"])
def test_compiled_deal_is_the_core_deal(mode: str) -> None:
    rnd = random.Random(15)
    checked = 0
    while checked < 3000:
        rules = random_rules(rnd, mode)
        if rules.deck.size < 2:
            continue
        players = rnd.randint(2, min(8, rules.deck.size))
        rules = rules.replace(dealer=rnd.choice(["random", rnd.randrange(players)]))
        dealer = SeededDealer(rules, players)
        for _ in range(30):
            seed = rnd.choice([rnd.getrandbits(64), rnd.getrandbits(8), (1 << 64) - 1])
            assert dealer(seed) == Record.dealt(rules, players, seed), (rules, players, seed)
            checked += 1


def test_deal_hands_is_the_core_deal_sorted_and_counted() -> None:
    """``deal_hands`` (Tactical-v0's reset): each seat's cards as ``Record.dealt`` deals them,
    the same sorted weakest rank first then by card (as a view sorts its hand), and the cards
    of each rank."""
    from pyanitsa.batch.deals import deal_hands
    from pyanitsa.ranks import rank_table

    rnd = random.Random(16)
    checked = 0
    while checked < 200:
        rules = random_rules(rnd, "tactical")
        if rules.deck.size < 2:
            continue
        checked += 1
        players = rnd.randint(2, min(8, rules.deck.size))
        rules = rules.replace(dealer=rnd.choice(["random", rnd.randrange(players)]))
        size, rank_of = rules.deck.size, rank_table(rules).rank_of
        n, ranks = size // players, max(rank_of) + 1
        keys = np.array([rank_of[c] * size + c for c in range(size)], np.int64)
        cards, by_view = np.zeros((2, players, n), np.int64)
        counts = np.zeros((players, ranks), np.int64)
        dealer = -1 if rules.dealer == "random" else rules.dealer
        for _ in range(10):
            seed = rnd.getrandbits(64)
            deal_hands(np.uint64(seed), np.int64(players), np.int64(size), np.int64(dealer),
                       np.zeros(size, np.int64), keys, np.zeros((players, n), np.int64),
                       np.zeros(players, np.int64), cards, by_view, counts)
            seats = Record.dealt(rules, players, seed).seats
            assert cards.tolist() == [list(s) for s in seats], (rules, players, seed)
            assert by_view.tolist() == [sorted(s, key=lambda c: (rank_of[c], c)) for s in seats]
            assert counts.tolist() == [[sum(rank_of[c] == r for c in s) for r in range(ranks)]
                                       for s in seats]


def test_compiled_deal_keeps_the_state_for_random_play() -> None:
    rules = Rules.from_options({"pickup_order": "shuffled"}, mode="classic")
    record = SeededDealer(rules, 3)(2026)
    assert record.seed is not None and record == Record.dealt(rules, 3, 2026)
