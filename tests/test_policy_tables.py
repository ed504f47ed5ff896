"""Policies for three and four players (issue 40 item 5): the stored-strategy teacher, what a
seat at 3+ players sees, and the shipped ``ppo:tactical-3p`` / ``ppo:tactical-4p``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyanitsa.agents import make_agent, play_game
from pyanitsa.observation import TacticalLayout
from pyanitsa.policies.meta import PolicyLoadError
from pyanitsa.ranks import rank_table
from pyanitsa.rules import preset
from pyanitsa.training.config import TrainConfigError
from pyanitsa.training.config_load import parse_config
from pyanitsa.training.distill import teacher_chunk
from pyanitsa.training.teacher import stored_teacher, teacher_targets

REPO = Path(__file__).resolve().parents[1]
RULES = preset("tactical")
TEACHER = {"teacher": "stored", "deals": 3, "samples": 2, "seed": 11}


def hand_counts(hand: list[int]) -> np.ndarray:
    table = rank_table(RULES)
    return np.bincount([table.rank_of[c] for c in hand], minlength=table.num_ranks
                       ).astype(np.int64)


@pytest.mark.parametrize("players", [3, 4])
def test_stored_teacher_targets_are_the_stored_strategys_probabilities(players: int) -> None:
    """Along sampled orders, each target is a distribution over the ranks still held, and their
    product along the order is the probability the stored strategy gives the whole order (its
    own ``order_probs`` kernel)."""
    from pyanitsa.dealing import deal_from_seed

    strat = stored_teacher(RULES, players)
    rng = np.random.default_rng(3)
    for seed in range(3):
        counts = hand_counts(list(deal_from_seed(RULES, players, seed).seats[seed % players]))
        orders = np.array([strat.sample(counts, rng) for _ in range(4)])
        for order in orders:
            tg = teacher_targets(strat.table, counts, order, strat.layout)
            np.testing.assert_allclose(tg.sum(1), 1.0, rtol=1e-6)
            left = counts.copy()
            for t, r in enumerate(order):
                assert np.all(tg[t][left == 0] == 0) and tg[t, r] > 0
                left[r] -= 1
            path = np.prod([tg[t, r] for t, r in enumerate(order)])
            assert path == pytest.approx(strat.probs(counts, order[None, :])[0], rel=1e-5)


def test_the_stored_teacher_teaches_every_seat_from_its_seed() -> None:
    one = teacher_chunk(RULES, TEACHER, 0, 3)
    again = teacher_chunk(RULES, TEACHER, 0, 3)
    for key in ("obs", "mask", "tgt", "deal"):
        np.testing.assert_array_equal(one[key], again[key])
    lay = TacticalLayout(RULES, 3)
    # 3 deals x 3 seats x 2 samples x 12 positions; every seat's one-hot appears
    assert len(one["tgt"]) == 3 * 3 * 2 * lay.hand_size
    seats = one["obs"][:, lay.slices["seat"]].argmax(1)
    assert set(seats.tolist()) == {0, 1, 2}
    assert np.all(one["tgt"][~one["mask"]] == 0)
    other = teacher_chunk(RULES, {**TEACHER, "seed": 12}, 0, 3)
    assert not np.array_equal(other["obs"], one["obs"])


def _config(**distill: object) -> dict:
    return {"env": {"kwargs": {"rules": "tactical", "players": distill.pop("players", 3)}},
            "total_steps": 0, "eval": {"baselines": [], "exploit": None},
            "distill": {"teacher": "stored", "deals": 4, "holdout": 1, **distill}}


@pytest.mark.parametrize(("change", "says"), [
    ({"players": 5}, "distill.teacher: stored: no stored strategy for 5 players"),
    ({"teacher": "solve"}, "distill: the teacher solves two-player tactical deals; env.kwargs "
                           "give 3 players"),
    ({"model": "tie_aware", "confidence": 0.1}, "teacher: stored plays the stored strategy"),
    ({"teacher": "table"}, "distill.teacher: Input should be 'solve' or 'stored'"),
])
def test_a_teacher_the_table_cannot_have_is_one_line_naming_it(change: dict, says: str
                                                                  ) -> None:
    with pytest.raises(TrainConfigError, match=says) as info:
        parse_config(_config(**change))
    assert "\n" not in str(info.value)


def test_the_committed_configs_teach_from_the_stored_strategy() -> None:
    from pyanitsa.training.config_load import load_config

    for players in (3, 4):
        cfg = load_config(REPO / "configs" / "train" / f"tactical_distill_{players}p.yaml")
        assert cfg.distill is not None and cfg.distill.teacher == "stored"
        assert cfg.env.kwargs["players"] == players and cfg.total_steps == 0


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_sees_nothing_of_the_other_hands(players: int) -> None:
    """Two deals that differ only in how the other seats' cards are split: seat 0's view
    (built from the whole deal, as the referee builds it) is the same, so the shipped policy
    draws the same order from the same generator, and a different hand gives another view."""
    from pyanitsa.dealing import deal_from_seed
    from pyanitsa.protocol import hand_view

    hands = [list(h) for h in deal_from_seed(RULES, players, 5).seats]
    rest = [c for h in hands[1:] for c in h]
    n = len(hands[0])
    other = [hands[0]] + [rest[::-1][i * n:(i + 1) * n] for i in range(players - 1)]
    assert other[1:] != hands[1:]
    agent = make_agent(f"ppo:tactical-{players}p")
    views = [hand_view(RULES, 0, deal, 0) for deal in (hands, other)]
    assert views[0] == views[1]
    orders = [agent.order_hand(v, np.random.default_rng(11)) for v in views]
    assert orders[0] == orders[1]
    swapped = hand_view(RULES, 1, hands, 0)  # another seat's hand: another view
    assert swapped != views[0]


@pytest.mark.parametrize("players", [3, 4])
def test_the_shipped_policies_play_their_table_and_refuse_others(players: int) -> None:
    name = f"ppo:tactical-{players}p"
    agents = [name] * players
    played = play_game("tactical", agents, 7)
    cards = len(RULES.deck)
    assert sorted(c for s in played.record.seats for c in s) == list(range(cards))
    assert sum(played.result.scores) + played.result.removed == cards
    other = 2 if players != 2 else 3
    with pytest.raises(PolicyLoadError, match=f"trained for {players} players") as info:
        play_game("tactical", [name] * other, 7)
    assert "\n" not in str(info.value)
    with pytest.raises(PolicyLoadError, match="misere: False; this game has misere: True"):
        play_game({"preset": "tactical", "misere": True}, agents, 7)


def test_the_shipped_policies_play_without_torch(tmp_path: Path) -> None:
    """As ``ppo:tactical-2p``: the numpy actor beside the weights, no RL library imported."""
    code = """
import json, sys
from pyanitsa.agents import play_game
out = [sorted(c for s in play_game("tactical", [f"ppo:tactical-{n}p"] * n, 3).record.seats
       for c in s) == list(range(36)) for n in (3, 4)]
print(json.dumps({"ok": out, "torch": "torch" in sys.modules}))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"ok": [True, True], "torch": False}


@pytest.mark.usefixtures("one_torch_thread")
def test_a_tiny_distill_run_from_the_3p_config_makes_a_3p_policy(tmp_path: Path) -> None:
    """The committed config's real entry point, a few deals and one epoch (in this process:
    a second interpreter would import torch again)."""
    from pyanitsa.training.config_load import load_config
    from pyanitsa.training.train import train

    run = tmp_path / "run"
    sets = {"out_dir": str(run), "distill.deals": 6, "distill.holdout": 2,
            "distill.samples": 1, "distill.epochs": 1, "distill.members": 1,
            "distill.batch_size": 64, "ppo.net_arch": "[16]", "progress": "false",
            "tensorboard": "false"}
    cfg = load_config(REPO / "configs" / "train" / "tactical_distill_3p.yaml",
                      [f"{k}={v}" for k, v in sets.items()])
    said: list[str] = []
    train(cfg, log=said.append)
    assert said[0].startswith("teacher data: 6 deals")
    meta = json.loads((run / "model.json").read_text())
    assert meta["players"] == 3 and meta["features"] == "last"
    assert (run / "model.npz").is_file()
    rows = (run / "distill.csv").read_text().splitlines()
    assert rows[0] == "epoch,train_kl,held_kl" and len(rows) == 2
    played = play_game("tactical", [f"ppo:{run}"] * 3, 1)
    assert sorted(c for s in played.record.seats for c in s) == list(range(36))
