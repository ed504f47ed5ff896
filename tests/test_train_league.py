"""``pyanitsa train`` with a ``league:``: generations of sampled snapshots and best responses to
them, opponent weights from the meta-game's Nash equilibrium (checked against the reference
engine and an LP solved here), an entropy schedule, and runs that resume (kill -9, SIGINT, a moved
run folder) to the same league as an uninterrupted run; a bad league config is one line."""

from __future__ import annotations

import csv
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pyanitsa.agents import make_agent
from pyanitsa.cli import main

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "configs" / "train" / "smoke.yaml"
# 5 rollouts of 256 steps; generations at 512 and 1024, checkpoints at every rollout start
LEAGUE = ["--set", "total_steps=1280", "--set", "self_play.every=0", "--set", "league.every=512",
          "--set", "league.meta_deals=6", "--set", "league.meta_seed=11",
          "--set", "league.fixed_share=0.25", "--set", "eval.every=0",
          "--set", "checkpoint_every=256",
          "--set", "ppo.ent_coef={start: 0.05, end: 0.005, kind: linear}", "--quiet"]


def league_args(out: Path, *extra: str) -> list[str]:
    return ["train", str(SMOKE), *LEAGUE, "--set", f"out_dir={out}", *extra]


def league_rows(run: Path) -> list[dict]:
    return list(csv.DictReader((run / "league.csv").open()))


def outcome(run: Path) -> dict:
    info = json.loads((run / "run.json").read_text())
    return {"steps": info["steps"], "league": info["league"], "weights": info["league_weights"],
            "rows": league_rows(run), "model": (run / "model.pt").read_bytes()}


UPDATE_THREADS: list[int] = []
"""torch's thread count at every PPO update of the uninterrupted run."""


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    import torch
    from sb3_contrib import MaskablePPO

    real = MaskablePPO.train

    def train(self):
        UPDATE_THREADS.append(torch.get_num_threads())
        return real(self)

    out = tmp_path_factory.mktemp("league") / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(MaskablePPO, "train", train)
        assert main(league_args(out)) == 0
    return out


def test_torch_keeps_its_one_thread_after_the_meta_games_parallel_kernels(uninterrupted):
    # numba's OpenMP layer, shared with torch, moves torch to numba's thread count
    assert len(UPDATE_THREADS) == 5
    assert UPDATE_THREADS == [1] * 5


def test_a_league_run_has_two_generations_whose_weights_sum_to_one(uninterrupted):
    rows = league_rows(uninterrupted)
    assert sorted({(r["generation"], r["step"]) for r in rows}) == [("1", "512"), ("2", "1024")]
    for g, members in (("1", ["random", "descending", "gen_1", "br_1"]),
                       ("2", ["random", "descending", "gen_1", "br_1", "gen_2", "br_2"])):
        mine = [r for r in rows if r["generation"] == g]
        assert [r["member"] for r in mine] == members
        assert sum(float(r["weight"]) for r in mine) == pytest.approx(1, abs=1e-5)
        assert sum(float(r["nash"]) for r in mine) == pytest.approx(1, abs=1e-5)
        # the heuristics keep their configured share whatever the meta-game says
        for r in mine[:2]:
            assert float(r["weight"]) >= 0.25 / 2 - 1e-6
    info = json.loads((uninterrupted / "run.json").read_text())
    assert info["league"][-2:] == [rows[-2]["spec"], rows[-1]["spec"]]
    assert "{run}" in rows[-2]["spec"]  # relative to the run folder
    assert info["league_weights"] == pytest.approx([float(r["weight"]) for r in rows[-6:]],
                                                   abs=1e-6)
    assert (uninterrupted / "snapshots" / "gen_2.pt").is_file()


def test_the_final_policy_samples_different_orders(uninterrupted):
    from pyanitsa.dealing import deal
    from pyanitsa.protocol import hand_view
    from pyanitsa.rng import Rng
    from pyanitsa.rules import preset

    rules = preset("tactical")
    agent = make_agent(f"ppo:{uninterrupted}(deterministic=False)")
    view = hand_view(rules, 0, deal(rules, 2, Rng(3)).seats, 0)
    orders = {tuple(agent.order_hand(view, np.random.default_rng(k))) for k in range(20)}
    assert len(orders) > 1


def test_the_meta_nash_is_the_lp_of_the_meta_game_played_on_the_reference_engine(uninterrupted):
    from scipy.optimize import linprog

    from pyanitsa.agents.search import cards_for_ranks
    from pyanitsa.dealing import deal
    from pyanitsa.ranks import rank_table
    from pyanitsa.rng import Rng, derive_seed
    from pyanitsa.rules import preset
    from pyanitsa.tactical import TacticalGame

    saved = np.load(uninterrupted / "league.npz", allow_pickle=False)
    names, orders, matrix = list(saved["members"]), saved["orders"], saved["matrix"]
    rules = preset("tactical")
    table = rank_table(rules)
    n, deals = len(names), orders.shape[1]
    assert orders.shape[:3] == (6, 6, 2)
    by_hand = np.zeros((n, n))
    for d in range(deals):
        hands = deal(rules, 2, Rng(derive_seed(11, d))).seats
        for i in range(n):
            for j in range(n):
                cards = [cards_for_ranks(hands[0], orders[i, d, 0], table),
                         cards_for_ranks(hands[1], orders[j, d, 1], table)]
                a, b = TacticalGame(rules, cards).play().scores
                by_hand[i, j] += (a - b) / 2 / deals  # i in seat 0 against j ...
                by_hand[j, i] -= (a - b) / 2 / deals  # ... is j in seat 1 against i
    np.testing.assert_allclose(matrix, by_hand, atol=1e-9)
    assert np.abs(matrix).sum() > 0
    # the symmetric game's LP: max v with every column's payoff against x at least v
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.c_[-by_hand.T, np.ones(n)],
                  b_ub=np.zeros(n), A_eq=np.r_[np.ones(n), 0.0][None], b_eq=[1.0],
                  bounds=[(0, None)] * n + [(None, None)], method="highs")
    assert res.x[-1] == pytest.approx(0, abs=1e-9)  # a symmetric zero-sum game is worth 0
    rows = [r for r in league_rows(uninterrupted) if r["generation"] == "2"]
    nash = np.array([float(r["nash"]) for r in rows])
    assert (nash @ by_hand).min() >= -1e-5  # no member gains against the league's mixture
    np.testing.assert_allclose(nash, res.x[:n], atol=1e-5)
    fixed = np.array([0.5, 0.5, 0, 0, 0, 0])
    weights = np.array([float(r["weight"]) for r in rows])
    np.testing.assert_allclose(weights, 0.75 * nash + 0.25 * fixed, atol=1e-5)
    np.testing.assert_allclose([float(r["payoff"]) for r in rows], by_hand @ weights, atol=1e-3)


def test_the_entropy_schedule_sets_the_models_coefficient(uninterrupted):
    from sb3_contrib import MaskablePPO

    from pyanitsa.training.config import EntSchedule

    model = MaskablePPO.load(uninterrupted / "model.zip", device="cpu")
    # set at the start of the last rollout, step 1024 of 1280
    assert model.ent_coef == pytest.approx(0.05 + (0.005 - 0.05) * 1024 / 1280)
    geo = EntSchedule(start=0.1, end=0.001, kind="exponential")
    assert geo.at(0) == pytest.approx(0.1) and geo.at(0.5) == pytest.approx(0.01)
    assert geo.at(1) == pytest.approx(0.001)


def start(out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pyanitsa", *league_args(out)], cwd=REPO,
                            stderr=subprocess.PIPE, text=True)


def wait_for_checkpoint(out: Path, proc: subprocess.Popen, step: int,
                        timeout: float = 180) -> None:
    """Until the run's checkpoint holds ``step`` (a generation in its league)."""
    from pyanitsa.training.checkpoint import read_checkpoint

    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, f"the run ended first: {proc.stderr.read()}"
        assert time.monotonic() < deadline, f"no checkpoint at step {step} after {timeout} s"
        found = read_checkpoint(out) if (out / "checkpoint.pkl").exists() else None
        if found is not None and found["step"] >= step:
            return
        time.sleep(0.05)


@pytest.mark.parametrize("sig, code", [(signal.SIGKILL, -9), (signal.SIGINT, 130)])
def test_a_stopped_league_run_resumes_to_the_uninterrupted_league(tmp_path, uninterrupted, sig,
                                                                  code):
    out = tmp_path / "run"
    proc = start(out)
    wait_for_checkpoint(out, proc, 768)  # after the first generation
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == code, err
    assert not (out / "model.pt").exists()
    assert main(league_args(out, "--resume")) == 0
    assert outcome(out) == outcome(uninterrupted)


def test_a_moved_run_folder_resumes(tmp_path, uninterrupted):
    out = tmp_path / "run"
    proc = start(out)
    wait_for_checkpoint(out, proc, 768)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(out, moved)  # the first folder is gone: every path must lead into this one
    assert main(league_args(moved, "--resume")) == 0
    assert outcome(moved) == outcome(uninterrupted)
    assert not out.exists()


@pytest.mark.parametrize("setting, key", [
    ("league.every=-1", "league.every"),
    ("league.fixed_share=1.5", "league.fixed_share"),
    ("league.meta_deals=0", "league.meta_deals"),
    ("league.br_samples=0", "league.br_samples"),
    ("league.best_response=false", "league.best_response"),  # misspelled
    ("league.every=512", "league.every"),  # beside self_play (smoke.yaml's every: 256)
    ("ppo.ent_coef={start: 0.1}", "ppo.ent_coef"),
    ("ppo.ent_coef={start: 0.1, end: 0, kind: exponential}", "ppo.ent_coef"),
    ("ppo.ent_coef=true", "ppo.ent_coef"),
])
def test_a_bad_league_config_is_one_line_naming_the_key(tmp_path, capsys, setting, key):
    assert main(["train", str(SMOKE), "--set", setting, "--set", f"out_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("pyanitsa train: error: "), err
    assert f"{key}:" in err, err
    assert not list(tmp_path.iterdir())  # refused before anything ran


def test_a_league_needs_two_players(tmp_path, capsys):
    assert main(["train", str(SMOKE), "--set", "self_play.every=0", "--set", "league.every=512",
                 "--set", "env.kwargs.players=3", "--set", "eval.baselines=[]",
                 "--set", f"out_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "league.every:" in err and "two-player" in err, err
