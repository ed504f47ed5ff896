"""``pyanitsa play``: deal and play one game, printing a round-by-round log."""

from __future__ import annotations

import argparse
import json

from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args
from pyanitsa.dealing import deal
from pyanitsa.events import format_round
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult, Result, TacticalResult
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="deal and play one game with a round-by-round log",
                       description="Deal one game from a seed and play it. Tactical hands are "
                                   "played in the order dealt (a uniformly random order).")
    add_rules_arguments(p)
    p.add_argument("--players", type=int, default=2, help="seats, 2..8 (default 2)")
    p.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    p.add_argument("--json", action="store_true",
                   help='print {"record": ..., "result": ...} instead of the log')
    p.set_defaults(run=run)


def deal_record(rules: Rules, players: int, seed: int) -> Record:
    """The record of a seeded deal: the dealt stacks or hands, plus the generator's state."""
    rng = Rng(seed)
    dealt = deal(rules, players, rng)
    return Record(rules, dealt.seats, dealer=dealt.dealer if rules.mode == "classic" else None,
                  seed=rng.state if rules.random_play else None)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    record = deal_record(rules, args.players, args.seed)
    result, events = record.play_logged()
    if args.json:
        print(json.dumps({"record": record.to_json(), "result": result.to_json()},
                         ensure_ascii=False))
        return 0
    deck = rules.deck
    print(f"{rules.mode} game, deck {deck}, {args.players} players, seed {args.seed}")
    options = rules.to_options()
    if options:
        print("rules: " + ", ".join(f"{k}={v}" for k, v in options.items()))
    if rules.mode == "classic":
        print(f"dealer: P{record.leader} (leads the first round)")
    for seat, cards in enumerate(record.seats):
        label = "stack" if rules.mode == "classic" else "hand"
        print(f"P{seat} {label} ({len(cards)}): {deck.format_cards(cards)}")
    for event in events:
        print(format_round(event, deck))
    print(describe(result))
    return 0


def describe(result: Result) -> str:
    """A one-line human summary of a result."""
    length = f"{result.rounds} rounds, {result.showdowns} showdowns"
    if isinstance(result, TacticalResult):
        scores = ", ".join(f"P{s} {n}" for s, n in enumerate(result.scores))
        who = " and ".join(f"P{s}" for s in result.winners)
        verb = "wins" if len(result.winners) == 1 else "share the win"
        removed = f", {result.removed} removed" if result.removed else ""
        return f"result: {who} {verb} ({scores}{removed}; {length})"
    assert isinstance(result, ClassicResult)
    out = f" (out in order: {', '.join(f'P{s}' for s in result.eliminated)})" \
        if result.eliminated else ""
    if result.outcome == "win":
        return f"result: P{result.winner} wins after {length}{out}"
    if result.outcome == "cycle":
        return (f"result: cycle after {length}: the position of round {result.cycle_start} "
                f"repeats every {result.cycle_length} rounds{out}")
    if result.outcome == "capped":
        return f"result: capped at {length}{out}"
    return f"result: draw after {length}{out}"
