"""Duplicate head-to-head: each scripted heuristic against an opponent (``random``).

Every deal is played with the heuristic in each seat in turn and the opponent in the others,
so luck of the deal cancels; a deal scores the heuristic's mean over its seats (win 1, a win
shared by k seats 1/k, loss 0; a fair share is 1/players). Tactical presets compare hand
orders; classic presets compare pickup agents (``pickup_order: agent``). Prints, per
heuristic, that score with a 95% interval over deals and the mean card margin (tactical) or
game length (classic); with several opponents (``--opponent a,b``) a matrix of scores.

    python benchmarks/heuristics_h2h.py --deals 2000 --seed 1
    python benchmarks/heuristics_h2h.py --opponent descending --preset tactical-52
    python benchmarks/heuristics_h2h.py --deals 500 --opponent random,descending,tie_aware
    python benchmarks/heuristics_h2h.py --preset classic-ru --deals 500
"""

from __future__ import annotations

import argparse
import math
import time

from pyanitsa.agents import make_agent
from pyanitsa.agents.game import play_games, results_of
from pyanitsa.agents.specs import split_specs
from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules, preset

TACTICAL = ("random,ascending,descending,strongest_first,strongest_last,sacrifice,"
            "sacrifice(assume=ascending),tie_aware,mixed")
CLASSIC = ("random,pickup_table,pickup_winner_first,pickup_loser_first,pickup_high_first,"
           "pickup_low_first,pickup_natural,pickup_tie_aware,pickup_strong_ties")


def duel(rules: Rules, spec: str, opponent: str, deals: int, seed: int,
         players: int = 2) -> tuple[float, float, float]:
    """(mean score per deal, its 95% half-width, mean margin or length) of ``spec``."""
    me, other = make_agent(spec), make_agent(opponent)
    seeds, seatings = [], []
    for i in range(deals):
        for seat in range(players):
            agents = [other] * players
            agents[seat] = me
            seeds.append(derive_seed(seed, i))
            seatings.append(agents)
    results = results_of(play_games(rules, seatings, seeds))  # decisions, then the batch core
    per_deal, extra = [], []
    for i in range(deals):
        total = 0.0
        for seat in range(players):
            result = results[i * players + seat]
            if seat in result.winners:
                total += 1.0 / len(result.winners)
            if rules.mode == "tactical":
                extra.append(result.scores[seat] - max(result.scores[:seat]
                                                       + result.scores[seat + 1:]))
            else:
                extra.append(result.rounds)
        per_deal.append(total / players)
    mean = sum(per_deal) / deals
    var = sum((p - mean) ** 2 for p in per_deal) / max(1, deals - 1)
    return mean, 1.96 * math.sqrt(var / deals), sum(extra) / len(extra)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals (each in every seat)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="tactical", help="a tactical or classic preset")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="random",
                        help="the agent every heuristic meets (several, comma-separated: a "
                             "matrix)")
    parser.add_argument("--agents", default=None, help="comma-separated specs")
    args = parser.parse_args()
    rules = preset(args.preset)
    if rules.mode == "classic":
        rules = rules.replace(pickup_order="agent")
    specs = split_specs(args.agents or (TACTICAL if rules.mode == "tactical" else CLASSIC))
    opponents = split_specs(args.opponent)
    print(f"{args.preset}, {args.players} players, {args.deals} deals x {args.players} seats, "
          f"seed {args.seed}")
    if len(opponents) > 1:
        for k, o in enumerate(opponents):
            print(f"  column {k}: {o}")
        width = max(30, *(len(s) for s in specs))
        print(f"{'row vs column':<{width}} " + " ".join(f"{k:>6}" for k in range(len(opponents))))
        for spec in specs:
            row = [duel(rules, spec, o, args.deals, args.seed, args.players)[0]
                   for o in opponents]
            print(f"{spec:<{width}} " + " ".join(f"{x:6.3f}" for x in row), flush=True)
        return
    print(f"opponent {opponents[0]}")
    extra = "margin" if rules.mode == "tactical" else "rounds"
    print(f"{'heuristic':<30} {'score':>7} {'+-95%':>6} {extra:>7}")
    for spec in specs:
        start = time.perf_counter()
        mean, half, more = duel(rules, spec, opponents[0], args.deals, args.seed, args.players)
        print(f"{spec:<30} {mean:7.3f} {half:6.3f} {more:+7.2f}   "
              f"({time.perf_counter() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
