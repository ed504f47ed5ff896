"""``pyanitsa replay``: play records and print one result per line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pyanitsa.cli.errors import CliError
from pyanitsa.cli.play import describe
from pyanitsa.errors import InvalidRecordError
from pyanitsa.events import format_round
from pyanitsa.records import read_entries


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="play game records and print their results",
                       description="Read one record, or JSON lines of records, and print one "
                                   "result per line. A line may also be an object with the "
                                   'record under "record" (as `play --json` and the '
                                   "conformance vectors write them).")
    p.add_argument("file", metavar="FILE|-", help="a record file, or - for standard input")
    p.add_argument("--check", action="store_true",
                   help='compare with the "expected" or "result" next to each record; exit 1 '
                        "on any difference")
    p.add_argument("--log", action="store_true", help="print each game's rounds before it")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.file == "-":  # bytes, so undecodable input is one line here too
        stdin = getattr(sys.stdin, "buffer", None)
        data = stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8")
    else:
        data = Path(args.file).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"{args.file}: not UTF-8 text (byte {data[exc.start]:#04x} at "
                       f"position {exc.start})") from None
    checked = mismatches = 0
    for lineno, record, expected in read_entries(text):
        if args.log:
            result, events = record.play_logged()
            for event in events:
                print(format_round(event, record.deck))
            print(describe(result))
        else:
            try:
                result = record.play()
            except InvalidRecordError as exc:
                raise InvalidRecordError(f"line {lineno}: {exc}") from None
        got = result.to_json()
        print(json.dumps(got, ensure_ascii=False), flush=True)
        if args.check:
            if expected is None:
                raise CliError(f"line {lineno}: --check needs an \"expected\" or \"result\"")
            if not isinstance(expected, dict):  # 7 or "win" can only differ: a broken vector
                raise CliError(f"line {lineno}: \"expected\" should be a result object, not "
                               f"{json.dumps(expected)[:40]}")
            checked += 1
            if got != expected:
                mismatches += 1
                print(f"line {lineno}: expected {json.dumps(expected)}", file=sys.stderr)
    if args.check:  # on stderr, so standard output stays one JSON result a line
        records = f"{checked} record{'' if checked == 1 else 's'}"
        print(f"checked {records}: " + (f"{mismatches} result(s) differ" if mismatches
                                        else "all match"), file=sys.stderr)
    return 1 if mismatches else 0
