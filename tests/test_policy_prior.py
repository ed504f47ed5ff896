"""The ``prior: hand`` policy (policies/prior.py): with equal network outputs it is
``random`` over the cards, its entropy bonus is ``-KL(policy || random)``, numpy and torch add
the same prior, and the sidecar carries it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402

from pyanitsa.agents import hand_view  # noqa: E402
from pyanitsa.observation import TacticalLayout, TacticalSeat  # noqa: E402
from pyanitsa.policies.ppo import (  # noqa: E402
    PolicyAgent,
    PolicyLoadError,
    build_policy,
    load_agent,
    policy_meta,
    save_policy,
)
from pyanitsa.rules import preset  # noqa: E402
from pyanitsa.training.config import TrainConfigError  # noqa: E402
from pyanitsa.training.config_load import parse_config  # noqa: E402

RULES = preset("tactical")
LAYOUT = TacticalLayout(RULES, 2)
# a hand with very uneven rank counts (checked in the first test)
HAND = [0, 1, 2, 3, 4, 8, 12, 16, 20, 24, 28, 32, 5, 6, 9, 10, 13, 14]


def prior_policy(zero: bool) -> tuple[object, object]:
    """A ``prior: hand`` network (its action head zeroed when ``zero``) and its sidecar."""
    from pyanitsa.policies.meta import PolicyMeta

    meta = PolicyMeta("MaskablePPO", {"pi": [16], "vf": [16]}, "ReLU",
                      {"mode": "tactical", "deck": RULES.deck.to_json(), **RULES.to_options()},
                      2, LAYOUT.size, LAYOUT.ranks, {}, "hand")
    policy = build_policy(meta)
    if zero:
        with torch.no_grad():
            policy.action_net.weight.zero_()
            policy.action_net.bias.zero_()
    return policy, meta


def view_of(hand: list[int]):
    other = [c for c in range(36) if c not in hand]
    return hand_view(RULES, 0, [hand, other], 0)


def test_equal_outputs_play_random_over_the_cards() -> None:
    policy, meta = prior_policy(zero=True)
    agent = PolicyAgent(policy, meta, deterministic=False)
    view = view_of(HAND)
    firsts = np.zeros(LAYOUT.ranks)
    rng = np.random.default_rng(5)
    n = 3000
    for _ in range(n):
        firsts[LAYOUT.rank_of[agent.order_hand(view, rng)[0]]] += 1
    counts = np.bincount([LAYOUT.rank_of[c] for c in HAND], minlength=LAYOUT.ranks)
    expected = n * counts / counts.sum()
    # chi-square with 8 degrees of freedom: 26.1 is its 0.999 quantile
    keep = expected > 0
    chi2 = float((((firsts - expected) ** 2)[keep] / expected[keep]).sum())
    assert chi2 < 26.1, (firsts, expected)
    # rank-uniform play (no prior) would put a lone card first 1 time in 7 or 8, not 1 in 18
    lone = int(np.flatnonzero(counts == 1)[0])
    assert firsts[lone] < n / 10
    assert counts.max() >= 3 and (counts > 0).sum() >= 7


def test_entropy_bonus_is_minus_kl_to_random() -> None:
    policy, meta = prior_policy(zero=True)
    seat = TacticalSeat(LAYOUT)
    seat.deal(0, HAND)
    obs = torch.from_numpy(seat.obs[None].copy())
    mask = torch.from_numpy(seat.mask[None].copy())
    _, _, neg_kl = policy.evaluate_actions(obs, torch.tensor([0]), action_masks=mask)
    assert abs(float(neg_kl[0].detach())) < 1e-6  # at random, KL is 0
    with torch.no_grad():
        policy.action_net.bias[0] = 2.0  # more 6s than random plays
    _, _, neg_kl = policy.evaluate_actions(obs, torch.tensor([0]), action_masks=mask)
    probs = policy.get_distribution(obs, action_masks=mask.numpy()).distribution.probs[0].detach()
    counts = torch.from_numpy(np.bincount([LAYOUT.rank_of[c] for c in HAND],
                                          minlength=LAYOUT.ranks)).float()
    q = counts / counts.sum()
    legal = probs > 0
    kl = float((probs[legal] * (probs[legal] / q[legal]).log()).sum())
    assert kl > 0.05
    assert float(neg_kl[0].detach()) == pytest.approx(-kl, abs=1e-5)


def test_numpy_and_torch_add_the_same_prior(tmp_path: Path) -> None:
    policy, meta = prior_policy(zero=False)
    path = save_policy(policy, meta, tmp_path / "p")
    assert json.loads(path.with_suffix(".json").read_text())["prior"] == "hand"
    a = load_agent(str(path), deterministic=False, backend="numpy")
    b = load_agent(str(path), deterministic=False, backend="torch")
    assert a.meta.prior == b.meta.prior == "hand"
    seat = TacticalSeat(LAYOUT)
    seat.deal(0, HAND)
    la, lb = a.logits(seat.obs[None]), b.logits(seat.obs[None])
    assert np.abs(la - lb).max() < 1e-5
    # and the prior is really there: the logits differ from the bare network's by log(count)
    from pyanitsa.policies.ppo import action_logits
    with torch.no_grad():
        bare = action_logits(policy, torch.from_numpy(seat.obs[None].copy())).numpy()
    legal = seat.mask
    counts = np.bincount([LAYOUT.rank_of[c] for c in HAND], minlength=LAYOUT.ranks)
    assert np.allclose((la - bare)[0][legal], np.log(counts[legal]), atol=1e-5)
    view = view_of(HAND)
    for s in range(20):
        assert a.order_hand(view, np.random.default_rng(s)) == \
            b.order_hand(view, np.random.default_rng(s))


def test_a_sidecar_with_an_unknown_prior_is_one_error(tmp_path: Path) -> None:
    policy, meta = prior_policy(zero=False)
    path = save_policy(policy, meta, tmp_path / "p")
    side = path.with_suffix(".json")
    obj = json.loads(side.read_text())
    obj["prior"] = "cards"
    side.write_text(json.dumps(obj))
    with pytest.raises(PolicyLoadError, match="prior 'cards' is not one of none, hand"):
        load_agent(str(path))


def test_policy_meta_reads_the_prior_off_the_network() -> None:
    policy, _ = prior_policy(zero=False)
    assert policy_meta(policy, "MaskablePPO", RULES, 2).prior == "hand"


def test_prior_needs_maskable_ppo() -> None:
    base = {"total_steps": 10, "algorithm": "PPO", "eval": {"baselines": []}}
    with pytest.raises(TrainConfigError, match="ppo.prior: hand needs algorithm: MaskablePPO"):
        parse_config(base)
    parse_config({**base, "ppo": {"prior": "none"}})
