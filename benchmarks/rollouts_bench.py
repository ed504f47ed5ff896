"""Rollouts from mid-game positions: the batch core (``play_positions``) against the reference
engine, as ``mc_search`` uses them for classic pickups.

    make bench                                            # runs this with the other benchmarks
    .venv/bin/python benchmarks/rollouts_bench.py         # ~15 s
    .venv/bin/python benchmarks/rollouts_bench.py --quick --json

Positions come from seeded games of each rules set played some rounds on the reference engine
(piles, eliminated seats and generator states included). Each is played on for at most
``--horizon`` rounds, in calls of ``--batch`` positions (a pickup decision's worlds times its
candidates is 30 to 200); the reference engine plays the same games one by one
(``ClassicGame.from_position``, the horizon as a lower cap). Both must give the same outcomes,
rounds and card counts, or the benchmark fails. Times are medians of ``--repeats``; the
batch figure includes building the positions' arrays in Python, which is most of it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))

from pyanitsa.batch import UNFINISHED, play_positions  # noqa: E402
from pyanitsa.classic import ClassicGame, ClassicPosition  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # batch_bench.py beside
from batch_bench import machine_basics  # noqa: E402

from pyanitsa.dealing import deal_from_seed  # noqa: E402
from pyanitsa.results import Termination  # noqa: E402
from pyanitsa.rng import Rng, derive_seed  # noqa: E402
from pyanitsa.rules import Rules, preset  # noqa: E402

WORKLOADS = {
    "classic-ru-2p": (preset("classic-ru"), 2),
    "classic-ru-won-pile-4p": (preset("classic-ru", pickup_to="won_pile"), 4),
    "war-52-shuffled-2p": (preset("war-52", pickup_order="shuffled"), 2),
}


def positions(rules: Rules, players: int, count: int, seed: int) -> list[ClassicPosition]:
    out = []
    i = 0
    while len(out) < count:
        dealt = deal_from_seed(rules, players, derive_seed(seed, i))
        game = ClassicGame(rules, dealt.seats, dealer=dealt.dealer,
                           rng=Rng(dealt.play_seed) if dealt.play_seed is not None else None)
        for _ in range(10 + i % 90):
            if not game.play_round():
                break
        if game.result is None:
            out.append(game.position())
        i += 1
    return out


def reference(rules: Rules, pos: ClassicPosition, horizon: int) -> tuple[int, int, list[int]]:
    stop = min(rules.max_rounds, pos.rounds + horizon)
    game = ClassicGame.from_position(rules.replace(max_rounds=stop), pos)
    res = game.play()
    capped = res.outcome is Termination.CAPPED and res.rounds < rules.max_rounds
    code = UNFINISHED if capped else ["win", "draw", "cycle", "capped"].index(res.outcome.value)
    return code, game.rounds, [game.count(s) for s in range(pos.players)]


def measure(name: str, count: int, horizon: int, batch: int, repeats: int,
            ref_count: int) -> dict[str, Any]:
    rules, players = WORKLOADS[name]
    pos = positions(rules, players, count, seed=11)
    play_positions(rules, pos[:2], horizon=horizon)  # load or compile the kernel
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        runs = [play_positions(rules, pos[i:i + batch], horizon=horizon)
                for i in range(0, count, batch)]
        times.append(time.perf_counter() - start)
    played = sum(int((r.rounds - [p.rounds for p in pos[i * batch:(i + 1) * batch]]).sum())
                 for i, r in enumerate(runs))
    ref_times = []
    for _ in range(repeats):
        start = time.perf_counter()
        want = [reference(rules, p, horizon) for p in pos[:ref_count]]
        ref_times.append(time.perf_counter() - start)
    for j, (code, rounds, counts) in enumerate(want):
        r, k = runs[j // batch], j % batch
        got = (int(r.outcome[k]), int(r.rounds[k]), [int(c) for c in r.counts[k][:players]])
        if got != (code, rounds, counts):
            raise SystemExit(f"{name}: position {j}: batch {got} != reference "
                             f"{(code, rounds, counts)}")
    med, ref_med = statistics.median(times), statistics.median(ref_times)
    return {"workload": name, "players": players, "positions": count, "horizon": horizon,
            "batch": batch, "median_seconds": med, "rollouts_per_s": count / med,
            "rounds_per_s": played / med, "mean_rounds": played / count,
            "reference_rollouts_per_s": ref_count / ref_med,
            "ratio_reference": (count / med) / (ref_count / ref_med)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=20_000)
    ap.add_argument("--reference-positions", type=int, default=1_000)
    ap.add_argument("--horizon", type=int, default=60)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="2,000 positions, 1 repeat")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    count, ref_count, repeats = ((2_000, 200, 1) if args.quick else
                                 (args.positions, args.reference_positions, args.repeats))
    rows = [measure(name, count, args.horizon, args.batch, repeats, ref_count)
            for name in WORKLOADS]
    info = machine_basics()
    if args.json:
        print(json.dumps({"machine": info, "rows": rows}))
        return 0
    print(f"rollouts from mid-game positions, horizon {args.horizon}, {args.batch} per call; "
          f"median of {repeats}; {info['cpus']} CPUs, load {info['loadavg'][0]:.2f}")
    print()
    print("| workload | positions | median time | rollouts/s | rounds/s | reference rollouts/s "
          "| x reference |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| `{r['workload']}` | {r['positions']:,} | {r['median_seconds']:.2f} s | "
              f"{r['rollouts_per_s']:,.0f} | {r['rounds_per_s']:,.0f} | "
              f"{r['reference_rollouts_per_s']:,.0f} | {r['ratio_reference']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
