"""Fill numba's disk cache before the suite's workers start: ``python tests/warm_kernels.py``.

On a fresh clone every pytest-xdist worker compiled the same kernels for itself (about a minute
and a half each on two cores), since neither finds the other's work in the cache until it is
written. This runs a few tiny workloads that reach the kernels the suite uses, split in two
halves compiled side by side (one process a core, on modules of their own), so the workers load
instead of compile. It only fills a cache: what a test computes is the same with or without it
(numba's cache is keyed by signature and by every source file, :mod:`pyanitsa.batch._cache`).
A kernel it misses is compiled by the first test that needs it, as before, and a step that
fails is named on one line and skipped: the tests, not the warm-up, say what is broken.

``make test`` runs it before ``pytest -n 2``; ``python tests/warm_kernels.py STEP...`` runs
the named steps in this process.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
import time


def _cli(*args: str) -> None:
    from pyanitsa.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    if code:
        raise RuntimeError(f"pyanitsa {' '.join(args)}: exit {code}")


def warm_engines() -> None:
    """The batch core: classic (its parallel chunks, its fast two-player path), tactical."""
    for workers in ("1", "2"):
        _cli("simulate", "--preset", "war-52", "--games", "20", "--seed", "3", "--json",
             "--workers", workers)
        _cli("simulate", "--preset", "tactical", "--players", "3", "--games", "20",
             "--workers", workers)
    _cli("simulate", "--preset", "classic-ru", "--players", "3", "--games", "20")


def warm_research() -> None:
    """Replays (the batch core on records) and research's enumeration and hunt kernels."""
    from pyanitsa import preset
    from pyanitsa.agents.game import warm_up

    for name, players in (("classic-ru", 2), ("classic-ru", 3), ("tactical", 2),
                          ("tactical", 3)):
        warm_up(preset(name), players)
    _cli("enumerate", "--deck", "ranks=3,suits=2", "--no-progress")
    _cli("enumerate", "--deck", "ranks=3,suits=2", "--set", "pickup_order=natural",
         "--set", "dispute_exhausted=discard", "--no-progress")
    with tempfile.TemporaryDirectory() as tmp:
        _cli("hunt", "--deck", "ranks=4,suits=4", "--set", "pickup_order=natural", "--target",
             "cycle", "--output", f"{tmp}/a", "--deals", "8", "--seed", "1", "--no-progress")
        _cli("hunt", "--deck", "ranks=4,suits=2", "--set", "pickup_order=high_first",
             "--set", "dispute_exhausted=discard", "--target", "cycle", "--method", "climb",
             "--deals", "8", "--seed", "1", "--output", f"{tmp}/b", "--no-progress")


SEARCH_AGENTS = (("mc_search(samples=8)", 2), ("mc_search(samples=8)", 3),
                 ("best_response(target=descending)", 2),
                 ("best_response(target=descending, samples=8)", 3),
                 ("equilibrium(max_orders=2000)", 2))
NASH_AGENTS = ("nash(iterations=3)", "nash(iterations=3, algorithm=dcfr)",
               "nash(iterations=3, model=descending, confidence=0.5)",
               "nash(iterations=3, model=descending, confidence=0.5, response=mutual)",
               "best_response(target='nash(iterations=3)', samples=8)")


def warm_search() -> None:
    """The search agents' kernels and the exact solver's."""
    from pyanitsa import preset
    from pyanitsa.agents.specs import make_agent
    from pyanitsa.agents.warm import warm_agent

    for spec, players in SEARCH_AGENTS:
        warm_agent(make_agent(spec), preset("tactical"), players)
    warm_agent(make_agent("mc_search(pickup_rollouts=8)"),
               preset("classic-ru").replace(pickup_order="agent"), 2)
    _cli("solve", "--deck", "ranks=6,suits=2", "--hand", "6,4,3,1", "--hand", "5,5,2,1")
    _cli("exploit", "descending", "--deals", "2", "--samples", "8", "--fresh", "8")


def warm_nash() -> None:
    """CFR in each of the ways the agents call it, and the distillation's teacher."""
    import numpy as np

    from pyanitsa import preset
    from pyanitsa.agents.specs import make_agent
    from pyanitsa.agents.warm import warm_agent
    from pyanitsa.solvers.cfr import solve
    from pyanitsa.training.teacher import teacher_targets

    for spec in NASH_AGENTS:
        warm_agent(make_agent(spec), preset("tactical"), 2)
    mine, theirs = np.zeros(9, np.int64), np.zeros(9, np.int64)  # two cards each of 9 ranks
    mine[[0, 8]] = theirs[[1, 7]] = 1
    strategy = solve(preset("tactical"), mine, theirs, 1)
    teacher_targets(strategy.avg[0], strategy.counts[0], np.array([0, 8]))


def warm_tables() -> None:
    """The n-player tables: the Monte Carlo CFR solve, ``nash`` playing a stored strategy,
    and the n-player response of ``pyanitsa exploit --players``."""
    import tempfile

    from pyanitsa import preset
    from pyanitsa.agents.specs import make_agent
    from pyanitsa.agents.warm import warm_agent
    from pyanitsa.rules import Rules
    from pyanitsa.solvers.mccfr import Solver

    rules = Rules.from_options({"mode": "tactical", "deck": {"ranks": 3, "suits": 2}})
    solver = Solver(rules, 3, seed=0, batch=16)
    solver.run(deals=16)
    with tempfile.TemporaryDirectory() as tmp:
        solver.strategy().save(f"{tmp}/s.npz")
        warm_agent(make_agent(f"nash(strategy='{tmp}/s.npz')"), rules, 3)
    warm_agent(make_agent("nash"), preset("tactical"), 3)
    _cli("exploit", "--players", "3", "nash", "--deals", "1", "--samples", "4", "--fresh", "4")


def warm_envs() -> None:
    """The environments' dealing and tactical scoring."""
    import gymnasium

    import pyanitsa.envs  # noqa: F401  (registers the environments)

    for env_id in ("pyanitsa/Tactical-v0", "pyanitsa/Classic-v0"):
        env = gymnasium.make(env_id)
        env.reset(seed=1)
        env.step(env.action_space.sample())


STEPS = {f.__name__: f for f in (warm_engines, warm_search, warm_research, warm_nash, warm_tables,
                                  warm_envs)}
PARTS = (("warm_research", "warm_tables"), ("warm_search", "warm_nash", "warm_envs", "warm_engines"))
"""The two halves, one process each, about as long as each other on an empty cache. The
replays, enumeration and hunt compile most of the classic and tactical batch kernels, the
simulations' callees among them: the simulations come last in the other half, by when those are
in the cache to load (one process compiling what the other just has is the time this saves)."""


def main(argv: list[str]) -> int:
    if not argv:  # one process a part, side by side
        procs = [subprocess.Popen([sys.executable, __file__, *part]) for part in PARTS]
        return max(p.wait() for p in procs)
    unknown = [name for name in argv if name not in STEPS]
    if unknown:
        print(f"warm_kernels: no step {unknown[0]!r} (one of {', '.join(STEPS)})",
              file=sys.stderr)
        return 2
    took = []
    for name in argv:
        start = time.perf_counter()
        try:
            STEPS[name]()
        except Exception as exc:  # noqa: BLE001 (a warm-up only: the tests report the failure)
            print(f"warm_kernels: {name} failed ({type(exc).__name__}: {exc}); skipped",
                  file=sys.stderr)
            continue
        took.append(f"{name} {time.perf_counter() - start:.1f} s")
    print(f"warm_kernels: {', '.join(took)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
