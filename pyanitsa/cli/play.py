"""``pyanitsa play``: deal and play one game, printing a round-by-round log."""

from __future__ import annotations

import argparse
import json

from pyanitsa import argtypes
from pyanitsa.errors import CliError
from pyanitsa.events import format_round
from pyanitsa.hooks import hook, split_specs
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult, Result, TacticalResult
from pyanitsa.rules_args import add_rules_arguments, rules_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="deal and play one game with a round-by-round log",
                       description="Deal one game from a seed and play it. Tactical hands are "
                                   "played in the order dealt (a uniformly random order).")
    add_rules_arguments(p)
    p.add_argument("--players", type=argtypes.players, default=None,
                   help="seats, 2..8 (default: one per agent, else 2)")
    p.add_argument("--agents", metavar="SPEC,...",
                   help="an agent per seat, e.g. human,mc_search or descending,"
                        "'mc_search(samples=200)'; tactical hands are then ordered by the "
                        "agents and classic pickups too with pickup_order=agent")
    p.add_argument("--time-limit", type=argtypes.positive_seconds, default=None, metavar="SECONDS",
                   help="the most an agent may take per decision")
    p.add_argument("--seed", type=argtypes.seed, default=0,
                   help="the game's seed, 0..2^64-1 (default 0)")
    p.add_argument("--json", action="store_true",
                   help='print {"record": ..., "result": ...} instead of the log')
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    specs = split_specs(args.agents) if args.agents is not None else None
    players = args.players if args.players is not None else len(specs) if specs else 2
    if specs is not None and len(specs) != players:
        raise CliError(f"--agents: {len(specs)} agents for {players} seats")
    if specs is None:
        if rules.pickup_order == "agent":
            raise CliError("pickup_order: agent needs --agents (one per seat)")
        record = Record.dealt(rules, players, args.seed)
        result, events = record.play_logged()
    else:
        outcome = hook("play_game")(rules, specs, args.seed, log=True,
                                    time_limit=args.time_limit)
        record, result, events = outcome.record, outcome.result, outcome.events
    if args.json:
        print(json.dumps({"record": record.to_json(), "result": result.to_json()},
                         ensure_ascii=False))
        return 0
    deck = rules.deck
    print(f"{rules.mode} game, deck {deck}, {players} players, seed {args.seed}")
    if specs is not None:
        print("agents: " + ", ".join(f"P{i} {s}" for i, s in enumerate(specs)))
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
