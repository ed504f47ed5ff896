"""What a memo of finished positions would cost per lookup, against what a round costs.

    .venv/bin/python benchmarks/memo_cost.py

The other half of issue 16's "Cheaper enumeration" question (``position_meets.py`` measures how
many rounds a memo could skip): a compiled, bounded open-addressing table of 64-bit position
hashes (FNV-1a over the 16 cards of a 4 x 4 position and its split, linear probing, insert when
absent), probed once per position, at two sizes: one that stays in cache and one of 16 M
entries (200 MB, what the 378 M positions of a 4 x 4 enumeration would need a fraction of).
The round it would save is the batch core's: 4 x 5 enumeration plays 1.28 M deals of 40.45
rounds each per core-second (BENCHMARKS.md), about 19 ns a round.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit


@njit(cache=True)
def _hash(cards):
    h = np.uint64(1469598103934665603)
    for c in cards:
        h = (h ^ np.uint64(c + 1)) * np.uint64(1099511628211)
    return h | np.uint64(1)  # 0 marks an empty slot


@njit(cache=True)
def probe_all(positions, bits, reps):
    """Hash and probe every position ``reps`` times; returns the hits (positions seen)."""
    size = 1 << bits
    keys = np.zeros(size, np.uint64)
    mask = np.uint64(size - 1)
    hits = 0
    for _ in range(reps):
        for k in range(positions.shape[0]):
            h = _hash(positions[k])
            slot = h & mask
            for _ in range(8):  # bounded: a full neighbourhood drops the position
                if keys[slot] == h:
                    hits += 1
                    break
                if keys[slot] == 0:
                    keys[slot] = h
                    break
                slot = (slot + np.uint64(1)) & mask
    return hits


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=1 << 20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--round-ns", type=float, default=1e9 / (1.28e6 * 40.45),
                   help="what a round costs (default: the 4 x 5 enumeration's)")
    args = p.parse_args(argv)
    rng = np.random.default_rng(1)
    pos = rng.integers(0, 16, (args.positions, 17)).astype(np.int8)
    for bits in (16, 24):
        probe_all(pos[:8], bits, 1)  # compile outside the timing
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            probe_all(pos, bits, 1)
            times.append(time.perf_counter() - start)
        ns = float(np.median(times)) / args.positions * 1e9
        print(f"table of 2^{bits} entries ({(8 << bits) / 1e6:.1f} MB): {ns:.1f} ns a lookup, "
              f"{ns / args.round_ns:.1f} rounds' worth (a round: {args.round_ns:.1f} ns)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
