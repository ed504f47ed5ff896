"""The cost of the sandbox of ``cmd:`` bots: start-up time and games/s of a tournament.

    .venv/bin/python benchmarks/sandbox_bench.py            # ~1 minute
    .venv/bin/python benchmarks/sandbox_bench.py --quick --json

Start-up: ``warm_up()`` of examples/bots/random_bot.py (process start, interpreter start-up and
the hello exchange; outside the referee's clock) then ``close()``, ``--starts`` times at each
level; the table gives the median and the 90th percentile, in ms. Games/s: a duplicate round
robin of two copies of random_bot and ``descending`` (two-player tactical, one worker), timed
from ``run_tournament`` to its return, bots started included, at each level, ``--repeats``
times into fresh folders, the levels interleaved (median). Goals (issue 37): strict start-up under 100 ms, and strict
games/s at least 0.9 of ``none``.
"""

from __future__ import annotations

import json
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tournament_bench import bench_parser, machine  # noqa: E402

from pyanitsa.agents.cmd import CmdAgent  # noqa: E402
from pyanitsa.agents.sandbox import probe  # noqa: E402
from pyanitsa.tournaments.config import parse_config  # noqa: E402
from pyanitsa.tournaments.runner import run_tournament  # noqa: E402

BOT = shlex.join([sys.executable, str(REPO_ROOT / "examples" / "bots" / "random_bot.py")])
LEVELS = ("strict", "basic", "none")


def start_up(level: str, starts: int) -> dict[str, Any]:
    times = []
    for _ in range(starts):
        agent = CmdAgent(BOT, sandbox=level)
        start = time.perf_counter()
        agent.warm_up()
        times.append(1000 * (time.perf_counter() - start))
        agent.close()
    times.sort()
    return {"level": level, "starts": starts, "median_ms": statistics.median(times),
            "p90_ms": times[int(0.9 * (len(times) - 1))]}


def tournament(level: str, deals: int, seed: int) -> tuple[float, int]:
    """Seconds and games of one run."""
    with tempfile.TemporaryDirectory(prefix="pyanitsa-bench-") as tmp:
        config = parse_config({
            "name": "sandbox-bench", "rules": "tactical", "deals": deals, "seed": seed,
            "bootstrap": 0, "workers": 1, "output": tmp, "sandbox": level,
            "agents": [{"name": "bot_a", "spec": f"cmd:{BOT}"},
                       {"name": "bot_b", "spec": f"cmd:{BOT}"}, "descending"]})
        start = time.perf_counter()
        games = run_tournament(config).played
        return time.perf_counter() - start, games


def tournaments(levels: tuple[str, ...], deals: int, repeats: int) -> list[dict[str, Any]]:
    """Each level ``repeats`` times, interleaved (a loaded machine drifts), after one run
    that is not counted (the first run of a process loads what later ones find loaded)."""
    tournament(levels[-1], min(deals, 10), 299)
    times: dict[str, list[float]] = {level: [] for level in levels}
    games = 0
    for r in range(repeats):
        for level in levels:
            seconds, games = tournament(level, deals, 300 + r)
            times[level].append(seconds)
    out = []
    for level in levels:
        median = statistics.median(times[level])
        out.append({"level": level, "games": games, "median_seconds": median,
                    "games_per_s": games / median, "times": times[level]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__, deals=300, pairings=3, repeats=5,
                          quick="5 starts, 10 deals, 1 repeat")
    parser.add_argument("--starts", type=int, default=30, help="bot starts at each level")
    args = parser.parse_args(argv)
    starts, deals, repeats = (5, 10, 1) if args.quick else (args.starts, args.deals,
                                                           args.repeats)
    levels = LEVELS[LEVELS.index(probe().level):]
    out = {"machine": machine(), "probe": probe().level,
           "start_up": [start_up(level, starts) for level in levels],
           "tournament": tournaments(levels, deals, repeats)}
    by_level = {t["level"]: t["games_per_s"] for t in out["tournament"]}
    out["strict_vs_none"] = by_level.get("strict", 0.0) / by_level["none"]
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"machine: {out['machine']}")
    print("level    start-up median ms   p90 ms   games/s")
    for s, t in zip(out["start_up"], out["tournament"], strict=True):
        print(f"{s['level']:8} {s['median_ms']:18.1f} {s['p90_ms']:8.1f} "
              f"{t['games_per_s']:9.1f}  ({t['games']} games)")
    print(f"strict games/s / none: {out['strict_vs_none']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
