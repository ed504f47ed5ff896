"""The ``pyanitsa`` command line: one script, one subcommand per job.

The CLI is the top layer: it may import every package (the core, agents, tournaments,
training) and nothing imports it. Each subcommand is a module with ``register(sub)``, listed in
:data:`COMMANDS`; a module imports what its command runs inside ``run``, so building the parser
stays quick.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

import yaml

from pyanitsa.cli.errors import in_flags
from pyanitsa.errors import PyanitsaError, PyanitsaRuntimeError
from pyanitsa.interrupts import INTERRUPTED, ctrl_c_seen, noting_ctrl_c

COMMANDS = (
    "pyanitsa.cli.play",
    "pyanitsa.cli.replay",
    "pyanitsa.cli.enumerate",
    "pyanitsa.cli.simulate",
    "pyanitsa.cli.hunt",
    "pyanitsa.cli.demo",
    "pyanitsa.cli.agents",
    "pyanitsa.cli.solve",  # solve
    "pyanitsa.cli.solve_table",  # solve-table
    "pyanitsa.cli.exploit",
    "pyanitsa.cli.tournament",  # tournament, report, match
    "pyanitsa.cli.train",  # train
)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs with examples: prose lines are joined and wrapped to the
    terminal (a blank line starts a paragraph), indented lines (commands, their comments) are
    printed as written. argparse offers only all-wrapped or all-raw."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose:
                out.append(textwrap.fill(" ".join(prose), width, initial_indent=indent,
                                         subsequent_indent=indent))
                prose.clear()

        for line in textwrap.dedent(text).strip("\n").splitlines():
            if line[:1].isspace() or not line:
                flush()
                out.append(indent + line.rstrip())
            else:
                prose.extend(line.split())
        flush()
        return "\n".join(out)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # one line, as for every other bad input
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pyanitsa",
                     description="Пьяница (War) and Тактический пьяница: play, replay, "
                                 "enumerate, simulate, and run AI tournaments.")
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an unexpected error instead of one line "
                             "(give it before COMMAND: pyanitsa --debug replay x.json)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    with noting_ctrl_c():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        return args.run(args) or 0
    except BrokenPipeError:
        # The reader went away (say, `| head`): not an error. Point stdout at /dev/null so the
        # interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (PyanitsaError, PyanitsaRuntimeError, OSError, yaml.YAMLError) as exc:
        # bad input and failures alike: one line, in the words of the flags the user typed
        print(f"pyanitsa {args.command}: error: {in_flags(_one_line(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"pyanitsa {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as exc:  # a bug or an unforeseen input (MemoryError, RecursionError too)
        if ctrl_c_seen() and not args.debug:  # a Ctrl-C swallowed mid-import, surfacing late
            print(f"pyanitsa {args.command}: interrupted", file=sys.stderr)
            return INTERRUPTED
        if args.debug:
            raise
        detail = _one_line(exc)
        print(f"pyanitsa {args.command}: error: {type(exc).__name__}"
              f"{': ' + detail if detail else ''} (run with --debug for the traceback)",
              file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.strerror}: {exc.filename}"
    try:
        text = " ".join(str(exc).split())
    except Exception:  # noqa: BLE001 - a __str__ that fails still leaves the type to report
        return ""
    return text if len(text) <= 500 else text[:497] + "..."


def _version() -> str:
    from pyanitsa import __version__
    return f"pyanitsa {__version__}"
