"""``pyanitsa solve``: the exact equilibrium of a two-player tactical deal.

It prints the value of one deal (each seat's expected score at equilibrium), the equilibrium
mixes over rank orders and the solve time, for the zero-sum game of
:mod:`pyanitsa.solvers.exact`: the payoff is the score difference (or its sign with
``--objective win``), flipped under misère. ``pyanitsa exploit`` is in
:mod:`pyanitsa.cli.exploit`.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

from pyanitsa.cli import argtypes
from pyanitsa.cli.errors import CliError
from pyanitsa.cli.rules_args import add_rules_arguments, rules_from_args
from pyanitsa.rules import Rules


def register(sub: argparse._SubParsersAction) -> None:
    from pyanitsa.solvers.exact import SOLVE_MAX_ORDERS

    p = sub.add_parser(
        "solve", help="exact equilibrium of a two-player tactical deal (LP)",
        description="Solve a two-player tactical deal exactly: the zero-sum game over each "
                    "seat's distinct rank orders with payoff seat 0's score minus seat 1's "
                    "(misère: negated), by linear programming (scipy HiGHS): one LP for a "
                    "small game, else a double oracle whose best responses score every order "
                    "of each seat without building the payoff matrix (hands of up to ten "
                    "cards by default). Prints each seat's expected score at equilibrium, the "
                    "equilibrium mixes, how much a best response could gain against them and "
                    "the solve time.",
        epilog="example:\n  pyanitsa solve --deck ranks=6,suits=2 --hand 6,4,3,1 --hand 5,5,2,1")
    add_rules_arguments(p)
    p.add_argument("--hand", action="append", default=[], metavar="CARDS",
                   help="a seat's hand, comma-separated (As,Kd,... or research values 4,4,2); "
                        "give it twice, seat 0 first")
    _common(p, SOLVE_MAX_ORDERS)
    p.add_argument("--json", action="store_true",
                   help="one JSON object: value (per seat), strategies (per seat, "
                        "[{order, p}]), margin, orders, method, gap, seconds, load_seconds")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar for the double oracle's rounds (on stderr)")
    p.set_defaults(run=run_solve)


def _common(p: argparse.ArgumentParser, max_orders: int | None = None) -> None:
    """The flags both commands share; ``max_orders`` is the command's default bound (the
    equilibrium agent's when None)."""
    from pyanitsa.solvers.exact import DEFAULT_MAX_ORDERS

    bound = DEFAULT_MAX_ORDERS if max_orders is None else max_orders
    p.add_argument("--max-orders", type=argtypes.positive_int, default=bound, metavar="N",
                   help=f"refuse hands with more distinct rank orders (default {bound:,})")
    p.add_argument("--objective", choices=("margin", "win"), default="margin",
                   help="payoff: the score difference (default) or its sign")


def tactical_rules(args: argparse.Namespace) -> Rules:
    """The rules flags with the mode forced to tactical."""
    if args.mode == "classic":
        raise CliError("--mode classic: solve and exploit analyse tactical deals")
    args.mode = "tactical"
    return rules_from_args(args)


# -- solve -----------------------------------------------------------------------------------------


class OracleBar:
    """A tqdm bar for the double oracle: how far its gap has come down from the first round's
    towards the tolerance, on a log scale (the gap shrinks by factors, so that is what gives an
    ETA), with the round and both supports beside it. Opened at the first round, so a game
    solved by one LP shows none."""

    def __init__(self, *, disable: bool) -> None:
        self.disable = disable
        self.bar: Any = None
        self.first = 0.0

    def __enter__(self) -> OracleBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

    def update(self, rnd: int, gap: float, support0: int, support1: int) -> None:
        from pyanitsa.solvers.lp import ORACLE_TOLERANCE

        if self.disable:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.first = max(gap, ORACLE_TOLERANCE * 10)
            self.bar = tqdm(total=1000, desc="solve", unit="", leave=False,
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| "
                                       "[{elapsed}<{remaining}{postfix}]")
        span = math.log(self.first / ORACLE_TOLERANCE)
        done = math.log(self.first / max(gap, ORACLE_TOLERANCE)) / span
        self.bar.set_postfix_str(f"round {rnd}, gap {gap:.1e}, support {support0}/{support1}",
                                 refresh=False)
        self.bar.update(max(0, min(1000, round(1000 * done)) - self.bar.n))


def run_solve(args: argparse.Namespace) -> int:
    from pyanitsa.agents.search import cards_for_ranks
    from pyanitsa.ranks import rank_table
    from pyanitsa.solvers.exact import check_size, solve_deal, warm_up

    rules = tactical_rules(args)
    if len(args.hand) != 2:
        raise CliError(f"give exactly two --hand options (seat 0, then seat 1), not "
                       f"{len(args.hand)}")
    if args.max_orders < 1:
        raise CliError("--max-orders must be at least 1")
    deck = rules.deck
    used: set[int] = set()
    hands = []
    for seat, text in enumerate(args.hand):
        try:
            hands.append(deck.parse_cards([p.strip() for p in text.split(",") if p.strip()],
                                          used=used))
        except ValueError as exc:
            raise CliError(f"--hand {text!r} (seat {seat}): {exc}") from None
        if not hands[-1]:
            raise CliError(f"--hand {text!r} (seat {seat}): no cards")
    table = rank_table(rules)
    ranks = [[table.rank_of[c] for c in h] for h in hands]
    for seat in range(2):
        check_size(ranks[seat], args.max_orders, f"seat {seat}'s hand")
    load = warm_up()
    start = time.perf_counter()
    with OracleBar(disable=args.no_progress) as bar:
        sol = solve_deal(rules, ranks[0], ranks[1], max_orders=args.max_orders,
                         objective=args.objective, progress=bar.update)
    seconds = time.perf_counter() - start
    strategies = [[{"order": deck.cards_json(cards_for_ranks(hands[s], order, table)),
                    "p": p} for order, p in sol.support(s)] for s in range(2)]
    out: dict[str, Any] = {
        "value": list(sol.expected_scores), "strategies": strategies,
        "margin": sol.value if args.objective == "margin" else None,
        "objective": args.objective, "game_value": sol.value,
        "orders": [len(sol.orders[0]), len(sol.orders[1])], "method": sol.method,
        "gap": sol.gap, "seconds": round(seconds, 4), "load_seconds": round(load, 4),
        "deck": str(deck), "rules": rules.to_options(),
    }
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0
    names = [" ".join(deck.card_name(c) for c in h) for h in hands]
    print(f"deck {deck}; seat 0: {names[0]}; seat 1: {names[1]}")
    what = "score difference" if args.objective == "margin" else "sign of the score difference"
    flip = ", misère: negated" if rules.misere else ""
    print(f"value: seat 0 {sol.expected_scores[0]:.6g}, seat 1 {sol.expected_scores[1]:.6g} "
          f"(expected scores); game value {sol.value + 0.0:+.6g} for seat 0 ({what}{flip})")
    print(f"{out['orders'][0]:,} x {out['orders'][1]:,} distinct rank orders; "
          f"{sol.method}; solved in {seconds:.3f} s (+{load:.3f} s loading the compiled "
          "kernels and the LP solver)")
    print(f"exact: a best response over every order gains at most {sol.gap:.1e} against "
          "these mixes")
    for s in range(2):
        print(f"seat {s} equilibrium ({len(strategies[s])} orders, first played first):")
        for row in strategies[s]:
            cards = " ".join(str(c) for c in row["order"])
            print(f"  {row['p']:.6f}  {cards}")
    return 0
