"""``pyanitsa train``: config validation names the field, the seat/perspective of the learner, the
opponent setter and pool, and a tiny-budget CLI run that saves, reloads (weights-only) and plays
a tournament game."""

from __future__ import annotations

import csv
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from pyanitsa.agents import make_agent, play_game
from pyanitsa.cli import main
from pyanitsa.envs.tactical import TacticalEnv
from pyanitsa.ranks import rank_table
from pyanitsa.rules import preset
from pyanitsa.training.train import OpponentPool, TrainConfigError, load_config, parse_config

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "configs" / "train" / "smoke.yaml"
SHIPPED = REPO / "configs" / "train" / "tactical_ppo.yaml"



def base(**fields):
    return {"total_steps": 100, "eval": {"baselines": ["random"]}, **fields}


@pytest.mark.parametrize("fields, field", [
    ({"total_steps": 0}, "total_steps"),
    ({"algorithm": "DQN"}, "algorithm"),
    ({"n_envs": 0}, "n_envs"),
    ({"vec_env": "ray"}, "vec_env"),
    ({"opponents": [{"spec": "no_such_agent"}]}, "opponents.0.spec"),
    ({"opponents": [{"spec": "random", "weight": -1}]}, "opponents.0.weight"),
    ({"opponents": []}, "opponents"),
    ({"eval": {"baselines": ["random", "nope"]}}, "eval.baselines.1"),
    ({"env": {"kwargs": {"players": 9}}}, "env.kwargs"),
    ({"env": {"kwargs": {"opponents": "random"}}}, "env.kwargs"),
    ({"env": {"id": "pyanitsa/Classic-v0"}}, "env.id"),
    ({"ppo": {"batch_size": 4096}}, "ppo.batch_size"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma"),
    ({"self_play": {"keep": 0}}, "self_play.keep"),
    ({"learning_rate": 0.1}, "learning_rate"),  # misplaced: it lives under ppo
])
def test_bad_configs_name_the_field(fields, field):
    with pytest.raises(TrainConfigError) as err:
        parse_config(base(**fields))
    assert str(err.value).split(": ")[1] == field or f" {field}:" in f" {err.value}", err.value


def test_shipped_and_smoke_configs_validate():
    assert load_config(SHIPPED).total_steps > 0
    cfg = load_config(SMOKE, ["total_steps=64", "opponents.1.weight=3"])
    assert cfg.total_steps == 64 and cfg.opponents[1].weight == 3
    with pytest.raises(TrainConfigError, match="total_steps"):
        load_config(SMOKE, ["total_steps=-5"])


def test_the_cli_reports_a_bad_config_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("total_steps: 10\nn_envs: many\n")
    assert main(["train", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "n_envs" in err and "\n" not in err


def test_learner_at_seat_1_gets_seat_1_mask_and_reward():
    env = TacticalEnv("tactical", players=2, seat=1, opponents="descending")
    obs, info = env.reset(seed=5)
    assert info["seat"] == 1 and env.seat == 1
    lay = env.layout
    assert obs[lay.slices["seat"]].tolist() == [0.0, 1.0]
    reward = 0.0
    done = False
    while not done:
        mask = env.action_masks()
        # the mask is seat 1's hand: the ranks with cards left in the observation's hand slice
        assert (mask == (obs[lay.slices["hand"]] > 0)).all()
        obs, reward, done, _, info = env.step(int(np.flatnonzero(mask)[-1]))
    scores = info["result"]["scores"]
    assert reward == pytest.approx((scores[1] - scores[0]) / 36)
    hands = env.record().seats
    # the opponent (seat 0) is the descending agent
    ranks = env.layout.rank_of
    assert [ranks[c] for c in hands[0]] == sorted((ranks[c] for c in hands[0]), reverse=True)


def test_set_opponents_swaps_from_the_next_reset():
    env = TacticalEnv("tactical", opponents="random")
    env.set_opponents("ascending")
    env.reset(seed=1)
    for _ in range(18):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    opp = env.record().seats[1]
    ranks = env.layout.rank_of
    assert [ranks[c] for c in opp] == sorted(ranks[c] for c in opp)
    with pytest.raises(ValueError):
        env.set_opponents(["random", "random"])  # two players: one opponent seat


def test_opponent_pool_draws_by_weight_and_pickles_as_specs():
    pool = OpponentPool([("ascending", 1.0), ("descending", 3.0)])
    clone = pickle.loads(pickle.dumps(pool))
    assert clone.entries == pool.entries and clone._agents is None
    rules = preset("tactical")
    ranks = rank_table(rules).rank_of
    asc = 0
    for seed in range(200):
        out = play_game(rules, [clone, make_agent("random")], seed)
        hand = out.record.seats[0]
        r = [ranks[c] for c in hand]
        asc += r == sorted(r)
    assert 20 < asc < 90  # about a quarter ascending


def test_cli_smoke_trains_saves_reloads_and_plays_a_tournament_game(tmp_path):
    out = tmp_path / "run"
    assert main(["train", str(SMOKE), "--quiet", "--set", f"out_dir={out}",
                 "--set", "total_steps=512", "--set", "eval.every=256"]) == 0
    for name in ("model.pt", "model.json", "model.zip", "config.yaml", "run.json", "eval.csv",
                 "learning_curve.png"):
        assert (out / name).is_file(), name
    assert list((out / "snapshots").glob("step_*.pt"))
    meta = json.loads((out / "model.json").read_text())
    assert meta["seed"] == 0 and "torch" in meta["versions"] and meta["players"] == 2
    run = json.loads((out / "run.json").read_text())
    assert run["steps"] >= 512 and run["versions"]["stable-baselines3"]
    # the final evaluation is inside wall_s as it is inside eval_s: training time is positive
    assert 0 < run["eval_s"] < run["wall_s"]
    assert run["steps_per_s"] < 1e6  # it printed 512000000000 when wall_s missed the final one
    rows = list(csv.DictReader((out / "eval.csv").open()))
    assert {r["baseline"] for r in rows} == {"random", "descending"}
    assert all(0 <= float(r["score"]) <= 1 for r in rows)

    agent = make_agent(f"ppo:{out}")  # the run folder: its weights-only model.pt
    assert type(agent).__name__ == "PolicyAgent"
    from pyanitsa.tournaments.config import parse_config as tournament_config
    from pyanitsa.tournaments.runner import run_tournament

    cfg = tournament_config({"name": "smoke", "rules": {"preset": "tactical"}, "deals": 1,
                             "seed": 1, "bootstrap": 0, "output": str(tmp_path / "t"),
                             "agents": [{"name": "ppo", "spec": f"ppo:{out / 'model.pt'}"},
                                        {"name": "random", "spec": "random"}]})
    result = run_tournament(cfg)
    assert result.played == 2  # one deal, seats swapped


def test_eval_csv_tracks_exploitability_beside_random(tmp_path):
    """Issue 14: every evaluation writes the full-deal exploitability of the policy as it
    plays (sampling: a lower bound found as random's is) and random's on the same deals, and
    the greedy policy's (exact); the final row is exactly `pyanitsa exploit` of the exported
    model, and the curve has its panel."""
    from pyanitsa.rules import preset
    from pyanitsa.solvers.exploitability import exploit_deals

    out = tmp_path / "run"
    assert main(["train", str(SMOKE), "--quiet", "--set", f"out_dir={out}",
                 "--set", "total_steps=512", "--set", "eval.every=256",
                 "--set", "eval.exploit.deals=3"]) == 0
    rows = list(csv.DictReader((out / "eval.csv").open()))
    assert sorted({int(r["step"]) for r in rows}) == [256, 512]
    final = [r for r in rows if r["final"] == "1"]
    got = exploit_deals(preset("tactical"), make_agent(f"ppo:{out}"), deals=3, seed=0,
                        samples=8, fresh=16)
    greedy = exploit_deals(preset("tactical"), make_agent(f"ppo:{out}(greedy=True)"), deals=3,
                           seed=0, samples=8, fresh=16)
    assert got["method"] == "lower_bound" and greedy["method"] == "exact"
    for r in final:
        assert float(r["exploitability"]) == round(got["exploitability"], 4)
        assert float(r["exploit_low"]) <= float(r["exploitability"]) <= float(r["exploit_high"])
        assert float(r["greedy_exploitability"]) == round(greedy["exploitability"], 4)
    rnd = exploit_deals(preset("tactical"), make_agent("random"), deals=3, seed=0, samples=8,
                        fresh=16)
    assert {float(r["random_exploitability"]) for r in rows} == {round(rnd["exploitability"], 4)}
    assert main(["train", str(SMOKE), "--quiet", "--force", "--set", f"out_dir={out}",
                 "--set", "total_steps=256", "--set", "eval.exploit=null"]) == 0
    assert "exploitability" not in (out / "eval.csv").read_text().splitlines()[0]


def test_eval_scores_are_the_sampled_policys_and_snapshots_sample(tmp_path):
    """Issue 14: the evaluation plays the policy as ``ppo:`` plays it by default, sampling
    with the deals' seeded rngs (the final rows are exactly ``duplicate_match`` of the exported
    model), and self-play snapshots sample unless ``self_play.deterministic`` asks."""
    from pyanitsa.solvers.duplicate import duplicate_match

    for det in (False, True):
        out = tmp_path / f"run_{det}"
        assert main(["train", str(SMOKE), "--quiet", "--set", f"out_dir={out}",
                     "--set", "total_steps=512", "--set", "eval.exploit=null",
                     "--set", f"self_play.deterministic={str(det).lower()}"]) == 0
        league = json.loads((out / "run.json").read_text())["league"]
        assert league and all(s.endswith(".pt(greedy=True)") == det for s in league), league
    final = {r["baseline"]: float(r["score"]) for r in csv.DictReader((out / "eval.csv").open())
             if r["final"] == "1"}
    for spec, played in ((f"ppo:{out}", True), (f"ppo:{out}(greedy=True)", False)):
        scores = {b: round(duplicate_match(preset("tactical"), make_agent(spec), make_agent(b),
                                           20, 1_000_003).score, 5) for b in final}
        assert (scores == final) == played, (spec, scores, final)


def test_training_leaves_no_empty_sb3_folder_in_the_temp_dir(tmp_path, monkeypatch):
    """Without tensorboard, stable-baselines3 would make an empty SB3-<time> folder in the temp
    dir for every run (hundreds of them after a test suite); the run logs nowhere instead."""
    import tempfile

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    assert main(["train", str(SMOKE), "--quiet", "--set", f"out_dir={tmp_path / 'run'}",
                 "--set", "total_steps=256", "--set", "tensorboard=false",
                 "--set", "eval.exploit=null"]) == 0
    assert not list(temp.glob("SB3-*"))
