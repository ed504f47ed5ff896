"""``pyanitsa/Classic-v0``: choose, rank by rank, the order of the classic tables you win.

The classic engine asks for a pickup order through a callback and cannot wait for an RL step, so
:class:`ClassicDriver` plays the game round by round: before each round it keeps a copy of the
game; when a seat whose decisions come from outside (the learner) wins a table that needs a
decision, the callback raises, the driver goes back to the copy, and the order is collected one
rank per step. The round is then replayed on the copy with that order. Rounds are a pure function
of the state (a shuffling generator is copied with the game), so the replay is the same round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pyanitsa.cards import Card, Seat
from pyanitsa.classic import ClassicGame, PickupRequest
from pyanitsa.envs._common import (
    DEFAULT_OPPONENT,
    OpponentsArg,
    RulesArg,
    action_index,
    classic_reward,
    layout,
    lowest_legal,
    make_opponents,
    read_players,
    read_rules,
    read_seat,
    render_text,
    seeded_deal,
)
from pyanitsa.errors import InvalidRulesError
from pyanitsa.orders import check_order
from pyanitsa.protocol import Agent, classic_view, pickup_view
from pyanitsa.ranks import rank_table
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules

DEFAULT_MAX_ROUNDS = 2000
"""The environments' round cap (the rules' own default is 10,000); see :class:`ClassicEnv`."""

MAX_DEALS = 100
"""Deals tried at reset before giving up on rules that never ask for a decision."""


def classic_rules(rules: RulesArg, max_rounds: int | None) -> Rules:
    """The rules a classic environment plays: ``pickup_order: agent`` and the round cap."""
    base = read_rules(rules, "classic")
    changes: dict[str, Any] = {"pickup_order": "agent"}
    if max_rounds is not None:
        changes["max_rounds"] = max_rounds
    return base.replace(**changes)


class ClassicLayout:
    """The flat observation of one seat in a classic game; every entry lies in ``[0, 1]``.

    ``R`` ranks, ``D`` cards in the deck, ``P`` players; per-player entries are player-relative
    (index 0 is the observing seat, then clockwise):

    ==============  =======  ==========================================================
    slice           size     value
    ==============  =======  ==========================================================
    ``table``       R        cards of each rank left to place / copies in the deck
    ``future``      D × R    one-hot rank of each of my next cards that I know, by
                             position in the order I will play them: the tail of my stack
                             that I placed, then my won pile, then the cards placed so far
                             from this table (unknown positions are all zero)
    ``stacks``      P        stack sizes / D
    ``piles``       P        won-pile sizes / D
    ``in_game``     P        1 for players still in the game
    ``seen``        R        cards of each rank turned face up so far, ``x / (x + copies)``
    ``seat``        P        one-hot seat
    ``players``     1        players / 8
    ``rounds``      1        rounds begun / ``max_rounds``
    ==============  =======  ==========================================================
    """

    def __init__(self, rules: Rules, players: int) -> None:
        table = rank_table(rules)
        self.rules = rules
        self.players = players
        self.ranks = r = table.num_ranks
        self.deck_size = d = rules.deck.size
        sizes = {"table": r, "future": d * r, "stacks": players, "piles": players,
                 "in_game": players, "seen": r, "seat": players, "players": 1, "rounds": 1}
        self.slices, self.size = layout(sizes)
        self.rank_of = table.rank_of
        self.counts = table.counts
        self.labels = table.labels
        self.counts_np = np.asarray(table.counts, dtype=np.float32)
        self.future_start = self.slices["future"].start

    def space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (self.size,), np.float32)

    def build(self, out: np.ndarray, game: ClassicGame, seat: Seat,
              left: Sequence[int] | None = None, placed: Sequence[Card] = ()) -> int:
        """Write ``seat``'s observation into ``out``; returns the position of its next placed card.

        ``left`` (cards of each rank left to place) and ``placed`` describe the table ``seat``
        is ordering, if any.
        """
        out.fill(0.0)
        sl = self.slices
        r, d, p = self.ranks, self.deck_size, self.players
        if left is not None:
            out[sl["table"]] = np.asarray(left, dtype=np.float32) / self.counts_np
        rank_of = self.rank_of
        view = classic_view(game, seat)
        known = view.known_tail
        pos = view.stack_sizes[seat] - len(known)
        base = self.future_start
        for c in (*known, *view.my_pile, *placed):
            out[base + pos * r + rank_of[c]] = 1.0
            pos += 1
        order = [(seat + i) % p for i in range(p)]
        out[sl["stacks"]] = [view.stack_sizes[s] / d for s in order]
        out[sl["piles"]] = [view.pile_sizes[s] / d for s in order]
        out[sl["in_game"]] = [1.0 if view.in_game[s] else 0.0 for s in order]
        seen_start = sl["seen"].start
        for rank, x in enumerate(view.seen):
            out[seen_start + rank] = x / (x + self.counts[rank])
        out[sl["seat"].start + seat] = 1.0
        out[sl["players"]] = p / 8
        out[sl["rounds"]] = min(view.rounds / view.rules.max_rounds, 1.0)
        return pos


class _Pause(Exception):
    """Raised by the pickup callback when an outside seat must order a table."""

    def __init__(self, request: PickupRequest) -> None:
        super().__init__(request.seat)
        self.request = request


class ClassicDriver:
    """Plays a classic game whose outside seats order their tables one rank per call.

    ``agents[s]`` orders seat ``s``'s pickups, or is ``None`` for a seat whose decisions come
    through :meth:`place`. A table whose cards are all of one rank needs no decision: it goes
    under the stack as it lay on the table.
    """

    def __init__(self, rules: Rules, agents: Sequence[Agent | None]) -> None:
        self.rules = rules
        self.players = len(agents)
        self.layout = ClassicLayout(rules, self.players)
        self.agents = list(agents)
        self.outside = [s for s, a in enumerate(agents) if a is None]
        self.agent_rng: np.random.Generator | None = None
        self.game: ClassicGame | None = None
        self.dealer = 0
        self.stacks: tuple[tuple[Card, ...], ...] = ()
        self.play_seed: int | None = None
        self.deal_seed = 0
        """The seed of the current deal: ``Record.dealt(rules, players, deal_seed)``."""
        self.skipped = 0
        """Deals skipped at the last start because nobody outside had a decision to make."""
        self.pending: PickupRequest | None = None
        """The table an outside seat is ordering, as the aborted round left it."""
        self.left: list[int] = [0] * self.layout.ranks
        self.queue: list[list[Card]] = []
        self.placed: list[Card] = []
        self.obs = np.zeros(self.layout.size, dtype=np.float32)
        """The deciding seat's observation, updated as it places cards."""
        self.mask = np.zeros(self.layout.ranks, dtype=bool)
        self.illegal = False
        self._next_pos = 0
        self._replay: list[Card] | None = None

    # -- the game -------------------------------------------------------------------------------

    @property
    def seat(self) -> Seat | None:
        """The seat that must place a card, or ``None`` once the game is over."""
        return self.pending.seat if self.pending is not None else None

    @property
    def result(self) -> ClassicResult | None:
        return self.game.result if self.game is not None else None

    def start(self, rng: np.random.Generator) -> Seat:
        """Deal from ``rng`` and play up to the first outside decision; returns its seat.

        Deals in which no outside seat ever has a decision are skipped (such a game carries no
        decision to learn from); :attr:`skipped` counts them.
        """
        self.agent_rng = rng
        self.skipped = 0
        for _ in range(MAX_DEALS):
            self.deal_seed, dealt = seeded_deal(self.rules, self.players, rng)
            self.dealer, self.stacks, self.play_seed = dealt.dealer, dealt.seats, dealt.seed
            self.game = ClassicGame(self.rules, dealt.seats, dealer=dealt.dealer,
                                    rng=Rng(self.play_seed) if self.play_seed is not None
                                    else None, pickup=self._pickup)
            seat = self._advance()
            if seat is not None:
                return seat
            self.skipped += 1
        raise InvalidRulesError(f"{MAX_DEALS} deals in a row asked no decision of seats "
                                f"{self.outside}: these rules and players leave nothing to learn")

    def _advance(self) -> Seat | None:
        """Play rounds until an outside seat must decide (its seat) or the game ends (None)."""
        self.pending = None
        game = self.game
        assert game is not None
        in_game = game.in_game
        outside = self.outside
        while True:
            snapshot = game.copy() if any(in_game[s] for s in outside) else None
            try:
                if not game.play_round():
                    return None
            except _Pause as pause:
                assert snapshot is not None
                self.game = snapshot
                self._begin(pause.request)
                return pause.request.seat

    def _pickup(self, request: PickupRequest) -> list[Card]:
        agent = self.agents[request.seat]
        if agent is not None:
            view = pickup_view(request)
            assert self.agent_rng is not None
            return check_order(agent.order_pickup(view, self.agent_rng), request.cards,
                               f"seat {request.seat} agent "
                               f"{getattr(agent, 'name', type(agent).__name__)!r} pickup order",
                               self.rules)
        if self._replay is not None:
            order, self._replay = self._replay, None
            return order
        rank_of = self.layout.rank_of
        first = rank_of[request.cards[0]]
        if all(rank_of[c] == first for c in request.cards):
            return list(request.cards)
        raise _Pause(request)

    def _begin(self, request: PickupRequest) -> None:
        lay = self.layout
        self.pending = request
        queue: list[list[Card]] = [[] for _ in range(lay.ranks)]
        for c in reversed(request.cards):  # popped from the end: table order
            queue[lay.rank_of[c]].append(c)
        self.queue = queue
        self.left = [len(q) for q in queue]
        self.placed = []
        self._next_pos = lay.build(self.obs, request.game, request.seat, self.left)
        np.greater(self.left, 0, out=self.mask)

    # -- decisions ------------------------------------------------------------------------------

    def place(self, action: Any) -> bool:
        """The deciding seat puts a card of rank ``action`` next; True once the table is placed.

        An action that is not a rank left on the table places the lowest rank left instead and
        sets :attr:`illegal`. When the cards left are all of one rank they follow at once, the
        round is played with the chosen order and the game runs on to the next outside decision
        (or its end).
        """
        if self.pending is None:
            raise RuntimeError("no decision pending: the game is over")
        left = self.left
        r = action_index(action, left)
        self.illegal = r < 0
        if r < 0:
            r = lowest_legal(left)
        self._put(r)
        remaining = [i for i, n in enumerate(left) if n]
        if len(remaining) > 1:
            return False
        if remaining:
            while left[remaining[0]]:
                self._put(remaining[0])
        self._replay = self.placed
        assert self.game is not None
        self.game.play_round()
        self._advance()
        return True

    def _put(self, r: int) -> None:
        lay = self.layout
        self.placed.append(self.queue[r].pop())
        n = self.left[r] - 1
        self.left[r] = n
        self.obs[r] = n / lay.counts[r]
        self.obs[lay.future_start + self._next_pos * lay.ranks + r] = 1.0
        self._next_pos += 1
        if not n:
            self.mask[r] = False

    # -- views ----------------------------------------------------------------------------------

    def observe(self, seat: Seat, out: np.ndarray) -> np.ndarray:
        """Write ``seat``'s observation of the current moment into ``out`` and return it."""
        if self.pending is not None and self.pending.seat == seat:
            np.copyto(out, self.obs)
        else:
            game = self.pending.game if self.pending is not None else self.game
            assert game is not None
            self.layout.build(out, game, seat)
        return out

    def record(self) -> Record:
        """The game so far as a replayable record (with the pickup decisions made)."""
        assert self.game is not None
        deck = self.rules.deck
        decisions = tuple(tuple(deck.cards_json(d)) for d in self.game.decisions)
        return Record(self.rules, self.stacks, dealer=self.dealer, decisions=decisions,
                      seed=self.play_seed)

    def render(self, learner: Seat | None = None) -> str:
        game = self.pending.game if self.pending is not None else self.game
        if game is None:
            return "Classic pyanitsa: call reset() first\n"
        rules = self.rules
        deck = rules.deck
        labels = self.layout.labels
        rank_of = self.layout.rank_of
        lines = [f"Classic pyanitsa, deck {deck}, {self.players} players, round {game.rounds}"
                 f" (cap {rules.max_rounds})"]
        for s in range(self.players):
            tag = " (learner)" if s == learner else ""
            state = "" if game.in_game[s] else "  out"
            known = classic_view(game, s).known_tail
            lines.append(f"seat {s}{tag}: stack {len(game.stacks[s]):2d}, pile "
                         f"{len(game.piles[s]):2d}{state}; known tail: "
                         f"{' '.join(labels[rank_of[c]] for c in known) or '-'}")
        if self.pending is not None:
            req = self.pending
            lines.append(f"seat {req.seat} took the table: {deck.format_cards(req.cards)}")
            lines.append(f"placed so far: {deck.format_cards(self.placed) or '-'}")
        elif game.result is not None:
            lines.append(f"result: {game.result.to_json()}")
        return "\n".join(lines) + "\n"


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
