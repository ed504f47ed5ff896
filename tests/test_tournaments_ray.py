"""The Ray backend gives the same games as the local pool (Ray started here with 2 CPUs)."""

from __future__ import annotations

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
