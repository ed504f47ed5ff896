"""The RL environments: Gymnasium, stable-baselines3 and PettingZoo conformance, and our own
conventions (seeding, illegal actions, pickling, rewards from the learner's seat)."""

from __future__ import annotations

import json
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.test.seed_test import parallel_seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import pyanitsa.envs
from pyanitsa import Rules, preset
from pyanitsa.envs import ClassicEnv, TacticalEnv, multi
from pyanitsa.envs._common import tactical_reward
from pyanitsa.errors import InvalidRulesError
from pyanitsa.ranks import rank_table
from pyanitsa.results import TacticalResult, Termination

# PettingZoo's checkers warn about what its own classic envs do too: Dict observations.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]

TACTICAL = "pyanitsa/Tactical-v0"
CLASSIC = "pyanitsa/Classic-v0"
SMALL_CLASSIC = {"rules": {"deck": {"ranks": 5, "suits": 2}}}
"""A 10-card classic deck: short games for the slower checks."""


def lowest(info: dict) -> int:
    return int(np.flatnonzero(info["action_mask"])[0])


def run_episode(env: gym.Env, seed: int | None, policy=None) -> list[tuple]:
    """Play one episode; every step's (action, obs, reward, terminated, info-without-mask)."""
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=seed)
    trace = [(None, obs, info["seat"])]
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        action = int(rng.choice(legal)) if policy is None else policy(info)
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        trace.append((action, obs, reward, done, info.get("result")))
    return trace


def same_trace(a: list[tuple], b: list[tuple]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            if isinstance(u, np.ndarray):
                if not np.array_equal(u, v):
                    return False
            elif u != v:
                return False
    return True


# -- registration and checkers ------------------------------------------------------------------


def test_registered_on_import() -> None:
    for env_id in pyanitsa.envs.ENV_IDS:
        assert env_id in gym.registry
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pyanitsa.envs.register_envs()  # registering again is a no-op, not a warning


@pytest.mark.parametrize(("env_id", "kwargs"), [
    (TACTICAL, {}),
    (TACTICAL, {"players": 3, "seat": "random", "reward": "rank"}),
    (TACTICAL, {"rules": {"preset": "tactical", "deck": "54", "weakest_beats_ace": True}}),
    (CLASSIC, {}),
    (CLASSIC, {"rules": "classic-ru", "players": 3, "seat": "random"}),
])
def test_gymnasium_check_env(env_id: str, kwargs: dict) -> None:
    env = gym.make(env_id, render_mode="ansi", **kwargs)
    gym_check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("env_cls", [TacticalEnv, ClassicEnv])
def test_sb3_check_env(env_cls: type) -> None:
    sb3_check_env(env_cls(), warn=True)


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("make", [multi.tactical_env, multi.classic_env])
def test_pettingzoo_api_test(make, players: int) -> None:
    api_test(make(players=players), num_cycles=200)


@pytest.mark.parametrize("make", [multi.tactical_env, multi.classic_env])
def test_pettingzoo_seed_test(make) -> None:
    seed_test(lambda: make(players=3), num_cycles=100)


@pytest.mark.parametrize("make", [multi.tactical_parallel_env, multi.classic_parallel_env])
def test_pettingzoo_parallel_api_test(make) -> None:
    parallel_api_test(make(players=3), num_cycles=200)


def test_pettingzoo_parallel_seed_test() -> None:
    parallel_seed_test(lambda: multi.tactical_parallel_env(players=2), num_cycles=50)


# -- seeding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("env_id", "kwargs"), [
    (TACTICAL, {"seat": "random", "players": 4}),
    (CLASSIC, {"seat": "random", "players": 3}),
])
def test_same_seed_same_episode(env_id: str, kwargs: dict) -> None:
    a = run_episode(gym.make(env_id, **kwargs), seed=123)
    b = run_episode(gym.make(env_id, **kwargs), seed=123)
    assert same_trace(a, b)
    c = run_episode(gym.make(env_id, **kwargs), seed=124)
    assert not same_trace(a, c)


def test_reset_without_seed_continues_the_stream() -> None:
    env = TacticalEnv()
    first, _ = env.reset(seed=5)
    second, _ = env.reset()
    again = TacticalEnv()
    again.reset(seed=5)
    assert np.array_equal(again.reset()[0], second)
    assert not np.array_equal(first, second)


def test_opponents_are_seeded_from_the_env() -> None:
    results = set()
    for _ in range(2):
        env = TacticalEnv(opponents="random")
        run_episode(env, seed=9, policy=lowest)
        results.add(env.record().seats)
    assert len(results) == 1


# -- illegal actions ----------------------------------------------------------------------------


@pytest.mark.parametrize("env_cls", [TacticalEnv, ClassicEnv])
@pytest.mark.parametrize("bad", [-1, 99, None, "a", 1.5, np.array([0, 1])])
def test_illegal_action_plays_the_lowest_legal_rank(env_cls: type, bad: object) -> None:
    env = env_cls()
    obs, info = env.reset(seed=3)
    legal = np.flatnonzero(info["action_mask"])
    twin = env_cls()
    twin.reset(seed=3)
    obs, _, _, _, info = env.step(bad)
    assert info["illegal_action"] is True
    expected, _, _, _, twin_info = twin.step(int(legal[0]))
    assert twin_info["illegal_action"] is False
    assert np.array_equal(obs, expected)


def test_action_not_in_hand_is_illegal() -> None:
    env = TacticalEnv()
    _, info = env.reset(seed=0)
    missing = np.flatnonzero(~info["action_mask"])
    if len(missing) == 0:
        pytest.skip("this deal holds every rank")
    _, _, _, _, info = env.step(int(missing[0]))
    assert info["illegal_action"] is True


def test_step_after_the_end_raises_a_clear_error() -> None:
    env = TacticalEnv()
    run_episode(env, seed=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_multi_illegal_actions_are_replaced() -> None:
    env = multi.tactical_env(players=2)
    env.reset(seed=0)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else 999)
        if env.agents and not (term or trunc):
            assert env.infos[agent]["illegal_action"] is True
    assert env.unwrapped.result is not None


# -- the tactical episode -----------------------------------------------------------------------


def test_tactical_episode_shape_and_layout() -> None:
    env = TacticalEnv()
    obs, info = env.reset(seed=2)
    lay = env.layout
    assert obs.shape == (192,) and obs.dtype == np.float32
    hand = obs[lay.slices["hand"]] * np.asarray(lay.counts)
    assert np.allclose(hand.sum(), 18)
    assert np.array_equal(info["action_mask"], hand > 0)
    assert np.array_equal(env.action_masks(), info["action_mask"])
    assert obs[lay.slices["order"]].sum() == 0
    steps = 0
    done = False
    while not done:
        obs, reward, done, _, info = env.step(lowest(info))
        steps += 1
    assert steps == 18
    assert obs[lay.slices["order"]].sum() == 18
    assert not info["action_mask"].any()
    assert -1 <= reward <= 1


@pytest.mark.parametrize("kind", ["margin", "win", "rank"])
def test_reward_is_the_learners_with_a_random_seat(kind: str) -> None:
    env = TacticalEnv(players=3, seat="random", reward=kind, opponents="descending")
    seats = set()
    table = rank_table(env.rules)
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        seat = info["seat"]
        seats.add(seat)
        lay = env.layout
        assert env.seat == seat
        assert obs[lay.slices["seat"]].argmax() == seat
        start_hand = np.rint(obs[lay.slices["hand"]] * np.asarray(lay.counts)).astype(int)
        done = False
        while not done:
            _, reward, done, _, info = env.step(lowest(info))
        record = env.record()
        # the mask and observation were the learner's own hand ...
        assert table.histogram(record.seats[seat]) == list(start_hand)
        # ... played lowest first, while every opponent played its agent's order (descending)
        assert [table.rank_of[c] for c in record.seats[seat]] == sorted(
            table.rank_of[c] for c in record.seats[seat])
        for s in range(3):
            if s != seat:
                ranks = [table.rank_of[c] for c in record.seats[s]]
                assert ranks == sorted(ranks, reverse=True)
        # ... and the reward is the learner's seat's
        result = record.play()
        assert info["result"] == result.to_json()
        assert reward == tactical_reward(kind, result, seat, False, 36)
    assert len(seats) > 1


def _result(scores: tuple[int, ...], misere: bool = False) -> TacticalResult:
    best = min(scores) if misere else max(scores)
    winners = tuple(s for s, x in enumerate(scores) if x == best)
    return TacticalResult(Termination.WIN if len(winners) == 1 else Termination.DRAW, winners,
                          scores, 0, 1, 1)


@pytest.mark.parametrize(("scores", "seat", "misere", "margin", "win", "rank"), [
    ((36, 0), 0, False, 1.0, 1.0, 1.0),
    ((0, 36), 0, False, -1.0, -1.0, -1.0),
    ((18, 18), 1, False, 0.0, 0.0, 0.0),
    ((20, 10, 6), 0, False, (20 - 8) / 36, 1.0, 1.0),
    ((20, 10, 6), 2, False, (6 - 15) / 36, -1.0, -1.0),
    ((20, 10, 6), 1, False, (10 - 13) / 36, -1.0, 0.0),
    ((12, 12, 12), 2, False, 0.0, 0.0, 0.0),
    ((14, 14, 8), 0, False, 3 / 36, 0.0, 0.5),
    ((20, 10, 6), 2, True, (15 - 6) / 36, 1.0, 1.0),
])
def test_reward_kinds(scores, seat, misere, margin, win, rank) -> None:
    result = _result(scores, misere)
    assert tactical_reward("margin", result, seat, misere, 36) == pytest.approx(margin)
    assert tactical_reward("win", result, seat, misere, 36) == win
    assert tactical_reward("rank", result, seat, misere, 36) == pytest.approx(rank)


def test_opponent_list_maps_clockwise_from_the_learner() -> None:
    env = TacticalEnv(players=3, seat=1, opponents=["descending", "ascending"])
    run_episode(env, seed=4, policy=lowest)
    table = rank_table(env.rules)
    desc = [table.rank_of[c] for c in env.record().seats[2]]
    asc = [table.rank_of[c] for c in env.record().seats[0]]
    assert desc == sorted(desc, reverse=True) and asc == sorted(asc)


# -- the classic episode ------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    {},
    {"rules": "classic-ru", "players": 3, "seat": "random"},
    {"rules": {"preset": "war-52", "deck": {"ranks": 6, "suits": 3}}, "players": 2},
    {"rules": "misere", "players": 4, "seat": 2},
])
def test_classic_record_replays_to_the_episode_result(kwargs: dict) -> None:
    env = ClassicEnv(**kwargs)
    for seed in range(3):
        trace = run_episode(env, seed=seed)
        result = trace[-1][-1]
        record = env.record()
        assert record.rules.pickup_order == "agent"
        assert record.play().to_json() == result
        reward = trace[-1][2]
        seat = env.seat
        expected = 0.0 if result["outcome"] != "win" else (1.0 if result["winner"] == seat
                                                          else -1.0)
        assert reward == expected


def test_classic_steps_always_have_a_choice_of_the_learner() -> None:
    env = ClassicEnv(players=3, seat="random")
    obs, info = env.reset(seed=8)
    done = False
    while not done:
        assert env._driver.seat == env.seat == info.get("seat", env.seat)
        assert info["action_mask"].sum() >= 2
        assert np.array_equal(env.action_masks(), info["action_mask"])
        obs, _, done, _, info = env.step(lowest(info))
        assert env.observation_space.contains(obs)


def test_classic_observation_is_player_relative() -> None:
    env = ClassicEnv(players=3, seat=2)
    obs, _ = env.reset(seed=1)
    lay = env.layout
    game = env._driver.game
    stacks = obs[lay.slices["stacks"]] * lay.deck_size
    assert np.allclose(stacks, [len(game.stacks[s]) for s in (2, 0, 1)])
    assert obs[lay.slices["seat"]].argmax() == 2


def test_classic_round_cap() -> None:
    assert ClassicEnv().rules.max_rounds == 2000
    assert ClassicEnv(max_rounds=None).rules.max_rounds == Rules.default().max_rounds
    env = ClassicEnv(max_rounds=5)
    trace = run_episode(env, seed=0)
    assert trace[-1][-1]["rounds"] <= 5


def test_classic_skips_deals_without_a_decision() -> None:
    env = ClassicEnv(players=8, seat="random")
    skipped = [env.reset(seed=s)[1]["skipped_deals"] for s in range(10)]
    assert all(type(k) is int for k in skipped) and any(skipped)
    with pytest.raises(InvalidRulesError, match="no decision"):
        ClassicEnv(rules={"deck": {"ranks": 1, "suits": 2}}).reset(seed=0)


def test_classic_multi_record_replays() -> None:
    env = multi.classic_env(players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert obs["action_mask"].sum() >= 2
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raw = env.unwrapped
    assert raw.record().play().to_json() == raw._driver.result.to_json()


def test_tactical_multi_rewards_follow_the_result() -> None:
    env = multi.tactical_parallel_env(players=3, reward="win")
    obs, _ = env.reset(seed=2)
    steps = 0
    while env.agents:
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[-1]) for a in env.agents}
        obs, rewards, terms, _, infos = env.step(actions)
        steps += 1
    assert steps == 12
    result = env.unwrapped.result
    for s in range(3):
        assert rewards[f"player_{s}"] == tactical_reward("win", result, s, False, 36)


@pytest.mark.parametrize("kwargs", [
    {"players": 3, "seat": "random"},
    {"rules": {"preset": "tactical", "deck": "54", "weakest_beats_ace": True}, "players": 4},
    {"rules": {"preset": "tactical", "misere": True, "cycle_rule": "weakest_wins",
               "weakest_beats_ace": True}, "players": 5},
])
def test_batch_engine_plays_the_reference_games(kwargs: dict) -> None:
    fast = TacticalEnv(engine="auto", **kwargs)
    # the compiled core is installed with pyanitsa: "auto" must not fall back silently
    assert fast.engine == "batch"
    slow = TacticalEnv(engine="reference", **kwargs)
    for seed in range(8):
        assert same_trace(run_episode(fast, seed), run_episode(slow, seed))
        assert fast.result == slow.result == fast.record().play()


# -- arguments, pickling, vector envs, rendering ------------------------------------------------


@pytest.mark.parametrize(("env_cls", "kwargs"), [
    (TacticalEnv, {"players": 1}),
    (TacticalEnv, {"players": 9}),
    (TacticalEnv, {"seat": 2}),
    (TacticalEnv, {"reward": "score"}),
    (TacticalEnv, {"opponents": ["random", "random"]}),
    (TacticalEnv, {"rules": "classic-ru"}),
    (TacticalEnv, {"engine": "fast"}),
    (ClassicEnv, {"rules": preset("tactical")}),
    (ClassicEnv, {"rules": {"stakes": 2}}),
])
def test_bad_arguments_raise_value_errors(env_cls: type, kwargs: dict) -> None:
    with pytest.raises(ValueError):
        env_cls(**kwargs)


@pytest.mark.parametrize(("env_id", "kwargs"), [(TACTICAL, {"players": 3}),
                                                 (CLASSIC, SMALL_CLASSIC)])
def test_envs_pickle_mid_episode(env_id: str, kwargs: dict) -> None:
    env = gym.make(env_id, **kwargs)
    _, info = env.reset(seed=11)
    env.step(lowest(info))
    copy = pickle.loads(pickle.dumps(env))
    a = [env.step(lowest(info))]
    b = [copy.step(lowest(info))]
    while not a[-1][2]:
        a.append(env.step(lowest(a[-1][4])))
        b.append(copy.step(lowest(b[-1][4])))
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x[0], y[0]) and x[1:4] == y[1:4]


@pytest.mark.parametrize("make", [lambda: multi.TacticalAECEnv(players=2),
                                  lambda: multi.ClassicAECEnv(players=2)])
def test_aec_envs_pickle(make) -> None:
    env = make()
    env.reset(seed=0)
    copy = pickle.loads(pickle.dumps(env))
    for e in (env, copy):
        obs, *_ = e.last()
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert np.array_equal(env.observe(env.agent_selection)["observation"],
                          copy.observe(copy.agent_selection)["observation"])


@pytest.mark.parametrize(("env_id", "mode", "kwargs"), [
    (TACTICAL, "sync", {}),
    (TACTICAL, "async", {}),
    (CLASSIC, "sync", SMALL_CLASSIC),
])
def test_make_vec(env_id: str, mode: str, kwargs: dict) -> None:
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, **kwargs)
    try:
        obs, infos = envs.reset(seed=[1, 2])
        assert obs.shape == (2, *envs.single_observation_space.shape)
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(60):
            masks = infos["action_mask"]
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, rewards, terms, truncs, infos = envs.step(actions)
            finished += int(terms.sum())
            assert envs.observation_space.contains(obs)
        assert finished > 0
    finally:
        envs.close()


def test_ansi_render() -> None:
    env = gym.make(TACTICAL, render_mode="ansi")
    _, info = env.reset(seed=0)
    text = env.render()
    assert "Tactical pyanitsa" in text and "hand:" in text
    done = False
    while not done:
        _, _, done, _, info = env.step(lowest(info))
    text = env.render()
    assert "seat 1:" in text and "scores" in text

    env = gym.make(CLASSIC, render_mode="ansi")
    _, info = env.reset(seed=0)
    text = env.render()
    assert "took the table" in text and "(learner)" in text

    aec = multi.tactical_env(render_mode="ansi")
    aec.reset(seed=0)
    assert "Tactical pyanitsa" in aec.render()
    aec = multi.classic_env(render_mode="ansi")
    aec.reset(seed=0)
    assert "Classic pyanitsa" in aec.render()


def test_render_without_mode_returns_none_and_other_modes_refuse() -> None:
    env = TacticalEnv()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None
    # accepted at construction, as Gymnasium does (stable-baselines3 asks for rgb_array) ...
    env = ClassicEnv(render_mode="rgb_array")
    env.reset(seed=0)
    # ... but not rendered
    with pytest.raises(gym.error.UnsupportedMode):
        env.render()


def test_envs_benchmark_smoke(capsys, benchmark_module) -> None:
    bench = benchmark_module("envs_bench")
    assert bench.main(["--json", "--steps", "2000", "--repeats", "1", "--only",
                       "tactical-v0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["workloads"]) == {"tactical-v0", "bare"}
    tactical = report["workloads"]["tactical-v0"]
    assert tactical["steps_per_s"] > 0 and tactical["episodes"] == 2000 // 18
    assert report["workloads"]["bare"]["ratio_to_bare"] == 1.0


def test_auto_engine_does_not_swallow_a_batch_core_error(monkeypatch) -> None:
    """No blanket ``except`` at construction: a batch core that fails for any reason but being
    absent raises and says why, instead of a silent fall-back to the reference engine."""
    from pyanitsa.envs import tactical_scorer

    def broken(self) -> None:
        raise RuntimeError("a bug in the batch set-up")

    monkeypatch.setattr(tactical_scorer.TacticalScorer, "_setup_batch", broken)
    with pytest.raises(RuntimeError, match="a bug in the batch set-up"):
        tactical_scorer.TacticalScorer(Rules.default("tactical"), 2, engine="auto")


def test_auto_engine_falls_back_only_without_the_batch_core(monkeypatch) -> None:
    from pyanitsa.envs import tactical_scorer

    def absent(self) -> None:
        raise ImportError("No module named 'numba'")

    monkeypatch.setattr(tactical_scorer.TacticalScorer, "_setup_batch", absent)
    assert tactical_scorer.TacticalScorer(Rules.default("tactical"), 2).engine == "reference"
    with pytest.raises(ValueError, match="engine: the batch core is unavailable"):
        tactical_scorer.TacticalScorer(Rules.default("tactical"), 2, engine="batch")


def test_the_scorer_plays_no_game_when_built(monkeypatch) -> None:
    """No self-test in the constructor: the parity tests check the engines agree."""
    from pyanitsa.envs import tactical_scorer

    played = []
    monkeypatch.setattr(tactical_scorer.TacticalGame, "play", lambda self: played.append(self))
    rules = Rules.from_options({"preset": "tactical", "deck": "52"}, mode="tactical")
    assert tactical_scorer.TacticalScorer(rules, 7, engine="auto").engine == "batch"
    assert played == []


@pytest.mark.parametrize("players", [2, 3, 5])
def test_tactical_episodes_are_dealt_by_the_core(players: int) -> None:
    """One seeded-deal path: an episode's hands are the core's deal ``Record.dealt(rules,
    players, env.deal_seed)``, so the episode is that core game with the orders chosen."""
    from pyanitsa.records import Record

    env = TacticalEnv(players=players, seat="random", opponents="random")
    for seed in range(4):
        run_episode(env, seed=seed)
        dealt = Record.dealt(env.rules, players, env.deal_seed)
        played = env.record()
        assert [sorted(h) for h in played.seats] == [sorted(h) for h in dealt.seats]


def test_multi_tactical_episodes_are_dealt_by_the_core() -> None:
    from pyanitsa.records import Record

    env = multi.TacticalAECEnv(players=3)
    for seed in range(3):
        env.reset(seed=seed)
        dealt = Record.dealt(env.rules, 3, env.deal_seed)
        held = [sorted(c for cards in seat.by_rank for c in cards) for seat in env._seats]
        assert held == [sorted(h) for h in dealt.seats]


def test_classic_episodes_are_dealt_by_the_core() -> None:
    from pyanitsa.records import Record

    env = ClassicEnv(players=3)
    env.reset(seed=4)
    dealt = Record.dealt(env.rules, 3, env.deal_seed)
    played = env.record()
    assert (played.seats, played.dealer, played.seed) == (dealt.seats, dealt.dealer, dealt.seed)


@pytest.mark.parametrize("kwargs", [{"players": 2}, {"players": 3, "opponents": "random"},
                                    {"players": 4, "rules": "war-52",
                                     "opponents": "pickup_tie_aware"}])
def test_classic_episode_is_the_core_engines_game(kwargs: dict) -> None:
    """A seeded episode, step by step, is the game the core engine plays from the same deal with
    the same decisions (asked through its callback): each learner decision comes at the round
    where the engine's log shows the learner taking that table, with the stack sizes the engine
    shows it then, and the orders placed are the pickups of the log."""
    from pyanitsa.records import Record

    env = ClassicEnv(seat="random", **kwargs)
    lay, deck = env.layout, env.rules.deck
    rng = np.random.default_rng(7)
    obs, info = env.reset(seed=11)
    seat, players = env.seat, env.players
    asked: list[tuple[int, tuple[int, ...], list[float], list[int]]] = []
    last = None
    done = False
    while not done:
        request = env._driver.pending
        if request is not last:  # a new table to order (one request per table)
            last = request
            stacks = obs[lay.slices["stacks"]] * lay.deck_size
            asked.append((request.view.rounds, request.cards, stacks.round().tolist(), []))
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        asked[-1][3].append(action)
        obs, _, done, _, info = env.step(action)
    record = env.record()
    dealt = Record.dealt(env.rules, players, env.deal_seed)
    assert (record.seats, record.dealer, record.seed) == (dealt.seats, dealt.dealer, dealt.seed)
    decisions = iter(record.decisions)
    shown = []

    def pickup(request):  # the record's orders, noting what the learner's seat is shown
        if request.seat == seat and len({lay.rank_of[c] for c in request.cards}) > 1:
            view = request.view
            shown.append([float(view.stack_sizes[(seat + i) % players]) for i in range(players)])
        return deck.parse_cards(next(decisions))

    game = Record(env.rules, dealt.seats, dealer=dealt.dealer, seed=dealt.seed).game(
        pickup=pickup, log=True)
    assert game.play().to_json() == info["result"]
    taken = [e for e in game.events if e.taker == seat
             and len({lay.rank_of[p.card] for p in e.plays}) > 1]
    assert len(taken) == len(asked) > 0
    for event, (rounds, cards, _, actions) in zip(taken, asked, strict=True):
        assert event.number == rounds and tuple(p.card for p in event.plays) == cards
        # the ranks named, then the cards left (all of one rank) as they lay
        ranks = [lay.rank_of[c] for c in event.pickup]
        assert ranks[:len(actions)] == actions and len(set(ranks[len(actions):])) <= 1
    assert shown == [a[2] for a in asked]
