"""``features: model``: the network reads the opponent model's pair marginals, which are the
``nash`` response's own inputs, computed from the observation alone; numpy plays what torch
plays; a sidecar or config can only name a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pyanitsa.agents import make_agent
from pyanitsa.dealing import deal
from pyanitsa.observation import TacticalLayout, TacticalSeat
from pyanitsa.policies.features import ModelFeatures
from pyanitsa.policies.meta import PolicyLoadError, PolicyMeta
from pyanitsa.policies.ppo import build_policy, load_agent, save_policy
from pyanitsa.protocol import hand_view
from pyanitsa.rng import Rng
from pyanitsa.rules import preset
from pyanitsa.solvers import cfr as nash
from pyanitsa.training.train import TrainConfigError, load_config

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[1]
RULES = preset("tactical")
LAYOUT = TacticalLayout(RULES, 2)


def played(seed: int, seat: int) -> tuple[list, np.ndarray, list[int]]:
    """The hands of deal ``seed``, and ``seat``'s observations placing a random order."""
    hands = deal(RULES, 2, Rng(seed)).seats
    view = TacticalSeat(LAYOUT)
    view.deal(seat, hands[seat])
    rng = np.random.default_rng(seed)
    rows = []
    while not view.done:
        rows.append(view.obs.copy())
        view.play(int(rng.choice(np.flatnonzero(view.mask))))
    return hands, np.array(rows), list(view.ranks)


@pytest.mark.parametrize(("seed", "seat"), [(3, 0), (8, 1)])
def test_the_features_are_the_models_pair_marginals_at_the_position_placed(seed, seat):
    hands, obs, ranks = played(seed, seat)
    one, two = nash.model_marginals(RULES, make_agent("tie_aware"),
                                    hand_view(RULES, seat, hands, 0), nash.MODEL_SAMPLES)
    feats = ModelFeatures(LAYOUT, "tie_aware")(obs[::-1])[::-1]  # rows in any order
    r = LAYOUT.ranks
    assert feats.shape == (LAYOUT.hand_size, 2 * r)
    np.testing.assert_allclose(one.sum(1), 1.0)
    for t in range(LAYOUT.hand_size):
        np.testing.assert_allclose(feats[t, :r], one[t], rtol=1e-6)
        want = two[t, ranks[t - 1]] if t else np.zeros(r)
        np.testing.assert_allclose(feats[t, r:], want, rtol=1e-6, atol=1e-7)
    # the model holds what I have not seen: over the positions it plays each of those cards
    theirs = np.array(LAYOUT.counts) - np.bincount(ranks, minlength=r)
    np.testing.assert_allclose(feats[:, :r].sum(0), theirs, rtol=1e-5)


def test_another_model_gives_other_features():
    _, obs, _ = played(3, 0)
    a = ModelFeatures(LAYOUT, "tie_aware")(obs)
    b = ModelFeatures(LAYOUT, "ascending")(obs)
    assert not np.allclose(a, b)
    np.testing.assert_allclose(b[:, :LAYOUT.ranks].max(1), 1.0)  # a pure order


def _meta(**kw) -> PolicyMeta:
    return PolicyMeta("MaskablePPO", {"pi": [16], "vf": [16]}, "ReLU", RULES.to_json(), 2,
                      LAYOUT.size, LAYOUT.ranks, {}, "hand", "model", kw.get("model", "tie_aware"))


def test_numpy_and_torch_players_agree_on_a_model_features_policy(tmp_path: Path) -> None:
    policy = build_policy(_meta())
    assert policy.features_dim == LAYOUT.size + 3 * LAYOUT.ranks + 1 == _meta().input_size
    save_policy(policy, _meta(), tmp_path / "p")
    side = json.loads((tmp_path / "p.json").read_text())
    assert (side["features"], side["opponent_model"]) == ("model", "tie_aware")
    numpy_agent = load_agent(str(tmp_path / "p"), backend="numpy")
    torch_agent = load_agent(str(tmp_path / "p"), backend="torch")
    assert numpy_agent.meta.opponent_model == "tie_aware"
    _, obs, _ = played(4, 1)
    np.testing.assert_allclose(numpy_agent.logits(obs), torch_agent.logits(obs), atol=1e-5)


@pytest.mark.parametrize("model", [None, "", "cmd:./evil", "pkg.mod:Agent", "nash", 3])
def test_a_sidecar_can_only_name_a_scripted_model(model) -> None:
    obj = {**_meta().to_json(), "opponent_model": model}
    with pytest.raises(PolicyLoadError, match=r"p\.json: features 'model' needs opponent_model"):
        PolicyMeta.from_json(obj, "p.json")
    ok = PolicyMeta.from_json({**obj, "opponent_model": "mixed(pool='tie_aware,sacrifice')"},
                              "p.json")
    assert ok.opponent_model.startswith("mixed(")


def test_a_config_with_model_features_needs_two_tactical_seats_and_a_scripted_model():
    cfg = REPO / "configs/train/tactical_distill.yaml"
    parsed = load_config(cfg, ["ppo.features=model"])
    assert (parsed.ppo.features, parsed.ppo.opponent_model) == ("model", "tie_aware")
    with pytest.raises(TrainConfigError, match="ppo.opponent_model: 'cmd:x'"):
        load_config(cfg, ["ppo.features=model", "ppo.opponent_model=cmd:x"])
    with pytest.raises(TrainConfigError, match="ppo.features: model needs two-player tactical"):
        load_config(cfg, ["ppo.features=model", "distill=null", "total_steps=100",
                          "env.kwargs.players=3", "eval.baselines=[]"])
