"""Speed of the RL environments: steps/s with random legal actions, next to a bare env yardstick.

    make bench                                      # runs this after benchmarks/run.py
    .venv/bin/python benchmarks/envs_bench.py       # the same
    .venv/bin/python benchmarks/envs_bench.py --quick --json

Every workload runs the same loop: reset with a seed, then step with a uniformly random legal
action (``np.flatnonzero`` of ``info["action_mask"]`` and Python's ``random``), resetting when an
episode ends; the time covers the whole loop, action choice included. ``bare`` is a do-nothing
env of Tactical-v0's shape (same spaces, same in-place observation and mask updates, episodes of
the same length, no game and no opponents), timed in the same run. Machines here are shared and
noisy: repeats go round-robin over the workloads, CPU time is reported next to wall time, and
the ratio to the bare env is the number to compare between runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium import spaces  # noqa: E402

import pyanitsa.envs  # noqa: E402,F401  (registers the environments)

sys.path.insert(0, str(Path(__file__).resolve().parent))  # batch_bench.py beside
from batch_bench import machine_basics  # noqa: E402

DEFAULT_REPEATS = 3
SEED = 7


class BareEnv(gym.Env):
    """The yardstick: Tactical-v0's spaces and per-step bookkeeping, and nothing else."""

    def __init__(self, ranks: int = 9, hand: int = 18, size: int = 192) -> None:
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(ranks)
        self.hand = hand
        self.obs = np.zeros(size, np.float32)
        self.mask = np.zeros(ranks, bool)
        self.left = [0] * ranks
        self.placed = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        ranks = self.action_space.n
        self.left = [self.hand // ranks] * ranks
        self.obs.fill(0.0)
        self.mask.fill(True)
        self.placed = 0
        return self.obs.copy(), {"action_mask": self.mask.copy()}

    def step(self, action):
        r = int(action)
        self.left[r] -= 1
        self.obs[r] = self.left[r] / 4
        self.obs[9 + self.placed * 9 + r] = 1.0
        if not self.left[r]:
            self.mask[r] = False
        self.placed += 1
        info = {"action_mask": self.mask.copy(), "illegal_action": False}
        return self.obs.copy(), 0.0, self.placed == self.hand, False, info

    def action_masks(self) -> np.ndarray:
        return self.mask.copy()


def wrapped_bare() -> gym.Env:
    """The bare env inside the wrappers ``gym.make("pyanitsa/Tactical-v0")`` adds: what the
    wrappers alone cost, the best a ``gym.make`` env of this shape can do."""
    from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

    from pyanitsa.envs._common import ActionMasks

    return ActionMasks(OrderEnforcing(PassiveEnvChecker(BareEnv())))


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    make: Callable[[], gym.Env]
    steps: int
    quick_steps: int


WORKLOADS = {w.name: w for w in [
    Workload("tactical-v0", 'gym.make("pyanitsa/Tactical-v0"): 36 cards, 2 players, random '
             "opponent, margin reward", lambda: gym.make("pyanitsa/Tactical-v0"),
             200_000, 20_000),
    Workload("tactical-v0-raw", "TacticalEnv() without Gymnasium's wrappers",
             lambda: pyanitsa.envs.TacticalEnv(), 200_000, 20_000),
    Workload("tactical-v0-4p", 'gym.make("pyanitsa/Tactical-v0", players=4): 9 cards a hand',
             lambda: gym.make("pyanitsa/Tactical-v0", players=4), 100_000, 10_000),
    Workload("classic-v0", 'gym.make("pyanitsa/Classic-v0"): 36 cards, 2 players, random '
             "opponent", lambda: gym.make("pyanitsa/Classic-v0"), 20_000, 3_000),
    Workload("bare-wrapped", "the bare env in gym.make's wrappers (checker, order enforcing, "
             "action masks)", wrapped_bare, 200_000, 20_000),
    Workload("bare", "yardstick: a bare env of Tactical-v0's shape", BareEnv, 200_000, 20_000),
]}


@dataclass
class Result:
    name: str
    description: str
    steps: int
    repeats: int
    seconds: list[float]
    """Wall time of each repeat."""
    cpu_seconds: list[float]
    """CPU time of this process in each repeat (what other jobs on the machine do not steal)."""
    median_seconds: float
    steps_per_s: float
    """Steps over the median wall time."""
    cpu_steps_per_s: float
    """Steps over the median CPU time."""
    episodes: int
    """Episodes finished in one repeat."""
    ratio_to_bare: float | None = None
    """``cpu_steps_per_s`` over the bare env's."""


def run_loop(env: gym.Env, steps: int, seed: int) -> int:
    """``steps`` steps with random legal actions; returns the episodes finished."""
    rnd = random.Random(seed)
    flat = np.flatnonzero
    _, info = env.reset(seed=seed)
    episodes = 0
    for _ in range(steps):
        legal = flat(info["action_mask"])
        _, _, terminated, truncated, info = env.step(legal[rnd.randrange(len(legal))])
        if terminated or truncated:
            episodes += 1
            _, info = env.reset()
    return episodes


def time_once(w: Workload, steps: int) -> tuple[float, float, int]:
    """One repeat: (wall seconds, CPU seconds, episodes)."""
    env = w.make()
    env.reset(seed=SEED)  # construction and first-use costs (numba loading) stay outside
    wall, cpu = time.perf_counter(), time.process_time()
    episodes = run_loop(env, steps, SEED)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    env.close()
    return wall, cpu, episodes


def time_workloads(workloads: Sequence[tuple[Workload, int]], repeats: int,
                   log: Any) -> list[Result]:
    """Repeats go round-robin over the workloads, so that a burst of load elsewhere on the
    machine hits all of them alike."""
    runs: list[list[tuple[float, float, int]]] = [[] for _ in workloads]
    for rep in range(repeats):
        for i, (w, steps) in enumerate(workloads):
            print(f"repeat {rep + 1}/{repeats}: {w.name} ({steps} steps)", file=log, flush=True)
            runs[i].append(time_once(w, steps))
    results = []
    for (w, steps), r in zip(workloads, runs, strict=True):
        wall = [x[0] for x in r]
        cpu = [x[1] for x in r]
        results.append(Result(w.name, w.description, steps, repeats, wall, cpu,
                              statistics.median(wall), steps / statistics.median(wall),
                              steps / statistics.median(cpu), r[-1][2]))
    return results


def machine_info() -> dict[str, Any]:
    return machine_basics() | {"gymnasium": gym.__version__, "numpy": np.__version__}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--only", action="append", choices=list(WORKLOADS), metavar="NAME",
                        help=f"run only this workload (repeatable): {', '.join(WORKLOADS)}")
    parser.add_argument("--steps", type=int, help="steps per repeat for every workload")
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    args = parser.parse_args(argv)
    if args.steps is not None and args.steps < 1:
        parser.error("--steps must be positive")
    if args.repeats < 1:
        parser.error("--repeats must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = args.only or list(WORKLOADS)
    if "bare" not in names:
        names.append("bare")
    log = sys.stderr if args.json else sys.stdout
    machine = machine_info()
    chosen = [(WORKLOADS[name], args.steps or (WORKLOADS[name].quick_steps if args.quick
                                               else WORKLOADS[name].steps)) for name in names]
    results = {r.name: r for r in time_workloads(chosen, args.repeats, log)}
    bare = results["bare"].cpu_steps_per_s
    for r in results.values():
        r.ratio_to_bare = r.cpu_steps_per_s / bare
    if args.json:
        print(json.dumps({"machine": machine,
                          "workloads": {k: asdict(v) for k, v in results.items()}}, indent=2))
        return 0
    print(f"\n{machine['date']}  {machine['cpu']} ({machine['cpus']} CPUs, load "
          f"{' '.join(map(str, machine['loadavg']))})  Python {machine['python']}, "
          f"gymnasium {machine['gymnasium']}\n")
    rows = [("workload", "steps", "median s", "steps/s", "CPU steps/s", "episodes", "/bare")]
    for r in results.values():
        rows.append((r.name, str(r.steps), f"{r.median_seconds:.3f}", f"{r.steps_per_s:,.0f}",
                     f"{r.cpu_steps_per_s:,.0f}", str(r.episodes), f"{r.ratio_to_bare:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for i, row in enumerate(rows):
        print("  ".join(c.ljust(w) if j == 0 else c.rjust(w)
                        for j, (c, w) in enumerate(zip(row, widths, strict=True))))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print("\nRandom legal actions, action choice included; median of repeats (round-robin). "
          "steps/s over wall time, CPU steps/s over this process's CPU time; /bare: CPU steps/s "
          "over the bare env yardstick's, timed in the same run.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
