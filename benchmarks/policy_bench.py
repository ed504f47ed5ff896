"""The shipped policy's strength beside uniform ``random``'s, in one run (issue 14's goals).

    .venv/bin/python benchmarks/policy_bench.py --workers 2                     # about 30 min
    .venv/bin/python benchmarks/policy_bench.py --only exploit
    .venv/bin/python benchmarks/policy_bench.py --policy ppo:runs/tactical_ppo --quick

Two-player ``tactical`` (36 cards). Sections:

* ``exploit``: :func:`pyanitsa.solvers.exploitability.exploit_deals` of ``random`` and of the policy as
  it plays by default (sampled) on the same ``--deals`` deals with the same ``--samples`` /
  ``--fresh`` (lower bounds found the same way), and of its greedy order (exact); the paired
  difference policy minus ``random`` deal by deal, with a 95% interval.
* ``untrained``: the prior's point: an untrained network (seed 0) with ``prior: none`` (it
  plays each rank it holds equally often) and with ``prior: hand`` (it plays ``random``),
  beside ``random`` on the same deals.
* ``duel``: :func:`pyanitsa.tournaments.match` of the policy against every scripted heuristic
  (``--pairs``), ``mc_search`` and ``nash`` (``--slow-pairs``), and its own exploiter
  ``best_response(target=POLICY)`` (``--br-pairs``): the policy's pair score with its 95%
  interval; it *beats* an opponent when the interval lies above 1/2 and *is beaten* when below.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyanitsa import preset  # noqa: E402

HEURISTICS = ("random", "ascending", "descending", "strongest_first", "strongest_last",
              "sacrifice", "tie_aware", "mixed")
SLOW = ("mc_search", "nash")


def exploit_section(policy: str, args: argparse.Namespace) -> dict[str, Any]:
    from pyanitsa.agents import make_agent
    from pyanitsa.solvers.exploitability import exploit_deals

    rules = preset("tactical")
    out: dict[str, Any] = {}
    per_deal = {}
    for label, spec in (("random", "random"), ("policy", policy),
                        ("greedy", _greedy(policy))):
        start = time.perf_counter()
        res = exploit_deals(rules, make_agent(spec), deals=args.deals, seed=args.seed,
                            samples=args.samples, fresh=args.fresh)
        out[label] = {"spec": spec, "exploitability": res["exploitability"],
                      "ci95": res["ci95"], "method": res["method"],
                      "seconds": round(time.perf_counter() - start, 1)}
        per_deal[label] = list(res["per_deal"])
        print(f"  {spec}: {res['exploitability']:.3f} [{res['ci95'][0]:.3f}, "
              f"{res['ci95'][1]:.3f}] ({res['method']})", file=sys.stderr)
    diffs = [a - b for a, b in zip(per_deal["policy"], per_deal["random"], strict=True)]
    out["policy_minus_random"] = _mean_ci(diffs)
    return out


def untrained_section(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from pyanitsa.agents import make_agent
    from pyanitsa.observation import TacticalLayout
    from pyanitsa.policies.meta import PolicyMeta
    from pyanitsa.policies.ppo import PolicyAgent, build_policy
    from pyanitsa.solvers.exploitability import exploit_deals

    rules = preset("tactical")
    layout = TacticalLayout(rules, 2)
    out: dict[str, Any] = {}
    for prior in ("none", "hand", "random"):
        if prior == "random":
            agent = make_agent("random")
        else:
            torch.manual_seed(0)
            meta = PolicyMeta("MaskablePPO", {"pi": [128, 128], "vf": [128, 128]}, "ReLU",
                              rules.to_json(), 2, layout.size, layout.ranks, {}, prior)
            agent = PolicyAgent(build_policy(meta), meta)
        res = exploit_deals(rules, agent, deals=args.deals, seed=args.seed,
                            samples=args.samples, fresh=args.fresh)
        out[prior] = {"exploitability": res["exploitability"], "ci95": res["ci95"]}
        print(f"  untrained, prior {prior}: {res['exploitability']:.3f}", file=sys.stderr)
    return out


def duel_section(policy: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    from pyanitsa.tournaments import match

    rows = []
    field = [(o, args.pairs) for o in HEURISTICS] + [(o, args.slow_pairs) for o in SLOW]
    field.append((f"best_response(target='{policy}')", args.br_pairs))
    for opponent, pairs in field:
        start = time.perf_counter()
        res = match(policy, opponent, deals=pairs, seed=args.seed, workers=args.workers)
        low, high = res.ci95
        verdict = "beats" if low > 0.5 else "beaten" if high < 0.5 else "not separated"
        rows.append({"opponent": opponent, "pairs": res.pairs_played, "score": res.score,
                     "ci95": [low, high], "verdict": verdict,
                     "seconds": round(time.perf_counter() - start, 1)})
        print(f"  {opponent}: {res.score:.3f} [{low:.3f}, {high:.3f}] {verdict}",
              file=sys.stderr)
    return rows


def _greedy(policy: str) -> str:
    return f"{policy}(greedy=True)" if "(" not in policy else policy.replace(")", ", greedy=True)")


def _mean_ci(xs: list[float]) -> dict[str, Any]:
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(n - 1, 1))
    half = 1.96 * sd / math.sqrt(n)
    return {"mean": mean, "ci95": [mean - half, mean + half], "deals": n}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", default="ppo:tactical-2p")
    p.add_argument("--only", action="append", choices=("exploit", "untrained", "duel"))
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--samples", type=int, default=128)
    p.add_argument("--fresh", type=int, default=512)
    p.add_argument("--pairs", type=int, default=2000)
    p.add_argument("--slow-pairs", type=int, default=200)
    p.add_argument("--br-pairs", type=int, default=1000)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--quick", action="store_true", help="a smoke run: a few deals and pairs")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.quick:
        args.deals, args.samples, args.fresh = 3, 8, 16
        args.pairs = args.slow_pairs = args.br_pairs = 4
    try:  # a bad spec is one line, before any work
        from pyanitsa.agents import make_agent

        make_agent(args.policy)
    except ValueError as exc:
        p.error(f"--policy: {exc}")
    only = args.only or ["exploit", "untrained", "duel"]
    out: dict[str, Any] = {"policy": args.policy, "seed": args.seed}
    if "exploit" in only:
        out["exploit"] = exploit_section(args.policy, args)
    if "untrained" in only:
        out["untrained"] = untrained_section(args)
    if "duel" in only:
        out["duel"] = duel_section(args.policy, args)
    print(json.dumps(out, indent=None if args.json else 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
