"""``pyanitsa enumerate``: play every distinct two-player deal of a small deck.

With ``--output DIR`` the deal ranking is cut into ranges committed to a range store
(:mod:`pyanitsa.research.enumeration_store`) as they finish, on local threads or as Ray tasks; the report
is then the store's committed ranges merged in order, the figures of a run without a store.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from pyanitsa.cli import argtypes
from pyanitsa.cli.errors import CliError
from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args
from pyanitsa.interrupts import INTERRUPTED
from pyanitsa.research.enumeration import DealStats, check_enumerable, count_deals, enumerate_deals
from pyanitsa.rules import Rules


class EnumerateError(CliError):
    """A combination of flags that cannot run."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("enumerate", help="play every distinct two-player deal of a small deck",
                       description="Play every distinct two-player deal (an arrangement of the "
                                   "ranks cut in half; a deal and its seat swap once) and "
                                   "report cycles, mean length, the longest game and wins.")
    add_rules_arguments(p)
    p.add_argument("--engine", choices=("batch", "reference"), default="batch",
                   help="the compiled batch core (default) or the reference engine")
    p.add_argument("--workers", type=argtypes.workers, default=None, metavar="N",
                   help="threads for the batch core, or CPUs of a local Ray cluster "
                        "(default: every core)")
    p.add_argument("--output", metavar="DIR", default=None,
                   help="commit each range of the deal ranking to a SQLite range store in DIR "
                        "as it finishes (its totals, longest game and cycles with their deals)")
    p.add_argument("--resume", action="store_true",
                   help="continue the store in --output DIR: committed ranges are skipped")
    p.add_argument("--ranges", metavar="A:B", default=None,
                   help="play only ranges A to B-1 of the store (either side may be empty; "
                        "several: A:B,C:D)")
    p.add_argument("--range-size", type=argtypes.positive_int, default=None, metavar="N",
                   help="arrangements per range of a new store (default 2^20)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="play ranges on local threads (default) or as Ray tasks, one core each")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="the Ray cluster to join (default: start a local one)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(run=run)


def _check_flags(args: argparse.Namespace) -> None:
    if args.output is None:
        for flag, given in (("--resume", args.resume), ("--ranges", args.ranges),
                            ("--range-size", args.range_size),
                            ("--backend", args.backend != "local"),
                            ("--ray-address", args.ray_address)):
            if given:
                raise EnumerateError(f"{flag}: needs --output DIR (the range store)")
    elif args.engine != "batch":
        raise EnumerateError("--output: ranges play on the batch core, not --engine reference")
    if args.ray_address is not None and args.backend != "ray":
        raise EnumerateError("--ray-address: needs --backend ray")


def run(args: argparse.Namespace) -> int:
    _check_flags(args)
    rules = rules_from_args(args)
    check_enumerable(rules)
    start = time.perf_counter()
    extra: dict[str, Any] = {}
    if args.output is not None:
        stored = _run_store(rules, args)
        if stored is None:
            return INTERRUPTED
        stats, extra = stored
    else:
        try:
            stats = _run_plain(rules, args)
        except KeyboardInterrupt:
            print("pyanitsa enumerate: interrupted; nothing kept (--output DIR keeps each "
                  "finished range, and --resume continues)", file=sys.stderr)
            return INTERRUPTED
    seconds = time.perf_counter() - start
    out = stats.to_json()
    if args.json:
        print(json.dumps({**out, "seconds": round(seconds, 3), **extra}, ensure_ascii=False))
        return 0
    store = extra.get("store")
    if extra.get("partial"):
        print(f"partial: {store['ranges_done']} of {store['ranges']} ranges committed in "
              f"{store['folder']}; the figures are theirs")
    print(f"deck {rules.deck}: {out['deals']} distinct deals in {seconds:.1f} s")
    print(f"  cycles: {out['cycles']}   capped: {out['capped']}")
    if out["mean_rounds"] is not None:
        print(f"  finished games: mean {out['mean_rounds']:.3f} rounds, "
              f"{out['mean_showdowns']:.3f} showdowns")
    print(f"  wins: seat 0 {out['wins'][0]}, seat 1 {out['wins'][1]}; draws {out['draws']}")
    if out["longest"]:
        lg = out["longest"]
        deal = " / ".join(" ".join(map(str, s)) for s in lg["deal"])
        print(f"  longest: {lg['showdowns']} showdowns, {lg['rounds']} rounds: {deal}")
    if store is not None:
        print(f"  store: {store['folder']}, {store['ranges_done']} of {store['ranges']} ranges "
              f"of {store['range_size']} arrangements")
    return 0


def _run_plain(rules: Rules, args: argparse.Namespace) -> DealStats:
    from tqdm import tqdm

    with tqdm(total=count_deals(rules.deck), unit="deal", disable=args.no_progress, leave=False,
              dynamic_ncols=True) as bar:
        if args.engine == "batch":
            from pyanitsa.research.enumeration_batch import enumerate_batch
            workers = args.workers if args.workers is not None else os.cpu_count()
            return enumerate_batch(rules, workers=workers, progress=bar.update)
        return enumerate_deals(rules, progress=bar.update)


def _run_store(rules: Rules, args: argparse.Namespace
               ) -> tuple[DealStats, dict[str, Any]] | None:
    """The store's merged figures and its summary; ``None`` after a Ctrl-C (said on stderr)."""
    from pyanitsa.research.enumeration import arrangements
    from pyanitsa.research.enumeration_store import (
        DEFAULT_RANGE_SIZE,
        RangePlan,
        RangeStore,
        parse_ranges,
    )

    size = args.range_size or DEFAULT_RANGE_SIZE
    if not args.resume and args.ranges is not None:  # refused before the store is made
        parse_ranges(args.ranges, RangePlan(arrangements(rules.deck), size).count)
    store = RangeStore(args.output, rules, resume=args.resume, range_size=size)
    try:
        plan = store.plan
        if args.resume and args.range_size is not None and args.range_size != plan.size:
            raise EnumerateError(f"--range-size: {args.output} was cut into ranges of {plan.size} "
                                 f"arrangements, not {args.range_size}")
        chosen = (parse_ranges(args.ranges, plan.count) if args.ranges is not None
                  else list(range(plan.count)))
        done = store.done()
        todo = [(i, *plan.bounds(i)) for i in chosen if i not in done]
        try:
            _play_ranges(rules, store, todo, args, whole=len(chosen) == plan.count)
        except KeyboardInterrupt:
            summary = store.summary()
            print(f"pyanitsa enumerate: interrupted; {summary['ranges_done']:,} of "
                  f"{summary['ranges']:,} ranges are committed in {args.output} "
                  f"({summary['ranges_done'] - len(done):,} this run); the same command "
                  "with --resume continues", file=sys.stderr)
            return None
        summary = store.summary()
        extra: dict[str, Any] = {"store": summary}
        if summary["ranges_done"] < summary["ranges"]:
            extra["partial"] = True
        return store.merged(), extra
    finally:
        store.close()


def _play_ranges(rules: Rules, store: Any, todo: list[tuple[int, int, int]],
                 args: argparse.Namespace, *, whole: bool) -> None:
    """Play ``todo``'s ranges on the chosen backend, committing each as it finishes."""
    from tqdm import tqdm

    plan = store.plan
    if whole:
        total = count_deals(rules.deck) - store.deals_done()
    else:  # about one deal per arrangement, or one per two with the seat swap folded
        ratio = count_deals(rules.deck) / plan.total
        total = round(sum(hi - lo for _, lo, hi in todo) * ratio)
    backend = args.backend
    with tqdm(total=total, unit="deal", disable=args.no_progress, leave=False,
              dynamic_ncols=True, smoothing=0.1) as bar:
        def commit(idx: int, result: Any, seconds: float, cpu: float) -> None:
            store.commit(idx, result, seconds=seconds, cpu_seconds=cpu, backend=backend)
            if backend == "ray":
                bar.update(result.stats.deals)

        if backend == "local":
            from pyanitsa.research.enumeration_batch import enumerate_range
            workers = args.workers if args.workers is not None else os.cpu_count()
            for idx, lo, hi in todo:
                began, cpu = time.perf_counter(), time.process_time()
                result = enumerate_range(rules, lo, hi, workers=workers, progress=bar.update)
                commit(idx, result, time.perf_counter() - began, time.process_time() - cpu)
            return
        if not todo:
            return
        from pyanitsa.research.enumeration_ray import run_ray, start_ray
        from pyanitsa.research.enumeration_store import rules_key

        started = start_ray(args.ray_address, args.workers)
        try:
            run_ray(rules_key(rules), todo, commit)
        finally:
            if started:
                import ray
                ray.shutdown()
