"""``pyanitsa/Tactical-v0``: order a tactical hand one rank per step against agent opponents."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pyanitsa import observation
from pyanitsa.cards import Card, Seat
from pyanitsa.envs._common import (
    DEFAULT_OPPONENT,
    TACTICAL_REWARDS,
    OpponentsArg,
    RulesArg,
    make_opponents,
    read_players,
    read_rules,
    read_seat,
    render_text,
    seeded_deal,
    tactical_reward,
)
from pyanitsa.envs.tactical_scorer import TacticalScorer
from pyanitsa.observation import TacticalSeat
from pyanitsa.orders import check_order
from pyanitsa.protocol import hand_view
from pyanitsa.records import Record
from pyanitsa.results import TacticalResult
from pyanitsa.rules import Rules


class TacticalLayout(observation.TacticalLayout):
    """:class:`pyanitsa.observation.TacticalLayout` with its Gymnasium space (the encoding is in
    the core so that a policy plays without gymnasium)."""

    def space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (self.size,), np.float32)


@cache
def fast_order(cls: type) -> Callable[[Any, np.ndarray, np.random.Generator], np.ndarray] | None:
    """The ``order_cards(agent, hand, rng)`` the env may call for an agent of class ``cls``
    instead of its ``order_hand``, trusting the answer without :func:`check_order`; else
    ``None``.

    ``order_cards`` is ``order_hand`` from the view's sorted hand alone (an array), for agents
    that read nothing else (``random``). The env trusts it only from a class of ours that
    defines it itself: those are tested to return the view's permutation drawn as
    ``order_hand`` draws it (tests/test_envs_episodes.py); any other agent, a subclass that may
    override ``order_hand`` included, gets its view and the check.
    """
    method = cls.__dict__.get("order_cards")
    if method is None or not cls.__module__.startswith("pyanitsa.agents."):
        return None
    return method  # type: ignore[no-any-return]


class TacticalEnv(gym.Env[np.ndarray, np.int64]):
    """Order a hand of Тактический пьяница one card at a time, against agent opponents.

    ## Description

    Tactical pyanitsa (RULES.md §3): every player is dealt ``deck // players`` cards, secretly
    fixes the order of its hand, and the hands are then played out round by round; a round's
    top card banks all cards of the round in its owner's копилка (score pile). The learner sits
    at one seat and builds its order one card per step. Suits never matter, so an action names
    a rank. When the order is complete the opponents' orders (chosen by their agents at reset
    from what their seat may know) are revealed by playing the game (the reference engine's rules; see ``engine``).

    ## Action Space

    ``Discrete(R)``: the rank of the next card of the order, ``R`` the number of ranks of the
    deck, weakest first, jokers included (6 7 8 9 10 J Q K A in the 36-card deck; with
    ``weakest_beats_ace`` in the 54-card deck the jokers are rank 0). ``action_masks()``
    (sb3-contrib's convention) and ``info["action_mask"]`` mark the ranks still in hand.

    An illegal action (out of range, not an integer, or a rank no longer in hand) never
    raises: the lowest rank still in hand is played instead and ``info["illegal_action"]`` is
    True for that step.

    ## Observation Space

    ``Box(0, 1, (size,), float32)``, a flat vector for ``MlpPolicy`` holding only what the
    seat may know (RULES.md §3.2), in this order (``n`` cards a hand, ``P`` players):

    - ``hand`` (R): cards of each rank still in my hand / copies of the rank in the deck
    - ``order`` (n × R): one-hot rank of each position of my order built so far
    - ``unseen`` (R): cards of each rank not dealt to me (the opponents' hands and the cards
      set aside) / copies in the deck
    - ``deck`` (R): the deck's composition, copies of each rank / the most copies
    - ``seat`` (P): one-hot seat of the learner
    - ``players`` (1): players / 8

    ``env.unwrapped.layout.slices`` maps these names to slices. With the 36-card deck and two
    players the vector has 192 entries.

    ## Rewards

    Zero on every step but the last; the last step's reward is chosen by ``reward``:

    - ``margin`` (default): own score minus the mean opponent score, divided by the cards
      dealt to all seats, so within ``[-1, 1]`` (negated with ``misere``, where the lowest
      score wins);
    - ``win``: 1 if the learner is the only winner, 0 if it shares the win, -1 otherwise;
    - ``rank``: 1 for first place down to -1 for last; tied seats share the mean of their
      places (a two-player tie is 0).

    ## Starting State

    A uniform deal of ``deck // players`` cards to every seat (the rest set aside), the
    learner's seat (fixed or drawn), and the opponents' orders, all drawn from
    ``self.np_random`` at ``reset``. The deal is the core's: the env draws a 64-bit
    :attr:`deal_seed` and deals ``Record.dealt(rules, players, deal_seed)`` (as ``pyanitsa play
    --seed`` does), so ``reset(seed=...)`` fixes the episode and the deal replays anywhere.

    ## Episode End

    Terminates after exactly ``n`` steps, when the order is complete; there is no truncation.
    The final ``info`` holds ``"result"``, the game's result as ``pyanitsa replay`` prints it
    (``scores``, ``winners``, ...); ``env.unwrapped.record()`` then gives the game as a
    replayable record with every seat's order.

    ## Arguments

    ```python
    import gymnasium as gym
    import pyanitsa.envs  # registers the environments

    env = gym.make("pyanitsa/Tactical-v0", rules="tactical", players=2, seat="random",
                   opponents="random", reward="margin", render_mode="ansi")
    ```

    - ``rules``: a preset name (``"tactical"``, ``"tactical-52"``), a :class:`pyanitsa.Rules`,
      or a mapping of options such as ``{"preset": "tactical", "deck": "52",
      "weakest_beats_ace": True}``; default: the tactical defaults with the 36-card deck.
    - ``players``: 2 to 8.
    - ``seat``: the learner's seat, or ``"random"`` to draw it at every reset.
    - ``opponents``: an agent spec string or agent object for every opponent seat, or a list of
      ``players - 1`` of them (opponent ``i`` sits ``i + 1`` seats clockwise of the learner).
      Each opponent gets ``self.np_random`` as its generator.
    - ``reward``: ``"margin"``, ``"win"`` or ``"rank"``.
    - ``engine``: what plays the game at the end: ``"auto"`` (default: the compiled batch core
      ``pyanitsa.batch``, or the reference engine where numba cannot be imported), ``"batch"``
      or ``"reference"``; the batch engine also deals (the same deal, compiled). Results are
      identical; the
      batch core is faster per game but imports numba (about a second per process).
    - ``render_mode``: ``None`` or ``"ansi"`` (``render()`` returns the state as text).

    ## Version History

    - v0: initial version. Since issue 15 a seed deals through the core's seeded deal (the
      same distribution; other hands for a given seed than before).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, rules: RulesArg = None, *, players: int = 2, seat: int | str = 0,
                 opponents: OpponentsArg = DEFAULT_OPPONENT, reward: str = "margin",
                 engine: str = "auto", render_mode: str | None = None) -> None:
        self.rules = read_rules(rules, "tactical")
        self.players = read_players(self.rules, players)
        self._fixed_seat = read_seat(seat, self.players)
        if reward not in TACTICAL_REWARDS:
            raise ValueError(f"reward: {reward!r} is not one of {', '.join(TACTICAL_REWARDS)}")
        self.reward_kind = reward
        self.render_mode = render_mode
        self.set_opponents(opponents)
        self.layout = TacticalLayout(self.rules, self.players)
        self._scorer = TacticalScorer(self.rules, self.players, engine)
        self.engine = self._scorer.engine
        """The engine that plays the games (and deals them): ``batch`` or ``reference``."""
        self._deck_size = self.rules.deck.size
        self.observation_space = self.layout.space()
        self.action_space = spaces.Discrete(self.layout.ranks)
        self._me = TacticalSeat(self.layout)
        self._orders: list[list[Card]] = []
        self._hand_size = self.layout.hand_size
        self._dealt = self._hand_size * self.players
        self.seat = self._fixed_seat if self._fixed_seat is not None else 0
        """The learner's seat in the current episode."""
        self.result: TacticalResult | None = None
        """The result of the last finished episode's game (``None`` while ordering)."""

    # -- Gymnasium API --------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        players = self.players
        seat = self._fixed_seat if self._fixed_seat is not None else int(rng.integers(players))
        self.seat = seat
        self.deal_seed, (cards, by_view, counts) = seeded_deal(self.rules, players, rng,
                                                               self._scorer.deal_hands)
        hands = cards.tolist()
        orders: list[list[Card]] = [[] for _ in range(players)]
        for i, agent in enumerate(self.opponents):
            s = (seat + 1 + i) % players
            fast = fast_order(type(agent))
            if fast is not None:
                order = fast(agent, by_view[s], rng)
            else:
                view = hand_view(self.rules, s, hands, self.layout.set_aside)
                order = check_order(agent.order_hand(view, rng), view.hand, self._labels[i],
                                    self.rules)
            orders[s] = order if isinstance(order, list) else order.tolist()
        self._orders = orders
        self.result = None
        me = self._me
        me.deal(seat, hands[seat], counts[seat])
        return me.obs.copy(), {"action_mask": me.mask.copy(), "seat": seat}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        me = self._me
        me.play(action)
        info: dict[str, Any] = {"action_mask": me.mask.copy(), "illegal_action": me.illegal}
        if len(me.ranks) < self._hand_size:
            return me.obs.copy(), 0.0, False, False, info
        seat = self.seat
        if self.engine == "batch":  # the learner's cards only when the record is asked for
            result = self._scorer.play_ranks(self._orders, seat, me.ranks)
        else:
            self._orders[seat] = me.order()
            result = self._scorer.play(self._orders)
        self.result = result
        reward = tactical_reward(self.reward_kind, result, seat, self.rules.misere,
                                 self._dealt)
        info["seat"] = seat
        info["result"] = result.to_json()
        return me.obs.copy(), reward, True, False, info

    def set_opponents(self, opponents: OpponentsArg) -> None:
        """Replace the opponents from the next ``reset`` on (same forms as ``opponents=``).

        A training callback swaps them in every worker with
        ``vec_env.env_method("set_opponents", ...)``. With ``SubprocVecEnv`` the argument is
        pickled to each worker, so pass spec strings (``ppo:runs/x/snapshots/step_100000.pt``
        loads the frozen weights inside the worker) or agents that pickle cheaply.
        """
        self.opponents = make_opponents(opponents, self.players)
        self._labels = [f"opponent {i} ({_label(a)}) hand order"
                        for i, a in enumerate(self.opponents)]

    def action_masks(self) -> np.ndarray:
        """The ranks still in hand (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self._me.mask.copy()

    def record(self) -> Record:
        """The last finished game as a replayable record: every seat's hand in its order."""
        if self.result is None:
            raise RuntimeError("no finished game yet: the order is not complete")
        return Record(self.rules, tuple(tuple(o) for o in self._final_orders()))

    def render(self) -> str | None:
        orders = self._final_orders() if self.result is not None else self._orders
        return render_text(self.render_mode, lambda: render_tactical(
            self.rules, self.players, self.seat, self._me, orders, self.result))

    def _final_orders(self) -> list[list[Card]]:
        """Every seat's order of the finished game, the learner's cards built on first use."""
        if not self._orders[self.seat]:
            self._orders[self.seat] = self._me.order()
        return self._orders


def render_tactical(rules: Rules, players: int, seat: Seat, me: TacticalSeat,
                    orders: Sequence[Sequence[Card]], result: TacticalResult | None) -> str:
    """The ``ansi`` text of a tactical episode: the learner's hand and order, then the game."""
    lay = me.layout
    labels = lay.labels
    lines = [f"Tactical pyanitsa, deck {rules.deck}, {players} players, "
             f"{lay.hand_size} cards each; learner at seat {seat}"]
    hand = " ".join(labels[r] for r, n in enumerate(me.left) for _ in range(n))
    lines.append(f"hand:  {hand or '-'}")
    lines.append(f"order: {' '.join(labels[r] for r in me.ranks) or '-'}")
    if result is not None:
        for s in range(players):
            tag = " (learner)" if s == seat else ""
            lines.append(f"seat {s}{tag}: {rules.deck.format_cards(orders[s])}")
        lines.append(f"scores {list(result.scores)}, winners {list(result.winners)}, "
                     f"{result.rounds} rounds")
    return "\n".join(lines) + "\n"


def _label(agent: object) -> str:
    return repr(getattr(agent, "name", type(agent).__name__))
