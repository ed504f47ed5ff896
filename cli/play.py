"""``pyanitsa play``: deal and play one game, printing a round-by-round log."""

from __future__ import annotations

import argparse
import json
import secrets

from pyanitsa.cli import argtypes
from pyanitsa.cli.errors import CliError
from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args
from pyanitsa.events import format_round
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult, Result, TacticalResult

LONG_LOG = 60
"""Rounds of log beyond which ``play`` shows only the beginning and the end (``--full``: all)."""
SHOWN = 20
"""Rounds of a long log shown: half from the start, half from the end."""


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
                   help="the most an agent may take per decision (its warm-up, before the "
                        "clock starts, is not counted)")
    p.add_argument("--seed", type=argtypes.seed, default=None,
                   help="the game's seed, 0..2^64-1 (default: a random one, printed so that "
                        "--seed replays the game)")
    p.add_argument("--full", action="store_true",
                   help=f"print every round (a log of more than {LONG_LOG} rounds shows the "
                        f"first and last {SHOWN // 2})")
    p.add_argument("--json", action="store_true",
                   help='print {"record": ..., "result": ...} instead of the log')
    argtypes.add_sandbox_argument(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # the agents load when a command runs, not when the parser is built for every command
    from pyanitsa.agents.game import play_specs
    from pyanitsa.agents.sandbox import policy_from, using
    from pyanitsa.agents.specs import split_specs

    rules = rules_from_args(args)
    chosen = args.seed is not None
    seed = args.seed if chosen else secrets.randbelow(2**32)  # printed below: replayable
    specs = split_specs(args.agents) if args.agents is not None else None
    players = args.players if args.players is not None else len(specs) if specs else 2
    if specs is not None and len(specs) != players:
        raise CliError(f"--agents: {len(specs)} agent{'s' if len(specs) != 1 else ''} for "
                       f"{players} seat{'s' if players != 1 else ''}")
    if specs is None:
        if rules.pickup_order == "agent":
            raise CliError("pickup_order: agent needs --agents (one per seat)")
        record = Record.dealt(rules, players, seed)
        result, events = record.play_logged()
    else:
        with using(policy_from(args.sandbox)):
            outcome = play_specs(rules, specs, seed, log=True, time_limit=args.time_limit)
        record, result, events = outcome.record, outcome.result, outcome.events
    if args.json:
        print(json.dumps({"record": record.to_json(), "result": result.to_json()},
                         ensure_ascii=False))
        return 0
    deck = rules.deck
    replay = "" if chosen else f" (random; --seed {seed} replays this game)"
    print(f"{rules.mode} game, deck {deck}, {players} players, seed {seed}{replay}")
    if specs is not None:
        print("agents: " + ", ".join(f"P{i} {s}" for i, s in enumerate(specs)))
        if any(s.strip().startswith("cmd:") for s in specs):
            print(f"sandbox: {args.sandbox} (of the cmd: bots whose spec names none)")
    options = rules.to_options()
    if options:
        print("rules: " + ", ".join(f"{k}={v}" for k, v in options.items()))
    if rules.mode == "classic":
        print(f"dealer: P{record.leader} (leads the first round)")
    for seat, cards in enumerate(record.seats):
        label = "stack" if rules.mode == "classic" else "hand"
        print(f"P{seat} {label} ({len(cards)}): {deck.format_cards(cards)}")
    for line in log_lines([format_round(event, deck) for event in events], full=args.full):
        print(line)
    print(describe(result))
    humans = [seat for seat, spec in enumerate(specs or []) if spec.split("(")[0] == "human"]
    if len(humans) == 1:
        print(for_you(result, humans[0]))
    return 0


def log_lines(lines: list[str], *, full: bool) -> list[str]:
    """The log as printed: all of it, or for a long game its first and last rounds with how
    many were left out between (thousands of near-identical rounds tell a reader nothing)."""
    if full or len(lines) <= LONG_LOG:
        return lines
    half = SHOWN // 2
    hidden = len(lines) - 2 * half
    return [*lines[:half], f"... {hidden:,} more rounds (--full prints every round) ...",
            *lines[-half:]]


def for_you(result: Result, seat: int) -> str:
    """The result told to the human player in ``seat``."""
    if isinstance(result, TacticalResult):
        winners = result.winners
    else:
        assert isinstance(result, ClassicResult)
        winners = (result.winner,) if result.winner is not None else ()
    if winners == (seat,):
        return "you won"
    if seat in winners:
        return "you share the win"
    if isinstance(result, ClassicResult) and result.outcome != "win":
        return f"nobody won ({result.outcome})"
    return "you lost"


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
