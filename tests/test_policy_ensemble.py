"""Ensemble policies (``members: N`` in the sidecar, made by ``distill.members``): each card is
drawn from the mean of the members' distributions over the legal ranks, on either backend; the
files are checked against the sidecar before anything is built; and a run fits the members side
by side, member 0 exactly as a one-network run, resuming after a stop to the same bytes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from pyanitsa.agents import hand_view, make_agent
from pyanitsa.dealing import deal
from pyanitsa.observation import TacticalLayout, TacticalSeat
from pyanitsa.policies.numpy_actor import NumpyActor
from pyanitsa.policies.ppo import (
    PolicyAgent,
    PolicyMeta,
    build_policy,
    load_policy,
    save_policy,
)
from pyanitsa.rng import Rng
from pyanitsa.rules import preset

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[1]
RULES = preset("tactical")
LAYOUT = TacticalLayout(RULES, 2)


def meta(members: int = 1) -> PolicyMeta:
    return PolicyMeta("MaskablePPO", {"pi": [16], "vf": [8]}, "Tanh", RULES.to_json(), 2,
                      LAYOUT.size, LAYOUT.ranks, {"seed": 0}, "hand", "last", None, members)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two one-network policies and the ensemble of both (its files, from ``save_policy``)."""
    folder = tmp_path_factory.mktemp("ens")
    nets = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        nets.append(build_policy(meta()))
    return {"a": save_policy(nets[0], meta(), folder / "a"),
            "b": save_policy(nets[1], meta(), folder / "b"),
            "ab": save_policy(nets, meta(2), folder / "ab")}


def positions(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``n`` hands placed in a random order, every position."""
    obs, masks = [], []
    for i in range(n):
        seat = TacticalSeat(LAYOUT)
        seat.deal(i % 2, deal(RULES, 2, Rng(i)).seats[i % 2])
        rng = np.random.default_rng(i)
        while not seat.done:
            obs.append(seat.obs.copy())
            masks.append(seat.mask.copy())
            seat.play(int(rng.choice(np.flatnonzero(seat.mask))))
    return np.array(obs, np.float32), np.array(masks)


def probabilities(agent: PolicyAgent, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    logits = agent.logits(obs, masks)
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_an_ensemble_plays_the_mean_of_its_members_distributions(files, backend):
    obs, masks = positions(40)
    one = [probabilities(make_agent(f"ppo:{files[k]}(backend={backend})"), obs, masks)
           for k in ("a", "b")]
    both = make_agent(f"ppo:{files['ab']}(backend={backend})")
    assert len(both.members) == 2
    got = probabilities(both, obs, masks)
    np.testing.assert_allclose(got, (one[0] + one[1]) / 2, atol=1e-12 if backend == "numpy"
                               else 1e-6)
    assert (got[~masks] == 0).all()  # a rank not in hand is never drawn
    assert not np.allclose(one[0], one[1], atol=1e-3)  # two networks, not one twice


def test_numpy_and_torch_ensembles_play_the_same_orders(files):
    vs = [hand_view(RULES, i % 2, deal(RULES, 2, Rng(i)).seats, 0) for i in range(300)]
    fast = make_agent(f"ppo:{files['ab']}(backend=numpy)")
    slow = make_agent(f"ppo:{files['ab']}(backend=torch)")
    assert all(isinstance(m, NumpyActor) for m in fast.members)
    rngs = [[np.random.default_rng(i) for i in range(len(vs))] for _ in range(2)]
    orders = fast.order_hands(vs, rngs[0])
    assert orders == slow.order_hands(vs, rngs[1])
    assert len({tuple(o) for o in orders[:2]}) == 2


def test_an_ensemble_of_one_network_twice_plays_as_the_network(files, tmp_path):
    net, _ = load_policy(files["a"])
    twice = save_policy([net, net], meta(2), tmp_path / "aa")
    obs, masks = positions(10)
    np.testing.assert_allclose(probabilities(make_agent(f"ppo:{twice}"), obs, masks),
                               probabilities(make_agent(f"ppo:{files['a']}"), obs, masks),
                               atol=1e-12)


def test_one_network_files_keep_their_format(files):
    side = json.loads(files["a"].with_suffix(".json").read_text())
    assert "members" not in side
    assert not any(k.startswith("m0.") for k in torch.load(files["a"], weights_only=True))
    assert json.loads(files["ab"].with_suffix(".json").read_text())["members"] == 2


@pytest.mark.parametrize("value", [0, 17, "2", True, 2.0, None])
def test_a_bad_members_count_is_one_line_naming_it(files, tmp_path, value):
    stem = tmp_path / "p"
    for suffix in (".pt", ".npz"):
        stem.with_suffix(suffix).write_bytes(files["ab"].with_suffix(suffix).read_bytes())
    side = json.loads(files["ab"].with_suffix(".json").read_text())
    stem.with_suffix(".json").write_text(json.dumps({**side, "members": value}))
    for backend in ("numpy", "torch"):
        with pytest.raises(ValueError, match="members should be an integer 1..16"):
            make_agent(f"ppo:{stem}.pt(backend={backend})")


def test_a_sidecar_asking_for_more_members_than_the_files_hold_is_refused(files, tmp_path):
    stem = tmp_path / "p"
    for suffix in (".pt", ".npz"):
        stem.with_suffix(suffix).write_bytes(files["ab"].with_suffix(suffix).read_bytes())
    side = json.loads(files["ab"].with_suffix(".json").read_text())
    stem.with_suffix(".json").write_text(json.dumps({**side, "members": 3}))
    with pytest.raises(ValueError, match=r"p\.npz: .* bytes, but the sidecar's net_arch"):
        make_agent(f"ppo:{stem}.pt(backend=numpy)")
    with pytest.raises(ValueError, match=r"net_arch asks for .* but p\.pt holds"):
        make_agent(f"ppo:{stem}.pt(backend=torch)")


def test_a_weight_outside_every_member_is_refused(files, tmp_path):
    state = torch.load(files["ab"], weights_only=True)
    state["m2.action_net.bias"] = state["m1.action_net.bias"]
    stem = tmp_path / "p"
    torch.save(state, stem.with_suffix(".pt"))
    stem.with_suffix(".json").write_bytes(files["ab"].with_suffix(".json").read_bytes())
    with pytest.raises(ValueError, match="'m2.action_net.bias' belongs to none of the 2"):
        make_agent(f"ppo:{stem}.pt(backend=torch)")


def test_saving_other_than_the_sidecars_member_count_is_refused(tmp_path):
    net = build_policy(meta())
    with pytest.raises(ValueError, match="2 networks, but the sidecar says members: 3"):
        save_policy([net, net], meta(3), tmp_path / "p")


# -- distill.members: the training run ------------------------------------------------------------


def run_args(out: Path, members: int) -> list[str]:
    sets = {"total_steps": 0, "out_dir": str(out), "distill.deals": 200, "distill.holdout": 20,
            "distill.samples": 1, "distill.iterations": 2, "distill.workers": 2,
            "distill.epochs": 6, "distill.batch_size": 64, "distill.members": members,
            "distill.model": "null", "distill.confidence": 0, "eval.baselines": "[random]",
            "eval.deals": 4, "eval.final_deals": 4, "eval.exploit": "null",
            "ppo.net_arch": "[16]", "ppo.features": "last", "n_envs": 2, "ppo.n_steps": 32,
            "ppo.batch_size": 64}
    args = [sys.executable, "-m", "pyanitsa", "train",
            str(REPO / "configs" / "train" / "tactical_distill.yaml"), "--quiet"]
    for k, v in sets.items():
        args += ["--set", f"{k}={v}"]
    return args


def test_member_0_is_the_one_network_fit_and_member_1_another(tmp_path):
    from pyanitsa.training.distill import fit_actor, load_teacher_data, make_teacher_data
    from pyanitsa.training.distill_members import fit_members

    dcfg = {"deals": 4, "holdout": 1, "samples": 2, "iterations": 3, "algorithm": "cfr+",
            "seed": 5, "workers": 2, "epochs": 3, "lr": 3e-3, "batch_size": 32, "members": 2}
    make_teacher_data(tmp_path, {"deck": "36"}, dcfg, {}, False)
    torch.manual_seed(0)
    alone = build_policy(meta())
    first = build_policy(meta())
    first.load_state_dict(alone.state_dict())
    curve = fit_actor(alone, load_teacher_data(tmp_path, 4), dcfg, tmp_path / "alone.pt", {},
                      False, lambda _: None)
    said: list[str] = []
    (second,), curves = fit_members(first, RULES, dcfg, tmp_path, {}, False, said.append,
                                    "MaskablePPO")
    assert curves[0] == curve and curves[1] != curve
    for key, value in alone.state_dict().items():
        assert torch.equal(first.state_dict()[key], value), key
        if key.startswith(("mlp_extractor.policy_net", "action_net")):  # what a fit moves
            assert not torch.equal(second.state_dict()[key], value), key
    assert [line.split(":")[0] for line in said] == ["distilled member 0", "distilled member 1"]


@pytest.mark.slow  # 37 s; resume after a kill is also held by test_distill's teacher-data resume
def test_a_members_run_stopped_in_its_fits_resumes_to_the_same_ensemble(tmp_path):
    """Two members fitted side by side; a SIGINT once member 1 has an epoch on disk, then
    ``--resume``, ends with the same bytes as an uninterrupted run, and the ensemble plays
    orders that differ."""
    ref, out = tmp_path / "ref", tmp_path / "run"
    # side by side (two cores): the test's wall time is the longer run's
    others = [subprocess.Popen(run_args(ref, 2), cwd=REPO, stderr=subprocess.PIPE, text=True)]
    proc = subprocess.Popen(run_args(out, 2), cwd=REPO, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not (out / "teacher" / "fit1.pt").exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=120) == 130, proc.stderr.read()
    assert not (out / "model.pt").exists()
    # stopped in the fits, not after them
    assert torch.load(out / "teacher" / "fit1.pt", weights_only=False)["epoch"] < 6
    resumed = subprocess.run([*run_args(out, 2), "--resume"], cwd=REPO, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    for p in others:
        assert p.wait(timeout=600) == 0, p.stderr.read()
    for name in ("model.pt", "model.npz", "distill.csv"):
        assert (out / name).read_bytes() == (ref / name).read_bytes(), name
    assert not (ref / "model.zip").exists()  # an SB3 save holds one network
    assert (ref / "distill.csv").read_text().startswith("member,epoch,")
    agent = make_agent(f"ppo:{ref}")
    assert len(agent.members) == 2 and agent.meta.members == 2
    view = hand_view(RULES, 0, deal(RULES, 2, Rng(3)).seats, 0)
    orders = {tuple(agent.order_hand(view, np.random.default_rng(i))) for i in range(20)}
    assert len(orders) > 1


def test_members_with_ppo_steps_are_refused_naming_the_key():
    from pyanitsa.training.config import TrainConfigError
    from pyanitsa.training.train import load_config

    with pytest.raises(TrainConfigError, match=r"^distill\.members: 2 networks"):
        load_config(REPO / "configs" / "train" / "tactical_distill.yaml",
                    ["distill.members=2", "total_steps=1000"])
