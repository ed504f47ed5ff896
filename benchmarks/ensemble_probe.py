"""Probe: several distilled policies averaged decision by decision, against its best response.

    .venv/bin/python benchmarks/ensemble_probe.py --workers 2          # runs/rnr10m + runs/rnr15m
    .venv/bin/python benchmarks/ensemble_probe.py --agent SeedEnsemble --br --workers 2
    PYTHONPATH=benchmarks .venv/bin/python -c "from pyanitsa.tournaments import match; \\
        print(match('ensemble_probe:Ensemble', \\
        \\"best_response(target='ensemble_probe:Ensemble')\\", deals=1000, seed=2026, workers=2).ci95)"

Every distilled policy so far leaves its own best response 1.2-1.8% of duplicate pairs
(BENCHMARKS.md, "Restricted response at p = 0.1"), whatever the teacher: the edge is the fit's
error. Two fits err differently, so their average may leave less; this measures that, with the
members the BENCHMARKS commands make (``runs/rnr10m``, ``runs/rnr15m``). A benchmark probe, not
a shipped agent: ``ppo:`` policies hold one network.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyanitsa.protocol import BaseAgent  # noqa: E402


class Ensemble(BaseAgent):
    """Samples each card from the mean of the members' distributions (the members share the
    rules, players and observation layout): two teachers, p = 0.1 and p = 0.15."""

    MEMBERS = ("ppo:runs/rnr10m", "ppo:runs/rnr15m")

    def __init__(self) -> None:
        from pyanitsa.agents import make_agent

        self.members = [make_agent(s) for s in self.MEMBERS]
        self.spec = f"ensemble_probe:{type(self).__name__}"

    def warm(self, rules, players) -> None:  # noqa: ANN001
        for m in self.members:
            m.warm(rules, players)

    def check_game(self, rules, players) -> None:  # noqa: ANN001
        for m in self.members:
            m.check_game(rules, players)

    def order_hand(self, view, rng):  # noqa: ANN001, ANN201
        return self.order_hands([view], [rng])[0]

    def order_hands(self, views, rngs):  # noqa: ANN001, ANN201
        from pyanitsa.observation import TacticalSeat

        lead = self.members[0]
        seats = []
        for v in views:
            lead._check(v)
            seats.append(TacticalSeat(lead.layout))
            seats[-1].deal(v.seat, v.hand)
        obs = np.empty((len(seats), lead.layout.size), np.float32)
        masks = np.empty((len(seats), lead.layout.ranks), bool)
        for _ in range(lead.layout.hand_size):
            for i, s in enumerate(seats):
                obs[i], masks[i] = s.obs, s.mask
            p = sum(_probs(np.where(masks, m.logits(obs), -np.inf)) for m in self.members)
            for s, row, rng in zip(seats, p, rngs, strict=True):
                s.play(int(rng.choice(len(row), p=row / row.sum())))
        return [s.order() for s in seats]


class SeedEnsemble(Ensemble):
    """One teacher (p = 0.1), two fits: the network's initialisation seeded apart
    (``runs/rnr10m_s1``: the same command with ``--set seed=1``, the teacher's files copied)."""

    MEMBERS = ("ppo:runs/rnr10m", "ppo:runs/rnr10m_s1")


def _probs(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def main() -> int:
    import policy_bench as pb

    from pyanitsa import preset
    from pyanitsa.agents import make_agent
    from pyanitsa.solvers.exploitability import exploit_deals
    from pyanitsa.tournaments import match

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--agent", choices=("Ensemble", "SeedEnsemble"), default="Ensemble")
    p.add_argument("--br", action="store_true", help="also its best response, 1,000 pairs")
    args = p.parse_args()
    # the workers of a match import the agent by its module name
    here = str(Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (here, os.environ.get("PYTHONPATH"))))
    agent = f"ensemble_probe:{args.agent}"
    out = {}
    for spec in ("random", agent):
        res = exploit_deals(preset("tactical"), make_agent(spec), deals=100, seed=args.seed,
                            samples=128, fresh=512)
        out[spec] = {"exploitability": res["exploitability"], "ci95": res["ci95"]}
        print(f"  exploit {spec}: {res['exploitability']:.3f} {res['ci95']}", file=sys.stderr)
    field = [(f"best_response(target='{agent}')", 1000)] if args.br else []
    for opp, pairs in field + [(h, 2000) for h in pb.HEURISTICS]:
        start = time.perf_counter()
        res = match(agent, opp, deals=pairs, seed=args.seed, workers=args.workers)
        out[opp] = {"score": res.score, "ci95": res.ci95,
                    "seconds": round(time.perf_counter() - start, 1)}
        print(f"  {opp}: {res.score:.3f} {res.ci95}", file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
