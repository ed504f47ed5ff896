"""``pyanitsa simulate``: many seeded games of any rules on the batch core, summarised."""

from __future__ import annotations

import argparse
import json

from pyanitsa import argtypes
from pyanitsa.errors import CliError
from pyanitsa.hooks import hook, split_specs
from pyanitsa.results import ClassicResult, Termination
from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules
from pyanitsa.rules_args import add_rules_arguments, rules_from_args

MAX_GAMES = 10_000_000
"""The most games one run holds in memory (7 int64 results a game: about 1 GB with copies)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play many seeded games on the batch core and summarise",
                       description="Deal and play N seeded games (game i from "
                                   "derive_seed(SEED, i), exactly as `pyanitsa play --seed` "
                                   "deals it) on the compiled batch core. Tactical hands play "
                                   "in the order dealt (uniformly random orders).")
    add_rules_arguments(p)
    p.add_argument("--players", type=argtypes.players, default=2, help="seats, 2..8 (default 2)")
    p.add_argument("--games", type=argtypes.positive_at_most(MAX_GAMES, "the results of every "
                                                         "game are held in memory; run more "
                                                         "with another --seed"),
                   default=10000, help=f"games to play (default 10000, at most {MAX_GAMES:,})")
    p.add_argument("--seed", type=argtypes.seed, default=0,
                   help="the run's seed, 0..2^64-1 (default 0)")
    p.add_argument("--workers", type=argtypes.positive_int, default=None, metavar="N",
                   help="threads (default: every core); results never depend on it")
    p.add_argument("--agents", metavar="SPEC,...",
                   help="an agent per seat (tactical: they order the hands; classic: they "
                        "pick up with pickup_order=agent); games then run one by one on the "
                        "reference engine through the agents' referee")
    p.add_argument("--plot", metavar="FILE.png", help="write a histogram of game lengths")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.plot:
        check_plot_path(args.plot)  # before the games, not after them
    rules = rules_from_args(args)
    specs = split_specs(args.agents) if args.agents else None
    if specs is not None:
        if args.players != len(specs) and args.players != 2:
            raise CliError(f"--agents: {len(specs)} agents for {args.players} seats")
        args.players = len(specs)
    rules.check_players(args.players)
    if specs is None:
        if rules.pickup_order == "agent":
            raise CliError("pickup_order: agent needs --agents (one per seat)")
        from pyanitsa.batch import simulate

        sim = simulate(rules, args.players, args.games, args.seed, workers=args.workers)
    else:
        sim = simulate_agents(rules, specs, args.games, args.seed)
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


AGENT_CHUNK = 256
"""Games per batch-core call when agents play."""


def simulate_agents(rules: Rules, specs: list[str], games: int, seed: int):
    """Game ``i`` dealt from ``derive_seed(seed, i)`` and played by the named agents."""
    import time

    import numpy as np
    from tqdm import tqdm

    from pyanitsa.batch.api import CAPPED, CYCLE, DRAW, WIN, Simulation

    agents = [hook("make_agent")(s) for s in specs]
    play_games = hook("play_games")
    players = len(agents)
    rounds = np.zeros(games, np.int64)
    showdowns = np.zeros(games, np.int64)
    outcome = np.zeros(games, np.int64)
    winner = np.full(games, -1, np.int64)
    scores = np.zeros((games, players), np.int64) if rules.mode == "tactical" else None
    winners = np.zeros((games, players), bool) if rules.mode == "tactical" else None
    codes = {Termination.WIN: WIN, Termination.DRAW: DRAW, Termination.CYCLE: CYCLE,
             Termination.CAPPED: CAPPED}
    start = time.perf_counter()
    with tqdm(total=games, unit="game", leave=False, dynamic_ncols=True) as bar:
        # the agents decide game by game; the batch core plays a chunk's games in one call
        for first in range(0, games, AGENT_CHUNK):
            idx = range(first, min(games, first + AGENT_CHUNK))
            played = play_games(rules, [agents] * len(idx), [derive_seed(seed, i) for i in idx])
            for i, timed in zip(idx, played, strict=True):
                if isinstance(timed.outcome, Exception):
                    raise timed.outcome
                result = timed.outcome.result
                rounds[i], showdowns[i] = result.rounds, result.showdowns
                if isinstance(result, ClassicResult):
                    outcome[i] = codes[result.outcome]
                    winner[i] = -1 if result.winner is None else result.winner
                else:
                    assert scores is not None and winners is not None
                    scores[i] = result.scores
                    winners[i, list(result.winners)] = True
                    outcome[i] = 0 if len(result.winners) == 1 else 1
                    winner[i] = result.winners[0] if len(result.winners) == 1 else -1
            bar.update(len(idx))
    return Simulation(rules, players, seed, rounds, showdowns, outcome, winner, scores=scores,
                      winners=winners, seconds=time.perf_counter() - start,
                      extra={"agents": specs})


def check_plot_path(path: str) -> None:
    """Raise CliError unless matplotlib can write ``path``'s format (named by its extension)."""
    import os

    from matplotlib.backend_bases import FigureCanvasBase

    supported = sorted(FigureCanvasBase.get_supported_filetypes())
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext not in supported:
        raise CliError(f"--plot {path!r}: {'.' + ext if ext else 'no extension'} is not a "
                       f"supported image format (one of {', '.join(supported)})")
    if os.path.isdir(path):
        raise CliError(f"--plot {path!r}: is a directory")


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
