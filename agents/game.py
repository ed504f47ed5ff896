"""Playing one seeded game with agents in the seats: the loop every tool shares.

``play_game`` deals from the seed exactly as ``pyanitsa play`` does, asks each seat's agent for
its decisions through views, validates every answer at the boundary, and returns a replayable
record with the result. An agent that raises, cheats or overruns its time limit raises
:class:`AgentFailure` naming the seat, so a tournament can score a forfeit.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from pyanitsa.agents.protocol import Agent, hand_view, pickup_view
from pyanitsa.cards import Card, Seat
from pyanitsa.classic import ClassicGame, PickupRequest
from pyanitsa.dealing import deal
from pyanitsa.errors import IllegalActionError, PyanitsaError
from pyanitsa.events import RoundEvent
from pyanitsa.records import Record
from pyanitsa.results import Result
from pyanitsa.rng import Rng, derive_seed
from pyanitsa.rules import Rules
from pyanitsa.tactical import TacticalGame

FailureKind = Literal["error", "illegal", "timeout"]
_AGENT_STREAM = 0xA6E7


class AgentFailure(PyanitsaError):
    """An agent failed a decision: it raised, returned an illegal order, or ran out of time."""

    def __init__(self, seat: Seat, kind: FailureKind, message: str) -> None:
        super().__init__(f"seat {seat}: {message}")
        self.seat = seat
        self.kind = kind


@dataclass(frozen=True)
class GameOutcome:
    """A finished game: its record (replayable), its result, and optionally its rounds."""

    record: Record
    result: Result
    events: list[RoundEvent] | None = None


def seat_rng(game_seed: int, seat: Seat) -> np.random.Generator:
    """The agent RNG of a seat in a game: independent of the deal and of other seats."""
    return np.random.default_rng(derive_seed(game_seed, _AGENT_STREAM, seat))


def check_order(chosen: Sequence[Card], given: Sequence[Card], what: str,
                rules: Rules) -> list[Card]:
    """``chosen`` as a list if it is a permutation of ``given``; else IllegalActionError."""
    try:
        out = [int(c) for c in chosen]
    except (TypeError, ValueError):
        raise IllegalActionError(f"{what}: {chosen!r} is not a list of cards") from None
    if sorted(out) != sorted(given):
        deck = rules.deck
        shown = " ".join(deck.card_name(c) if 0 <= c < deck.size else f"<{c}>" for c in out)
        raise IllegalActionError(f"{what}: [{shown}] is not a permutation of "
                                 f"[{deck.format_cards(sorted(given))}]")
    return out


class _Referee:
    """Calls agents, timing them and turning their failures into :class:`AgentFailure`."""

    def __init__(self, rules: Rules, agents: Sequence[Agent], seed: int,
                 time_limit: float | None) -> None:
        self.rules = rules
        self.agents = agents
        self.rngs = [seat_rng(seed, s) for s in range(len(agents))]
        self.time_limit = time_limit

    def ask(self, seat: Seat, method: str, view: object, given: Sequence[Card],
            what: str) -> list[Card]:
        agent = self.agents[seat]
        start = time.perf_counter()
        try:
            chosen = getattr(agent, method)(view, self.rngs[seat])
        except Exception as exc:  # any agent bug is a forfeit, not a crash of the caller
            raise AgentFailure(seat, "error", f"{_label(agent)} raised "
                                              f"{type(exc).__name__}: {exc}") from exc
        elapsed = time.perf_counter() - start
        if self.time_limit is not None and elapsed > self.time_limit:
            raise AgentFailure(seat, "timeout", f"{_label(agent)} took {elapsed:.3f} s, over "
                                                f"the {self.time_limit:g} s limit")
        try:
            return check_order(chosen, given, f"{_label(agent)} {what}", self.rules)
        except IllegalActionError as exc:
            raise AgentFailure(seat, "illegal", str(exc)) from None

    def pickup(self, request: PickupRequest) -> list[Card]:
        return self.ask(request.seat, "order_pickup", pickup_view(request), request.cards,
                        "pickup order")


def _label(agent: Agent) -> str:
    return f"agent {getattr(agent, 'name', type(agent).__name__)!r}"


def play_game(rules: Rules, agents: Sequence[Agent], seed: int, *, log: bool = False,
              time_limit: float | None = None) -> GameOutcome:
    """Deal game ``seed`` and play it with ``agents[s]`` in seat ``s``.

    Tactical: each agent orders its hand. Classic: agents choose pickups when the rules say
    ``pickup_order: agent`` (otherwise the game needs no decisions).
    """
    players = len(agents)
    rng = Rng(seed)
    dealt = deal(rules, players, rng)
    referee = _Referee(rules, agents, seed, time_limit)
    if rules.mode == "tactical":
        hands = []
        for seat in range(players):
            view = hand_view(rules, seat, dealt.seats, len(dealt.set_aside))
            hands.append(tuple(referee.ask(seat, "order_hand", view, view.hand, "hand order")))
        record = Record(rules, tuple(hands))
        game: ClassicGame | TacticalGame = TacticalGame(rules, hands, log=log)
        result = game.play()
        return GameOutcome(record, result, game.events)
    play_seed = rng.state if rules.random_play else None
    pickup = referee.pickup if rules.pickup_order == "agent" else None
    classic = ClassicGame(rules, dealt.seats, dealer=dealt.dealer,
                          rng=Rng(play_seed) if play_seed is not None else None,
                          pickup=pickup, log=log)
    result = classic.play()
    decisions = None
    if pickup is not None:
        decisions = tuple(tuple(rules.deck.cards_json(d)) for d in classic.decisions)
    record = Record(rules, dealt.seats, dealer=dealt.dealer, decisions=decisions,
                    seed=play_seed)
    return GameOutcome(record, result, classic.events)


def play_specs(rules: Rules, specs: Sequence[str], seed: int, *, log: bool = False,
               time_limit: float | None = None) -> GameOutcome:
    """:func:`play_game` with agents named by spec strings (the CLI's ``--agents``)."""
    from pyanitsa.agents.specs import make_agent

    return play_game(rules, [make_agent(s) for s in specs], seed, log=log,
                     time_limit=time_limit)
