"""PettingZoo environments: every seat is a learner, one policy can play any seat.

- :func:`tactical_env` (AEC) and :func:`tactical_parallel_env`: every player orders its hand one
  rank per step. The choice is simultaneous: players take turns card by card (``player_0`` ..
  ``player_{P-1}``, then again), nobody sees another's order, and the hands are played out when
  the last player has placed its last card. The parallel form is PettingZoo's ``aec_to_parallel``
  conversion (one parallel step = one card from every player).
- :func:`classic_env` (AEC) and :func:`classic_parallel_env`: a classic game with ``pickup_order:
  agent`` in which whoever wins a table orders it, one rank per step. Turn-based, so the parallel
  form is PettingZoo's ``turn_based_aec_to_parallel`` conversion (only the acting player's action
  is used; ``infos[agent]["active_agent"]`` names it).

Observations are ``{"observation": Box, "action_mask": int8 Box}``, player-relative (the same
layouts as ``pyanitsa/Tactical-v0`` and ``pyanitsa/Classic-v0``). An illegal action never raises:
the lowest legal rank is played and ``infos[agent]["illegal_action"]`` is True.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector, wrappers
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

from pyanitsa.cards import Card
from pyanitsa.envs._common import (
    TACTICAL_REWARDS,
    RulesArg,
    classic_reward,
    read_players,
    read_rules,
    render_text,
    seeded_deal,
    tactical_reward,
)
from pyanitsa.envs.classic import DEFAULT_MAX_ROUNDS, ClassicDriver, classic_rules
from pyanitsa.envs.tactical import TacticalLayout, TacticalSeat, render_tactical
from pyanitsa.envs.tactical_scorer import TacticalScorer
from pyanitsa.records import Record
from pyanitsa.results import TacticalResult


def _agent_spaces(agents: list[str], box: spaces.Box, ranks: int
                  ) -> tuple[dict[str, spaces.Dict], dict[str, spaces.Discrete]]:
    obs = {a: spaces.Dict({"observation": box,
                           "action_mask": spaces.Box(0, 1, (ranks,), np.int8)}) for a in agents}
    act = {a: spaces.Discrete(ranks) for a in agents}
    return obs, act


class _SeededAEC(AECEnv):
    """Seeding shared by the two AEC envs: ``reset(seed)`` reseeds, ``reset()`` continues."""

    _np_random: np.random.Generator | None = None

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, _ = seeding.np_random()
        return self._np_random

    def _seed(self, seed: int | None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def _start(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}

    def _finish(self, rewards: list[float], info: dict[str, Any]) -> None:
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = rewards[s]
            self.terminations[a] = True
            self.infos[a].update(info)


class TacticalAECEnv(_SeededAEC):
    """Тактический пьяница for PettingZoo: every seat orders its hand, one rank per step.

    Agents ``player_0`` .. ``player_{P-1}`` act in turn, each placing the next card of its own
    order (a rank, ``Discrete(R)``); nobody observes another's choices, so the turns are a
    simultaneous choice spread over ``n`` cycles. After the last player's last card the game is
    played and every agent terminates with its reward (``margin``, ``win`` or ``rank``, as in
    ``pyanitsa/Tactical-v0``; ``engine`` as there too). The observation is :class:`~pyanitsa.envs.tactical.TacticalLayout`
    for the agent's seat plus its ``action_mask`` (the ranks still in its hand). Seeded by
    ``reset(seed=...)``: the deal is the core's ``Record.dealt(rules, players, deal_seed)``,
    its :attr:`deal_seed` drawn from the env's generator.

    ``tactical_env(rules="tactical", players=2, reward="margin", render_mode="ansi")``
    """

    metadata = {"render_modes": ["ansi"], "name": "pyanitsa_tactical_v0",
                "is_parallelizable": True, "render_fps": 4}

    def __init__(self, rules: RulesArg = None, *, players: int = 2, reward: str = "margin",
                 engine: str = "auto", render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = read_rules(rules, "tactical")
        self.players = read_players(self.rules, players)
        if reward not in TACTICAL_REWARDS:
            raise ValueError(f"reward: {reward!r} is not one of {', '.join(TACTICAL_REWARDS)}")
        self.reward_kind = reward
        self.render_mode = render_mode
        self.layout = TacticalLayout(self.rules, self.players)
        self._scorer = TacticalScorer(self.rules, self.players, engine)
        self.possible_agents = [f"player_{s}" for s in range(self.players)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self.observation_spaces, self.action_spaces = _agent_spaces(
            self.possible_agents, self.layout.space(), self.layout.ranks)
        self._seats = [TacticalSeat(self.layout) for _ in range(self.players)]
        self._orders: list[list[Card]] = [[] for _ in range(self.players)]
        self.result: TacticalResult | None = None
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._seed(seed)
        self.deal_seed, dealt = seeded_deal(self.rules, self.players, self.np_random)
        for s, seat in enumerate(self._seats):
            seat.deal(s, dealt.seats[s])
        self._orders = [[] for _ in range(self.players)]
        self.result = None
        self._start()
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seats[self.agent_name_mapping[agent]]
        return {"observation": seat.obs.copy(), "action_mask": seat.mask.astype(np.int8)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.agent_name_mapping[agent]
        seat = self._seats[s]
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        seat.play(action)
        self.infos[agent] = {"illegal_action": seat.illegal}
        if self._selector.is_last() and seat.done:
            self._orders = [t.order() for t in self._seats]
            result = self._scorer.play(self._orders)
            self.result = result
            dealt = self.layout.hand_size * self.players
            misere = self.rules.misere
            rewards = [tactical_reward(self.reward_kind, result, p, misere, dealt)
                       for p in range(self.players)]
            self._finish(rewards, {"result": result.to_json()})
        self.agent_selection = self._selector.next()
        self._accumulate_rewards()

    def render(self) -> str | None:
        return render_text(self.render_mode, self._text)

    def _text(self) -> str:
        if not self.agents and self.result is None:
            return "Tactical pyanitsa: call reset() first\n"
        agent = self.agent_selection if self.agents else self.possible_agents[0]
        s = self.agent_name_mapping[agent]
        return render_tactical(self.rules, self.players, s, self._seats[s], self._orders,
                               self.result)


class ClassicAECEnv(_SeededAEC):
    """Classic pyanitsa for PettingZoo: whoever wins a table orders it, one rank per step.

    The game (``pickup_order: agent``) runs by itself between decisions; the agent selected is
    the seat that took the table, and it places the table's cards one rank per step
    (``Discrete(R)``). Tables whose cards left are all of one rank are placed without a step.
    When the game ends every agent terminates with 1 (winner), -1 (others) or 0 (``draw``,
    ``cycle``, ``capped``). Players who go out stay in ``agents`` until then (they are simply
    never selected). The observation is :class:`~pyanitsa.envs.classic.ClassicLayout` for the
    agent's seat, player-relative, plus its ``action_mask`` (all zero when it is not its turn).
    Deals without any decision are skipped, as in ``pyanitsa/Classic-v0``; ``max_rounds``
    (default 2,000) is the round cap, for the same reason.

    ``classic_env(rules="classic-ru", players=3, max_rounds=2000, render_mode="ansi")``
    """

    metadata = {"render_modes": ["ansi"], "name": "pyanitsa_classic_v0",
                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, rules: RulesArg = None, *, players: int = 2,
                 max_rounds: int | None = DEFAULT_MAX_ROUNDS,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = classic_rules(rules, max_rounds)
        self.players = read_players(self.rules, players)
        self.render_mode = render_mode
        self._driver = ClassicDriver(self.rules, [None] * self.players)
        self.layout = self._driver.layout
        self.possible_agents = [f"player_{s}" for s in range(self.players)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self.observation_spaces, self.action_spaces = _agent_spaces(
            self.possible_agents, self.layout.space(), self.layout.ranks)
        self._no_mask = np.zeros(self.layout.ranks, dtype=np.int8)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._seed(seed)
        seat = self._driver.start(self.np_random)
        self._start()
        self.agent_selection = self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s = self.agent_name_mapping[agent]
        obs = self._driver.observe(s, np.empty(self.layout.size, dtype=np.float32))
        driver = self._driver
        mask = (driver.mask.astype(np.int8) if driver.seat == s else self._no_mask.copy())
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        driver = self._driver
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        driver.place(action)
        self.infos[agent] = {"illegal_action": driver.illegal}
        if driver.seat is not None:
            self.agent_selection = self.possible_agents[driver.seat]
        else:
            result = driver.result
            assert result is not None
            self._finish([classic_reward(result, s) for s in range(self.players)],
                         {"result": result.to_json()})
        self._accumulate_rewards()

    @property
    def deal_seed(self) -> int:
        """The current episode's deal is ``Record.dealt(rules, players, deal_seed)``."""
        return self._driver.deal_seed

    def record(self) -> Record:
        """The current game as a replayable record, decisions included."""
        return self._driver.record()

    def render(self) -> str | None:
        return render_text(self.render_mode, self._driver.render)


def tactical_env(**kwargs: Any) -> AECEnv:
    """The tactical AEC env, wrapped in PettingZoo's ``OrderEnforcingWrapper``."""
    return wrappers.OrderEnforcingWrapper(TacticalAECEnv(**kwargs))


def tactical_parallel_env(**kwargs: Any) -> ParallelEnv:
    """The tactical env in PettingZoo's parallel API (``aec_to_parallel``)."""
    return aec_to_parallel(tactical_env(**kwargs))


def classic_env(**kwargs: Any) -> AECEnv:
    """The classic AEC env, wrapped in PettingZoo's ``OrderEnforcingWrapper``."""
    return wrappers.OrderEnforcingWrapper(ClassicAECEnv(**kwargs))


def classic_parallel_env(**kwargs: Any) -> ParallelEnv:
    """The classic env in PettingZoo's parallel API (``turn_based_aec_to_parallel``)."""
    return turn_based_aec_to_parallel(classic_env(**kwargs))
