"""Agents and envs read a seat's view of a classic game (``classic_view``), never the engine's
internals (``unknown``, ``seen`` indexed by strength, ``judge``)."""

from __future__ import annotations

import ast
from pathlib import Path

from pyanitsa.classic import ClassicGame
from pyanitsa.dealing import deal
from pyanitsa.protocol import classic_view
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules

REPO_ROOT = Path(__file__).resolve().parents[1]
INTERNALS = {"unknown", "seen", "judge"}


def test_agents_and_envs_read_no_engine_internals() -> None:
    found = []
    for folder in ("agents", "envs", "tournaments", "training", "cli"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                # a game's fields (game.seen, request.game.unknown), not a view's public ``seen``
                # or a solver's own ``self.seen``
                if (isinstance(node, ast.Attribute) and node.attr in INTERNALS
                        and "game" in ast.unparse(node.value)):
                    found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: .{node.attr}")
    assert not found, "engine internals read outside the core:\n" + "\n".join(found)


def test_classic_view_is_what_the_seat_knows() -> None:
    rules = Rules.from_options({"preset": "classic-ru"}, mode="classic")
    game = ClassicGame(rules, deal(rules, 3, Rng(5)).seats, rng=Rng(6))
    table = rank_table(rules)
    for _ in range(40):
        if not game.play_round():
            break
    for seat in range(3):
        view = classic_view(game, seat)
        stack = list(game.stacks[seat])
        # the tail of the stack is the seat's own pickups, in the order it put them under
        assert view.known_tail == tuple(stack[len(stack) - len(view.known_tail):])
        assert view.stack_sizes == tuple(len(s) for s in game.stacks)
        assert view.pile_sizes == tuple(len(p) for p in game.piles)
        assert view.my_pile == tuple(game.piles[seat])
        assert view.rounds == game.rounds and view.players == 3 and view.seat == seat
        # every card turned face up so far, counted by rank (the engine counts by strength)
        expected = [0] * table.num_ranks
        for card, r in enumerate(table.rank_of):
            expected[r] = game.seen[game.judge.strength[card]]
        assert view.seen == tuple(expected) and sum(view.seen) > 0
    assert view.rules == rules and view.rules is not game.rules  # the seat's own copy
