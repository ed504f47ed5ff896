"""Strength at every table: the exploitability of every built-in agent at 2, 3, 4 and 6 players.

    .venv/bin/python benchmarks/strength_players.py --out strength_players.jsonl \\
        --plot docs/strength_players.png --markdown            # the table (hours on two cores)
    .venv/bin/python benchmarks/strength_players.py --quick      # a smoke run

Tactical 36 (the ``tactical`` preset), deals ``derive_seed(SEED, i)`` as ``pyanitsa play`` deals
them. A cell is one agent at one player count: :func:`pyanitsa.solvers.exploitability.exploit_deals`
(two players: NashConv / 2 against a best response that sees the opponent's hand, as
``pyanitsa exploit``; three or more: NashConv / N, a response that knows only its own hand,
fitted on ``--samples`` sampled worlds and scored on ``--fresh`` fresh ones). Every cell of a
column uses the same deals and the same response, so ``random`` beside an agent is a fair
yardstick. Search agents (every call a search) get fewer deals and samples, as the table says.

Cells run in ``--workers`` processes, one cell a job; each finished cell is appended to
``--out`` at once, so an interrupted run loses nothing finished and a rerun skips the cells
already there (same agent, players, deals, samples, fresh and seed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # batch_bench.py beside
from batch_bench import machine_basics  # noqa: E402

FAST = ("random", "ascending", "descending", "sacrifice", "tie_aware", "mixed", "nash")
TWO_ONLY = ("ppo:tactical-2p",)
"""Agents made for one table size; they are tabled where they were made for."""
SLOW = ("mc_search", "best_response(target=random)")
PLAYERS = (2, 3, 4, 6)


def cell_key(c: dict[str, Any]) -> tuple[Any, ...]:
    return (c["agent"], c["players"], c["deals"], c["samples"], c["fresh"], c["seed"])


def run_cell(job: dict[str, Any]) -> dict[str, Any]:
    from pyanitsa import preset
    from pyanitsa.agents import make_agent
    from pyanitsa.solvers.exploitability import exploit_deals

    rep = exploit_deals(preset("tactical"), make_agent(job["agent"]), deals=job["deals"],
                        seed=job["seed"], samples=job["samples"], fresh=job["fresh"],
                        players=job["players"])
    return {**job, "exploitability": rep["exploitability"], "ci95": rep["ci95"],
            "method": rep["method"], "seconds": rep["seconds"]}


def plan(args: argparse.Namespace) -> list[dict[str, Any]]:
    jobs = []
    for players in args.players:
        agents = [a for a in dict.fromkeys([*args.fast, *(TWO_ONLY if players == 2 else ())])
                  if players == 2 or a not in TWO_ONLY]
        for agent in agents:
            jobs.append({"agent": agent, "players": players, "deals": args.deals,
                         "samples": args.samples, "fresh": args.fresh, "seed": args.seed})
        for agent in args.slow:
            jobs.append({"agent": agent, "players": players, "deals": args.slow_deals,
                         "samples": args.slow_samples, "fresh": args.slow_fresh,
                         "seed": args.seed})
    return jobs


def load(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    from tqdm import tqdm

    out = Path(args.out)
    done = load(out)
    have = {cell_key(c) for c in done}
    todo = [j for j in plan(args) if cell_key(j) not in have]
    with ProcessPoolExecutor(args.workers) as pool, out.open("a") as sink, \
            tqdm(total=len(todo), unit="cell", dynamic_ncols=True) as bar:
        futures = {pool.submit(run_cell, j): j for j in todo}
        for fut in as_completed(futures):
            cell = fut.result()
            sink.write(json.dumps(cell) + "\n")
            sink.flush()
            done.append(cell)
            bar.update(1)
            bar.write(f"{cell['agent']:<30} {cell['players']}p {cell['exploitability']:7.3f} "
                      f"[{cell['ci95'][0]:.3f}, {cell['ci95'][1]:.3f}] {cell['method']} "
                      f"({cell['seconds']:.0f} s)")
    have = {cell_key(c): c for c in done}
    return [have[cell_key(j)] for j in plan(args) if cell_key(j) in have]  # in the plan's order


def markdown(cells: Sequence[dict[str, Any]], players: Sequence[int]) -> str:
    agents = list(dict.fromkeys(c["agent"] for c in cells))
    by = {(c["agent"], c["players"]): c for c in cells}
    lines = ["| agent | " + " | ".join(f"{p} players" for p in players) + " |",
             "|---|" + "---|" * len(players)]
    for a in agents:
        row = []
        for p in players:
            c = by.get((a, p))
            if c is None:
                row.append("")
                continue
            lo, hi = c["ci95"]
            tag = "" if c["method"] == "exact" else "≥ "
            row.append(f"{tag}{c['exploitability']:.2f} [{lo:.2f}, {hi:.2f}] "
                       f"({c['deals']} deals, {c['samples']}/{c['fresh']}, {c['seconds']:.0f} s)")
        lines.append(f"| `{a}` | " + " | ".join(row) + " |")
    return "\n".join(lines)


def plot(path: str, cells: Sequence[dict[str, Any]], players: Sequence[int]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    agents = list(dict.fromkeys(c["agent"] for c in cells))
    for k, a in enumerate(agents):
        pts = sorted((c["players"], c) for c in cells if c["agent"] == a)
        xs = [p + 0.06 * (k - len(agents) / 2) for p, _ in pts]  # side by side, not on top
        ys = [c["exploitability"] for _, c in pts]
        err = [[c["exploitability"] - c["ci95"][0] for _, c in pts],
               [c["ci95"][1] - c["exploitability"] for _, c in pts]]
        style = {"random": dict(color="tab:blue", lw=2.5), "nash": dict(color="tab:green", lw=2.5)}
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=a, **style.get(a, {"lw": 1}))
    ax.set_xticks(list(players))
    ax.set_yscale("symlog", linthresh=0.1)  # lower bounds near 0 can dip below it
    ax.set_xlabel("players at the table")
    ax.set_ylabel("exploitability, cards a game (NashConv / N; symlog)")
    ax.set_title("Tactical 36: what a best response gains against each agent")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=list(PLAYERS))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--samples", type=int, default=128)
    ap.add_argument("--fresh", type=int, default=512)
    ap.add_argument("--slow-deals", type=int, default=10)
    ap.add_argument("--slow-samples", type=int, default=16)
    ap.add_argument("--slow-fresh", type=int, default=32)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--agent", action="append", metavar="SPEC",
                    help="table only these agents (repeatable)")
    ap.add_argument("--out", default="strength_players.jsonl", metavar="FILE.jsonl")
    ap.add_argument("--plot", metavar="FILE.png")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    args = ap.parse_args(argv)
    args.fast, args.slow = list(FAST), list(SLOW)
    if args.agent:
        args.fast = [a for a in args.agent if a not in SLOW]
        args.slow = [a for a in args.agent if a in SLOW]
    if args.quick:
        args.deals = args.slow_deals = 2
        args.samples = args.slow_samples = 4
        args.fresh = args.slow_fresh = 8
        args.fast, args.slow, args.players = ["random", "descending"], [], [2, 3]
    cells = measure(args)
    print(json.dumps({"machine": machine_basics(), "cells": len(cells)}))
    if args.markdown:
        print(markdown(cells, args.players))
    if args.plot:
        plot(args.plot, cells, args.players)
    return 0


if __name__ == "__main__":
    sys.exit(main())
