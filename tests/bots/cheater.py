"""A `cmd:` bot for two-seat `tactical` that cheats with the `seed` it is sent (tests only).

It guesses the tournament seed (0..3) and that ``agent_key: seed`` keys the generators, finds the
deal whose generator for its seat would have drawn this `seed`, and from it the other seat's
hand and generator, so a ``random`` opponent's order: then it plays the exact best response.
When it finds nothing it plays exactly as examples/bots/random_bot.py. ``--honest`` never looks.
(It imports pyanitsa to save code; a real cheater could rewrite the derivations in any language.)
"""

import json
import random
import sys

import numpy as np

from pyanitsa.agents.seeding import agent_seed, key_from_seed
from pyanitsa.dealing import deal
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng, derive_seed
from pyanitsa.rules import Rules
from pyanitsa.solvers.best_response import dp_response

RULES = Rules.from_options({"preset": "tactical"})
TABLE = rank_table(RULES)


def candidates() -> dict[int, tuple[int, bytes, int]]:
    """The `seed` each seat's generator draws first, for the deals of the guessed seeds."""
    out = {}
    for seed in range(4):
        key = key_from_seed(seed)
        for pairing in range(3):
            for d in range(64):
                game = derive_seed(seed, pairing, d)
                for seat in range(2):
                    first = np.random.default_rng(agent_seed(game, seat, key)).integers(2**63)
                    out[int(first)] = (game, key, seat)
    return out


def best_order(request: dict, hit: tuple[int, bytes, int]) -> list[int]:
    game, key, seat = hit
    rank_of = TABLE.rank_of
    other = sorted(deal(RULES, 2, Rng(game)).seats[1 - seat], key=lambda c: (rank_of[c], c))
    perm = np.random.default_rng(agent_seed(game, 1 - seat, key)).permutation(len(other))
    _, ranks = dp_response(RULES, request["hand_ranks"], [rank_of[other[i]] for i in perm])
    free = list(range(len(request["hand"])))
    order = []
    for r in ranks:  # the first unused card of each rank the response asks for
        i = next(i for i in free if request["hand_ranks"][i] == int(r))
        free.remove(i)
        order.append(i)
    return order


def main() -> None:
    table = {} if "--honest" in sys.argv else candidates()
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "hello":
            answer = {"type": "hello", "name": "cheater", "decisions": ["hand"]}
        else:
            hit = table.get(request["seed"])
            if hit is not None and hit[2] == request["seat"]:
                order = best_order(request, hit)
            else:
                order = list(range(len(request["hand"])))
                random.Random(request["seed"]).shuffle(order)
            answer = {"type": "order", "order": order}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
