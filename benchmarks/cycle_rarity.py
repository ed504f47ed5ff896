"""How often a uniformly random two-player deal cycles: the baseline of ``pyanitsa hunt``.

    nice -n 10 .venv/bin/python benchmarks/cycle_rarity.py --deck 32 --deals 33554432
    .venv/bin/python benchmarks/cycle_rarity.py --deck ranks=6,suits=4 --deals 4194304 --json

Deals are seeded random permutations of the card ids (``numpy.random.default_rng(--seed)``,
batches of 65,536), seat 0 taking the first half, played on one thread of the batch core with
``--set`` rules (default natural pickup, ``dispute_exhausted: discard``). Prints the cycles,
their periods, the fraction and deals per second (wall time: noisy on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

from pyanitsa.batch import set_workers
from pyanitsa.batch.encode import CYCLE, R_CLEN, R_OUTCOME
from pyanitsa.config import apply_override
from pyanitsa.research.hunt import Hunt, play_deals
from pyanitsa.rules import Rules

BATCH = 1 << 16


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deck", default="32")
    p.add_argument("--set", dest="options", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--deals", type=int, default=1 << 20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    options: dict = {"pickup_order": "natural", "dispute_exhausted": "discard"}
    for item in args.options:
        apply_override(options, item)
    hunt = Hunt(Rules.from_options(options, deck=args.deck))
    set_workers(1)
    rng = np.random.default_rng(args.seed)
    periods: Counter[int] = Counter()
    # compile (or load) the kernel before the clock starts: deals/s is the play's
    play_deals(hunt.prm, hunt.table, np.arange(hunt.n, dtype=np.int64)[None], hunt.dealer,
               hunt.cap)
    began = time.perf_counter()
    played = 0
    while played < args.deals:
        deals = np.argsort(rng.random((BATCH, hunt.n)), axis=1).astype(np.int64)
        out = play_deals(hunt.prm, hunt.table, deals, hunt.dealer, hunt.cap)
        periods.update(int(p) for p in out[out[:, R_OUTCOME] == CYCLE, R_CLEN])
        played += BATCH
    seconds = time.perf_counter() - began
    cycles = sum(periods.values())
    result = {"deck": args.deck, "deals": played, "cycles": cycles,
              "fraction": cycles / played, "periods": dict(sorted(periods.items())),
              "deals_per_second": round(played / seconds)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"deck {args.deck}: {cycles} cycles in {played:,} random deals "
              f"({cycles / played:.3g}), periods {dict(sorted(periods.items()))}, "
              f"{played / seconds:,.0f} deals/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
