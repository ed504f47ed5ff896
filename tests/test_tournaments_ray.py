"""The Ray backend gives the same games as the local pool (Ray started here with 2 CPUs), with
``cmd:`` bots too, and an actor that dies in a decision is handled as a local worker is."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from pyanitsa.agents.seeding import new_key
from pyanitsa.tournaments.config import parse_config
from pyanitsa.tournaments.runner import run_tournament
from pyanitsa.tournaments.store import Store

ray = pytest.importorskip("ray")

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ray_cluster():
    # the actors import tournament_agents from tests/, as the forked local workers do
    ray.init(num_cpus=2, include_dashboard=False, logging_level="error",
             runtime_env={"env_vars": {"PYTHONPATH": str(TESTS)}})
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_and_local_backends_give_identical_games(ray_cluster, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    agents = [{"name": n, "spec": f"tournament_agents:{n.capitalize()}"}
              for n in ("strong", "weak", "random", "raising")]
    base = {"name": "r", "agents": agents, "rules": {"preset": "tactical"}, "deals": 5,
            "seed": 12, "workers": 2, "bootstrap": 0}
    results = {}
    key = new_key()  # the same agent key: the same generators for the random agent
    for backend in ("local", "ray"):
        config = parse_config({**base, "backend": backend, "output": str(tmp_path / backend)})
        assert run_tournament(config, key=key).played == 6 * 5 * 2
        with Store.open(config.output_dir) as store:
            results[backend] = [r.deterministic() for r in store.rows()]
    assert results["ray"] == results["local"]


def _cmd(script: Path) -> str:
    return "cmd:" + shlex.join([sys.executable, str(script)])


def test_cmd_bots_on_ray_give_the_games_of_the_local_backend(ray_cluster, tmp_path):
    """The example bot and the hostile ones (tests/bots/) against built-in agents: the same
    games, forfeits included, on both backends; but exits_mid_game exits on its process's
    second request, so its games depend on which worker played what before: there, only that
    the game was played and any forfeit is a bot's."""
    bots = TESTS / "bots"
    agents = [{"name": "random_bot", "spec": _cmd(TESTS.parent / "examples/bots/random_bot.py")},
              {"name": "desc", "spec": "descending"}, {"name": "tie", "spec": "tie_aware"}]
    agents += [{"name": n, "spec": _cmd(bots / f"{n}.py")}
               for n in ("dies_at_start", "garbage", "hangs", "illegal", "exits_mid_game")]
    exits = len(agents) - 1
    base = {"name": "c", "agents": agents, "rules": {"preset": "tactical"}, "deals": 1,
            "seed": 4, "workers": 2, "bootstrap": 0, "time_limit": 0.3}
    results = {}
    key = new_key()
    for backend in ("local", "ray"):
        config = parse_config({**base, "backend": backend, "output": str(tmp_path / backend)})
        assert run_tournament(config, key=key).played == 2 * 8 * 7 // 2
        with Store.open(config.output_dir) as store:
            rows = store.rows()
        assert all(r.seats[r.forfeit_seat] >= 3 for r in rows if r.forfeit_kind)  # a bot's
        results[backend] = [r.deterministic() if exits not in r.seats else (r.key,)
                            for r in rows]
    assert results["ray"] == results["local"]
    forfeits = [r for r in results["ray"] if len(r) > 1 and r[5] == "forfeit"]
    assert 0 < len(forfeits) < len(results["ray"])


def test_an_actor_dying_in_a_decision_is_replayed_then_forfeited(ray_cluster, tmp_path,
                                                                  monkeypatch):
    """As on the local pool: Crashing kills its actor in seat 1; the first death has the game
    replayed in a fresh actor, the second is its forfeit, and no other game suffers."""
    monkeypatch.syspath_prepend(str(TESTS))
    agents = [{"name": n.lower(), "spec": f"tournament_agents:{n}"} for n in ("Weak", "Crashing")]
    config = parse_config({"name": "d", "agents": agents, "rules": {"preset": "tactical"},
                           "deals": 2, "seed": 3, "workers": 1, "bootstrap": 0,
                           "backend": "ray", "output": str(tmp_path / "ray")})
    events = []
    run_tournament(config, events=events.append, poll=0.05)
    with Store.open(config.output_dir) as store:
        rows = store.rows()
    assert len(rows) == 4
    crashing = [r for r in rows if r.seats[1] == 1]  # Crashing in seat 1: its forfeit
    assert [(r.forfeit_seat, r.forfeit_kind) for r in crashing] == [(1, "error")] * 2
    assert all("twice" in r.forfeit_reason and "(its Ray actor is gone)" in r.forfeit_reason
               for r in crashing)
    assert all(r.forfeit_kind is None for r in rows if r.seats[1] == 0)
    kinds = [(e["what"], e["seat"], e["action"]) for e in events if e["event"] == "worker"]
    assert kinds == [("error", 1, "replay"), ("error", 1, "forfeit")] * 2


def test_an_actor_killed_with_ray_kill_mid_decision_is_replayed(ray_cluster, tmp_path,
                                                                 monkeypatch):
    """``ray.kill`` of an actor from outside while Slow decides: the game is replayed in a
    fresh actor, nobody forfeits, and the games are those of a clean run."""

    from pyanitsa.workers import ray_backend

    monkeypatch.syspath_prepend(str(TESTS))
    backends = []
    start = ray_backend.RayBackend.start

    def keep(self):
        backends.append(self)
        start(self)

    monkeypatch.setattr(ray_backend.RayBackend, "start", keep)
    base = {"name": "k", "rules": {"preset": "tactical"}, "deals": 4, "seed": 2, "workers": 1,
            "bootstrap": 0}
    slow = parse_config({**base, "backend": "ray", "output": str(tmp_path / "slow"),
                         "agents": [{"name": "slow", "spec": "tournament_agents:Slow(delay=0.1)"},
                                    {"name": "weak", "spec": "tournament_agents:Weak"}]})
    from kill_timing import kill_in_next_decision

    events, sink, thread = kill_in_next_decision(
        lambda: ray.kill(backends[0].actors[0], no_restart=True))
    thread.start()
    key = new_key()
    run_tournament(slow, events=sink, poll=0.05, key=key)
    thread.join()
    [died] = [e for e in events if e["event"] == "worker"]
    assert died["seat"] is not None and died["action"] == "replay", died
    with Store.open(slow.output_dir) as store:
        got = [r.deterministic() for r in store.rows()]
    # Slow plays like Weak: the games of a clean run of Weak against Weak
    clean = parse_config({**base, "backend": "local", "output": str(tmp_path / "clean"),
                          "agents": [{"name": "slow", "spec": "tournament_agents:Weak"},
                                     {"name": "weak", "spec": "tournament_agents:Weak"}]})
    run_tournament(clean, key=key)
    with Store.open(clean.output_dir) as store:
        assert got == [r.deterministic() for r in store.rows()]
