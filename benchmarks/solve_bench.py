"""``pyanitsa solve`` on whole two-player deals: solve time, process peak memory, and exactness
checked by brute force.

    .venv/bin/python benchmarks/solve_bench.py                      # 9 and 10 cards, 10 deals each
    .venv/bin/python benchmarks/solve_bench.py --cards 9 --deals 10
    .venv/bin/python benchmarks/solve_bench.py --cards 10 --worst --json > solve.json
    .venv/bin/python benchmarks/solve_bench.py --quick              # a smoke run (2 deals of 9)

Cases: for each ``--cards N``, the deck ``ranks=N,suits=2`` (2N cards, every card dealt, N a
player). Deal ``k`` is the ``k``-th ``numpy.random.default_rng(seed).permutation(2N)`` of the
card ids (one generator per N, so the 9-card deals do not depend on whether 10 is asked for):
seat 0 gets the first N cards, seat 1 the rest, passed to the CLI as research values.
``--worst`` adds, per N, the hand with the most distinct orders: both seats hold one card of
every rank (``N,N-1,..,1``, N! orders a side).

Each case is its own ``python -m pyanitsa solve ... --json`` process, one at a time (nothing
else of ours runs while it solves): its wall time from ``Popen`` to exit, its own peak RSS
(``ru_maxrss`` of ``os.wait4``) and the CLI's ``seconds`` (the solve alone, kernels loaded).
``--timeout`` kills a case and records it as timed out.

The check, independent of the solver's streaming kernel: every distinct order of each seat's
hand is played against the other seat's returned mix by the batch core
(:func:`pyanitsa.solvers.best_response.payoffs`, ``play_pair`` on every pair). ``gain_s`` is the
best order's expected payoff minus seat ``s``'s equilibrium value (``game_value`` for seat 0,
``-game_value`` for seat 1); the case passes when ``max(gain_0, gain_1) <= 1e-6``, the two
returned mixes give ``game_value`` against each other (from both seats' side) to 1e-6, each
mix sums to 1 and every order in it is an order of that seat's hand. The candidates are checked
to be all the hand's distinct orders (N! / prod(c!) rows, strictly increasing, each a
rearrangement of the hand). ``payoffs`` is one-threaded, so chunks of ``--chunk`` orders go to
``--workers`` forked processes; the check runs between cases, never beside a solve.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # batch_bench.py beside
from batch_bench import machine_basics  # noqa: E402

from pyanitsa.rules import Rules  # noqa: E402

DEFAULT_CARDS = (9, 10)
DEFAULT_SEED = 2026
TOL = 1e-6
CHUNK = 8192


@dataclass(frozen=True)
class Case:
    cards: int
    """Cards a player (the deck is ``ranks=cards,suits=2``)."""
    deal: int | str
    """The seeded deal's index, or ``"worst"``."""
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    """Each seat's research values, highest first."""

    @property
    def deck(self) -> str:
        return f"ranks={self.cards},suits=2"


def case_rules(deck: str, options: dict[str, Any] | None = None) -> Rules:
    return Rules.from_options(options or {}, mode="tactical", deck=deck)


# -- cases -----------------------------------------------------------------------------------------


def seeded_cases(n: int, deals: int, seed: int) -> list[Case]:
    """``deals`` deals of the 2n-card deck, every card dealt."""
    deck = case_rules(f"ranks={n},suits=2").deck
    rng = np.random.default_rng(seed)
    out = []
    for k in range(deals):
        perm = [int(c) for c in rng.permutation(2 * n)]
        hands = tuple(tuple(sorted(deck.cards_json(h), reverse=True))
                      for h in (perm[:n], perm[n:]))
        out.append(Case(n, k, hands))  # type: ignore[arg-type]
    return out


def worst_case(n: int) -> Case:
    """Identical hands of one card of every rank: n! distinct orders a side, the most."""
    hand = tuple(range(n, 0, -1))
    return Case(n, "worst", (hand, hand))


def build_cases(cards: Sequence[int], deals: int, seed: int, worst: bool) -> list[Case]:
    out = []
    for n in cards:
        out += seeded_cases(n, deals, seed)
        if worst:
            out.append(worst_case(n))
    return out


# -- one solve process -----------------------------------------------------------------------------


def cli_command(case: Case) -> list[str]:
    cmd = [sys.executable, "-m", "pyanitsa", "solve", "--deck", case.deck]
    for hand in case.hands:
        cmd += ["--hand", ",".join(str(v) for v in hand)]
    return cmd + ["--json"]


def run_cli(cmd: Sequence[str], timeout: float) -> dict[str, Any]:
    """Run ``cmd`` to its end or ``timeout``: status, wall seconds, its own peak RSS, its
    report (parsed JSON stdout) and the tail of its stderr."""
    # output to files, not pipes: a big report would fill a pipe while we sit in wait4
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        lock, state = threading.Lock(), {"reaped": False, "killed": False}

        def kill() -> None:
            with lock:  # never signal a pid that was reaped (and might be reused)
                if not state["reaped"]:
                    os.kill(proc.pid, signal.SIGKILL)
                    state["killed"] = True

        timer = threading.Timer(timeout, kill)
        timer.start()
        # wait for the exit without reaping, so the pid stays ours until the timer is off
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        wall = time.perf_counter() - start
        with lock:
            state["reaped"] = True
        timer.cancel()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    row: dict[str, Any] = {"wall_s": wall, "rss_mb": usage.ru_maxrss / 1024,  # KB on Linux
                           "returncode": proc.returncode, "report": None,
                           "stderr": stderr[-2000:]}
    if state["killed"]:
        row["status"] = "timeout"
    elif proc.returncode != 0:
        row["status"] = "error"
    else:
        row["status"], row["report"] = "ok", json.loads(stdout)
    return row


# -- the brute-force check -------------------------------------------------------------------------


def hand_ranks(rules: Rules, values: Sequence[int]) -> list[int]:
    """Research values to sorted rank indices, through the deck and its rank table."""
    from pyanitsa.ranks import rank_table

    table = rank_table(rules)
    return sorted(table.rank_of[c] for c in rules.deck.parse_cards(list(values)))


def report_mixes(rules: Rules, report: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each seat's returned ``(orders as rank indices, probabilities)``; the report's cards
    are the deck's JSON names (research values), a card's rank does not depend on its copy."""
    from pyanitsa.ranks import rank_table

    table, deck = rank_table(rules), rules.deck
    out = []
    for rows in report["strategies"]:
        orders = np.array([[table.rank_of[deck.parse_card(c)] for c in r["order"]]
                           for r in rows], np.int8)
        out.append((orders, np.array([float(r["p"]) for r in rows])))
    return out


def all_orders(ranks: Sequence[int]) -> np.ndarray:
    """Every distinct order of the hand, checked to be exactly that: the multinomial count of
    rows, strictly increasing (so distinct), each a rearrangement of the hand."""
    from pyanitsa.agents.kernels import distinct_orders

    cands = distinct_orders(sorted(ranks))
    count = math.factorial(len(ranks))
    for c in Counter(ranks).values():
        count //= math.factorial(c)
    base = int(max(ranks)) + 1
    keys = cands.astype(np.int64) @ (base ** np.arange(cands.shape[1] - 1, -1, -1, np.int64))
    if (len(cands) != count or not np.all(np.diff(keys) > 0)
            or not np.array_equal(np.sort(cands, axis=1),
                                  np.broadcast_to(np.sort(ranks), cands.shape))):
        raise AssertionError(f"distinct_orders({list(ranks)}) is not every order of the hand")
    return cands


_WORK: dict[str, Any] = {}
"""What the forked workers score: rules, candidates, the mix and the objective."""


def _best_in(span: tuple[int, int]) -> tuple[float, int]:
    from pyanitsa.solvers.best_response import payoffs

    lo, hi = span
    vals = payoffs(_WORK["rules"], _WORK["cands"][lo:hi], _WORK["mix"], _WORK["objective"])
    k = int(np.argmax(vals))
    return float(vals[k]), lo + k


def best_order(rules: Rules, cands: np.ndarray, mix: Any, objective: str, *, workers: int,
               chunk: int, bar: Any) -> tuple[float, int]:
    """The best payoff against ``mix`` over the rows of ``cands``, and its row."""
    _WORK.update(rules=rules, cands=cands, mix=mix, objective=objective)
    spans = [(lo, min(lo + chunk, len(cands))) for lo in range(0, len(cands), chunk)]
    best = (-math.inf, -1)
    try:
        if workers > 1:  # fork: the workers inherit _WORK and the kernels the parent loaded
            ctx = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
                for (lo, hi), got in zip(spans, pool.map(_best_in, spans), strict=True):
                    best = max(best, got, key=lambda t: t[0])
                    bar.update((hi - lo) * mix.support)
        else:
            for lo, hi in spans:
                best = max(best, _best_in((lo, hi)), key=lambda t: t[0])
                bar.update((hi - lo) * mix.support)
    finally:
        _WORK.clear()
    return best


def check_exact(rules: Rules, ranks: Sequence[Sequence[int]],
                mixes: Sequence[tuple[np.ndarray, np.ndarray]], game_value: float, *,
                objective: str = "margin", workers: int = 1, chunk: int = CHUNK,
                progress: bool = False, tol: float = TOL) -> dict[str, Any]:
    """Brute-force exactness of a returned equilibrium (see the module docstring)."""
    from tqdm import tqdm

    from pyanitsa.solvers.best_response import payoffs
    from pyanitsa.solvers.mixes import OrderMix

    start = time.perf_counter()
    om = [OrderMix.of(o, p, exact=True) for o, p in mixes]
    held = [all(sorted(row) == sorted(ranks[s]) for row in mixes[s][0].tolist())
            for s in (0, 1)]
    mass = max(abs(float(p.sum()) - 1.0) for _, p in mixes)
    # the value from both sides: also checks that the game is the same with the seats swapped,
    # which scoring seat 1's candidates in play_pair's first place relies on
    v01 = float(om[0].probs @ payoffs(rules, om[0].orders, om[1], objective))
    v10 = float(om[1].probs @ payoffs(rules, om[1].orders, om[0], objective))
    value_err = max(abs(v01 - game_value), abs(v10 + game_value))
    cands = [all_orders(r) for r in ranks]
    games = sum(len(cands[s]) * om[1 - s].support for s in (0, 1))
    gains, best = [], []
    with tqdm(total=games, unit="game", unit_scale=True, leave=False, dynamic_ncols=True,
              disable=not progress) as bar:
        for s in (0, 1):
            bar.set_description(f"seat {s}")
            value, row = best_order(rules, cands[s], om[1 - s], objective, workers=workers,
                                    chunk=chunk, bar=bar)
            gains.append(value - (game_value if s == 0 else -game_value))
            best.append([int(r) for r in cands[s][row]])
    passed = max(gains) <= tol and value_err <= tol and mass <= tol and all(held)
    return {"passed": bool(passed), "gains": gains, "gain": max(gains), "value_err": value_err,
            "mass_err": mass, "orders_held": held, "best_orders": best, "games": games,
            "orders": [len(c) for c in cands], "supports": [m.support for m in om],
            "seconds": time.perf_counter() - start, "workers": workers}


# -- cases end to end ------------------------------------------------------------------------------


def run_case(case: Case, *, timeout: float, workers: int, chunk: int, progress: bool
             ) -> dict[str, Any]:
    """Solve ``case`` in its own process, then check the answer by brute force."""
    cmd = cli_command(case)
    row: dict[str, Any] = {"cards": case.cards, "deal": case.deal, "hands": case.hands,
                           "command": " ".join(cmd[1:]), "load": os.getloadavg()[0]}
    row |= run_cli(cmd, timeout)
    rep = row["report"]
    if rep is None:
        return row
    rules = case_rules(rep["deck"], rep["rules"])  # the rules the CLI solved
    ranks = [hand_ranks(rules, h) for h in case.hands]
    row["check"] = check_exact(rules, ranks, report_mixes(rules, rep), rep["game_value"],
                               objective=rep["objective"], workers=workers, chunk=chunk,
                               progress=progress)
    return row


def describe(row: dict[str, Any]) -> str:
    """One progress line per case."""
    head = f"{row['cards']} cards, deal {row['deal']}: "
    if row["status"] != "ok":
        last = (row["stderr"].strip().splitlines() or [""])[-1]
        return head + f"{row['status'].upper()} after {row['wall_s']:.1f} s {last}"
    rep, chk = row["report"], row["check"]
    return head + (f"solve {rep['seconds']:.2f} s, wall {row['wall_s']:.2f} s, "
                   f"{row['rss_mb']:.0f} MB, {rep['method']}, gap {rep['gap']:.1e}; brute "
                   f"force gain {chk['gain']:.1e} ({chk['games']:,} games, "
                   f"{chk['seconds']:.1f} s) {'pass' if chk['passed'] else 'FAIL'}")


# -- output ----------------------------------------------------------------------------------------


def table_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = ["| cards | deal | orders a side | solve s | wall s | peak RSS MB | method (rounds) "
             "| gap | brute-force gain | value err | check s | check |",
             "|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lead = f"| {r['cards']} | {r['deal']} |"
        if r["status"] != "ok":
            lines.append(f"{lead} - | - | {r['wall_s']:.2f} | {r['rss_mb']:.0f} | - | - | - | "
                         f"- | - | {r['status']} |")
            continue
        rep, chk = r["report"], r["check"]
        a, b = rep["orders"]
        orders = f"{a:,}" if a == b else f"{a:,} / {b:,}"
        lines.append(f"{lead} {orders} | {rep['seconds']:.2f} | {r['wall_s']:.2f} | "
                     f"{r['rss_mb']:.0f} | {rep['method']} | {rep['gap']:.1e} | "
                     f"{chk['gain']:.1e} | {chk['value_err']:.1e} | {chk['seconds']:.1f} | "
                     f"{'pass' if chk['passed'] else '**FAIL**'} |")
    return lines


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Median and max solve seconds per N (seeded deals; the worst case apart), max RSS."""
    out: dict[str, Any] = {"per_cards": {}}
    for n in sorted({r["cards"] for r in rows}):
        mine = [r for r in rows if r["cards"] == n]
        solved = [r["report"]["seconds"] for r in mine
                  if r["status"] == "ok" and r["deal"] != "worst"]
        worst = [r for r in mine if r["deal"] == "worst"]
        out["per_cards"][n] = {
            "deals": sum(r["deal"] != "worst" for r in mine), "solved": len(solved),
            "median_solve_s": statistics.median(solved) if solved else None,
            "max_solve_s": max(solved) if solved else None,
            "worst_solve_s": (worst[0]["report"]["seconds"] if worst and worst[0]["report"]
                              else None),
            "timeouts": sum(r["status"] == "timeout" for r in mine),
            "max_rss_mb": max(r["rss_mb"] for r in mine)}
    checks = [r["check"] for r in rows if "check" in r]
    out["max_rss_mb"] = max(r["rss_mb"] for r in rows)
    out["max_gain"] = max((c["gain"] for c in checks), default=None)
    out["failed"] = sum(not c["passed"] for c in checks) + sum(r["status"] == "error"
                                                               for r in rows)
    out["check_s"] = [c["seconds"] for c in checks]
    return out


def summary_lines(s: dict[str, Any]) -> list[str]:
    def sec(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f} s"

    lines = []
    for n, p in s["per_cards"].items():
        lines.append(f"{n} cards: solve median {sec(p['median_solve_s'])}, max "
                     f"{sec(p['max_solve_s'])} over {p['solved']}/{p['deals']} deals"
                     + (f"; worst case {sec(p['worst_solve_s'])}"
                        if p["worst_solve_s"] is not None else "")
                     + (f"; {p['timeouts']} timed out" if p["timeouts"] else "")
                     + f"; peak RSS max {p['max_rss_mb']:.0f} MB")
    lines.append(f"peak RSS max {s['max_rss_mb']:.0f} MB; largest brute-force gain "
                 f"{s['max_gain']:.1e}; {s['failed']} failed" if s["max_gain"] is not None
                 else f"peak RSS max {s['max_rss_mb']:.0f} MB; nothing checked")
    if s["check_s"]:
        lines.append(f"brute-force check: median {statistics.median(s['check_s']):.1f} s, max "
                     f"{max(s['check_s']):.1f} s a case")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, action="append", metavar="N",
                    help="cards a player, deck ranks=N,suits=2 (repeatable; default 9 and 10)")
    ap.add_argument("--deals", type=int, default=10, help="seeded deals per N")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--worst", action="store_true",
                    help="add per N the identical hands N..1 (N! orders a side)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds a solve may take")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes for the brute-force check")
    ap.add_argument("--chunk", type=int, default=CHUNK, help="orders scored a task")
    ap.add_argument("--quick", action="store_true", help="2 deals of 9 cards: a smoke run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cards = [9] if args.quick else (args.cards or list(DEFAULT_CARDS))
    deals = 2 if args.quick else args.deals
    log = sys.stderr if args.json else sys.stdout  # progress lines; --json prints one object
    out: dict[str, Any] = {"machine": machine_basics(), "seed": args.seed, "tol": TOL,
                           "timeout_s": args.timeout, "workers": args.workers, "rows": []}
    start = time.perf_counter()
    for case in build_cases(cards, deals, args.seed, args.worst):
        row = run_case(case, timeout=args.timeout, workers=args.workers, chunk=args.chunk,
                       progress=True)
        print(describe(row), file=log, flush=True)
        out["rows"].append(row)
    out["summary"] = summary(out["rows"])
    out["seconds"] = time.perf_counter() - start
    print("\n".join(["", *table_lines(out["rows"]), "", *summary_lines(out["summary"])]),
          file=log, flush=True)
    if args.json:
        print(json.dumps(out))
    return 1 if out["summary"]["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
