"""How often games of different deals meet in the same position during an enumeration.

    nice -n 10 .venv/bin/python benchmarks/position_meets.py --deck ranks=4,suits=3
    .venv/bin/python benchmarks/position_meets.py --deck ranks=4,suits=4 --deals 200000

Plays the distinct two-player deals in the enumeration's order (arrangements of the ranks in
lexicographic order, cut in half, the one with the smaller first half standing for a deal and
its seat swap; the first ``--deals`` of them) with the reference engine (natural pickup,
``dispute_exhausted: discard``), remembering every position between rounds and the first game
that stood in it. A game *meets* an earlier one when it reaches a position an earlier game
stood in; from there on a memo of positions would know the rest of the game, so the rounds
after the first meeting are what an unbounded memo could skip. The figure that decides whether
a memo pays (issue 16, "Cheaper enumeration"), not a memo.
"""

from __future__ import annotations

import argparse
import time

from pyanitsa.classic import ClassicGame
from pyanitsa.research.enumeration import _next_permutation
from pyanitsa.rules import Rules

next_arrangement = _next_permutation  # the enumeration's own step, not a copy


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deck", default="ranks=4,suits=3")
    p.add_argument("--deals", type=int, default=None, help="stop after this many deals")
    args = p.parse_args(argv)
    rules = Rules.from_options({"pickup_order": "natural", "dispute_exhausted": "discard"},
                               deck=args.deck)
    deck = rules.deck
    by_rank: dict[int, list[int]] = {}
    for card in range(deck.size):
        by_rank.setdefault(deck.values[card], []).append(card)
    arrangement = sorted(deck.values)
    half = deck.size // 2
    first_game: dict[tuple, int] = {}
    games = rounds = met = skippable = 0
    began = time.perf_counter()
    while args.deals is None or games < args.deals:
        if arrangement[:half] <= arrangement[half:]:
            pool = {r: list(cards) for r, cards in by_rank.items()}
            ids = [pool[r].pop() for r in arrangement]
            game = ClassicGame(rules, [ids[:half], ids[half:]])
            played, meeting = 0, None
            while True:
                if meeting is None:
                    key = game.key()
                    if first_game.setdefault(key, games) != games:
                        meeting = played
                if not game.play_round():
                    break
                played += 1
            games += 1
            rounds += played
            if meeting is not None:
                met += 1
                skippable += played - meeting
        if not next_arrangement(arrangement):
            break
    print(f"deck {args.deck}: {games:,} deals in enumeration order, {rounds:,} rounds; "
          f"{met:,} games ({met / games:.1%}) meet an earlier game's position; an unbounded "
          f"memo would skip {skippable:,} rounds ({skippable / rounds:.1%}) and hold "
          f"{len(first_game):,} positions ({time.perf_counter() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
