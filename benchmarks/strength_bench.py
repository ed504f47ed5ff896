"""Strength you can trust: full-deal exploitability of every agent, ``nash`` beside uniform
``random`` in the same run, and ``nash`` against every agent over duplicate pairs.

    .venv/bin/python benchmarks/strength_bench.py                       # all (about an hour)
    .venv/bin/python benchmarks/strength_bench.py --only table --plot docs/strength.png
    .venv/bin/python benchmarks/strength_bench.py --only duel --pairs 1000 --workers 2
    .venv/bin/python benchmarks/strength_bench.py --quick --json        # a smoke run

Two-player ``tactical`` (36 cards, 18 a hand), deals ``derive_seed(SEED, i)`` as ``pyanitsa
play`` deals them. Sections:

* ``table``: :func:`pyanitsa.solvers.exploitability.exploit_deals` per agent (NashConv / 2, cards a
  game, 95% interval over deals). Fast agents on ``--deals`` deals with ``--samples`` calls to
  fit each best response and ``--fresh`` to score it; the slow ones (search agents, whose
  every call is a search) on fewer deals and samples, as the table says.
* ``side``: ``nash`` and ``random`` on the same deals with a stronger best response (more
  samples to fit it), so the two lower bounds are measured the same way in the same run.
* ``duel``: ``nash`` against each opponent on ``--pairs`` deals, each deal played twice with
  the seats swapped (:func:`pyanitsa.solvers.duplicate.play_pairs`, ``duplicate_match``'s
  games: seat ``k``'s agent rng is ``seat_rng(game_seed, k)``). A pair scores the mean of its
  two games (1 win, 1/2 shared, 0 loss); the opponent *beats* ``nash`` if the 95% interval of
  its pair score is above 1/2. ``nash`` orders each hand once for every opponent.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyanitsa import preset  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # batch_bench.py beside
from batch_bench import machine_basics  # noqa: E402

FAST = ("random", "ascending", "descending", "strongest_first", "strongest_last", "sacrifice",
        "tie_aware", "mixed", "nash", "ppo:tactical-2p", "ppo:tactical-2p(greedy=True)")
"""``ppo:`` samples by default (issue 14); its greedy order, exact to measure, is tabled too."""
SLOW = ("mc_search", "equilibrium", "best_response(target=random)",
        "best_response(target=nash)")
OPPONENTS = ("random", "ascending", "descending", "strongest_first", "strongest_last",
             "sacrifice", "tie_aware", "mixed", "ppo:tactical-2p", "mc_search",
             "best_response(target=nash)", "best_response(target=random)")


def exploit_row(spec: str, deals: int, samples: int, fresh: int, seed: int) -> dict[str, Any]:
    from pyanitsa.agents import make_agent
    from pyanitsa.solvers.exploitability import exploit_deals

    rep = exploit_deals(preset("tactical"), make_agent(spec), deals=deals, seed=seed,
                        samples=samples, fresh=fresh)
    keep = ("exploitability", "ci95", "method", "deals", "samples", "fresh", "seconds")
    return {"agent": spec, **{k: rep[k] for k in keep},
            "seats": [s["best_response"] for s in rep["seats"]]}


def table(args: argparse.Namespace, log: Any) -> list[dict[str, Any]]:
    rows = []
    plan = [(s, args.deals, args.samples, args.fresh) for s in args.fast] + \
           [(s, args.slow_deals, args.slow_samples, args.slow_fresh) for s in args.slow]
    for spec, deals, samples, fresh in plan:
        row = exploit_row(spec, deals, samples, fresh, args.seed)
        rows.append(row)
        lo, hi = row["ci95"]
        print(f"exploit {spec:<30} {row['exploitability']:7.3f} [{lo:.3f}, {hi:.3f}] "
              f"{row['method']:<11} deals {deals} samples {samples}/{fresh} "
              f"({row['seconds']:.0f} s)", file=log, flush=True)
    return rows


def side(args: argparse.Namespace, log: Any) -> list[dict[str, Any]]:
    rows = []
    for spec in ("random", args.candidate):
        row = exploit_row(spec, args.side_deals, args.side_samples, args.side_fresh,
                          args.seed)
        rows.append(row)
        print(f"side {spec:<8} {row['exploitability']:.3f} {row['ci95']} ({row['seconds']:.0f}"
              f" s)", file=log, flush=True)
    return rows


# -- duplicate pairs -------------------------------------------------------------------------


def duel_chunk(job: tuple[str, Sequence[str], int, int, int]) -> dict[str, list[float]]:
    """Pair scores of each opponent against ``candidate`` on deals ``lo .. hi - 1``."""
    from pyanitsa.agents import make_agent
    from pyanitsa.rng import derive_seed
    from pyanitsa.solvers.duplicate import pair_scores, play_pairs

    candidate, opponents, seed, lo, hi = job
    # the candidate orders each hand once for every opponent (``nash`` solves a deal once)
    games = play_pairs(preset("tactical"), make_agent(candidate),
                       [make_agent(o) for o in opponents],
                       [derive_seed(seed, i) for i in range(lo, hi)])
    return {name: pair_scores(results, side=1)
            for name, results in zip(opponents, games, strict=True)}


def duel(args: argparse.Namespace, log: Any) -> list[dict[str, Any]]:
    start = time.perf_counter()
    step = max(1, math.ceil(args.pairs / (4 * args.workers)))
    jobs = [(args.candidate, args.opponents, args.seed, lo, min(args.pairs, lo + step))
            for lo in range(0, args.pairs, step)]
    from tqdm import tqdm

    from pyanitsa.ratings.scores import half_width, mean_var

    scores: dict[str, list[float]] = {o: [] for o in args.opponents}
    with ProcessPoolExecutor(args.workers) as pool, \
            tqdm(total=args.pairs, unit="deal", leave=False, dynamic_ncols=True) as bar:
        for (_, _, _, lo, hi), part in zip(jobs, pool.map(duel_chunk, jobs), strict=True):
            for name, xs in part.items():
                scores[name].extend(xs)
            bar.update(hi - lo)
    rows = []
    for name in args.opponents:
        xs = scores[name]
        n = len(xs)
        mean, half = mean_var(xs)[0], half_width(xs, spread="normal") or 0.0
        rows.append({"opponent": name, "pairs": n, "score": mean,
                     "ci95": [mean - half, mean + half], "beats": mean - half > 0.5})
        print(f"duel {name:<30} vs {args.candidate}: {mean:.3f} [{mean - half:.3f}, "
              f"{mean + half:.3f}] {'BEATS it' if mean - half > 0.5 else 'does not beat it'}",
              file=log, flush=True)
    print(f"duel: {time.perf_counter() - start:.0f} s", file=log, flush=True)
    return rows


def label(row: dict[str, Any]) -> str:
    if row["method"] == "exact":
        return f"{row['agent']} (exact; {row['deals']} deals)"
    fit = f"{row['samples']}/{row['fresh']}"
    return f"{row['agent']} (at least; {row['deals']} deals, {fit} samples)"


def plot(path: str, rows: Sequence[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(rows, key=lambda r: r["exploitability"])
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.2), dpi=100)
    ys = range(len(rows))
    x = [r["exploitability"] for r in rows]
    err = [[r["exploitability"] - r["ci95"][0] for r in rows],
           [r["ci95"][1] - r["exploitability"] for r in rows]]
    colors = ["tab:green" if r["agent"] == "nash" else
              ("tab:blue" if r["agent"] == "random" else "tab:gray") for r in rows]
    ax.barh(list(ys), x, xerr=err, color=colors, capsize=3)
    ax.set_yticks(list(ys), [label(r) for r in rows], fontsize=8)
    ax.set_xscale("symlog", linthresh=0.1)  # linear near 0, where lower bounds can dip below
    ax.axvline(0.0, color="black", lw=0.8)
    ax.set_xlabel("exploitability, cards a game (symlog scale), 95% interval over deals")
    ax.set_title("Tactical 36, two players: what a best response gains")
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", choices=("table", "side", "duel"))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--samples", type=int, default=128)
    ap.add_argument("--fresh", type=int, default=512)
    ap.add_argument("--slow-deals", type=int, default=20)
    ap.add_argument("--slow-samples", type=int, default=16)
    ap.add_argument("--slow-fresh", type=int, default=32)
    ap.add_argument("--side-deals", type=int, default=100)
    ap.add_argument("--side-samples", type=int, default=1024)
    ap.add_argument("--side-fresh", type=int, default=2048)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--candidate", default="nash")
    ap.add_argument("--plot", metavar="FILE.png")
    ap.add_argument("--agent", action="append", metavar="SPEC",
                    help="table only these agents (repeatable; the slow ones keep their sizes)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    args.fast, args.slow, args.opponents = list(FAST), list(SLOW), list(OPPONENTS)
    if args.agent:
        args.fast = [a for a in args.agent if a not in SLOW]
        args.slow = [a for a in args.agent if a in SLOW]
    if args.quick:
        args.deals = args.slow_deals = args.side_deals = args.pairs = 2
        args.samples = args.slow_samples = args.side_samples = 4
        args.fresh = args.slow_fresh = args.side_fresh = 8
        args.fast, args.slow = ["random", "descending", "nash(iterations=5)"], []
        args.opponents, args.workers = ["random", "best_response(target=descending)"], 1
        args.candidate = "nash(iterations=5)"
    only = set(args.only or ("table", "side", "duel"))
    log = sys.stderr if args.json else sys.stdout
    out: dict[str, Any] = {"machine": machine_basics(), "seed": args.seed}
    if "table" in only:
        out["table"] = table(args, log)
        if args.plot:
            plot(args.plot, out["table"])
    if "side" in only:
        out["side"] = side(args, log)
    if "duel" in only:
        out["duel"] = duel(args, log)
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
