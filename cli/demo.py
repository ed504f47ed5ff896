"""``pyanitsa demo``: a sample game of each mode and an enumeration (``make demo`` runs a
tournament instead)."""

from __future__ import annotations

import argparse

from pyanitsa.cli import argtypes
from pyanitsa.cli.play import describe
from pyanitsa.events import format_round
from pyanitsa.records import Record
from pyanitsa.research.enumeration import enumerate_deals
from pyanitsa.rules import Rules, preset


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo", help="a short tour: one game of each mode and an enumeration",
        description="A short tour of the rules engine: a classic game "
                    "of three players and a tactical game of four, each dealt from SEED and "
                    "logged round by round (long games shortened), then every two-player deal "
                    "of a 12-card research deck enumerated. For a bot tournament see pyanitsa "
                    "tournament configs/tournaments/demo.yaml.")
    p.add_argument("--seed", type=argtypes.seed, default=1, help="seed of the sample games")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    for name, players in (("classic-ru", 3), ("tactical", 4)):
        rules = preset(name)
        record = Record.dealt(rules, players, args.seed)
        result, events = record.play_logged()
        print(f"== {name}, {players} players, seed {args.seed} ==")
        shown = events if len(events) <= 12 else events[:6] + events[-3:]
        for i, event in enumerate(shown):
            if len(events) > 12 and i == 6:
                print(f"   ... {len(events) - 9} more rounds ...")
            print(format_round(event, rules.deck))
        print(describe(result))
        print()
    rules = Rules.from_options({"pickup_order": "natural", "dispute_exhausted": "discard"},
                               deck="ranks=3,suits=4")
    print(f"== every two-player deal of deck {rules.deck}, pickup_order natural, "
          "dispute_exhausted discard ==")
    stats = enumerate_deals(rules).to_json()
    print(f"{stats['deals']} deals: {stats['cycles']} cycles, mean {stats['mean_rounds']:.2f} "
          f"rounds over finished games; wins {stats['wins']}, draws {stats['draws']}")
    return 0
