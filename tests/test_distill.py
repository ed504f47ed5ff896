"""Distilling ``nash`` into the policy (``distill:``) and the ``features: last`` networks: the
teacher's targets are its strategy, the data is the same whoever makes it, the fit resumes to
the same weights, a stopped run resumes to the same policy, and numpy plays what torch plays."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch as th

from pyanitsa.observation import TacticalLayout, TacticalSeat
from pyanitsa.policies.meta import PolicyLoadError, PolicyMeta
from pyanitsa.policies.ppo import build_policy, load_agent, save_policy
from pyanitsa.policies.prior import LastPlayed
from pyanitsa.rules import preset
from pyanitsa.solvers import cfr as nash
from pyanitsa.solvers import cfr_kernels as nk
from pyanitsa.training.distill import (
    DistillStopped,
    fit_actor,
    load_teacher_data,
    make_teacher_data,
    teacher_chunk,
)
from pyanitsa.training.teacher import teacher_targets
from pyanitsa.training.train import load_config

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[1]
RULES = preset("tactical")
LAYOUT = TacticalLayout(RULES, 2)
TEACHER = {"deals": 4, "holdout": 1, "samples": 2, "iterations": 3, "algorithm": "cfr+",
           "seed": 5, "workers": 1, "epochs": 3, "lr": 3e-3, "batch_size": 32}


def played_rows(seed: int) -> tuple[np.ndarray, list[int]]:
    """Every observation of one seat placing a random order, and the ranks it placed."""
    from pyanitsa.dealing import deal
    from pyanitsa.rng import Rng

    seat = TacticalSeat(LAYOUT)
    seat.deal(0, deal(RULES, 2, Rng(seed)).seats[0])
    rng = np.random.default_rng(seed)
    rows = []
    while not seat.done:
        rows.append(seat.obs.copy())
        seat.play(int(rng.choice(np.flatnonzero(seat.mask))))
    return np.array(rows), list(seat.ranks)


def test_last_played_is_the_rank_placed_last_and_the_share_placed() -> None:
    obs, ranks = played_rows(3)
    feats = LAYOUT.last_played(obs)
    assert feats.shape == (LAYOUT.hand_size, LAYOUT.ranks + 1)
    assert not feats[0].any()  # nothing placed yet
    for t in range(1, LAYOUT.hand_size):
        assert feats[t, :LAYOUT.ranks].argmax() == ranks[t - 1] and feats[t, :-1].sum() == 1
        assert feats[t, -1] == pytest.approx(t / LAYOUT.hand_size)
    torch_feats = LastPlayed(_box(), LAYOUT.ranks, LAYOUT.hand_size)(th.from_numpy(obs))
    np.testing.assert_array_equal(torch_feats.numpy(), LAYOUT.features(obs, "last"))


def _box():
    from gymnasium import spaces

    return spaces.Box(0.0, 1.0, (LAYOUT.size,), np.float32)


def _meta(features: str = "last") -> PolicyMeta:
    return PolicyMeta("MaskablePPO", {"pi": [16], "vf": [16]}, "ReLU", RULES.to_json(), 2,
                      LAYOUT.size, LAYOUT.ranks, {}, "hand", features,
                      "tie_aware" if features == "model" else None)


def test_numpy_and_torch_players_agree_on_a_last_features_policy(tmp_path: Path) -> None:
    policy = build_policy(_meta())
    assert policy.features_dim == LAYOUT.size + LAYOUT.ranks + 1
    save_policy(policy, _meta(), tmp_path / "p")
    assert json.loads((tmp_path / "p.json").read_text())["features"] == "last"
    numpy_agent = load_agent(str(tmp_path / "p"), backend="numpy")
    torch_agent = load_agent(str(tmp_path / "p"), backend="torch")
    assert numpy_agent.meta.features == "last"
    obs, _ = played_rows(4)
    np.testing.assert_allclose(numpy_agent.logits(obs), torch_agent.logits(obs), atol=1e-5)


def test_a_sidecar_with_unknown_features_is_one_error_naming_them(tmp_path: Path) -> None:
    obj = _meta().to_json()
    assert PolicyMeta.from_json({k: v for k, v in obj.items() if k != "features"},
                                "old").features == "obs"  # sidecars before the field
    with pytest.raises(PolicyLoadError, match="features 'tail' is not one of obs, last"):
        PolicyMeta.from_json({**obj, "features": "tail"}, "p.json")


def test_teacher_targets_multiply_to_the_teachers_order_probabilities() -> None:
    """Along any order, the product of the per-position targets is what ``nash`` gives the
    whole order (its own ``order_probs``)."""
    counts = [np.array(c, np.int64) for c in ([2, 1, 0, 1, 0, 1, 1, 2, 1], [2, 3, 4, 3, 4, 3, 3,
                                                                            2, 3])]
    small = [c.copy() for c in counts]
    strat = nash.solve(RULES, small[0], small[1], 20)
    side = strat.seat_of(small[0])
    avg, mine = strat.avg[side], strat.counts[side]
    orders = nk.sample_orders(avg, mine, np.random.default_rng(0).random((6, int(mine.sum()))))
    for order in orders:
        tg = teacher_targets(avg, mine, order)
        np.testing.assert_allclose(tg.sum(1), 1.0, rtol=1e-6)
        path = np.prod([tg[t, r] for t, r in enumerate(order)])
        assert path == pytest.approx(nk.order_probs(avg, mine, order[None, :])[0], rel=1e-5)


def test_teacher_data_is_the_same_with_any_number_of_workers(tmp_path: Path) -> None:
    options = {k: v for k, v in RULES.to_json().items() if k != "mode"}
    make_teacher_data(tmp_path / "a", options, {**TEACHER, "workers": 2}, {}, progress=False)
    one = teacher_chunk(RULES, TEACHER, 0)
    two = load_teacher_data(tmp_path / "a", TEACHER["deals"])
    assert set(np.unique(one["deal"])) == set(range(TEACHER["deals"]))
    for key in ("obs", "mask", "tgt", "deal"):
        np.testing.assert_array_equal(one[key], two[key])
    # 4 deals x 2 seats x 2 samples x 18 positions, every target a distribution on legal ranks
    assert len(one["tgt"]) == 4 * 2 * 2 * LAYOUT.hand_size
    assert np.all(one["tgt"][~one["mask"]] == 0)
    # another seed is another teacher: the folder is made anew, not mixed
    make_teacher_data(tmp_path / "a", options, {**TEACHER, "seed": 6}, {}, progress=False)
    assert not np.array_equal(load_teacher_data(tmp_path / "a", 4)["obs"], two["obs"])


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_a_model_teaches_one_seat_a_deal_its_restricted_nash_response(algorithm: str) -> None:
    """With ``model``, deal ``i`` teaches seat ``i % 2`` alone, and what it teaches is what the
    ``nash(model=..., confidence=..., algorithm=...)`` agent plays there."""
    from pyanitsa.agents import make_agent
    from pyanitsa.dealing import deal
    from pyanitsa.protocol import hand_view
    from pyanitsa.rng import Rng, derive_seed

    cfg = {**TEACHER, "model": "tie_aware", "confidence": 0.3, "algorithm": algorithm}
    data = teacher_chunk(RULES, cfg, 0)
    assert len(data["tgt"]) == 4 * 1 * 2 * LAYOUT.hand_size
    agent = make_agent(f'nash(model="tie_aware", confidence=0.3, iterations=3, '
                       f'algorithm="{algorithm}")')
    plain = teacher_chunk(RULES, TEACHER, 0)
    for i in range(4):
        hands = deal(RULES, 2, Rng(derive_seed(TEACHER["seed"], i))).seats
        strat, side = agent.strategy(hand_view(RULES, i % 2, hands, 0))
        avg, counts = strat.avg[side], strat.counts[side]
        root = np.empty(LAYOUT.ranks)
        nk.policy(avg, (nk.multipliers(counts)[1] - 1) * (LAYOUT.ranks + 1) + LAYOUT.ranks,
                  counts, root)
        first = np.flatnonzero(data["deal"] == i)[0]
        np.testing.assert_allclose(data["tgt"][first], root, rtol=1e-6)
        # the seat is in the observation: the model's seat differs from the plain teacher's
        mine = np.flatnonzero(plain["deal"] == i)[(i % 2) * 2 * LAYOUT.hand_size]
        np.testing.assert_array_equal(data["obs"][first], plain["obs"][mine])
        assert not np.allclose(data["tgt"][first], plain["tgt"][mine])


def test_a_mutual_response_teaches_both_seats_what_the_agent_plays() -> None:
    """``response: mutual``: one solve a deal teaches both seats, each what
    ``nash(model=..., confidence=..., response="mutual")`` plays there."""
    from pyanitsa.agents import make_agent
    from pyanitsa.dealing import deal
    from pyanitsa.protocol import hand_view
    from pyanitsa.rng import Rng, derive_seed

    cfg = {**TEACHER, "model": "tie_aware", "confidence": 0.3, "response": "mutual"}
    data = teacher_chunk(RULES, cfg, 0)
    assert len(data["tgt"]) == 4 * 2 * 2 * LAYOUT.hand_size
    agent = make_agent('nash(model="tie_aware", confidence=0.3, iterations=3, '
                       'response="mutual")')
    plain = teacher_chunk(RULES, TEACHER, 0)
    for i in range(4):
        hands = deal(RULES, 2, Rng(derive_seed(TEACHER["seed"], i))).seats
        rows = np.flatnonzero(data["deal"] == i)
        for seat in (0, 1):
            strat, side = agent.strategy(hand_view(RULES, seat, hands, 0))
            avg, counts = strat.avg[side], strat.counts[side]
            root = np.empty(LAYOUT.ranks)
            nk.policy(avg, (nk.multipliers(counts)[1] - 1) * (LAYOUT.ranks + 1) + LAYOUT.ranks,
                      counts, root)
            first = rows[seat * 2 * LAYOUT.hand_size]
            np.testing.assert_allclose(data["tgt"][first], root, rtol=1e-6)
            np.testing.assert_array_equal(data["obs"][first], plain["obs"][first])
        assert not np.allclose(data["tgt"][rows], plain["tgt"][rows])


def _fit(data: dict, state: Path, stop: dict, features: str = "last") -> tuple[list, dict]:
    th.manual_seed(0)
    policy = build_policy(_meta(features))
    curve = fit_actor(policy, data, TEACHER, state, stop, False, lambda m: None)
    return curve, policy.state_dict()


def test_a_stopped_fit_resumes_to_the_same_weights(tmp_path: Path) -> None:
    data = teacher_chunk(RULES, TEACHER, 0)
    ref_curve, ref = _fit(data, tmp_path / "ref.pt", {})
    assert ref_curve[-1]["train_kl"] < ref_curve[0]["train_kl"] or len(ref_curve) == 1
    with pytest.raises(DistillStopped):
        _fit(data, tmp_path / "fit.pt", {"signum": signal.SIGINT})
    assert th.load(tmp_path / "fit.pt", weights_only=False)["epoch"] == 1
    curve, got = _fit(data, tmp_path / "fit.pt", {})
    assert curve == ref_curve
    best = min(ref_curve, key=lambda r: r["held_kl"])
    assert best["held_kl"] == min(r["held_kl"] for r in curve)
    for key in ref:
        assert th.equal(ref[key], got[key]), key


def test_a_fit_on_features_computed_once_is_the_fit_on_features_of_each_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The extractor's output is computed once a fit (``fixed_features``); the weights and the
    curve are those of calling the extractor on every batch, bit for bit."""
    import pyanitsa.training.distill as distill

    data = teacher_chunk(RULES, TEACHER, 0)
    once_curve, once = _fit(data, tmp_path / "once.pt", {}, "model")
    monkeypatch.setattr(distill, "fixed_features", lambda policy, obs: None)
    each_curve, each = _fit(data, tmp_path / "each.pt", {}, "model")
    assert once_curve == each_curve
    for key in once:
        assert th.equal(once[key], each[key]), key


def test_fixed_features_are_none_when_the_extractor_learns() -> None:
    from pyanitsa.training.distill import fixed_features

    policy = build_policy(_meta("model"))
    obs = th.from_numpy(played_rows(3)[0])
    np.testing.assert_array_equal(fixed_features(policy, obs).numpy(),
                                  policy.extract_features(obs).numpy())
    policy.pi_features_extractor.register_parameter("w", th.nn.Parameter(th.zeros(1)))
    assert fixed_features(policy, obs) is None


def distill_args(out: Path) -> list[str]:
    sets = {"total_steps": 0, "out_dir": str(out), "distill.deals": 200, "distill.holdout": 20,
            "distill.samples": 1, "distill.iterations": 2, "distill.workers": 1,
            "distill.epochs": 2, "distill.batch_size": 64, "eval.baselines": "[random]",
            "eval.deals": 4, "eval.final_deals": 4, "eval.exploit": "null",
            "ppo.net_arch": "[16]", "ppo.features": "last", "n_envs": 2, "ppo.n_steps": 32,
            "ppo.batch_size": 64, "league.every": 0, "distill.model": "null",
            "distill.confidence": 0, "distill.members": 1}
    args = [sys.executable, "-m", "pyanitsa", "train",
            str(REPO / "configs" / "train" / "tactical_distill.yaml"), "--quiet"]
    for k, v in sets.items():
        args += ["--set", f"{k}={v}"]
    return args


def test_a_run_stopped_in_its_teacher_data_resumes_to_the_same_policy(tmp_path: Path) -> None:
    # the uninterrupted run beside the stopped one (two cores: the test's wall time halves)
    ref = subprocess.Popen(distill_args(tmp_path / "ref"), cwd=REPO, stderr=subprocess.PIPE,
                           text=True)
    out = tmp_path / "run"
    proc = subprocess.Popen(distill_args(out), cwd=REPO, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not (out / "teacher" / "c000.npz").exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=120) == 130, proc.stderr.read()
    assert (out / "checkpoint.pkl").exists() and not (out / "model.pt").exists()
    resumed = subprocess.run([*distill_args(out), "--resume"], cwd=REPO, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert ref.wait(timeout=600) == 0, ref.stderr.read()
    assert (out / "model.pt").read_bytes() == (tmp_path / "ref" / "model.pt").read_bytes()
    assert (out / "distill.csv").read_text() == (tmp_path / "ref" / "distill.csv").read_text()


def test_the_shipped_distill_config_is_valid_and_two_player() -> None:
    cfg = load_config(REPO / "configs" / "train" / "tactical_distill.yaml")
    assert cfg.distill is not None and cfg.distill.members == 2 and cfg.total_steps == 0
    assert cfg.ppo.features == "model" and cfg.ppo.opponent_model == cfg.distill.model
    assert cfg.env.kwargs["players"] == 2


def test_a_fit_of_another_network_is_not_resumed(tmp_path: Path) -> None:
    """A stopped fit left in the run folder by a config with other features is started anew
    (one log line), not loaded into this network."""
    data = teacher_chunk(RULES, TEACHER, 0)
    with pytest.raises(DistillStopped):
        _fit(data, tmp_path / "fit.pt", {"signum": signal.SIGINT})
    th.manual_seed(0)
    policy = build_policy(_meta("obs"))
    said: list[str] = []
    curve = fit_actor(policy, data, TEACHER, tmp_path / "fit.pt", {}, False, said.append)
    assert len(curve) == TEACHER["epochs"] and "fitting anew" in said[0]
    assert th.load(tmp_path / "fit.pt", weights_only=False)["network"]["features"] == "obs"
