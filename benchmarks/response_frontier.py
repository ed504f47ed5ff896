"""The restricted Nash response's frontier: what ``nash(model=M, confidence=p)`` gains against
``M`` and what a best response gains against it, as ``p`` grows, on full tactical deals.

    .venv/bin/python benchmarks/response_frontier.py --deals 24 --plot docs/frontier.png

Per deal and seat, exactly as :mod:`pyanitsa.solvers.exploitability` measures (the same ``--samples``
fitting a best response and ``--fresh`` scoring it): the exploitability lower bound; and the
pair score against the model, ``(1 + E[sign of the margin]) / 2`` over both seats, with the
expected margin, from ``--fresh`` of the response's orders against ``--fresh`` of the model's.
``random`` is measured beside it on the same deals. The score is the expectation of what a
duplicate match measures, with no game-to-game noise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyanitsa import preset  # noqa: E402


def against_model(rules, agent, model, deals: int, seed: int, fresh: int) -> tuple[float, float]:
    """The agent's mean pair score and margin against ``model`` over ``deals`` deals."""
    from pyanitsa.dealing import deal_from_seed
    from pyanitsa.protocol import hand_view
    from pyanitsa.rng import derive_seed
    from pyanitsa.solvers.best_response import payoffs
    from pyanitsa.solvers.mixes import sample_rng, sampled_mix

    wins, margins = [], []
    for i in range(deals):
        hands = deal_from_seed(rules, 2, derive_seed(seed, i)).seats
        for seat in (0, 1):
            me, them = hand_view(rules, seat, hands, 0), hand_view(rules, 1 - seat, hands, 0)
            mine = sampled_mix(agent, me, [sample_rng(seed, i, seat, k) for k in range(fresh)])
            theirs = sampled_mix(model, them, [sample_rng(seed + 1, i, 1 - seat, k)
                                               for k in range(fresh)])
            wins.append(float(mine.probs @ payoffs(rules, mine.orders, theirs, "win")))
            margins.append(float(mine.probs @ payoffs(rules, mine.orders, theirs, "margin")))
    return (1 + float(np.mean(wins))) / 2, float(np.mean(margins))


def main(argv: list[str] | None = None) -> int:
    from pyanitsa.agents import make_agent
    from pyanitsa.solvers.exploitability import exploit_deals

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tie_aware")
    p.add_argument("--confidence", type=float, action="append")
    p.add_argument("--response", choices=["restricted", "mutual"], default="restricted",
                   help="nash's response: restricted (an adversary against it alone) or "
                        "mutual (both seats respond)")
    p.add_argument("--deals", type=int, default=24)
    p.add_argument("--samples", type=int, default=128)
    p.add_argument("--fresh", type=int, default=512)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--plot", type=Path)
    args = p.parse_args(argv)
    rules = preset("tactical")
    try:  # a bad spec is one line, before any work
        model = make_agent(args.model)
    except ValueError as exc:
        p.error(f"--model: {exc}")
    rows = []
    for conf in args.confidence or [0.0, 0.1, 0.2, 0.3, 0.5]:
        spec = ("nash" if conf == 0 else
                f'nash(model="{args.model}", confidence={conf}, response="{args.response}")')
        for label in (["random"] if conf == 0 else []) + [spec]:
            start = time.perf_counter()
            agent = make_agent(label)
            ex = exploit_deals(rules, agent, deals=args.deals, seed=args.seed,
                               samples=args.samples, fresh=args.fresh)
            score, margin = against_model(rules, agent, model, args.deals, args.seed,
                                          args.fresh)
            rows.append({"agent": label, "confidence": conf if label != "random" else None,
                         "exploitability": ex["exploitability"], "ci95": ex["ci95"],
                         "score_vs_model": score, "margin_vs_model": margin,
                         "seconds": round(time.perf_counter() - start, 1)})
            print(f"{label:45s} exploit {ex['exploitability']:.3f} [{ex['ci95'][0]:.3f}, "
                  f"{ex['ci95'][1]:.3f}]  vs {args.model}: score {score:.3f} margin "
                  f"{margin:+.2f}", file=sys.stderr, flush=True)
    print(json.dumps({"model": args.model, "response": args.response, "deals": args.deals,
                      "seed": args.seed, "rows": rows}, indent=1))
    if args.plot:
        _plot(rows, args.model, args.response, args.plot)
    return 0


def _plot(rows: list[dict], model: str, response: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    resp = [r for r in rows if r["agent"] != "random"]
    ax.plot([r["exploitability"] for r in resp], [r["score_vs_model"] for r in resp], "o-",
            label=f"nash(model={model}, confidence=p, response={response})")
    for r in resp:
        ax.annotate(f"p={r['confidence']:g}", (r["exploitability"], r["score_vs_model"]),
                    textcoords="offset points", xytext=(5, -10), fontsize=8)
    for r in rows:
        if r["agent"] == "random":
            ax.plot(r["exploitability"], r["score_vs_model"], "s", color="grey", label="random")
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.set_xlabel("exploitability (cards a game, lower bound)")
    ax.set_ylabel(f"pair score against {model}")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
