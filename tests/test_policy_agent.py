"""``ppo:PATH``: weights-only loading, the trusted zip, batched inference, the shipped policy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from pyanitsa.agents import AgentSpecError, hand_view, make_agent, play_game
from pyanitsa.dealing import deal
from pyanitsa.envs.tactical import TacticalEnv
from pyanitsa.policies.ppo import (
    PolicyAgent,
    PolicyLoadError,
    PolicyMeta,
    build_policy,
    load_policy,
    save_policy,
)
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules, preset
from pyanitsa.solvers.duplicate import duplicate_match

pytestmark = pytest.mark.usefixtures("one_torch_thread")

RULES = preset("tactical")



def meta(players=2):
    env = TacticalEnv("tactical", players=players)
    return PolicyMeta("MaskablePPO", {"pi": [16], "vf": [16]}, "Tanh", RULES.to_json(),
                      players, env.layout.size, env.layout.ranks, {"seed": 0})


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    torch.manual_seed(0)
    m = meta()
    return save_policy(build_policy(m), m, tmp_path_factory.mktemp("pol") / "net")


def views(n, seed=0):
    out = []
    for i in range(n):
        d = deal(RULES, 2, Rng(seed + i))
        out.append(hand_view(RULES, i % 2, d.seats, len(d.set_aside)))
    return out


def test_rules_round_trip_through_the_sidecar():
    for r in (RULES, preset("tactical-52"), Rules.from_options({"preset": "tactical",
                                                                "weakest_beats_ace": True})):
        m = PolicyMeta("PPO", {"pi": [], "vf": []}, "Tanh", r.to_json(), 2, 1, 1, {})
        assert m.make_rules() == r


def test_weights_only_load_and_valid_orders(saved):
    agent = make_agent(f"ppo:{saved}")
    assert isinstance(agent, PolicyAgent) and agent.spec == f"ppo:{saved}"
    out = play_game(RULES, [agent, make_agent("random")], 3)
    assert sorted(out.record.seats[0]) == sorted(deal(RULES, 2, Rng(3)).seats[0])
    # the stem without .pt and the folder's model.pt also resolve
    assert isinstance(make_agent(f"ppo:{saved.with_suffix('')}"), PolicyAgent)


def test_batched_orders_equal_one_by_one(saved):
    greedy = make_agent(f"ppo:{saved}(greedy=True)")
    vs = views(40)
    rngs = [np.random.default_rng(i) for i in range(40)]
    batched = greedy.order_hands(vs, rngs)
    single = [greedy.order_hand(v, np.random.default_rng(i)) for i, v in enumerate(vs)]
    assert batched == single
    sampled = make_agent(f"ppo:{saved}")  # the default
    a = sampled.order_hands(vs[:5], [np.random.default_rng(1) for _ in range(5)])
    b = [sampled.order_hand(v, np.random.default_rng(1)) for v in vs[:5]]
    assert a == b


def test_the_default_samples_its_order_with_the_agents_rng(saved):
    """Issue 14: ``ppo:PATH`` samples (orders vary across seeds, one seed replays its orders)
    and lists no mix; ``greedy=True`` (or the older ``deterministic=True``) plays the most
    probable order whatever the rng, and lists it."""
    vs = views(20)
    for path in (saved, "tactical-2p"):
        sampled = make_agent(f"ppo:{path}")
        assert not sampled.greedy and sampled.mix(vs[0]) is None
        by_seed = [sampled.order_hands(vs, [np.random.default_rng([s, i]) for i in range(20)])
                   for s in (1, 2, 1)]
        assert by_seed[0] == by_seed[2]
        assert sum(a != b for a, b in zip(by_seed[0], by_seed[1], strict=True)) >= 10, path
        assert make_agent(f"ppo:{path}(deterministic=False)").order_hands(
            vs, [np.random.default_rng([1, i]) for i in range(20)]) == by_seed[0]
        greedy = make_agent(f"ppo:{path}(greedy=True)")
        orders = [greedy.order_hands(vs, [np.random.default_rng([s, i]) for i in range(20)])
                  for s in (1, 2)]
        assert orders[0] == orders[1] != by_seed[0]
        assert make_agent(f"ppo:{path}(deterministic=True)").order_hands(vs, [None] * 20) \
            == orders[0]
        assert [greedy.mix(v) for v in vs] == [[(tuple(o), 1.0)] for o in orders[0]]


@pytest.mark.parametrize(("params", "says"), [
    ("greedy=1", "greedy: 1 is not True or False"),
    ("deterministic='yes'", "deterministic: 'yes' is not True or False"),
    ("greedy=True, deterministic=False", "greedy=True and deterministic=False disagree"),
])
def test_bad_greedy_flags_are_one_line(params, says):
    with pytest.raises(AgentSpecError, match=says) as err:
        make_agent(f"ppo:tactical-2p({params})")
    assert "\n" not in str(err.value)


def test_the_agent_plays_as_the_env_learner_does(saved):
    """Same observations, same masks: the agent's order is the env learner's order when the env
    steps the policy's greedy action (so the agent plays greedily too)."""
    policy, m = load_policy(saved)
    agent = PolicyAgent(policy, m, greedy=True)
    env = TacticalEnv("tactical", seat=1, opponents="random")
    obs, _ = env.reset(seed=11)
    hand = [c for cards in env._me.by_rank for c in cards]
    view = hand_view(RULES, 1, [[], hand], 0)
    want = agent.order_hand(view, np.random.default_rng(0))
    done = False
    while not done:
        with torch.no_grad():
            dist = policy.get_distribution(torch.as_tensor(obs[None]),
                                           action_masks=env.action_masks()[None])
        obs, _, done, _, _ = env.step(int(dist.distribution.probs.argmax()))
    got = list(env.record().seats[1])
    ranks = env.layout.rank_of
    assert [ranks[c] for c in got] == [ranks[c] for c in want]


def test_the_zip_needs_trust(tmp_path):
    from sb3_contrib import MaskablePPO

    env = TacticalEnv("tactical")
    model = MaskablePPO("MlpPolicy", env, n_steps=36, batch_size=36, device="cpu", seed=0,
                        policy_kwargs={"net_arch": [8]})
    model.save(tmp_path / "model.zip")
    with pytest.raises(AgentSpecError) as err:
        make_agent(f"ppo:{tmp_path / 'model.zip'}")
    msg = str(err.value)
    assert "trust=True" in msg and "\n" not in msg
    agent = make_agent(f"ppo:{tmp_path / 'model.zip'}(trust=True)")
    assert len(agent.order_hand(views(1)[0], np.random.default_rng(0))) == 18


def test_pickled_code_in_a_pt_file_is_refused(tmp_path, saved):
    bad = tmp_path / "bad.pt"
    # An arbitrary object, not tensors (padded to the size the sidecar's weights need).
    torch.save({"x": np.random.default_rng(0), "pad": "0" * 40_000}, bad)
    bad.with_suffix(".json").write_text(saved.with_suffix(".json").read_text())
    with pytest.raises(PolicyLoadError, match="cannot load the weights"):
        load_policy(bad)


def test_errors_are_one_clear_line(saved, tmp_path):
    with pytest.raises(AgentSpecError, match="no policy file"):
        make_agent(f"ppo:{tmp_path / 'missing'}")
    agent = make_agent(f"ppo:{saved}")
    d = deal(RULES, 3, Rng(0))
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.order_hand(hand_view(RULES, 0, d.seats, len(d.set_aside)),
                         np.random.default_rng(0))


def test_duplicate_match_plays_play_games_games(saved):
    """The default, sampling policy: both draw its orders from the same seeded rngs."""
    agent, opp = make_agent(f"ppo:{saved}"), make_agent("mixed")
    res = duplicate_match(RULES, agent, opp, 6, seed=9)
    from pyanitsa.rng import derive_seed

    pts = []
    for i in range(6):
        gs = derive_seed(9, i)
        total = 0.0
        for k in (0, 1):
            seats = [agent, opp] if k == 0 else [opp, agent]
            r = play_game(RULES, seats, gs).result
            total += (1 / len(r.winners)) if k in r.winners else 0.0
        pts.append(total / 2)
    assert res.score == pytest.approx(sum(pts) / 6)
    assert res.wins + res.draws + res.losses == 12


def test_the_shipped_policy_plays_valid_orders():
    vs = views(50, seed=100)
    greedy = make_agent("ppo:tactical-2p(greedy=True)")  # needs no rng
    sampled = make_agent("ppo:tactical-2p")
    rngs = [np.random.default_rng(i) for i in range(50)]
    for agent, gens in ((greedy, [None] * 50), (sampled, rngs)):
        for v, order in zip(vs, agent.order_hands(vs, gens), strict=True):
            assert sorted(order) == sorted(v.hand)
        assert agent.meta.extra["seed"] == 20240601


def test_agents_import_without_torch():
    code = ("import sys; from pyanitsa.agents import make_agent; make_agent('random'); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- issue 14: policies know their game ------------------------------------------------------------


@pytest.mark.parametrize(("fields", "says"), [
    ({"players": 3}, "was trained for 2 players, not 3"),
    ({"rules": {"preset": "tactical", "misere": True}},
     "was trained for misere: False; this game has misere: True"),
    ({"rules": {"preset": "tactical-52"}}, "was trained for deck: 36; this game has deck: 52"),
])
def test_a_policy_for_other_rules_is_refused_before_any_game(tmp_path, fields, says):
    from pyanitsa.tournaments.config import TournamentConfigError, parse_config
    from pyanitsa.tournaments.runner import run_tournament

    agents = ["ppo:tactical-2p", "random", "descending"]
    config = parse_config({"agents": agents, "rules": {"preset": "tactical"}, "deals": 2,
                           "seed": 1, "output": str(tmp_path / "out")} | fields)
    with pytest.raises(TournamentConfigError, match=f"agents.0.spec: agent 'ppo:tactical-2p' {says}"):
        run_tournament(config, progress=False)
    assert not (tmp_path / "out" / "tournament.db").exists()  # not one game, not a forfeit


def test_play_game_refuses_a_policy_for_other_rules_in_one_error():
    from pyanitsa.agents import play_game
    from pyanitsa.policies.ppo import PolicyLoadError
    from pyanitsa.records import replay

    with pytest.raises(PolicyLoadError, match="misere: False; this game has misere: True"):
        play_game({"preset": "tactical", "misere": True}, ["ppo:tactical-2p", "random"], 1)

    played = play_game("tactical", ["ppo:tactical-2p", "random"], 1)  # its own rules: it plays
    cards = len(preset("tactical").deck)
    assert sorted(played.record.seats[0] + played.record.seats[1]) == list(range(cards))
    assert sum(played.result.scores) + played.result.removed == cards
    assert replay(played.record) == played.result
