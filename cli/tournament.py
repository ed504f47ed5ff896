"""``pyanitsa tournament CONFIG.yaml`` and ``pyanitsa report OUTPUT_DIR``."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pyanitsa.cli import argtypes
from pyanitsa.cli.argtypes import add_set_argument
from pyanitsa.interrupts import INTERRUPTED

if TYPE_CHECKING:
    from pyanitsa.folder_lock import FolderLock
    from pyanitsa.tournaments.config import TournamentConfig


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tournament", help="run a bot tournament from a YAML config",
        description="Run a round robin or gauntlet between agents, with duplicate deals, into "
                    "an SQLite database, then write the reports (console table, report.md, "
                    "results.csv/json, heatmap.png or for a gauntlet gauntlet.png, ratings.png) "
                    "to the output folder. Fields: docs/tournaments.md.",
        epilog="examples:\n"
               "  pyanitsa tournament configs/tournaments/demo.yaml\n"
               "  pyanitsa tournament configs/tournaments/demo.yaml --set deals=4 --overwrite\n"
               "  pyanitsa tournament configs/tournaments/demo.yaml --resume --events run.jsonl")
    p.add_argument("config", metavar="CONFIG.yaml", help="the tournament config")
    add_set_argument(p, "deals=10, rules.preset=tactical-52, agents.0.spec=random")
    start = p.add_mutually_exclusive_group()
    start.add_argument("--resume", action="store_true",
                       help="continue the tournament in the output folder (or start it)")
    start.add_argument("--overwrite", action="store_true",
                       help="delete the output folder's database first and start again")
    p.add_argument("--events", metavar="FILE|-",
                   help="write a JSON-lines event stream (start, game, sprt, worker, standings, "
                        "finish)")
    p.add_argument("--quiet", action="store_true", help="no progress, no live standings and no table")
    p.set_defaults(run=run_tournament_command)

    r = sub.add_parser("report", help="rebuild a tournament's reports from its database",
                       description="Recompute the statistics of OUTPUT_DIR/tournament.db and "
                                   "write report.md, results.csv, results.json, heatmap.png "
                                   "(gauntlet.png for a gauntlet) and ratings.png again.")
    r.add_argument("folder", metavar="OUTPUT_DIR",
                   help="a tournament's output folder (the one holding tournament.db)")
    r.add_argument("--records", metavar="FILE.jsonl",
                   help="also export every game record with its result (for pyanitsa replay)")
    r.add_argument("--bootstrap", type=argtypes.nonneg_int, metavar="N",
                   help="bootstrap resamples for the rating intervals (default: the config's)")
    r.add_argument("--quiet", action="store_true", help="do not print the table")
    r.set_defaults(run=run_report_command)

    from pyanitsa.cli import match
    match.register(sub)


class _Sink:
    def __init__(self, fh: TextIO) -> None:
        self.fh = fh

    def __call__(self, event: dict[str, Any]) -> None:
        self.fh.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.fh.flush()


def run_tournament_command(args: argparse.Namespace) -> int:
    from pyanitsa.tournaments.config import load_config
    from pyanitsa.tournaments.store import hold_folder

    config = load_config(args.config, args.overrides)
    rules = config.build_rules()
    if rules.mode == "classic" and rules.pickup_order != "agent":
        print(f"pyanitsa tournament: warning: classic rules with pickup_order: "
              f"{rules.pickup_order} leave the agents no decision; every game is decided by "
              "the deal (set pickup_order: agent)", file=sys.stderr)
    # the folder is ours before anything in it is read or deleted, until the reports are out
    with hold_folder(config.output_dir) as lock:
        return _run_locked(args, config, lock)


def _run_locked(args: argparse.Namespace, config: TournamentConfig, lock: FolderLock) -> int:
    from pyanitsa.tournaments.runner import WORKER_LOG, run_tournament

    out: TextIO = sys.stdout
    sink = None
    events_file = None
    logged = None
    if args.events == "-":
        sink = _Sink(sys.stdout)
        out = sys.stderr
    elif args.events:
        events_file, logged = open_events(Path(args.events), resume=args.resume)
        sink = _Sink(events_file)
    try:
        result = run_tournament(config, resume=args.resume, overwrite=args.overwrite,
                                progress=not args.quiet, events=sink, lock=lock,
                                logged=logged)
    except KeyboardInterrupt:
        print(f"pyanitsa tournament: interrupted; the finished games are in "
              f"{config.output_dir}/ (continue with --resume)", file=sys.stderr)
        return INTERRUPTED
    finally:
        if events_file is not None:
            events_file.close()
    build_reports(config.output_dir, quiet=args.quiet, out=out)
    if not args.quiet:
        print(f"{result.played} games played in {result.seconds:.1f} s; reports in "
              f"{config.output_dir}/", file=out)
        if result.worker_output:
            print(f"the agents wrote {result.worker_output} bytes of output: "
                  f"{config.output_dir / WORKER_LOG}", file=out)
    return 0


def open_events(path: Path, *, resume: bool) -> tuple[TextIO, set[tuple[int, int, int]] | None]:
    """The ``--events`` file: emptied for a new run; for ``--resume``, appended to, with the
    games whose events it holds (the run writes the other stored games' events once). A last
    line a kill cut short is dropped first, so that every line stays one JSON object."""
    if not resume:
        return open(path, "w", encoding="utf-8"), None  # noqa: SIM115
    logged: set[tuple[int, int, int]] = set()
    complete = 0  # the length of the file up to its last whole line
    with contextlib.suppress(FileNotFoundError), open(path, "rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                break
            complete += len(line)
            key = _game_key(line)
            if key is not None:
                logged.add(key)
    if path.is_file() and path.stat().st_size > complete:
        os.truncate(path, complete)
    return open(path, "a", encoding="utf-8"), logged  # noqa: SIM115


def _game_key(line: bytes) -> tuple[int, int, int] | None:
    """The key of a ``game`` event line; None for other events or lines not ours."""
    try:
        event = json.loads(line)
        if event.get("event") == "game":
            return int(event["pairing"]), int(event["deal"]), int(event["rotation"])
    except (ValueError, TypeError, KeyError, AttributeError):
        pass
    return None


def build_reports(folder: Path, *, quiet: bool, out: TextIO, records: str | None = None,
                  bootstrap: int | None = None) -> None:
    from pyanitsa.tournaments.report import console_table, write_records, write_reports
    from pyanitsa.tournaments.stats import summarize
    from pyanitsa.tournaments.store import Store
    from pyanitsa.tournaments.strength import measure

    with Store.open(folder) as store:
        config = store.config()
        rows = store.rows()
    if bootstrap is not None:
        config = config.model_copy(update={"bootstrap": max(0, bootstrap)})
    summary = summarize(config, rows)
    summary.exploitability = measure(config, Path(folder), progress=not quiet)
    write_reports(Path(folder), summary, rows)
    if records:
        n = write_records(Path(records), rows)
        if not quiet:
            print(f"{n} records written to {records}", file=out)
    if not quiet:
        print(console_table(summary), file=out)


def run_report_command(args: argparse.Namespace) -> int:
    build_reports(Path(args.folder), quiet=args.quiet, out=sys.stdout, records=args.records,
                  bootstrap=args.bootstrap)
    return 0
