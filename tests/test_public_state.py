"""Agents and envs read a seat's view of a classic game (``ClassicGame.view``), never the
engine's internals (``_unknown``, ``_face_up`` indexed by strength, ``judge``, or any other
underscored field)."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path

import pytest

from pyanitsa.classic import ClassicGame, PickupRequest
from pyanitsa.dealing import deal
from pyanitsa.errors import IllegalActionError, InvalidRulesError
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules

REPO_ROOT = Path(__file__).resolve().parents[1]
INTERNALS = {"unknown", "seen", "judge"}
"""Names the engine's internals had when they were public: still read nowhere outside it."""


def test_agents_and_envs_read_no_engine_internals() -> None:
    found = []
    for folder in ("agents", "envs", "tournaments", "training", "cli"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                # a game's fields (game._face_up, request.game.judge), not a view's public
                # ``seen`` or a solver's own ``self.seen``
                if (isinstance(node, ast.Attribute)
                        and (node.attr in INTERNALS or node.attr.startswith("_"))
                        and "game" in ast.unparse(node.value)):
                    found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: .{node.attr}")
    assert not found, "engine internals read outside the core:\n" + "\n".join(found)


def test_classic_view_is_what_the_seat_knows() -> None:
    rules = Rules.from_options({"preset": "classic-ru"}, mode="classic")
    game = ClassicGame(rules, deal(rules, 3, Rng(5)).seats, rng=Rng(6), log=True)
    table = rank_table(rules)
    for _ in range(40):
        if not game.play_round():
            break
    # every card turned face up so far, counted by rank, from the public log of showdowns
    expected = [0] * table.num_ranks
    for event in game.events:
        for showdown in event.showdowns:
            for card in showdown.cards:
                expected[table.rank_of[card]] += 1
    for seat in range(3):
        view = game.view(seat)
        stack = list(game.stacks[seat])
        # the tail of the stack is the seat's own pickups, in the order it put them under
        assert view.known_tail == tuple(stack[len(stack) - len(view.known_tail):])
        assert view.stack_sizes == tuple(len(s) for s in game.stacks)
        assert view.pile_sizes == tuple(len(p) for p in game.piles)
        assert view.my_pile == tuple(game.piles[seat])
        assert view.rounds == game.rounds and view.players == 3 and view.seat == seat
        assert view.seen == tuple(expected) and sum(view.seen) > 0
    assert view.rules == rules and view.rules is not game.rules  # the seat's own copy


def _random_pickup(seed: int):
    rnd = random.Random(seed)

    def order(cards):
        cards = list(cards)
        rnd.shuffle(cards)
        return cards

    return order


@pytest.mark.parametrize(("options", "players"), [
    ({"preset": "classic-ru"}, 2), ({"preset": "war-52", "refill": "shuffle", "pickup_to": "won_pile"}, 3),
    ({"preset": "classic-ru", "pickup_to": "won_pile", "dispute": "down_up"}, 4)])
def test_a_round_waiting_for_its_pickup_is_the_same_game(options: dict, players: int) -> None:
    """begin_round/finish_round (the game waits mid-round) plays the game play_round plays with
    the same orders through the callback: the same log, decisions and result, and the request
    carries the taker's view of the game as it stands, not the game."""
    rules = Rules.from_options({**options, "pickup_order": "agent", "max_rounds": 3000},
                               mode="classic")
    dealt = deal(rules, players, Rng(9))
    views = []

    def callback(request: PickupRequest) -> list:
        assert not hasattr(request, "game")
        views.append(request.view)
        return by_callback_order(request.cards)

    by_callback_order = _random_pickup(3)
    ref = ClassicGame(rules, dealt.seats, dealer=dealt.dealer, rng=Rng(4), pickup=callback,
                      log=True)
    ref.play()
    order = _random_pickup(3)
    game = ClassicGame(rules, dealt.seats, dealer=dealt.dealer, rng=Rng(4), log=True)
    asked = 0
    while game.begin_round():
        request = game.pending
        if request is None:
            continue
        assert request.view == game.view(request.seat) == views[asked]
        assert request.view.taker == request.seat
        assert request.view.table_size == len(request.cards)
        with pytest.raises(IllegalActionError, match="waits for its pickup order"):
            game.begin_round()
        with pytest.raises(IllegalActionError, match="mid-round"):
            game.position()
        game.finish_round(order(request.cards))
        asked += 1
        assert game.pending is None and game.view(0).taker is None
    assert asked == len(views) > 10
    assert game.result == ref.result and game.decisions == ref.decisions
    assert game.events == ref.events


def test_finish_round_takes_only_the_table_and_only_when_asked() -> None:
    rules = Rules.from_options({"preset": "classic-ru", "pickup_order": "agent"},
                               mode="classic")
    game = ClassicGame(rules, deal(rules, 2, Rng(1)).seats)
    with pytest.raises(IllegalActionError, match="no round waits"):
        game.finish_round([])
    while game.begin_round() and game.pending is None:
        pass
    request = game.pending
    assert request is not None
    with pytest.raises(IllegalActionError, match="not a permutation of the table"):
        game.finish_round(request.cards[1:])
    game.finish_round(request.cards[::-1])
    assert game.decisions == [request.cards[::-1]]
    # a view is the round's as it waited: once the round is over there is none to build
    with pytest.raises(IllegalActionError, match="round of this pickup request is over"):
        _ = request.view
    with pytest.raises(InvalidRulesError, match="pickup_order: agent needs a pickup agent"):
        game.play()


def test_a_view_is_immutable_and_names_only_real_seats() -> None:
    rules = Rules.from_options({"preset": "classic-ru"}, mode="classic")
    game = ClassicGame(rules, deal(rules, 3, Rng(2)).seats)
    view = game.view(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.rounds = 5  # type: ignore[misc]
    assert view.counts == tuple(game.count(s) for s in range(3)) and sum(view.counts) == 36
    assert view.leader == game.leader and view.eliminated == () and view.taker is None
    with pytest.raises(IllegalActionError, match="seat: 3 does not exist"):
        game.view(3)


def test_a_copy_of_a_waiting_round_goes_on_by_itself() -> None:
    rules = Rules.from_options({"preset": "classic-ru", "pickup_order": "agent"},
                               mode="classic")
    game = ClassicGame(rules, deal(rules, 2, Rng(4)).seats)
    while game.begin_round() and game.pending is None:
        pass
    twin = game.copy()
    assert twin.pending is not None and twin.pending.view == game.pending.view
    twin.finish_round(twin.pending.cards)
    assert game.pending is not None and game.pending.view.taker == game.pending.seat
    game.finish_round(game.pending.cards)
    assert twin.position() == game.position()
