"""Training throughput and the strength of a trained tactical policy (BENCHMARKS.md).

    .venv/bin/python benchmarks/train_bench.py throughput            # MaskablePPO steps/s
    .venv/bin/python benchmarks/train_bench.py eval --deals 4000 --search-deals 500
    .venv/bin/python benchmarks/train_bench.py eval --policy ppo:runs/x --deals 1000

``throughput``: MaskablePPO (sb3-contrib) learning on ``pyanitsa/Tactical-v0`` (tactical 36, two
players, a ``random`` opponent) with 8 envs in one process (DummyVecEnv), the shipped config's
PPO settings (rollouts of 256 steps per env, minibatches of 512, 4 epochs, a 128x128 MLP), one
torch thread; the time covers ``learn()`` (rollouts and updates), as wall-clock and as this process's CPU
time (the figure that holds on an uncontended core). ``bare`` is the same training
on a do-nothing env of the same shape (``benchmarks/envs_bench.py``'s yardstick), timed in the
same run: the ratio is the number to compare across runs on a noisy, shared machine.

``eval``: duplicate matches (:mod:`pyanitsa.solvers.duplicate`): every deal twice with the seats
swapped; a pair scores the policy's mean points (win 1, shared win 1/2, loss 0, the tournament
points); 95% interval over pairs. ``better`` means the interval lies above 0.5.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

BASELINES = ("random", "ascending", "descending", "strongest_first", "strongest_last",
             "sacrifice", "sacrifice(assume=ascending)", "tie_aware", "mixed")


def throughput(steps: int, repeats: int) -> dict:
    import gymnasium as gym
    import numpy as np
    import torch
    from envs_bench import BareEnv
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    import pyanitsa.envs  # noqa: F401

    class MaskedBare(BareEnv):
        def action_masks(self) -> np.ndarray:
            return self.mask.copy()

    torch.set_num_threads(1)
    makers = {"tactical-v0": lambda: gym.make("pyanitsa/Tactical-v0", seat="random"),
              "bare": MaskedBare}
    out = {}
    for name, make in makers.items():
        rates, cpus = [], []
        for rep in range(repeats):
            venv = DummyVecEnv([lambda m=make: Monitor(m()) for _ in range(8)])
            venv.seed(rep)
            model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=512, n_epochs=4,
                                gamma=1.0, seed=rep, device="cpu",
                                policy_kwargs={"net_arch": {"pi": [128, 128],
                                                            "vf": [128, 128]}})
            start, cpu = time.perf_counter(), time.process_time()
            model.learn(total_timesteps=steps)
            rates.append(model.num_timesteps / (time.perf_counter() - start))
            cpus.append(model.num_timesteps / (time.process_time() - cpu))
            venv.close()
        mid = len(rates) // 2
        out[name] = {"steps_per_s": sorted(rates)[mid], "cpu_steps_per_s": sorted(cpus)[mid],
                     "runs": rates, "cpu_runs": cpus}
        print(f"{name:12} wall {out[name]['steps_per_s']:6.0f} steps/s  CPU "
              f"{out[name]['cpu_steps_per_s']:6.0f} steps/s  (wall runs: "
              f"{', '.join(f'{r:.0f}' for r in rates)})", flush=True)
    for kind in ("steps_per_s", "cpu_steps_per_s"):
        out[f"ratio_to_bare_{kind}"] = out["tactical-v0"][kind] / out["bare"][kind]
    print(f"ratio to bare: wall {out['ratio_to_bare_steps_per_s']:.2f}, CPU "
          f"{out['ratio_to_bare_cpu_steps_per_s']:.2f}; load average "
          f"{os.getloadavg()[0]:.1f}")
    return out


def evaluate(policy: str, deals: int, search_deals: int, search: str, seed: int) -> list:
    import torch

    from pyanitsa.agents import make_agent
    from pyanitsa.rules import preset
    from pyanitsa.solvers.duplicate import duplicate_match

    torch.set_num_threads(1)
    rules = preset("tactical")
    me = make_agent(policy)
    rows = []
    print(f"{policy} in duplicate two-player tactical 36, seed {seed}")
    print(f"{'opponent':<34} {'deals':>5}  score [95% CI]          margin  W/D/L  verdict")
    plan = [(b, deals) for b in BASELINES if deals] + ([(search, search_deals)] if search_deals
                                                       else [])
    for spec, n in plan:
        start = time.perf_counter()
        r = duplicate_match(rules, me, make_agent(spec), n, seed, label=spec)
        secs = time.perf_counter() - start
        rows.append({**r.to_json(), "seconds": round(secs, 1)})
        print(f"{spec:<34} {n:>5}  {r.score:.3f} [{r.low:.3f}, {r.high:.3f}]  {r.margin:+6.2f}"
              f"  {r.wins}/{r.draws}/{r.losses}  {r.verdict}  ({secs:.0f} s)", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("throughput")
    t.add_argument("--steps", type=int, default=81_920)
    t.add_argument("--repeats", type=int, default=3)
    e = sub.add_parser("eval")
    e.add_argument("--policy", default="ppo:tactical-2p")
    e.add_argument("--deals", type=int, default=4000)
    e.add_argument("--search-deals", type=int, default=500)
    e.add_argument("--search", default="mc_search")
    e.add_argument("--seed", type=int, default=2024)
    for p in (t, e):
        p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, Python "
          f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M')}")
    if args.what == "throughput":
        res = throughput(args.steps, args.repeats)
    else:
        res = evaluate(args.policy, args.deals, args.search_deals, args.search, args.seed)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
