"""How fast the ``nash`` passes converge, CFR+ against DCFR, on the distillation teacher's solve.

    .venv/bin/python benchmarks/teacher_convergence.py                    # 6 deals, p = 0.1
    .venv/bin/python benchmarks/teacher_convergence.py --deals 4 --iterations 30 60 100
    .venv/bin/python benchmarks/teacher_convergence.py --json > conv.json

The teacher of ``configs/train/tactical_distill.yaml`` is seat 0's restricted Nash response to
``tie_aware`` with confidence ``p`` (:func:`pyanitsa.solvers.cfr.respond`). In the payoff the
passes learn on (one tie carried a showdown, :mod:`pyanitsa.solvers.cfr_kernels`) its objective
is ``J = (1 - p) * (-BR) + p * V``: ``BR`` the most a best response of seat 1 gains against seat
0's average strategy, ``V`` what that strategy scores against the model's marginals. Both are
exact here (a backward pass that maximises, and one that takes the expectation). For each
algorithm and iteration count the table gives the mean ``J`` gap to a long CFR+ solve
(``--reference`` iterations, the best ``J`` seen on the deal), and the solve's seconds.

Deals: ``derive_seed(777, i)`` of the 36-card preset, seat ``i % 2``: the teacher's own first
deals. One process, one thread; the reference solves dominate the time (about 15 s a deal).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import get_args

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from pyanitsa import preset  # noqa: E402
from pyanitsa.agents import make_agent  # noqa: E402
from pyanitsa.agents.kernels import cmp_table  # noqa: E402
from pyanitsa.dealing import deal_from_seed  # noqa: E402
from pyanitsa.protocol import hand_view  # noqa: E402
from pyanitsa.ranks import rank_table  # noqa: E402
from pyanitsa.rng import derive_seed  # noqa: E402
from pyanitsa.solvers import cfr as nash
from pyanitsa.solvers import cfr_kernels as nk  # noqa: E402


@njit(cache=True)
def best_value(nr, n, states, mult, tables, end, m, sgn, imm):
    """The value of the best pure response at the root (the backward pass with a max)."""
    lefts, steps, legal, nlegal, played, nplayed = tables
    value = np.empty((states, nr + 1))
    for s in range(states):
        t = steps[s]
        if t >= end:
            for last in range(nr + 1):
                value[s, last] = sgn * (n - m)
            continue
        for j in range(nplayed[s] if t > 0 else 1):
            last = played[s, j] if t > 0 else nr
            best = -1e300
            for k in range(nlegal[s]):
                r = legal[s, k]
                best = max(best, imm[t, last, r] + value[s - mult[r], r])
            value[s, last] = best
    return value[states - 1, nr]


def objective(rules, counts, avg0, model, p: float) -> float:
    """``J`` of seat 0's average strategy ``avg0`` (module docstring)."""
    c0, c1 = counts
    nr, sgn = c0.shape[0], -1 if rules.misere else 1
    cmp = cmp_table(rank_table(rules)).astype(np.int64)
    end = min(int(c0.sum()), int(c1.sum()))
    (mult0, st0), (mult1, st1) = nk.multipliers(c0), nk.multipliers(c1)
    tab0, tab1 = nk.unpack(c0, mult0, st0), nk.unpack(c1, mult1, st1)
    one, two = np.zeros((end, nr)), np.zeros((end, nr + 1, nr))
    scratch = np.zeros_like(avg0)
    nk.forward(avg0, scratch, 0.0, nr, mult0, st0, tab0, end, np.empty((st0, nr + 1)), one, two)
    imm = np.zeros((end, nr + 1, nr))
    nk.immediate(one, two, cmp, sgn, end, nr, imm)
    br = best_value(nr, int(c1.sum()), st1, mult1, tab1, end, int(c0.sum()), sgn, imm)
    nk.immediate(model[0], model[1], cmp, sgn, end, nr, imm)
    value = np.empty((st0, nr + 1))
    nk.backward(avg0.copy(), nr, int(c0.sum()), st0, mult0, tab0, end, int(c1.sum()), sgn,
                value, imm, (1.0, 1.0, 0.0))
    return (1 - p) * -br + p * float(value[st0 - 1, nr])


def teacher_deal(rules, i: int, model):
    """Deal ``i``'s hands (seat ``i % 2`` first) and the model's marginals against it."""
    hands = deal_from_seed(rules, 2, derive_seed(777, i)).seats
    seat = i % 2
    table = rank_table(rules)
    counts = [np.bincount([table.rank_of[c] for c in h], minlength=table.num_ranks)
              .astype(np.int64) for h in hands]
    marg = nash.model_marginals(rules, model, hand_view(rules, seat, hands, 0),
                                nash.MODEL_SAMPLES)
    return (counts[seat], counts[1 - seat]), marg


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--iterations", type=int, nargs="+", default=[50, 70, 100])
    ap.add_argument("--reference", type=int, default=1000)
    ap.add_argument("--confidence", type=float, default=0.1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rules, model, p = preset("tactical"), make_agent("tie_aware"), args.confidence
    rows: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for i in range(args.deals):
        counts, marg = teacher_deal(rules, i, model)
        got = {}
        for algo, its in [("cfr+", args.reference)] + [
                (a, n) for a in get_args(nash.Algorithm) for n in args.iterations]:
            strat = nash.respond(rules, *counts, its, marg, p, algo)
            got[algo, its] = (objective(rules, counts, strat.avg[0], marg, p), strat.seconds)
        best = max(j for j, _ in got.values())
        for key, (j, sec) in got.items():
            rows.setdefault(key, []).append((best - j, sec))
        print(f"deal {i}: reference J {got['cfr+', args.reference][0]:.4f}", file=sys.stderr)
    table = [{"algorithm": a, "iterations": n, "deals": len(v),
              "gap": statistics.fmean(g for g, _ in v),
              "seconds": statistics.median(s for _, s in v)} for (a, n), v in rows.items()]
    if args.json:
        print(json.dumps(table, indent=1))
        return 0
    print("| algorithm | iterations | mean J gap | median solve s |\n|---|---:|---:|---:|")
    for r in table:
        print(f"| {r['algorithm']} | {r['iterations']} | {r['gap']:.3f} | {r['seconds']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
