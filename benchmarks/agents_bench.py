"""Search and game-theory agents: head-to-head strength, decision time, solve time.

    .venv/bin/python benchmarks/agents_bench.py                  # everything (long: ~1 hour)
    .venv/bin/python benchmarks/agents_bench.py --only h2h --pairs 200 --workers 2
    .venv/bin/python benchmarks/agents_bench.py --only solve --json

Sections:

* ``h2h``: the candidate (default ``mc_search`` at its default budget) against every scripted
  heuristic in two-player tactical 36. Deal ``i`` is played twice with ``agents.game.play_games``
  and game seed ``derive_seed(seed, i)``: candidate in seat 0, then in seat 1 (the same hands,
  seats swapped; each seat's agent rng is ``seat_rng(game_seed, seat)``). A game scores 1 for a
  sole win, 1/2 for a shared win, 0 for a loss; a *pair* scores the mean of its two games, and
  the table gives the mean pair score with a normal 95% confidence interval over pairs
  (mean ± 1.96 s / sqrt(n)). "Beats" means the whole interval is above 1/2. Every candidate
  decision is timed (``time.perf_counter`` around ``order_hand``; the numba kernels are
  compiled and warmed up first): median and 99th percentile of the wall-clock time, and of the
  process's CPU time (``time.process_time``), which a shared, loaded machine inflates less.
* ``timing``: the candidate alone ordering both hands of 250 deals in one process (the
  head-to-head runs share the machine with their own workers and opponents).
* ``classic``: the candidate's pickup mode in ``classic-ru`` with ``pickup_order: agent``
  against a few classic pickup agents, paired the same way (a classic game scores 1 / 1/2 / 0
  for a win / a draw, cycle or cap / a loss); pickup decisions are timed.
* ``solve``: ``solve_deal`` on seeded 6-card-per-player deals of tactical 36 (the payoff matrix
  plus the LP or double oracle), and one ``pyanitsa solve`` process end to end.
Exploitability on full deals is measured by ``benchmarks/strength_bench.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]

import numpy as np  # noqa: E402

from pyanitsa import deal_from_seed, derive_seed, preset  # noqa: E402
from pyanitsa.agents import make_agent  # noqa: E402
from pyanitsa.agents.game import play_games, results_of  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # batch_bench.py beside
from batch_bench import machine_basics  # noqa: E402

from pyanitsa.rules import Rules  # noqa: E402

HEURISTICS = ("random", "ascending", "descending", "strongest_first", "strongest_last",
              "sacrifice", "tie_aware", "mixed")
CLASSIC_OPPONENTS = ("pickup_table", "pickup_natural", "pickup_tie_aware")
DEFAULT_SEED = 2026


class Timed:
    """Wraps an agent and records how long each ``order_hand`` takes."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.name = getattr(agent, "name", type(agent).__name__)

    def order_hand(self, view: Any, rng: np.random.Generator) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        out = self.agent.order_hand(view, rng)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(time.process_time() - cpu)
        return out

    def order_pickup(self, view: Any, rng: np.random.Generator) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        out = self.agent.order_pickup(view, rng)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(time.process_time() - cpu)
        return out


def game_points(result: Any, seat: int) -> float:
    """1 for a sole win, 1/k for a win shared by k seats, 0 for a loss."""
    return 1.0 / len(result.winners) if seat in result.winners else 0.0


# -- head to head ---------------------------------------------------------------------------------


def play_pairs(job: tuple[str, str, str, dict, int, int, int]) -> dict[str, Any]:
    """Deals ``first .. first + count - 1`` played twice (seats swapped); one worker's share."""
    candidate, opponent, preset_name, options, seed, first, count = job
    rules = preset(preset_name, **options)
    me = Timed(make_agent(candidate))
    other = make_agent(opponent)
    if rules.mode == "tactical":  # compile / load the kernels before timing anything
        from pyanitsa.protocol import hand_view

        warm = deal_from_seed(rules, 2, derive_seed(seed, 10**9))
        me.agent.order_hand(hand_view(rules, 0, warm.seats, 0), np.random.default_rng(0))
    seeds = [derive_seed(seed, i) for i in range(first, first + count) for _ in (0, 1)]
    seatings = [[me, other], [other, me]] * count
    results = results_of(play_games(rules, seatings, seeds))  # decisions, then the batch core
    pairs = [(game_points(results[2 * k], 0) + game_points(results[2 * k + 1], 1)) / 2
             for k in range(count)]
    return {"pairs": pairs, "times": me.times, "cpu": me.cpu}


def head_to_head(candidate: str, opponent: str, *, pairs: int, seed: int, workers: int,
                 preset_name: str = "tactical", options: dict | None = None) -> dict[str, Any]:
    chunk = math.ceil(pairs / max(1, workers))
    jobs = [(candidate, opponent, preset_name, options or {}, seed, lo, min(chunk, pairs - lo))
            for lo in range(0, pairs, chunk)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(play_pairs, jobs))
    else:
        parts = [play_pairs(j) for j in jobs]
    scores = [p for part in parts for p in part["pairs"]]
    times = sorted(t for part in parts for t in part["times"])
    cpu = sorted(t for part in parts for t in part["cpu"])
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores)) if len(scores) > 1 else 0.0
    return {
        "opponent": opponent, "pairs": len(scores), "score": mean, "ci": [mean - half,
                                                                         mean + half],
        "beats": mean - half > 0.5,
        "wins": sum(s == 1.0 for s in scores), "losses": sum(s == 0.0 for s in scores),
        "median_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * times[min(len(times) - 1, int(0.99 * len(times)))],
        "max_ms": 1000 * times[-1], "decisions": len(times),
        "cpu_median_ms": 1000 * statistics.median(cpu),
        "cpu_p99_ms": 1000 * cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))],
    }


# -- decision time alone ---------------------------------------------------------------------------


def decision_timing(candidate: str, deals: int, seed: int) -> dict[str, Any]:
    """The candidate ordering both hands of ``deals`` two-player tactical 36 deals, one process,
    nothing else of ours running: wall-clock and CPU time per decision."""
    from pyanitsa.protocol import hand_view

    rules = preset("tactical")
    agent = make_agent(candidate)
    warm = deal_from_seed(rules, 2, derive_seed(seed, 10**9))
    agent.order_hand(hand_view(rules, 0, warm.seats, 0), np.random.default_rng(0))
    wall, cpu = [], []
    for i in range(deals):
        dealt = deal_from_seed(rules, 2, derive_seed(seed, i))
        for seat in (0, 1):
            view = hand_view(rules, seat, dealt.seats, 0)
            start, c0 = time.perf_counter(), time.process_time()
            agent.order_hand(view, np.random.default_rng(derive_seed(seed, i, seat)))
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - c0)
    wall.sort()
    cpu.sort()
    p99 = min(len(wall) - 1, int(0.99 * len(wall)))
    return {"candidate": candidate, "decisions": len(wall),
            "median_ms": 1000 * statistics.median(wall), "p99_ms": 1000 * wall[p99],
            "max_ms": 1000 * wall[-1], "cpu_median_ms": 1000 * statistics.median(cpu),
            "cpu_p99_ms": 1000 * cpu[p99], "load": os.getloadavg()[0]}


# -- solve -----------------------------------------------------------------------------------------


def solve_timing(deals: int, seed: int) -> dict[str, Any]:
    from pyanitsa.ranks import rank_table
    from pyanitsa.solvers.exact import _solve_cached, solve_deal

    rules = preset("tactical")
    table = rank_table(rules)
    solve_deal(rules, [0, 1, 2], [3, 4, 5])  # warm up the kernels and scipy
    times = []
    cpu = []
    sizes = []
    for i in range(deals):
        rng = np.random.default_rng(derive_seed(seed, i))
        cards = rng.permutation(36)[:12]
        ranks = [table.rank_of[c] for c in cards]
        _solve_cached.cache_clear()
        start, c0 = time.perf_counter(), time.process_time()
        sol = solve_deal(rules, ranks[:6], ranks[6:])
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - c0)
        sizes.append(len(sol.orders[0]) * len(sol.orders[1]))
    # the worst case: six distinct ranks each (720 x 720), identical hands of a 2-suit deck
    worst = Rules.from_options({}, mode="tactical", deck="ranks=6,suits=2")
    _solve_cached.cache_clear()
    start, c0 = time.perf_counter(), time.process_time()
    solve_deal(worst, list(range(6)), list(range(6)))
    worst_s = time.perf_counter() - start
    worst_cpu = time.process_time() - c0
    cli = [sys.executable, "-m", "pyanitsa", "solve", "--deck", "36", "--hand",
           "As,Kd,Qh,Jc,Ts,9d", "--hand", "Ah,Ks,Qd,Jh,Tc,9s", "--json"]
    start = time.perf_counter()
    proc = subprocess.run(cli, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    reported = json.loads(proc.stdout)
    times.sort()
    return {"deals": deals, "median_s": statistics.median(times), "max_s": times[-1],
            "cpu_median_s": statistics.median(cpu), "cpu_max_s": max(cpu),
            "mean_cells": statistics.fmean(sizes), "max_cells": max(sizes),
            "worst_720x720_s": worst_s, "worst_720x720_cpu_s": worst_cpu, "cli_wall_s": wall,
            "cli_reported_s": reported["seconds"], "cli_load_s": reported["load_seconds"],
            "cli": " ".join(cli[2:])}


# -- main --------------------------------------------------------------------------------------------


def machine() -> str:
    m = machine_basics()
    return (f"{m['cpu']}, {m['cpus']} CPUs, load {m['loadavg'][0]:.2f} at the start, "
            f"{m['implementation']} {m['python']}, {m['platform']}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", choices=("h2h", "timing", "classic", "solve"))
    ap.add_argument("--candidate", default="mc_search")
    ap.add_argument("--opponents", default=",".join(HEURISTICS))
    ap.add_argument("--pairs", type=int, default=2000, help="deal pairs per opponent")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--timing-deals", type=int, default=250,
                    help="deals (two decisions each) for the timing section")
    ap.add_argument("--classic-pairs", type=int, default=100,
                    help="deal pairs per pickup opponent in classic-ru")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--solve-deals", type=int, default=50)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    only = set(args.only or ("h2h", "timing", "classic", "solve"))
    log = sys.stderr if args.json else sys.stdout  # progress lines; --json prints one object
    out: dict[str, Any] = {"machine": machine(), "seed": args.seed}
    if "h2h" in only:
        rows = []
        for opp in args.opponents.split(","):
            start = time.perf_counter()
            row = head_to_head(args.candidate, opp, pairs=args.pairs, seed=args.seed,
                               workers=args.workers)
            row["seconds"] = time.perf_counter() - start
            rows.append(row)
            print(f"{args.candidate} vs {opp:<16} pairs {row['pairs']:>5}  score "
                  f"{row['score']:.3f} [{row['ci'][0]:.3f}, {row['ci'][1]:.3f}]  "
                  f"{'beats' if row['beats'] else 'NOT shown'}  decision median "
                  f"{row['median_ms']:.1f} ms p99 {row['p99_ms']:.1f} ms max "
                  f"{row['max_ms']:.1f} ms; CPU median {row['cpu_median_ms']:.1f} ms p99 "
                  f"{row['cpu_p99_ms']:.1f} ms  ({row['seconds']:.0f} s)", file=log,
                  flush=True)
        out["h2h"] = {"candidate": args.candidate, "rows": rows}
    if "timing" in only:
        out["timing"] = decision_timing(args.candidate, args.timing_deals, args.seed)
        print("timing", json.dumps(out["timing"]), file=log, flush=True)
    if "classic" in only:
        rows = []
        for opp in CLASSIC_OPPONENTS:
            start = time.perf_counter()
            row = head_to_head(args.candidate, opp, pairs=args.classic_pairs, seed=args.seed,
                               workers=args.workers, preset_name="classic-ru",
                               options={"pickup_order": "agent"})
            row["seconds"] = time.perf_counter() - start
            rows.append(row)
            print(f"classic {args.candidate} vs {opp:<20} pairs {row['pairs']:>4}  score "
                  f"{row['score']:.3f} [{row['ci'][0]:.3f}, {row['ci'][1]:.3f}]  pickup "
                  f"median {row['median_ms']:.1f} ms p99 {row['p99_ms']:.1f} ms; CPU median "
                  f"{row['cpu_median_ms']:.1f} ms  ({row['seconds']:.0f} s)", file=log,
                  flush=True)
        out["classic"] = {"candidate": args.candidate, "rules": "classic-ru, pickup_order: agent",
                          "rows": rows}
    if "solve" in only:
        out["solve"] = solve_timing(args.solve_deals, args.seed)
        print("solve", json.dumps(out["solve"]), file=log, flush=True)
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
