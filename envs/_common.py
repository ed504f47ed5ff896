"""What the environments share: reading the rules and opponents kwargs, rewards, illegal actions.

Rules stay in the core (``pyanitsa.rules``, the engines); this module only adapts kwargs and
results to what RL code expects.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import gymnasium
import numpy as np

from pyanitsa.cards import Seat
from pyanitsa.errors import InvalidRulesError
from pyanitsa.observation import layout as layout  # the core's, shared by every env
from pyanitsa.protocol import Agent, agent_from_spec
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult, TacticalResult, Termination
from pyanitsa.rng import MASK64
from pyanitsa.rules import Mode, Rules

RulesArg = Rules | str | Mapping[str, Any] | None
"""A :class:`Rules`, a preset name, a mapping of options (with optional ``preset`` and
``deck``, as in a record or a YAML file), or ``None`` for the mode's defaults."""

OpponentsArg = str | Agent | Sequence[str | Agent]
"""One agent spec (or agent) for every opponent seat, or one per opponent seat."""

TacticalReward = Literal["margin", "win", "rank"]
TACTICAL_REWARDS: tuple[str, ...] = ("margin", "win", "rank")

DEFAULT_OPPONENT = "random"


def read_rules(rules: RulesArg, mode: Mode) -> Rules:
    """The rules a ``rules=`` kwarg names, checked to be of ``mode``."""
    if rules is None:
        return Rules.default(mode)
    if isinstance(rules, Rules):
        if rules.mode != mode:
            raise InvalidRulesError(f"mode: {rules.mode} rules given to a {mode} environment")
        return rules
    if isinstance(rules, str):
        return Rules.from_options({"preset": rules}, mode=mode)
    if isinstance(rules, Mapping):
        return Rules.from_options(rules, mode=mode)
    raise InvalidRulesError(f"rules: {rules!r} is not a Rules, a preset name or a mapping "
                            "of options")


def read_players(rules: Rules, players: object) -> int:
    rules.check_players(players)  # type: ignore[arg-type]
    return players  # type: ignore[return-value]


def read_seat(seat: object, players: int) -> int | None:
    """A fixed seat, or ``None`` for ``"random"`` (drawn at every reset)."""
    if seat == "random":
        return None
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"seat: {seat!r} is not 'random' or a seat 0..{players - 1}")
    return seat


def render_text(render_mode: str | None, text: Callable[[], str]) -> str | None:
    """``render()`` for envs with only the ``ansi`` mode.

    The envs keep any ``render_mode`` they are given, as Gymnasium does (stable-baselines3's
    ``make_vec_env`` asks every env for ``rgb_array``); only ``render()`` refuses it."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
        return None
    if render_mode != "ansi":
        raise gymnasium.error.UnsupportedMode(
            f"render_mode {render_mode!r} is not supported: use render_mode='ansi'")
    return text()


def make_opponents(opponents: OpponentsArg, players: int) -> list[Agent]:
    """One agent per opponent seat: opponent ``i`` sits ``i + 1`` seats clockwise of the learner.

    A single spec builds a separate agent for every opponent seat (agents may keep state).
    """
    if isinstance(opponents, (str, Agent)):
        specs: list[str | Agent] = [opponents] * (players - 1)
    else:
        specs = list(opponents)
        if len(specs) != players - 1:
            raise ValueError(f"opponents: {len(specs)} given for {players - 1} opponent seats "
                             f"({players} players)")
    return [agent_from_spec(s) for s in specs]


Dealt = TypeVar("Dealt")

_RAW64 = (np.random.PCG64, np.random.PCG64DXSM)
"""Bit generators whose raw output is ``integers(0, 2**64 - 1, endpoint=True)``'s draw, state
and all (tests/test_envs_episodes.py); gymnasium seeds envs with PCG64."""


def seeded_deal(rules: Rules, players: int, rng: np.random.Generator,
                dealer: Callable[[int], Dealt] | None = None) -> tuple[int, Record | Dealt]:
    """An episode's deal: a 64-bit seed drawn from the env's generator, dealt by the core, so
    ``Record.dealt(rules, players, seed)`` is the episode's game anywhere (``pyanitsa play
    --seed`` deals the same way). ``dealer`` deals the seed instead of ``Record.dealt``, the
    same deal in another form: ``Tactical-v0``'s ``TacticalScorer.deal_hands`` (arrays)."""
    bits = rng.bit_generator
    if type(bits) in _RAW64:  # the same number, without integers()'s argument handling
        seed = int(bits.random_raw())
    else:
        seed = int(rng.integers(0, MASK64, dtype=np.uint64, endpoint=True))
    if dealer is None:
        return seed, Record.dealt(rules, players, seed)
    return seed, dealer(seed)


def action_index(action: object, legal: Sequence[int]) -> int:
    """``action`` as an int if it is an integer in range with ``legal[action]`` non-zero, else -1.

    ``legal`` holds the cards left of each rank.
    """
    try:
        a = operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        return -1
    if 0 <= a < len(legal) and legal[a]:
        return a
    return -1


def lowest_legal(legal: Sequence[int]) -> int:
    """The lowest rank with a card left (the documented stand-in for an illegal action)."""
    for r, n in enumerate(legal):
        if n:
            return r
    raise RuntimeError("no legal action: the decision is already complete")


# -- rewards ------------------------------------------------------------------------------------


def tactical_reward(kind: str, result: TacticalResult, seat: Seat, misere: bool,
                    dealt: int) -> float:
    """The reward of ``seat`` for a finished tactical game; every kind lies in ``[-1, 1]``.

    * ``margin``: own score minus the mean opponent score, over the cards dealt to all seats
      (``dealt``); negated under ``misere``, where the lowest score wins.
    * ``win``: 1 for the only winner, 0 for a shared win, -1 for a loss.
    * ``rank``: 1 for first place down to -1 for last, tied seats sharing the mean of their
      places (so a two-player draw is 0).
    """
    scores = result.scores
    players = len(scores)
    if kind == "margin":
        own = scores[seat]
        others = (sum(scores) - own) / (players - 1)
        margin = (own - others) / dealt
        return -margin if misere else margin
    if kind == "win":
        if seat not in result.winners:
            return -1.0
        return 1.0 if result.outcome is Termination.WIN else 0.0
    # rank: places 0 (best) .. players - 1, ties share the mean place
    own = scores[seat]
    better = sum(1 for s in scores if (s < own if misere else s > own))
    tied = sum(1 for s in scores if s == own)
    place = better + (tied - 1) / 2
    return 1.0 - 2.0 * place / (players - 1)


def classic_reward(result: ClassicResult, seat: Seat) -> float:
    """1 for the winner, -1 for the other seats; 0 for all when the game is drawn.

    ``cycle``, ``capped`` and ``draw`` are draws (RULES.md §2.8).
    """
    if result.outcome is not Termination.WIN:
        return 0.0
    return 1.0 if result.winner == seat else -1.0


class ActionMasks(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Puts ``action_masks()`` on the outside of what ``gymnasium.make`` returns.

    Gymnasium 1.x wrappers no longer forward attributes, so without this
    ``gym.make("pyanitsa/Tactical-v0").action_masks()`` would raise; registration adds it
    last, after the checker and order wrappers. Wrappers a user adds on top still hide it:
    ``env.get_wrapper_attr("action_masks")()`` (what sb3-contrib's vector envs call) works
    through any of them.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)

    def action_masks(self) -> Any:
        return self.env.get_wrapper_attr("action_masks")()
