"""``pyanitsa simulate``: many seeded games of any rules on the batch core, summarised."""

from __future__ import annotations

import argparse
import json

from pyanitsa.cli import CliError
from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play many seeded games on the batch core and summarise",
                       description="Deal and play N seeded games (game i from "
                                   "derive_seed(SEED, i), exactly as `pyanitsa play --seed` "
                                   "deals it) on the compiled batch core. Tactical hands play "
                                   "in the order dealt (uniformly random orders).")
    add_rules_arguments(p)
    p.add_argument("--players", type=int, default=2, help="seats, 2..8 (default 2)")
    p.add_argument("--games", type=int, default=10000, help="games to play (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="threads (default: every core); results never depend on it")
    p.add_argument("--plot", metavar="FILE.png", help="write a histogram of game lengths")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if args.games < 1:
        raise CliError(f"--games {args.games}: must be positive")
    rules.check_players(args.players)
    from pyanitsa.batch import simulate

    sim = simulate(rules, args.players, args.games, args.seed, workers=args.workers)
    summary = sim.summary()
    if args.plot:
        plot_lengths(sim, args.plot)
        summary["plot"] = args.plot
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    n = summary["games"]
    print(f"{rules.mode}, deck {rules.deck}, {args.players} players, {n} games, seed {args.seed}"
          f" ({summary['seconds']:.2f} s)")
    options = rules.to_options()
    if options:
        print("rules: " + ", ".join(f"{k}={v}" for k, v in options.items()))
    print(f"rounds: mean {summary['mean_rounds']:.2f}, median {summary['median_rounds']:g}, "
          f"p10 {summary['p10_rounds']:g}, p90 {summary['p90_rounds']:g}, "
          f"max {summary['max_rounds']}")
    wins = ", ".join(f"P{s} {w / n:.2%}" for s, w in enumerate(summary["wins"]))
    print(f"wins: {wins}")
    if rules.mode == "tactical":
        print(f"shared wins (draws): {summary['draws'] / n:.2%}")
    else:
        print(f"draws: {summary['draws'] / n:.2%}   cycles: {summary['cycles'] / n:.2%}   "
              f"capped: {summary['capped'] / n:.2%}")
    if args.plot:
        print(f"histogram: {args.plot}")
    return 0


def plot_lengths(sim, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rounds = sim.rounds
    fig, ax = plt.subplots(figsize=(8, 4.5))
    hi = int(rounds.max()) if len(rounds) else 1
    bins = np.arange(0, hi + 2) - 0.5 if hi <= 120 else 100
    ax.hist(rounds, bins=bins, color="#4477aa")
    ax.set_xlabel("rounds")
    ax.set_ylabel("games")
    ax.set_title(f"{sim.rules.mode}, deck {sim.rules.deck}, {sim.players} players: "
                 f"{sim.games} games, mean {rounds.mean():.1f} rounds")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
