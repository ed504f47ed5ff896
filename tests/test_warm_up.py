"""Time limits measure the agent, not the compiler: every agent is warmed before its first timed
decision (kernels compiled or loaded, a policy's first pass, a bot started), in tournament
workers and in ``play``; a cold numba cache forfeits nothing."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from pyanitsa import preset
from pyanitsa.agents import BaseAgent
from pyanitsa.agents.game import play_game
from pyanitsa.agents.specs import make_agent
from pyanitsa.agents.warm import warm_agent
from pyanitsa.dealing import deal
from pyanitsa.protocol import hand_view
from pyanitsa.rng import Rng
from pyanitsa.tournaments.store import Store

REPO = Path(__file__).resolve().parents[1]

COLD_LIMIT = 1.0
"""The decision time limit of the cold-cache runs. A warm ``mc_search(samples=32)`` decision of
a 36-card tactical hand takes about 0.01 s (0.03 s with the machine loaded four times over); its
first decision on an empty numba cache took 2.0 s unloaded (7 s loaded), compiling."""


def _cold(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pyanitsa ARGS`` on an empty numba cache."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-m", "pyanitsa", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert any(cache.rglob("*.nbi")), "the run compiled nothing into its cache: not cold"
    return done


def test_a_tournament_on_an_empty_numba_cache_forfeits_nothing(tmp_path):
    config = {"name": "cold", "agents": ["descending", "mc_search(samples=32)"],
              "rules": {"preset": "tactical"}, "players": 2, "deals": 2, "duplicate": True,
              "seed": 5, "workers": 2, "time_limit": COLD_LIMIT, "bootstrap": 0,
              "output": str(tmp_path / "out")}
    path = tmp_path / "cold.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    done = _cold(tmp_path, "tournament", str(path), "--quiet")
    assert done.returncode == 0, done.stderr
    with Store.open(tmp_path / "out") as store:
        rows = store.rows()
    assert len(rows) == 4
    assert [r.forfeit_reason for r in rows if r.forfeit_kind] == []


def test_play_on_an_empty_numba_cache_meets_a_tight_limit(tmp_path):
    done = _cold(tmp_path, "play", "--preset", "tactical", "--agents",
                 "mc_search(samples=32),descending", "--time-limit", str(COLD_LIMIT),
                 "--seed", "3", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["outcome"] in ("win", "draw")


# -- the hook, without compiling -------------------------------------------------------------------


class Calls(BaseAgent):
    """Records the order of its hook and decision calls."""

    def __init__(self) -> None:
        self.calls: list[object] = []

    def order_hand(self, view, rng):
        self.calls.append("decide")
        return list(view.hand)


class PlainHook(Calls):
    def warm_up(self):  # a user's hook: no arguments
        self.calls.append("warm")


class RulesHook(Calls):
    def warm_up(self, rules=None, players=2):
        self.calls.append(("warm", rules.mode, players))


def test_a_user_hook_without_arguments_is_called_before_each_decision():
    rules = preset("tactical")
    agents = [PlainHook(), Calls()]
    play_game(rules, agents, 1, time_limit=5.0)
    play_game(rules, agents, 2, time_limit=5.0)
    assert agents[0].calls == ["warm", "decide", "warm", "decide"]


def test_a_hook_taking_rules_gets_the_games_rules_and_seats():
    rules = preset("tactical")
    agent = RulesHook()
    play_game(rules, [Calls(), agent, Calls()], 1, time_limit=5.0)
    assert agent.calls == [("warm", "tactical", 3), "decide"]


# -- every built-in's warm-up covers the kernels of its decisions ---------------------------------

KERNEL_MODULES = ("pyanitsa.agents.kernels", "pyanitsa.solvers.cfr_kernels",
                  "pyanitsa.solvers.best_response_kernels", "pyanitsa.batch.classic",
                  "pyanitsa.batch.classic_fast", "pyanitsa.research.enumeration_batch",
                  "pyanitsa.batch.tactical", "pyanitsa.solvers.table_kernels")


def compiled() -> dict[str, int]:
    """Each numba function of the kernel modules and its number of compiled signatures."""
    out = {}
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if hasattr(value, "signatures") and hasattr(value, "py_func"):
                out[f"{name}.{attr}"] = len(value.signatures)
    return out


@pytest.mark.parametrize("spec, players", [
    ("mc_search(samples=24)", 2),
    ("mc_search(samples=24)", 3),
    ("nash(iterations=3)", 2),
    ("nash", 3),  # the stored strategy
    ("best_response(target='nash(iterations=3)', samples=8)", 2),
    ("best_response(target=descending)", 2),
    ("best_response(target=descending, samples=16)", 3),
    ("equilibrium(max_orders=2000)", 2),
    ("mixed(pool='mc_search(samples=8),descending')", 2),
])
def test_after_the_warm_up_a_decision_compiles_nothing(spec, players):
    rules = preset("tactical")
    agent = make_agent(spec)
    warm_agent(agent, rules, players)
    before = compiled()
    for seed in (11, 12):
        dealt = deal(rules, players, Rng(seed))
        agent.order_hand(hand_view(rules, 1, dealt.seats, len(dealt.set_aside)),
                         np.random.default_rng(seed))
    assert {k: v for k, v in compiled().items() if before.get(k) != v} == {}


def test_mc_search_pickups_compile_nothing_after_the_warm_up():
    rules = preset("classic-ru").replace(pickup_order="agent")
    agent = make_agent("mc_search(pickup_rollouts=8)")
    warm_agent(agent, rules, 2)
    before = compiled()
    play_game(rules, [agent, make_agent("pickup_high_first")], 4, time_limit=30.0)
    assert {k: v for k, v in compiled().items() if before.get(k) != v} == {}


def test_warming_twice_for_the_same_rules_decides_once():
    rules = preset("tactical")
    agent = make_agent("mc_search(samples=8)")
    warm_agent(agent, rules, 2)
    first = agent.__dict__["_warmed"].copy()
    warm_agent(agent, rules, 2)
    warm_agent(agent, rules, 3)
    assert first == {(rules, 2)} and agent.__dict__["_warmed"] == {(rules, 2), (rules, 3)}
    assert agent.last_info == {}  # the warm-up decided on a copy: nothing of it shows here
