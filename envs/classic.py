"""``pyanitsa/Classic-v0``: choose, rank by rank, the order of the classic tables you win.

The learner orders a table one rank per step, so :class:`ClassicDriver`
(:mod:`pyanitsa.envs.classic_driver`) plays the game round by round with
:meth:`~pyanitsa.classic.ClassicGame.begin_round`: when a seat whose decisions come from outside
(the learner) wins a table that needs a decision, the game waits mid-round with the request in
``game.pending``; the order is collected one rank per step and
:meth:`~pyanitsa.classic.ClassicGame.finish_round` ends the round with it. Nothing is copied
or replayed, and the game is the one the engine plays with the same decisions.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pyanitsa.envs._common import (
    DEFAULT_OPPONENT,
    OpponentsArg,
    RulesArg,
    classic_reward,
    make_opponents,
    read_players,
    read_rules,
    read_seat,
    render_text,
)
from pyanitsa.envs.classic_driver import ClassicDriver
from pyanitsa.envs.classic_layout import ClassicLayout  # noqa: F401  (re-exported: docs name it here)
from pyanitsa.protocol import Agent
from pyanitsa.records import Record
from pyanitsa.rules import Rules

DEFAULT_MAX_ROUNDS = 2000
"""The environments' round cap (the rules' own default is 10,000); see :class:`ClassicEnv`."""



def classic_rules(rules: RulesArg, max_rounds: int | None) -> Rules:
    """The rules a classic environment plays: ``pickup_order: agent`` and the round cap."""
    base = read_rules(rules, "classic")
    changes: dict[str, Any] = {"pickup_order": "agent"}
    if max_rounds is not None:
        changes["max_rounds"] = max_rounds
    return base.replace(**changes)


class ClassicEnv(gym.Env[np.ndarray, np.int64]):
    """Play classic pyanitsa (War) and choose the order in which the tables you win go under.

    ## Description

    Classic pyanitsa (RULES.md §2) with ``pickup_order: agent``: whoever wins a round chooses
    the order in which the table goes under their stack (or onto their won pile), which decides
    the order those cards will come back (seed 001: "порядок складывания карт ... позволяет
    вести ту или иную стратегию"). The learner sits at one seat; the game runs by itself
    between the learner's decisions, the opponents' agents ordering their own tables. Each time
    the learner wins a table it orders it one card per step, naming ranks (suits never matter).
    A table whose cards left to place are all of one rank is placed at once, without a step, so
    a step always has at least two legal actions.

    ## Action Space

    ``Discrete(R)``: the rank of the next card to put under, ``R`` the deck's ranks, weakest
    first, jokers included. The first card placed is the first of them to be played again.
    ``action_masks()`` (sb3-contrib's convention) and ``info["action_mask"]`` mark the ranks
    left on the table. An illegal action never raises: the lowest rank left is placed instead
    and ``info["illegal_action"]`` is True for that step.

    ## Observation Space

    ``Box(0, 1, (size,), float32)`` for ``MlpPolicy``; what the seat may know, player-relative
    (see :class:`ClassicLayout`, also at ``env.unwrapped.layout.slices``): the cards left to
    place (by rank), the known part of my future cards by position (the tail of my stack that I
    placed myself and have not played yet, my won pile, the cards placed so far), stack and
    won-pile sizes and who is still in, the counts of ranks seen face up so far, my seat, the
    number of players and the rounds played.

    ## Rewards

    Zero on every step but the last; the last is the game's result for the learner: 1 for a
    win, -1 for a loss, 0 for a draw (``cycle``, ``capped`` and ``draw`` are draws). With
    ``misere`` the winner is the first player out, as the rules say.

    ## Starting State

    A seeded deal by the rules (the dealer lot and the shuffle come from a 64-bit seed drawn
    from ``self.np_random``, so ``env.unwrapped.record()`` replays the game), played up to the
    learner's first decision. Deals in which the learner never has a decision (it goes out
    before winning a table that needs ordering) carry nothing to learn and are skipped;
    ``info["skipped_deals"]`` counts them.

    ## Episode End

    The episode terminates at the learner's last decision of the game: the game is then played
    to its end (after the learner goes out, too: the result decides the reward). There is no
    truncation; the round cap ends the game as ``capped``, a draw. ``info["result"]`` holds
    the result at the end.

    ``pickup_order: agent`` turns cycle detection off (RULES.md §2.9), so the cap is what ends
    a game that would go round forever. The environment caps games at ``max_rounds=2000``
    rounds rather than the rules' 10,000: with random pickups, 99% of two- to four-player
    36-card games end within about 1,000-1,150 rounds (and about 90-97% of 52-card games
    within 2,000), while a policy that has learned to loop would otherwise spend 10,000 rounds
    per episode.

    ## Arguments

    ```python
    import gymnasium as gym
    import pyanitsa.envs  # registers the environments

    env = gym.make("pyanitsa/Classic-v0", rules="classic-ru", players=2, seat=0,
                   opponents="random", max_rounds=2000, render_mode="ansi")
    ```

    - ``rules``: a preset name, a :class:`pyanitsa.Rules` or a mapping of options (as for
      ``Tactical-v0``); default: the classic defaults. ``pickup_order`` is always set to
      ``agent``.
    - ``players``: 2 to 8.
    - ``seat``: the learner's seat, or ``"random"`` to draw it at every reset.
    - ``opponents``: one agent spec (or agent) for every opponent seat, or a list of
      ``players - 1``; they must order pickups (``order_pickup``). Each gets ``self.np_random``.
    - ``max_rounds``: the round cap written into the rules; ``None`` keeps the rules' own.
    - ``render_mode``: ``None`` or ``"ansi"``.

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, rules: RulesArg = None, *, players: int = 2, seat: int | str = 0,
                 opponents: OpponentsArg = DEFAULT_OPPONENT,
                 max_rounds: int | None = DEFAULT_MAX_ROUNDS,
                 render_mode: str | None = None) -> None:
        self.rules = classic_rules(rules, max_rounds)
        self.players = read_players(self.rules, players)
        self._fixed_seat = read_seat(seat, self.players)
        self.render_mode = render_mode
        self.opponents = make_opponents(opponents, self.players)
        self.seat = self._fixed_seat if self._fixed_seat is not None else 0
        """The learner's seat in the current episode."""
        self._driver = ClassicDriver(self.rules, [None] * self.players)
        self.layout = self._driver.layout
        self.observation_space = self.layout.space()
        self.action_space = spaces.Discrete(self.layout.ranks)
        self._obs = np.zeros(self.layout.size, dtype=np.float32)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        players = self.players
        seat = self._fixed_seat if self._fixed_seat is not None else int(rng.integers(players))
        self.seat = seat
        agents: list[Agent | None] = [None] * players
        for i, agent in enumerate(self.opponents):
            agents[(seat + 1 + i) % players] = agent
        driver = self._driver
        driver.agents = agents
        driver.outside = [seat]
        driver.start(rng)
        return driver.obs.copy(), {"action_mask": driver.mask.copy(), "seat": seat,
                                   "skipped_deals": driver.skipped}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        driver = self._driver
        if driver.pending is None:
            raise RuntimeError("step() after the episode ended: call reset()")
        driver.place(action)
        info: dict[str, Any] = {"illegal_action": driver.illegal}
        if driver.pending is not None:
            info["action_mask"] = driver.mask.copy()
            return driver.obs.copy(), 0.0, False, False, info
        result = driver.result
        assert result is not None
        info["action_mask"] = np.zeros(self.layout.ranks, dtype=bool)
        info["seat"] = self.seat
        info["result"] = result.to_json()
        obs = driver.observe(self.seat, self._obs).copy()
        return obs, classic_reward(result, self.seat), True, False, info

    def action_masks(self) -> np.ndarray:
        """The ranks left on the table (sb3-contrib's ``MaskablePPO`` calls this)."""
        if self._driver.pending is None:
            return np.zeros(self.layout.ranks, dtype=bool)
        return self._driver.mask.copy()

    @property
    def deal_seed(self) -> int:
        """The current episode's deal is ``Record.dealt(rules, players, deal_seed)``."""
        return self._driver.deal_seed

    def record(self) -> Record:
        """The current game as a replayable record (``pyanitsa replay``), decisions included."""
        return self._driver.record()

    def render(self) -> str | None:
        return render_text(self.render_mode, lambda: self._driver.render(self.seat))
