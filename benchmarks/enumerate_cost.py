"""The cost of a whole enumeration, projected from a random sample of its ranges.

    nice -n 10 .venv/bin/python benchmarks/enumerate_cost.py --output /tmp/cost45   # 4x5, 40 ranges
    .venv/bin/python benchmarks/enumerate_cost.py --deck ranks=4,suits=4 --sample 12 --output D
    .venv/bin/python benchmarks/enumerate_cost.py --output D --json                  # one object

``--sample`` distinct range numbers are drawn with ``numpy.random.default_rng(--seed)`` from all
the ranges of the deal ranking (``--range-size`` arrangements each, the store's default) and
played by one ``pyanitsa enumerate --workers 1 --ranges LIST --output DIR`` process (with
``--resume`` if DIR holds the store already: ranges done are not played again). The store keeps
each range's CPU seconds; CPU time is what a shared machine does not inflate, and one thread
makes it core time. A range's cost depends on where it lies in the ranking (the first card's
rank, how many games cycle), so the projection is the sample mean of CPU seconds per
arrangement times all arrangements, with a 95% normal interval from the sample's spread.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np

from pyanitsa.cards import Deck
from pyanitsa.research.enumeration import arrangements, count_deals
from pyanitsa.research.enumeration_store import DB_NAME, DEFAULT_RANGE_SIZE, RangePlan

RULES = ["--set", "pickup_order=natural", "--set", "dispute_exhausted=discard"]


def sample(count: int, k: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return sorted(int(i) for i in rng.choice(count, size=min(k, count), replace=False))


def play(deck: str, chosen: list[int], size: int, folder: Path) -> None:
    ranges = ",".join(f"{i}:{i + 1}" for i in chosen)
    cmd = [sys.executable, "-m", "pyanitsa", "enumerate", "--deck", deck, *RULES, "--workers",
           "1", "--no-progress", "--json", "--ranges", ranges, "--output", str(folder),
           "--range-size", str(size)]
    if (folder / DB_NAME).exists():
        cmd.append("--resume")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def project(deck: str, chosen: list[int], folder: Path) -> dict:
    total = arrangements(Deck.parse(deck))
    with sqlite3.connect(folder / DB_NAME) as db:
        rows = db.execute(f"SELECT hi - lo, deals, cpu_seconds, seconds, cycles, rounds_sum, "
                          f"finished, longest_showdowns, longest_rounds FROM ranges WHERE idx IN "
                          f"({','.join(map(str, chosen))})").fetchall()
    arr = np.array([r[0] for r in rows], float)
    deals = np.array([r[1] for r in rows], float)
    cpu = np.array([r[2] for r in rows], float)
    per = cpu / arr
    mean = per.mean()
    se = per.std(ddof=1) / math.sqrt(len(per)) if len(per) > 1 else 0.0
    hours = mean * total / 3600
    longest = max(((r[7], r[8]) for r in rows if r[7] is not None), default=None)
    return {
        "deck": deck, "ranges_sampled": len(rows), "arrangements": total,
        "deals": count_deals(Deck.parse(deck)),
        "sample_deals": int(deals.sum()), "sample_cpu_seconds": round(float(cpu.sum()), 2),
        "sample_wall_seconds": round(float(sum(r[3] for r in rows)), 2),
        "deals_per_cpu_second": round(float(deals.sum() / cpu.sum())),
        "core_seconds": round(mean * total, 1), "core_hours": round(hours, 1),
        "core_hours_95": [round(hours - 1.96 * se * total / 3600, 1),
                          round(hours + 1.96 * se * total / 3600, 1)],
        "sample_cycles": int(sum(r[4] for r in rows)),
        "sample_mean_rounds": sum(r[5] for r in rows) / max(1, sum(r[6] for r in rows)),
        "sample_longest": None if longest is None else {"showdowns": longest[0],
                                                        "rounds": longest[1]},
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deck", default="ranks=5,suits=4")
    p.add_argument("--sample", type=int, default=40, help="ranges to play (default 40)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--range-size", type=int, default=DEFAULT_RANGE_SIZE)
    p.add_argument("--output", type=Path, required=True, help="the range store's folder")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    plan = RangePlan(arrangements(Deck.parse(args.deck)), args.range_size)
    chosen = sample(plan.count, args.sample, args.seed)
    play(args.deck, chosen, args.range_size, args.output)
    out = project(args.deck, chosen, args.output)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"deck {out['deck']}: {out['ranges_sampled']} ranges of {plan.count:,} "
          f"({out['sample_deals']:,} deals) in {out['sample_cpu_seconds']} CPU s")
    print(f"  {out['deals_per_cpu_second']:,} deals per core-second; the whole table "
          f"({out['deals']:,} deals): {out['core_seconds']:,} core-seconds = "
          f"{out['core_hours']:,} core-hours "
          f"(95%: {out['core_hours_95'][0]:,} to {out['core_hours_95'][1]:,})")
    lg = out["sample_longest"]
    longest = "none finished" if lg is None else f"{lg['showdowns']} showdowns, {lg['rounds']} rounds"
    print(f"  sample: {out['sample_cycles']} cycles, mean {out['sample_mean_rounds']:.2f} "
          f"rounds, longest {longest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
