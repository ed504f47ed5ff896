"""``pyanitsa/Tactical-v0``: order a tactical hand one rank per step against agent opponents."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import chain
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
from pyanitsa.observation import TacticalSeat
from pyanitsa.orders import check_order
from pyanitsa.protocol import hand_view
from pyanitsa.ranks import rank_table
from pyanitsa.records import Record
from pyanitsa.results import TacticalResult, Termination
from pyanitsa.rules import Rules
from pyanitsa.tactical import TacticalGame


class TacticalLayout(observation.TacticalLayout):
    """:class:`pyanitsa.observation.TacticalLayout` with its Gymnasium space (the encoding is in
    the core so that a policy plays without gymnasium)."""

    def space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (self.size,), np.float32)


ENGINES = ("auto", "batch", "reference")


class TacticalScorer:
    """Plays complete orders to a :class:`TacticalResult`: the reference engine, or the compiled
    batch core (``pyanitsa.batch``, about seven times faster per game) when it is available.

    ``engine="auto"`` uses the batch core unless it cannot be imported (numba missing), then the
    reference engine; :attr:`engine` says which. Any other failure of the batch core raises:
    the engines' agreement is for the parity tests to show, not for a constructor to test.
    """

    def __init__(self, rules: Rules, players: int, engine: str = "auto") -> None:
        if engine not in ENGINES:
            raise ValueError(f"engine: {engine!r} is not one of {', '.join(ENGINES)}")
        self.rules = rules
        self.players = players
        self._setup_deal()
        self.engine = "reference"
        if engine != "reference":
            try:
                self._setup_batch()
            except ImportError as exc:
                if engine == "batch":
                    raise ValueError(f"engine: the batch core is unavailable ({exc})") from exc
            else:
                self.engine = "batch"

    def __getstate__(self) -> dict[str, Any]:
        # the compiled module does not pickle: rebuild the batch set-up on unpickling
        return {"rules": self.rules, "players": self.players, "engine": self.engine}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._setup_deal()
        if self.engine == "batch":
            self._setup_batch()

    def _setup_deal(self) -> None:
        self._key_table = sort_keys(self.rules)
        self._keyed = np.zeros((self.players, self.rules.deck.size // self.players), np.int64)

    def deal_keys(self, seed: int) -> np.ndarray:
        """The hands of ``Record.dealt(rules, players, seed)`` as sort keys ``rank * deck +
        card`` (:func:`sort_keys`), each hand in the order dealt: a ``[players, n]`` array,
        overwritten by the next deal.

        Keys, so that sorting a row sorts the hand as a view does (weakest rank first, then by
        card) and ``key % deck`` is the card, ``key // deck`` its rank."""
        if self.engine == "batch":
            self._deal_cards(np.uint64(seed), *self._deal_args)
        else:
            self._keyed[:] = self._key_table[np.array(Record.dealt(self.rules, self.players,
                                                                   seed).seats)]
        return self._keyed

    def play(self, orders: Sequence[Sequence[Card]]) -> TacticalResult:
        if self.engine == "batch":
            return self._play_batch(orders)
        return TacticalGame(self.rules, orders).play()

    def _setup_batch(self) -> None:
        from pyanitsa.batch import tactical as core
        from pyanitsa.batch.encode import params, strength_table

        rules, players = self.rules, self.players
        n = rules.deck.size // players
        self._strength = strength_table(rules)
        self._hands = np.zeros((players, n), dtype=self._strength.dtype)
        self._lens = np.full(players, n, dtype=np.int64)
        self._scores = np.zeros((1, core.PMAX), np.int64)
        self._wins = np.zeros((1, core.PMAX), np.bool_)
        self._out = np.zeros((1, core.N_TRESULT), np.int64)
        self._scratch = core.hand_scratch(self._hands)
        self._core = core
        self._flat_hands = self._hands.reshape(-1)
        self._play_args = (self._hands, self._lens, players, params(rules), self._scores,
                           self._wins, self._out, 0, *self._scratch)
        # SeededDealer's deal with the key table for the "strengths" dealt (see deal_keys)
        from pyanitsa.batch.deals import deal_cards

        size = rules.deck.size
        dealer_fixed = -1 if rules.dealer == "random" else int(rules.dealer)
        self._deal_cards = deal_cards
        self._deal_args = (np.int64(players), np.int64(size), True, np.int64(dealer_fixed),
                           np.zeros(size, np.int64), self._key_table, self._keyed,
                           np.zeros(players, np.int64))

    def _play_batch(self, orders: Sequence[Sequence[Card]]) -> TacticalResult:
        # one conversion of all the orders to an array, not one per seat
        self._flat_hands[:] = self._strength[list(chain.from_iterable(orders))]
        self._core.play_hands(*self._play_args)
        # api.tactical_result's fields, read with one tolist() per array instead of a numpy
        # scalar per field (a tenth of an episode's time)
        players = self.players
        out = self._out[0].tolist()
        wins = self._wins[0].tolist()
        winners = tuple(s for s in range(players) if wins[s])
        return TacticalResult(Termination.WIN if len(winners) == 1 else Termination.DRAW,
                              winners, tuple(self._scores[0].tolist()[:players]),
                              out[self._core.T_REMOVED], out[self._core.T_ROUNDS],
                              out[self._core.T_SHOWDOWNS])


def sort_keys(rules: Rules) -> np.ndarray:
    """``rank * deck + card`` for every card: keys in the order a view sorts its hand."""
    size = rules.deck.size
    return np.asarray([r * size + c for c, r in enumerate(rank_table(rules).rank_of)],
                      np.int64)


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
        self.deal_seed, keys = seeded_deal(self.rules, players, rng, self._scorer.deal_keys)
        size = self._deck_size
        hands = (keys % size).tolist()
        by_view: np.ndarray | None = None
        orders: list[list[Card]] = [[] for _ in range(players)]
        for i, agent in enumerate(self.opponents):
            s = (seat + 1 + i) % players
            fast = fast_order(type(agent))
            if fast is not None:
                if by_view is None:  # every hand sorted as its view would sort it
                    by_view = np.sort(keys, axis=1) % size
                orders[s] = fast(agent, by_view[s], rng).tolist()
                continue
            view = hand_view(self.rules, s, hands, self.layout.set_aside)
            orders[s] = check_order(agent.order_hand(view, rng), view.hand,
                                    self._labels[i], self.rules)
        self._orders = orders
        self.result = None
        me = self._me
        me.deal(seat, hands[seat])
        return me.obs.copy(), {"action_mask": me.mask.copy(), "seat": seat}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        me = self._me
        me.play(action)
        info: dict[str, Any] = {"action_mask": me.mask.copy(), "illegal_action": me.illegal}
        if len(me.ranks) < self._hand_size:
            return me.obs.copy(), 0.0, False, False, info
        seat = self.seat
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
        return Record(self.rules, tuple(tuple(o) for o in self._orders))

    def render(self) -> str | None:
        return render_text(self.render_mode, lambda: render_tactical(
            self.rules, self.players, self.seat, self._me, self._orders, self.result))


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
