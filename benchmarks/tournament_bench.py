"""Tournament throughput: games/s of a whole run (workers, scoring, SQLite) on 1 and 2 workers.

    make bench                                            # runs this after the other benchmarks
    .venv/bin/python benchmarks/tournament_bench.py       # ~30 s
    .venv/bin/python benchmarks/tournament_bench.py --quick --json

The workload is a duplicate round robin of the eight scripted agents in two-player tactical
rules (every deal in both seat rotations), timed from ``run_tournament`` to its return: workers
starting, agents built, games played and scored, each finished chunk written to the database.
Reports are not included. Each worker count runs ``--repeats`` times into fresh folders; the
table gives the median wall time, and the CPU time of the parent and of the worker processes
(which shows how much of the work parallelises when the machine is busy with other jobs).
A last row plays the same tournament on one worker with ``engine: reference`` (every game on
the reference engine instead of the batch core), for comparison.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))  # batch_bench.py beside
from batch_bench import machine_basics  # noqa: E402

from pyanitsa.tournaments.config import parse_config  # noqa: E402
from pyanitsa.tournaments.runner import run_tournament  # noqa: E402

AGENTS = ["random", "ascending", "descending", "strongest_first", "strongest_last",
          "sacrifice", "tie_aware", "mixed"]


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measure(workers: int, deals: int, repeats: int, engine: str = "batch") -> dict[str, Any]:
    times, parent, children = [], [], []
    games = 0
    for r in range(repeats):
        with tempfile.TemporaryDirectory(prefix="pyanitsa-bench-") as tmp:
            config = parse_config({"name": "bench", "agents": AGENTS, "rules": "tactical",
                                   "deals": deals, "seed": 100 + r, "workers": workers,
                                   "engine": engine, "bootstrap": 0, "output": tmp})
            cpu0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            result = run_tournament(config)
            times.append(time.perf_counter() - start)
            parent.append(_cpu(resource.RUSAGE_SELF) - cpu0[0])
            children.append(_cpu(resource.RUSAGE_CHILDREN) - cpu0[1])
            games = result.played
    median = statistics.median(times)
    return {"workers": workers, "engine": engine, "games": games, "median_seconds": median,
            "games_per_s": games / median, "times": times,
            "parent_cpu_seconds": statistics.median(parent),
            "worker_cpu_seconds": statistics.median(children)}


def machine() -> dict[str, object]:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT,
                            capture_output=True, text=True).stdout.strip()
    return machine_basics() | {"commit": commit}


def bench_parser(doc: str, *, deals: int, pairings: int, repeats: int,
                 quick: str) -> argparse.ArgumentParser:
    """The options of a tournament benchmark: ``--deals``, ``--repeats``, ``--quick``,
    ``--json`` (this one's and benchmarks/sandbox_bench.py's)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=deals,
                        help=f"deals per pairing ({pairings} pairings, 2 games a deal; "
                             f"default {deals})")
    parser.add_argument("--repeats", type=int, default=repeats)
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = bench_parser(__doc__, deals=150, pairings=28, repeats=3,
                        quick="10 deals, 1 repeat").parse_args(argv)
    deals, repeats = (10, 1) if args.quick else (args.deals, args.repeats)
    info = machine()
    runs = [measure(w, deals, repeats) for w in (1, 2)]
    speedup = runs[1]["games_per_s"] / runs[0]["games_per_s"]
    runs.append(measure(1, deals, repeats, engine="reference"))
    if args.json:
        print(json.dumps({"machine": info, "deals": deals, "runs": runs,
                          "speedup_2_over_1": speedup}))
        return 0
    print(f"tournament: 8 scripted agents, tactical, 2 players, duplicate round robin, "
          f"{deals} deals per pairing; median of {repeats}")
    print(f"machine: {info['cpus']} CPUs, load {info['loadavg'][0]:.2f}, "
          f"Python {info['python']}, commit {info['commit']}")
    print()
    print("| workers | engine | games | median time | games/s | parent CPU | workers' CPU |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for r in runs:
        print(f"| {r['workers']} | {r['engine']} | {r['games']:,} | {r['median_seconds']:.2f} s | "
              f"{r['games_per_s']:,.0f} | {r['parent_cpu_seconds']:.2f} s | "
              f"{r['worker_cpu_seconds']:.2f} s |")
    print()
    print(f"speed-up on 2 workers: {speedup:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
