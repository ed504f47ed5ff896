"""``pyanitsa match A B``: a duplicate match of two agent specs, without a config file."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from typing import Any

from pyanitsa.cli import argtypes
from pyanitsa.cli.errors import CliError
from pyanitsa.cli.rules_args import add_rules_arguments
from pyanitsa.config import apply_override, load_mapping
from pyanitsa.errors import PyanitsaError
from pyanitsa.rules import Rules

SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "match", help="a duplicate match of two agents, without a config file",
        description="Play agent A against agent B on duplicate deals (each deal twice, seats "
                    "swapped) and print A's score with a 95% interval, the Elo difference, "
                    "the likelihood of superiority and W/D/L per pair. Rules default to "
                    "--preset tactical. The games go to a temporary folder unless --output "
                    "keeps them. Figures and --json keys: docs/tournaments.md, \"Matches\".")
    p.add_argument("a", metavar="A", help="the first agent's spec (the figures are its own)")
    p.add_argument("b", metavar="B", help="the second agent's spec")
    p.add_argument("--deals", type=argtypes.positive_int, default=None, metavar="N",
                   help="duplicate pairs to play (default 100; with --sprt the most, "
                        "default 10000)")
    add_rules_arguments(p)
    p.add_argument("--seed", type=argtypes.seed, default=None, metavar="S",
                   help="the match seed, 0..2^64-1 (default: a random one, printed, so that "
                        "--seed plays the same games again)")
    p.add_argument("--sprt", nargs="?", const="", default=None,
                   metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
                   help="stop as soon as an SPRT decides (defaults elo0=0,elo1=20,"
                        "alpha=0.05,beta=0.05)")
    p.add_argument("--workers", type=argtypes.positive_at_most(512, "worker processes"),
                   default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--time-limit", type=argtypes.positive_seconds, default=None,
                   metavar="SECONDS", help="per decision; a later answer forfeits the game")
    p.add_argument("--anchor", metavar="AGENT",
                   help="the agent rated Elo 0 in the ratings (A or B, by its spec)")
    p.add_argument("--output", metavar="DIR",
                   help="keep the database and reports in DIR (pyanitsa report DIR)")
    p.add_argument("--resume", action="store_true", help="continue the match in --output DIR")
    p.add_argument("--overwrite", action="store_true",
                   help="start again in --output DIR, deleting its games")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    argtypes.add_sandbox_argument(p)
    p.set_defaults(run=run_match_command)


def rules_mapping(args: argparse.Namespace) -> dict[str, Any]:
    """The rules flags as a config's ``rules`` mapping; tactical unless they say otherwise."""
    options = load_mapping(args.rules_file, error=CliError) if args.rules_file else {}
    if args.preset:
        options["preset"] = args.preset
    if args.mode:
        options["mode"] = args.mode
    if args.deck:
        options["deck"] = args.deck
    if not {"preset", "mode"} & options.keys():
        options["preset"] = "tactical"
    for item in args.options:
        apply_override(options, item, error=CliError)
    return options


def parse_sprt(text: str | None) -> dict[str, float] | None:
    """``--sprt``'s ``elo0=0,elo1=20,...`` as a mapping (empty: the defaults)."""
    if text is None:
        return None
    out: dict[str, float] = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in SPRT_KEYS:
            raise CliError(f"--sprt {item!r}: use KEY=VALUE with KEY one of "
                           f"{', '.join(SPRT_KEYS)}")
        try:
            out[key.strip()] = float(value)
        except ValueError:
            raise CliError(f"--sprt {key.strip()}: {value!r} is not a number") from None
        if not math.isfinite(out[key.strip()]):
            raise CliError(f"--sprt {key.strip()}: {value!r} is not a finite number")
    return out


def run_match_command(args: argparse.Namespace) -> int:
    from pyanitsa.tournaments.matches import match

    if args.resume and args.overwrite:
        raise CliError("--resume and --overwrite: choose one")
    if (args.resume or args.overwrite) and args.output is None:
        raise CliError(f"--{'resume' if args.resume else 'overwrite'}: needs --output DIR")
    rules = rules_mapping(args)
    _warn_no_decisions(rules)
    try:
        result = match(args.a, args.b, deals=args.deals, rules=rules,
                       seed=args.seed, sprt=parse_sprt(args.sprt), workers=args.workers,
                       time_limit=args.time_limit, anchor=args.anchor, output=args.output,
                       resume=args.resume, overwrite=args.overwrite,
                       progress=not args.quiet, sandbox=args.sandbox)
    except PyanitsaError as exc:
        # the config's field paths, in the command's own words
        text = re.sub(r"\bagents\.0\.spec\b", "A", str(exc).removeprefix("match: "))
        raise type(exc)(re.sub(r"\bagents\.1\.spec\b", "B", text)) from None
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(format_result(result))
    return 0


def _warn_no_decisions(rules: dict[str, Any]) -> None:
    try:
        built = Rules.from_options(rules)
    except PyanitsaError:
        return  # the config names the problem
    if built.mode == "classic" and built.pickup_order != "agent":
        print(f"pyanitsa match: warning: classic rules with pickup_order: "
              f"{built.pickup_order} leave the agents no decision; every game is decided by "
              "the deal (set pickup_order=agent)", file=sys.stderr)


def _elo(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "–"
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{round(x):+d}"


def format_result(r: Any) -> str:
    """The console text of a :class:`~pyanitsa.tournaments.matches.MatchResult`."""
    a, b = r.agents
    p = r.pairs
    lines = [f"{a} vs {b}: {r.pairs_played} duplicate pairs ({2 * r.pairs_played} games) "
             f"in {r.seconds:.1f} s, seed {r.seed}"]
    ci = "" if r.ci95 is None else f" [{r.ci95[0]:.3f}, {r.ci95[1]:.3f}]"
    lines.append(f"score     {r.score:.3f}{ci}  ({a}'s mean pair score, 95% interval)")
    eci = "" if r.elo_ci95 is None else f" [{_elo(r.elo_ci95[0])}, {_elo(r.elo_ci95[1])}]"
    lines.append(f"Elo       {_elo(r.elo)}{eci}  ({a} minus {b})")
    lines.append("LOS       " + ("–" if r.los is None else f"{100 * r.los:.1f}%"))
    lines.append(f"pairs     W {p.wins}  D {p.draws}  L {p.losses}  (pentanomial 0, 1/4, "
                 f"1/2, 3/4, 1: {' '.join(map(str, p.pentanomial))})")
    for s in r.standings:
        rating = _elo(s.elo)
        if s.low is not None and s.high is not None:
            rating += f" [{_elo(s.low)}, {_elo(s.high)}]"
        lines.append(f"{s.name}: games {s.games}  W {s.wins}  D {s.draws}  L {s.losses}  "
                     f"forfeits {s.forfeits}  rating {rating}")
    lines.append("ratings   " + (f"relative to the anchor {r.anchor} (Elo 0)"
                                 if r.anchor is not None else "mean 0"))
    if r.sprt is not None:
        s = r.sprt
        lines.append(f"SPRT      {s.verdict} ({s.blocks} pairs)")
    if r.sandbox is not None:
        lines.append(f"sandbox   {r.sandbox} (cmd: bots)")
    if r.output is not None:
        lines.append(f"games and reports in {r.output}/")
    return "\n".join(lines)
