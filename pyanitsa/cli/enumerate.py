"""``pyanitsa enumerate``: play every distinct two-player deal of a small deck."""

from __future__ import annotations

import argparse
import json
import os
import time

from pyanitsa.cli import argtypes
from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args
from pyanitsa.enumeration import check_enumerable, count_deals, enumerate_deals


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("enumerate", help="play every distinct two-player deal of a small deck",
                       description="Play every distinct two-player deal (an arrangement of the "
                                   "ranks cut in half; a deal and its seat swap once) and "
                                   "report cycles, mean length, the longest game and wins.")
    add_rules_arguments(p)
    p.add_argument("--engine", choices=("batch", "reference"), default="batch",
                   help="the compiled batch core (default) or the reference engine")
    p.add_argument("--workers", type=argtypes.workers, default=None, metavar="N",
                   help="threads for the batch core (default: every core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    check_enumerable(rules)
    total = count_deals(rules.deck)
    start = time.perf_counter()
    from tqdm import tqdm

    with tqdm(total=total, unit="deal", disable=args.no_progress, leave=False,
              dynamic_ncols=True) as bar:
        if args.engine == "batch":
            from pyanitsa.batch.enumerate import enumerate_batch
            workers = args.workers if args.workers is not None else os.cpu_count()
            stats = enumerate_batch(rules, workers=workers, progress=bar.update)
        else:
            stats = enumerate_deals(rules, progress=bar.update)
    seconds = time.perf_counter() - start
    out = stats.to_json()
    if args.json:
        print(json.dumps({**out, "seconds": round(seconds, 3)}, ensure_ascii=False))
        return 0
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
    return 0
