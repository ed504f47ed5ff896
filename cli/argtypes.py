"""Argument types for numbers on the command line: in range, or one line naming the option.

``type=int`` takes ``--seed -1`` (which the generator masks to 2^64 - 1) and ``--workers 0``;
``type=float`` takes ``nan`` and ``inf``, and a NaN time limit is no limit (every comparison
with it is false). These types refuse them: argparse prints ``argument --seed: ...`` and exits
with code 2, as for any other bad argument.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from pyanitsa.rng import MASK64

MAX_WORKERS = 512
"""The most threads or workers a command takes (as a tournament's ``workers``)."""

_MAX_DIGITS = 40
"""Longer integers are refused before conversion (a seed has at most 20 digits)."""


def _integer(text: str) -> int:
    digits = text.strip().lstrip("+-")
    if len(digits) > _MAX_DIGITS or not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not an integer")
    return int(text)


def seed(text: str) -> int:
    """A seed: an integer 0..2^64-1."""
    value = _integer(text)
    if not 0 <= value <= MASK64:
        raise argparse.ArgumentTypeError(f"{value} is outside 0..2^64-1")
    return value


def positive_int(text: str) -> int:
    """A count: an integer 1 or more."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive integer")
    return value


def nonneg_int(text: str) -> int:
    """A count that may be 0 (bootstrap resamples)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return value


def players(text: str) -> int:
    """Seats at the table: 2..8."""
    from pyanitsa.rules import MAX_PLAYERS, MIN_PLAYERS

    value = _integer(text)
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"{value} seats: a table has {MIN_PLAYERS}.."
                                         f"{MAX_PLAYERS}")
    return value


def workers(text: str) -> int:
    """Threads or processes: 1..:data:`MAX_WORKERS`."""
    return positive_at_most(MAX_WORKERS, "threads")(text)


def positive_at_most(limit: int, why: str) -> Callable[[str], int]:
    """A count 1..``limit`` (``why`` says what the bound protects, for the message)."""
    def count(text: str) -> int:
        value = positive_int(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"{value:,} is over the limit of {limit:,} ({why})")
        return value
    count.__name__ = "count"  # argparse names the type in "invalid count value"
    return count


def positive_seconds(text: str) -> float:
    """A duration: a finite number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a finite, positive number "
                                         "of seconds")
    return value


def _shown(text: str) -> str:
    return repr(text if len(text) <= 30 else text[:30] + "...")


def add_set_argument(parser: argparse.ArgumentParser, examples: str) -> None:
    """The ``--set KEY=VALUE`` option of a YAML-configured command (into ``args.overrides``,
    for :func:`read_mapping`)."""
    parser.add_argument("--set", dest="overrides", action="append", default=[],
                        metavar="KEY=VALUE", help="override a config field; dotted paths reach "
                                                  f"into mappings and lists ({examples})")


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    """``--sandbox LEVEL`` of the ``cmd:`` bots a command runs (docs/bots.md, "The sandbox")."""
    from pyanitsa.agents.sandbox import LEVELS

    parser.add_argument("--sandbox", choices=LEVELS, default="strict",
                        help="how cmd: bots are confined: strict (bubblewrap namespaces and "
                             "limits, the default), basic (limits only) or none (a warning)")
