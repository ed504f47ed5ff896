"""How every subcommand chooses rules: --preset, --deck, --set KEY=VALUE, --rules FILE.yaml."""

from __future__ import annotations

import argparse

from pyanitsa.cli.errors import CliError
from pyanitsa.config import apply_override, load_mapping
from pyanitsa.rules import PRESETS, Rules


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rules")
    group.add_argument("--preset", metavar="NAME",
                       help=f"a named preset: {', '.join(PRESETS)}")
    group.add_argument("--mode", choices=("classic", "tactical"),
                       help="the mode when no preset names it (default classic)")
    group.add_argument("--deck", metavar="DECK",
                       help="36, 32, 52, 54 or ranks=N,suits=S[,jokers=J]")
    group.add_argument("--set", dest="options", action="append", default=[],
                       metavar="KEY=VALUE", help="a rules option, e.g. pickup_order=natural "
                                                 "(repeatable)")
    group.add_argument("--rules", dest="rules_file", metavar="FILE.yaml",
                       help="a YAML mapping of options (with optional preset, mode, deck); "
                            "--preset, --deck and --set override it")


def rules_from_args(args: argparse.Namespace) -> Rules:
    options = load_mapping(args.rules_file, error=CliError) if args.rules_file else {}
    if args.preset:
        options["preset"] = args.preset
    for item in args.options:
        apply_override(options, item, error=CliError)
    deck = args.deck if args.deck is not None else options.pop("deck", None)
    return Rules.from_options(options, mode=args.mode, deck=deck)
