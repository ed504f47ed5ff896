"""``pyanitsa simulate``: many seeded games of any rules on the batch core, summarised."""

from __future__ import annotations

import argparse
import json
import time

from pyanitsa.cli import argtypes
from pyanitsa.cli.errors import CliError
from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args
from pyanitsa.interrupts import INTERRUPTED, ctrl_c_between_calls
from pyanitsa.results import ClassicResult, Termination
from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules

MAX_GAMES = 2**62
"""The most games one run may ask for: game numbers stay inside the batch core's 64-bit
counters. Memory does not grow with it (the games are counted chunk by chunk)."""

FIRST_CHUNK = 1024
"""Games in the first batch-core call; the chunk doubles while a call takes under
``CHUNK_SECONDS``, so a Ctrl-C or the progress bar waits at most about that long."""
MAX_CHUNK = 1 << 18
CHUNK_SECONDS = 0.25
AGENT_CHUNK = 256
"""Games per batch-core call when agents play."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play many seeded games on the batch core and summarise",
                       description="Deal and play N seeded games (game i from "
                                   "derive_seed(SEED, i), exactly as `pyanitsa play --seed` "
                                   "deals it) on the compiled batch core. Tactical hands play "
                                   "in the order dealt (uniformly random orders). The games "
                                   "are counted as they finish, so memory does not grow with "
                                   "N; Ctrl-C stops the run and prints the figures so far "
                                   "(marked partial, exit code 130).")
    add_rules_arguments(p)
    p.add_argument("--players", type=argtypes.players, default=2, help="seats, 2..8 (default 2)")
    p.add_argument("--games", type=argtypes.positive_at_most(MAX_GAMES, "game numbers are "
                                                         "64-bit"),
                   default=10000, help="games to play (default 10000, at most 2^62)")
    p.add_argument("--seed", type=argtypes.seed, default=0,
                   help="the run's seed, 0..2^64-1 (default 0)")
    p.add_argument("--workers", type=argtypes.workers, default=None, metavar="N",
                   help="threads (default: every core); results never depend on it")
    p.add_argument("--agents", metavar="SPEC,...",
                   help="an agent per seat (tactical: they order the hands; classic: they "
                        "pick up with pickup_order=agent); games then run one by one on the "
                        "reference engine through the agents' referee")
    p.add_argument("--swap", action="store_true",
                   help="with two --agents: play every deal twice, the second time with "
                        "the agents' seats swapped, and report each agent over both seats")
    p.add_argument("--plot", metavar="FILE.png",
                   help="write a histogram of game lengths, cycled and capped games marked")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pyanitsa.agents.specs import split_specs  # loaded by the command, not the parser

    if args.plot:
        check_plot_path(args.plot)  # before the games, not after them
    rules = rules_from_args(args)
    specs = split_specs(args.agents) if args.agents else None
    if specs is not None:
        if args.players != len(specs) and args.players != 2:
            raise CliError(f"--agents: {len(specs)} agents for {args.players} seats")
        args.players = len(specs)
    if args.swap and (specs is None or len(specs) != 2):
        raise CliError(f"--swap: needs two --agents, not {len(specs or [])}")
    rules.check_players(args.players)
    if specs is None and rules.pickup_order == "agent":
        raise CliError("pickup_order: agent needs --agents (one per seat)")
    from tqdm import tqdm

    from pyanitsa.batch.tally import SeatedTally, Tally

    tally = (Tally(rules, args.players, args.seed) if specs is None
             else SeatedTally(rules, specs, args.seed))
    total = args.games * (2 if args.swap else 1)
    start = time.perf_counter()
    interrupted = False
    with tqdm(total=total, unit="game", unit_scale=True, disable=args.no_progress,
              leave=False, dynamic_ncols=True) as bar:
        try:
            if specs is None:
                stream_batch(rules, args.players, args.games, args.seed, args.workers, tally,
                             bar.update)
            else:
                stream_agents(rules, tally, args.games, args.seed, args.swap, bar.update)
        except KeyboardInterrupt:  # the user's Ctrl-C: report the games counted so far
            interrupted = True
    summary = tally.summary(time.perf_counter() - start)
    if specs is not None:
        summary.update(agents=specs, swap=args.swap)
        if args.swap:
            summary["deals"] = tally.games // 2  # each played in both seatings
        summary["by_agent"] = tally.by_player()
    if interrupted:
        summary.update(partial=True, games_requested=total)
    if args.plot and tally.games:
        plot_lengths(tally, args.plot)
        summary["plot"] = args.plot
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print_summary(rules, args, summary)
    return INTERRUPTED if interrupted else 0


def print_summary(rules: Rules, args: argparse.Namespace, summary: dict) -> None:
    n = summary["games"]
    if summary.get("partial"):
        print(f"partial: interrupted after {n:,} of {summary['games_requested']:,} games; "
              "the figures below are for those games")
        if not n:
            return
    games = (f"{n} games ({n // 2} deals, both seatings)" if summary.get("swap")
             else f"{n} games")
    print(f"{rules.mode}, deck {rules.deck}, {args.players} players, {games}, seed {args.seed}"
          f" ({summary['seconds']:.2f} s)")
    options = rules.to_options()
    if options:
        print("rules: " + ", ".join(f"{k}={v}" for k, v in options.items()))
    print(f"rounds: mean {summary['mean_rounds']:.2f}, median {summary['median_rounds']:g}, "
          f"p10 {summary['p10_rounds']:g}, p90 {summary['p90_rounds']:g}, "
          f"max {summary['max_rounds']}")
    named = "by_agent" in summary and not summary["swap"]
    wins = ", ".join(f"P{s} {summary['agents'][s] + ' ' if named else ''}{w / n:.2%}"
                     for s, w in enumerate(summary["wins"]))
    print(f"wins: {wins}")
    for agent in summary.get("by_agent", []) if summary.get("swap") else []:
        seats = ", ".join(f"P{s} {w / g:.2%}" if g else f"P{s} -" for s, (w, g) in
                          enumerate(zip(agent["wins_by_seat"], agent["games_by_seat"],
                                        strict=True)))
        print(f"  {agent['agent']}: wins {agent['wins'] / agent['games']:.2%} of "
              f"{agent['games']} games ({seats})")
    if named and args.players == 2:
        print("(each agent kept its seat; --swap plays every deal in both seatings)")
    if rules.mode == "tactical":
        print(f"shared wins (draws): {summary['draws'] / n:.2%}")
    else:
        print(f"draws: {summary['draws'] / n:.2%}   cycles: {summary['cycles'] / n:.2%}   "
              f"capped: {summary['capped'] / n:.2%}")
    if args.plot:
        print(f"histogram: {args.plot}")


def stream_batch(rules: Rules, players: int, games: int, seed: int, workers: int | None,
                 tally, progress) -> None:
    """Play games 0..games-1 on the batch core chunk by chunk, adding each chunk to ``tally``."""
    from pyanitsa import batch  # looked up per run, so a test can stand in for the core

    first, chunk = 0, FIRST_CHUNK
    with ctrl_c_between_calls() as check:
        while first < games:
            n = min(chunk, games - first)
            started = time.perf_counter()
            tally.add(batch.simulate(rules, players, n, seed, workers=workers, first=first))
            first += n
            progress(n)
            check()
            if time.perf_counter() - started < CHUNK_SECONDS:
                chunk = min(2 * chunk, MAX_CHUNK)


def stream_agents(rules: Rules, tally, games: int, seed: int, swap: bool, progress) -> None:
    """Deal ``i`` from ``derive_seed(seed, i)``, played by the agents named in ``tally`` (with
    ``swap``, then again with their seats swapped); each chunk's games are added to it."""
    import numpy as np

    from pyanitsa.agents.game import play_games
    from pyanitsa.agents.specs import make_agent

    agents = [make_agent(s) for s in tally.names]
    seats = list(range(len(agents)))
    seatings = [seats, seats[::-1]] if swap else [seats]
    for first in range(0, games, AGENT_CHUNK):
        deals = range(first, min(games, first + AGENT_CHUNK))
        plan = [(seating, derive_seed(seed, i)) for i in deals for seating in seatings]
        # the agents decide game by game; the batch core plays a chunk's games in one call
        played = play_games(rules, [[agents[a] for a in s] for s, _ in plan],
                            [game_seed for _, game_seed in plan])
        chunk = chunk_simulation(rules, len(agents), seed, [t.outcome for t in played])
        tally.add_seated(chunk, np.array([s for s, _ in plan], np.int64))
        progress(len(plan))


def chunk_simulation(rules: Rules, players: int, seed: int, outcomes: list):
    """The ``Simulation`` arrays of games the referee played (an agent's failure is raised)."""
    import numpy as np

    from pyanitsa.batch.api import CAPPED, CYCLE, DRAW, WIN, Simulation

    codes = {Termination.WIN: WIN, Termination.DRAW: DRAW, Termination.CYCLE: CYCLE,
             Termination.CAPPED: CAPPED}
    games = len(outcomes)
    rounds = np.zeros(games, np.int64)
    showdowns = np.zeros(games, np.int64)
    outcome = np.zeros(games, np.int64)
    winner = np.full(games, -1, np.int64)
    tactical = rules.mode == "tactical"
    scores = np.zeros((games, players), np.int64) if tactical else None
    winners = np.zeros((games, players), bool) if tactical else None
    for i, played in enumerate(outcomes):
        if isinstance(played, Exception):
            raise played
        result = played.result
        rounds[i], showdowns[i] = result.rounds, result.showdowns
        if isinstance(result, ClassicResult):
            outcome[i] = codes[result.outcome]
            winner[i] = -1 if result.winner is None else result.winner
        else:
            assert scores is not None and winners is not None
            scores[i] = result.scores
            winners[i, list(result.winners)] = True
            outcome[i] = WIN if len(result.winners) == 1 else DRAW
            winner[i] = result.winners[0] if len(result.winners) == 1 else -1
    return Simulation(rules, players, seed, rounds, showdowns, outcome, winner, scores=scores,
                      winners=winners)


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


def plot_lengths(tally, path: str) -> None:
    """Write the histogram of game lengths (:func:`length_figure`) to ``path``."""
    import matplotlib.pyplot as plt

    fig = length_figure(tally)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def length_figure(tally):
    """Games by length, stacked by how they ended: finished, cycled, capped at ``max_rounds``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from pyanitsa.batch.encode import CAPPED, CYCLE, DRAW, WIN

    lengths = tally.lengths
    seen = np.flatnonzero(tally.histogram)
    lo, hi = int(seen[0]), int(seen[-1])
    bins = np.arange(0, hi + 2) - 0.5 if hi <= 120 else np.linspace(lo, hi, 101)
    rows = [("finished", lengths[WIN] + lengths[DRAW], "#4477aa"),
            ("cycled", lengths[CYCLE], "#ee7733"),
            (f"capped at max_rounds={tally.rules.max_rounds}", lengths[CAPPED], "#cc3311")]
    if tally.rules.mode == "tactical":  # tactical games always finish
        rows = rows[:1]
    rows = [(f"{label} ({int(row.sum()):,})", row, colour) for label, row, colour in rows
            if row.sum() or label == "finished"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    at = np.arange(lengths.shape[1])
    ax.hist([at] * len(rows), bins=bins, weights=[row for _, row, _ in rows], stacked=True,
            color=[colour for *_, colour in rows], label=[label for label, *_ in rows])
    if len(rows) > 1:
        ax.legend()
    ax.set_xlabel("rounds")
    ax.set_ylabel("games")
    ax.set_title(f"{tally.rules.mode}, deck {tally.rules.deck}, {tally.players} players: "
                 f"{tally.games} games, mean {tally.rounds_total / tally.games:.1f} rounds")
    fig.tight_layout()
    return fig
