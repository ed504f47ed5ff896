"""Tactical episodes pinned: the same seed gives the same observations, rewards, infos,
records and generator state as before the env's speed work (issue 15), and as an episode put
together by hand from the core (``Record.dealt``, ``hand_view``, the agent, ``check_order``,
``TacticalGame``)."""

from __future__ import annotations

import copy
import hashlib
import json

import gymnasium as gym
import numpy as np
import pytest

import pyanitsa.envs  # noqa: F401  (registers the environments)
from pyanitsa.envs import TacticalEnv, _common, multi
from pyanitsa.envs._common import tactical_reward
from pyanitsa.observation import TacticalLayout
from pyanitsa.orders import check_order
from pyanitsa.protocol import agent_from_spec, hand_view
from pyanitsa.records import Record
from pyanitsa.rng import MASK64
from pyanitsa.rules import Rules
from pyanitsa.tactical import TacticalGame

RULES_54 = {"preset": "tactical", "deck": "54", "weakest_beats_ace": True}
RULES_ODD = {"preset": "tactical", "misere": True, "cycle_rule": "weakest_wins",
             "weakest_beats_ace": True}

CONFIGS = {
    "default": {},
    "4p-random-seat-rank": {"players": 4, "seat": "random", "reward": "rank"},
    "3p-mixed-opponents-54": {"players": 3, "seat": 2, "reward": "win", "rules": RULES_54,
                              "opponents": ["random", "descending"]},
    "5p-misere": {"players": 5, "seat": "random", "rules": RULES_ODD,
                  "opponents": ["tie_aware", "random", "sacrifice", "random"]},
    "reference-engine": {"engine": "reference", "seat": 1},
    "52-7p": {"players": 7, "seat": "random", "rules": {"preset": "tactical", "deck": "52"}},
}
"""Env kwargs of the pinned runs: built-in ``random`` opponents and others, engines, decks."""

PINNED = {
    "default": "b41f7de3023de8d25bd05e8ec2ebf68947e799718c2ceb9ee23d9543f8383e15",
    "4p-random-seat-rank": "ff3eaf4d71eac3ad44ac6c5e5125671dea95b67e8cf78fc9e544fb3a511c5e4e",
    "3p-mixed-opponents-54": "37186452f16f3c9cb921a2c54e127527b937adf7c687ebaa67ff2474fc6063bd",
    "5p-misere": "793cc6c9e5bc94c5c2cd1a3821f402a1001e5facaf2363f6a4fdceee4dd3d20c",
    "reference-engine": "25e3a2c6a4140ca409b85d2523f194bd4f7a3f13fb9aa144d263b72cc02d09e1",
    "52-7p": "5438949c6159becda95427e90a131a0500beb480e77ff3129d8a5a6746c144a4",
    "aec-3p": "a6f9ba3d0e8e10dd009666da7f4d3b00d79c55c0f852d9fd6d7d4c209e17ed2d",
}
"""sha256 of :func:`trace` for each config, recorded at commit 34bd625 (before the speed work)."""


def choose(rng: np.random.Generator, mask: np.ndarray) -> object:
    """A random legal action, as an int or a numpy integer; now and then an illegal one."""
    legal = np.flatnonzero(mask)
    u = rng.random()
    if u < 0.04:
        return [-1, len(mask), None, 1.5][int(rng.integers(4))]
    if u < 0.08 and not mask.all():
        return int(np.flatnonzero(~mask)[0])
    action = legal[rng.integers(len(legal))]
    return int(action) if u < 0.5 else action


def feed(h: hashlib._Hash, *items: object) -> None:
    for x in items:
        if isinstance(x, np.ndarray):
            h.update(f"{x.dtype}{x.shape}".encode())
            h.update(x.tobytes())
        else:
            h.update(json.dumps(x, sort_keys=True, default=repr).encode())
        h.update(b"|")


def trace(env: gym.Env, episodes: int = 40) -> str:
    """A digest of ``episodes`` episodes: every observation, reward, flag and info, the record
    and result of each game, and the env's generator state after it. Every third reset is
    seeded, the others continue the stream."""
    h = hashlib.sha256()
    rng = np.random.default_rng(2024)
    base = env.unwrapped
    for ep in range(episodes):
        obs, info = env.reset(seed=ep if ep % 3 == 0 else None)
        feed(h, obs, info["action_mask"], sorted(info))
        done = False
        while not done:
            action = choose(rng, info["action_mask"])
            obs, reward, done, truncated, info = env.step(action)
            feed(h, obs, reward, done, truncated, info["action_mask"],
                 {k: v for k, v in info.items() if k != "action_mask"})
        feed(h, base.deal_seed, base.record().to_json(), repr(base.result),
             base.np_random.bit_generator.state)
    return h.hexdigest()


def trace_aec(env, episodes: int = 15) -> str:
    h = hashlib.sha256()
    rng = np.random.default_rng(2024)
    for ep in range(episodes):
        env.reset(seed=ep if ep % 3 == 0 else None)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            feed(h, agent, obs["observation"], obs["action_mask"], reward, term, trunc, info)
            if term or trunc:
                env.step(None)
            else:
                env.step(choose(rng, obs["action_mask"].astype(bool)))
        base = env.unwrapped
        feed(h, base.deal_seed, base.result.to_json(), base.np_random.bit_generator.state)
    return h.hexdigest()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_episodes_are_as_pinned(name: str) -> None:
    assert trace(gym.make("pyanitsa/Tactical-v0", **CONFIGS[name])) == PINNED[name]
    assert trace(TacticalEnv(**CONFIGS[name])) == PINNED[name]  # the wrappers change nothing


def test_pettingzoo_episodes_are_as_pinned() -> None:
    assert trace_aec(multi.tactical_env(players=3)) == PINNED["aec-3p"]


# -- the same episodes from the core, by hand ---------------------------------------------------


def core_episode(kwargs: dict, rng: np.random.Generator, actions: list[int]) -> dict:
    """The episode a seeded ``TacticalEnv(**kwargs)`` plays, put together from the core: its
    draws from ``rng`` (the seat, the deal seed, then every opponent's order through
    ``hand_view``, the agent and ``check_order``), the learner's order from ``actions`` (legal
    ranks), the observations from the layout's definition, and the game's reference engine."""
    env = TacticalEnv(**kwargs)  # for its rules and players only
    rules, players = env.rules, env.players
    lay = TacticalLayout(rules, players)
    seat = kwargs.get("seat", 0)
    if seat == "random":
        seat = int(rng.integers(players))
    deal_seed = int(rng.integers(0, MASK64, dtype=np.uint64, endpoint=True))
    hands = [list(h) for h in Record.dealt(rules, players, deal_seed).seats]
    spec = kwargs.get("opponents", "random")
    specs = [spec] * (players - 1) if isinstance(spec, str) else spec
    orders: list[list[int]] = [[] for _ in range(players)]
    for i, s in enumerate(specs):
        at = (seat + 1 + i) % players
        view = hand_view(rules, at, hands, lay.set_aside)
        orders[at] = check_order(agent_from_spec(s).order_hand(view, rng), view.hand, "x", rules)
    copies = np.asarray(lay.counts)
    left = np.bincount([lay.rank_of[c] for c in hands[seat]], minlength=lay.ranks)
    obs = np.zeros(lay.size)
    obs[lay.slices["deck"]] = copies / copies.max()
    obs[lay.slices["players"]] = players / 8
    obs[lay.slices["seat"].start + seat] = 1
    obs[lay.slices["unseen"]] = (copies - left) / copies
    observations = []
    for k, r in enumerate([None, *actions]):
        if r is not None:
            left[r] -= 1
            obs[lay.slices["order"].start + (k - 1) * lay.ranks + r] = 1
        obs[lay.slices["hand"]] = left / copies
        observations.append(obs.astype(np.float32))
    # within a rank the learner's cards go in the reverse of the order dealt
    by_rank = [[c for c in hands[seat] if lay.rank_of[c] == r] for r in range(lay.ranks)]
    orders[seat] = [by_rank[r].pop() for r in actions]
    result = TacticalGame(rules, orders).play()
    reward = tactical_reward(env.reward_kind, result, seat, rules.misere,
                             lay.hand_size * players)
    return {"seat": seat, "deal_seed": deal_seed, "observations": observations,
            "orders": orders, "result": result, "reward": reward}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_episodes_are_the_core_games(name: str) -> None:
    kwargs = CONFIGS[name]
    env = gym.make("pyanitsa/Tactical-v0", **kwargs)
    pick = np.random.default_rng(7)
    for seed in range(25):
        obs, info = env.reset(seed=seed)
        observations, actions = [obs], []
        done = False
        while not done:
            actions.append(int(pick.choice(np.flatnonzero(info["action_mask"]))))
            obs, reward, done, _, info = env.step(actions[-1])
            observations.append(obs)
        want = core_episode(kwargs, np.random.default_rng(seed), actions)
        base = env.unwrapped
        assert (base.seat, base.deal_seed) == (want["seat"], want["deal_seed"])
        assert [o.tolist() for o in observations] == [o.tolist() for o in want["observations"]]
        assert [list(s) for s in base.record().seats] == want["orders"]
        assert base.result == want["result"]
        assert info["result"] == want["result"].to_json()
        assert reward == want["reward"]


# -- the fast path for agents that order from the hand alone ------------------------------------


def test_random_orders_from_the_hand_as_from_its_view() -> None:
    from pyanitsa.agents.scripted import RandomAgent

    env = TacticalEnv()
    agent = RandomAgent()
    for seed in range(50):
        env.reset(seed=seed)
        hands = env._scorer.deal_hands(seed)[0]
        view = hand_view(env.rules, 1, hands.tolist(), 0)
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        order = agent.order_cards(np.asarray(view.hand), a)
        assert order.tolist() == agent.order_hand(view, b)
        assert check_order(order.tolist(), view.hand, "x", env.rules) == order.tolist()
        assert a.bit_generator.state == b.bit_generator.state


def test_random_order_cards_is_a_permutation_draw_of_the_hand() -> None:
    """``order_cards`` shuffles a copy in place: the order and the generator state of
    ``hand[rng.permutation(n)]``, the draw it was written as first."""
    from pyanitsa.agents.scripted import RandomAgent

    agent = RandomAgent()
    for n in (1, 2, 9, 18, 27):
        for seed in range(20):
            hand = np.sort(np.random.default_rng(seed + 99).choice(54, n, replace=False))
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            assert agent.order_cards(hand, a).tolist() == hand[b.permutation(n)].tolist()
            assert a.bit_generator.state == b.bit_generator.state


def test_the_learners_cards_are_built_once_for_record_and_render() -> None:
    """The batch engine plays the learner's ranks; ``record()`` and ``render()`` build its
    cards on first use, the same ones however often and in whichever order they are asked."""
    for first in ("record", "render"):
        env = TacticalEnv(render_mode="ansi", players=3, seat="random")
        env.reset(seed=11)
        done = False
        while not done:
            _, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        text = env.render() if first == "render" else None
        record = env.record()
        assert env.record() == record and record.play().to_json() == info["result"]
        mine = record.seats[env.seat]
        assert [env.layout.rank_of[c] for c in mine] == env._me.ranks
        if text is not None:
            assert env.render() == text
            assert f"seat {env.seat} (learner): {env.rules.deck.format_cards(mine)}" in text


def test_only_our_own_classes_take_the_fast_path() -> None:
    """A subclass elsewhere may override ``order_hand``: it gets its view and the check."""
    from pyanitsa.agents.scripted import RandomAgent
    from pyanitsa.envs.tactical import fast_order

    class Mine(RandomAgent):
        def order_hand(self, view, rng):
            return list(view.hand)  # ascending, not random

    class Inherits(RandomAgent):
        order_cards = RandomAgent.order_cards  # declared here, but not by a class of ours

    assert fast_order(RandomAgent) is RandomAgent.__dict__["order_cards"]
    assert fast_order(Mine) is None and fast_order(Inherits) is None
    env = TacticalEnv(players=3, opponents=[Mine(), "random"])
    run = [env.reset(seed=s) and env for s in range(3)]
    for e in run:
        while e.result is None:
            e.step(int(np.flatnonzero(e.action_masks())[0]))
        ranks = [e.layout.rank_of[c] for c in e.record().seats[1]]
        assert ranks == sorted(ranks)


def test_a_seat_pickled_with_its_rank_counts_restores() -> None:
    """Seats pickled between the lazy ``by_rank`` and the vectorized deal hold a ``_counts``
    slot (the deck's copies of each rank): a cache of the layout, rebuilt on restoring."""
    env = TacticalEnv()
    env.reset(seed=4)
    me = env._me
    env.step(int(np.flatnonzero(me.mask)[0]))
    old = {k: getattr(me, k) for k in ("layout", "seat", "left", "_hand", "_by_rank", "ranks",
                                      "obs", "mask", "illegal", "_cursor", "_nranks", "_inv")}
    old["_counts"] = tuple(me.layout.counts)
    seat = type(me).__new__(type(me))
    seat.__setstate__((None, copy.deepcopy(old)))
    while not seat.done:
        seat.play(int(np.flatnonzero(seat.mask)[0]))
        me.play(int(np.flatnonzero(me.mask)[0]))
    assert seat.order() == me.order()
    assert np.array_equal(seat.obs, me.obs)


def test_a_seat_pickled_before_lazy_by_rank_restores() -> None:
    """A training checkpoint holds the learner's seat: one pickled with the eager ``by_rank``
    slot of before still resumes its episode."""
    env = TacticalEnv()
    env.reset(seed=3)
    me = env._me
    env.step(int(np.flatnonzero(me.mask)[0]))
    old = {k: getattr(me, k) for k in ("layout", "seat", "left", "by_rank", "ranks", "obs",
                                      "mask", "illegal", "_cursor", "_nranks", "_inv")}
    seat = type(me).__new__(type(me))
    seat.__setstate__((None, copy.deepcopy(old)))
    assert (seat.left, seat.ranks, seat.by_rank) == (me.left, me.ranks, me.by_rank)
    assert np.array_equal(seat.obs, me.obs) and np.array_equal(seat.mask, me.mask)
    while not seat.done:
        seat.play(int(np.flatnonzero(seat.mask)[0]))
        me.play(int(np.flatnonzero(me.mask)[0]))
    assert seat.order() == me.order()


# -- the episode seed ---------------------------------------------------------------------------


@pytest.mark.parametrize("bits", _common._RAW64)
def test_a_raw_draw_is_the_full_range_integer_draw(bits) -> None:
    """``seeded_deal`` reads these generators' raw output: the same seeds and the same state
    after as ``integers(0, 2**64 - 1, endpoint=True)``."""
    a, b = np.random.Generator(bits(5)), np.random.Generator(bits(5))
    for _ in range(200):
        assert int(a.bit_generator.random_raw()) == int(
            b.integers(0, MASK64, dtype=np.uint64, endpoint=True))
    assert a.bit_generator.state == b.bit_generator.state


def test_other_generators_draw_the_episode_seed_with_integers() -> None:
    rules = Rules.default("tactical")
    a, b = (np.random.Generator(np.random.MT19937(3)) for _ in range(2))
    seed, record = _common.seeded_deal(rules, 2, a)
    assert seed == int(b.integers(0, MASK64, dtype=np.uint64, endpoint=True))
    assert record == Record.dealt(rules, 2, seed)
