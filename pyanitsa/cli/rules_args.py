"""How every subcommand chooses rules: --preset, --deck, --set KEY=VALUE, --rules FILE.yaml."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

from pyanitsa.cli import CliError
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


def parse_set(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings to options; values are read as YAML scalars (true, 3, natural)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"--set {item!r}: use KEY=VALUE")
        out[key.strip()] = yaml.safe_load(value) if value.strip() else ""
    return out


def load_rules_file(path: str) -> dict[str, Any]:
    text = Path(path).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CliError(f"--rules {path}: must be a YAML mapping of options")
    return data


def rules_from_args(args: argparse.Namespace) -> Rules:
    options: dict[str, Any] = load_rules_file(args.rules_file) if args.rules_file else {}
    if args.preset:
        options["preset"] = args.preset
    options.update(parse_set(args.options))
    deck = args.deck if args.deck else options.pop("deck", None)
    return Rules.from_options(options, mode=args.mode, deck=deck)
