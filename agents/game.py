"""Playing one seeded game with agents in the seats: the loop every tool shares.

``play_game`` deals from the seed exactly as ``pyanitsa play`` does, asks each seat's agent for
its decisions through views, validates every answer at the boundary, and returns a replayable
record with the result. An agent that raises, cheats or overruns its time limit raises
:class:`AgentFailure` naming the seat, so a tournament can score a forfeit.

``play_games`` plays many such games: every decision that comes before play (tactical hand
orders) is made first, then all games that need no decision during play are played by the
compiled batch core in one call (:func:`pyanitsa.batch.play_records`, the reference engine's
results exactly); classic games with ``pickup_order: agent`` are played one by one on the
reference engine, which asks the agents at each pickup. It is the one engine of duplicate
pairs too: a tournament's (game by game) and the solvers' duplicate evaluation's (each agent
asked for all its hands at once, :func:`decide_together`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from pyanitsa.agents.clock import timed_decision
from pyanitsa.agents.guard import (
    AgentRaised,
    DecisionTimeout,
    IllegalAnswer,
    call_agent,
    time_budget,
    watching_interrupts,
)
from pyanitsa.agents.seeding import AgentKey, seat_rng
from pyanitsa.agents.warm import warm_agent
from pyanitsa.cards import Card, Seat
from pyanitsa.classic import ClassicGame, PickupRequest
from pyanitsa.dealing import deal_from_seed
from pyanitsa.errors import IllegalActionError, PyanitsaError, PyanitsaRuntimeError
from pyanitsa.events import RoundEvent
from pyanitsa.orders import check_order
from pyanitsa.protocol import Agent, HandView, check_game, hand_view, pickup_view
from pyanitsa.records import Record
from pyanitsa.results import Result
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules

FailureKind = Literal["error", "illegal", "timeout"]


class AgentFailure(PyanitsaRuntimeError):
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


class _Referee:
    """Calls agents, timing them and turning their failures into :class:`AgentFailure`."""

    def __init__(self, rules: Rules, agents: Sequence[Agent], seed: int,
                 time_limit: float | None, key: AgentKey | None) -> None:
        if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
            raise PyanitsaError(f"time_limit: {time_limit!r} is not a finite, positive number "
                                "of seconds")  # a NaN limit would be no limit at all
        self.rules = rules
        self.agents = agents
        self.rngs = [seat_rng(seed, s, key) for s in range(len(agents))]
        self.time_limit = time_limit

    def ask(self, seat: Seat, method: str, view: object, given: Sequence[Card],
            what: str) -> list[Card]:
        agent = self.agents[seat]
        try:  # outside the clock: kernels compile or load, a policy loads, a bot starts here
            call_agent(warm_agent, agent, self.rules, len(self.agents))
        except AgentRaised as exc:
            raise AgentFailure(seat, "error", f"{_label(agent)} failed to start: "
                                              f"{exc}") from exc.exc
        token = time_budget.set(self.time_limit)
        try:
            with timed_decision(self.time_limit) as clock:
                chosen = call_agent(_decide, agent, method, view, self.rngs[seat])
        except AgentRaised as exc:  # anything an agent raises is a forfeit, not a crash of ours
            kind: FailureKind = ("timeout" if isinstance(exc.exc, DecisionTimeout) else
                                 "illegal" if isinstance(exc.exc, IllegalAnswer) else "error")
            raise AgentFailure(seat, kind, f"{_label(agent)} raised {exc}") from exc.exc
        finally:
            time_budget.reset(token)
        if clock is not None and clock.elapsed > clock.limit:
            raise AgentFailure(seat, "timeout", f"{_label(agent)} took {clock.elapsed:.3f} s, "
                                                f"over the {clock.limit:g} s limit"
                                                f"{clock.discounted()}")
        try:  # guarded too: describing a refused value may touch the agent's own classes
            return call_agent(check_order, chosen, given, what, self.rules)
        except AgentRaised as exc:
            detail = (str(exc.exc) if isinstance(exc.exc, IllegalActionError)
                      else f"{what}: checking the answer raised {exc}")
            raise AgentFailure(seat, "illegal", f"{_label(agent)} {detail}") from None

    def pickup(self, request: PickupRequest) -> list[Card]:
        return self.ask(request.seat, "order_pickup", pickup_view(request), request.cards,
                        "pickup order")


def _decide(agent: Agent, method: str, view: object, rng: np.random.Generator) -> object:
    return getattr(agent, method)(view, rng)


def _label(agent: Agent) -> str:
    """``agent 'NAME'`` for messages; a ``name`` that raises or is not a string is replaced by
    the class name."""
    try:
        name = call_agent(getattr, agent, "name", None)
    except AgentRaised:
        name = None
    shown = name if type(name) is str else type(agent).__name__
    return f"agent {shown!r}"


def prepare_game(rules: Rules, agents: Sequence[Agent], seed: int, *,
                 time_limit: float | None = None, key: AgentKey | None = None) -> Record | None:
    """Deal game ``seed`` and make every decision that comes before play: the record that
    :func:`play_game` would keep, or None if the game needs decisions during play (classic
    with ``pickup_order: agent``). Raises :class:`AgentFailure`. ``key`` keys the agents'
    generators (:mod:`pyanitsa.agents.seeding`; None: derived from ``seed``)."""
    if rules.mode == "classic":
        return None if rules.pickup_order == "agent" else Record.dealt(rules, len(agents), seed)
    players = len(agents)
    dealt = deal_from_seed(rules, players, seed)
    referee = _Referee(rules, agents, seed, time_limit, key)
    hands = []
    for seat in range(players):
        view = hand_view(rules, seat, dealt.seats, len(dealt.set_aside))
        hands.append(tuple(referee.ask(seat, "order_hand", view, view.hand, "hand order")))
    return Record(rules, tuple(hands))


@dataclass(frozen=True)
class Timed:
    """What :func:`play_games` gives for one game, and the game's wall time in seconds: its
    decisions, and its share of the batch call."""

    outcome: GameOutcome | AgentFailure
    seconds: float


def play_games(rules: Rules, seatings: Sequence[Sequence[Agent]], seeds: Sequence[int], *,
               time_limit: float | None = None, engine: Literal["batch", "reference"] = "batch",
               before: Callable[[int], None] | None = None,
               key: AgentKey | None = None, together: bool = False) -> list[Timed]:
    """Play game ``seeds[i]`` with ``seatings[i]`` for every ``i``; each outcome (or the
    :class:`AgentFailure` that forfeited it) is exactly :func:`play_game`'s.

    ``engine="batch"`` plays every game that needs no decision during play with the compiled
    batch core, in one call; ``"reference"`` plays each game with :func:`play_game`.
    ``before(i)`` is called before game ``i``'s decisions (a tournament marks where its worker
    is); ``key`` keys the agents' generators (a tournament's secret; None: from each seed).
    ``together`` (tactical, no time limit) asks each agent for all its hands at once
    (:func:`decide_together`); if any of them fails, the games are decided one by one instead,
    which names the forfeit. A tournament decides game by game: its worker marks which game
    and seat is deciding, so a hung decision is pinned on its game.
    """
    if len(seatings) != len(seeds):
        raise ValueError(f"{len(seatings)} seatings for {len(seeds)} seeds")
    for agents in {id(s): s for s in seatings}.values():
        check_game(agents, rules, len(agents))
    out: list[Timed | None] = [None] * len(seeds)
    pending: list[tuple[int, Record, float]] = []
    if together and engine == "batch" and time_limit is None and rules.mode == "tactical":
        start = time.perf_counter()
        records = decide_together(rules, seatings, seeds, key)
        if records is not None:
            share = (time.perf_counter() - start) / max(1, len(records))
            return _finish([(i, r, share) for i, r in enumerate(records)], out)
    with watching_interrupts():  # once for the run, not per decision (a few µs each)
        for i, (agents, seed) in enumerate(zip(seatings, seeds, strict=True)):
            if before is not None:
                before(i)
            start = time.perf_counter()
            try:
                record = (prepare_game(rules, agents, seed, time_limit=time_limit, key=key)
                          if engine == "batch" else None)
                if record is None:
                    outcome = play_game(rules, agents, seed, time_limit=time_limit, key=key)
                    out[i] = Timed(outcome, time.perf_counter() - start)
                else:
                    pending.append((i, record, time.perf_counter() - start))
            except AgentFailure as failure:
                out[i] = Timed(failure, time.perf_counter() - start)
    return _finish(pending, out)


def _finish(pending: list[tuple[int, Record, float]], out: list[Timed | None]) -> list[Timed]:
    """Play the ``pending`` records (game index, record, seconds spent deciding) on the batch
    core in one call, into ``out``."""
    if pending:
        from pyanitsa.batch import play_records

        start = time.perf_counter()
        results = play_records([record for _, record, _ in pending])
        share = (time.perf_counter() - start) / len(pending)
        for (i, record, spent), result in zip(pending, results, strict=True):
            out[i] = Timed(GameOutcome(record, result), spent + share)
    return out  # type: ignore[return-value]


def _order_all(agent: Agent, views: Sequence[HandView],
               rngs: Sequence[np.random.Generator]) -> list[Sequence[Card]]:
    batched = getattr(agent, "order_hands", None)
    if batched is not None:
        return list(batched(views, rngs))
    return [agent.order_hand(v, r) for v, r in zip(views, rngs, strict=True)]


def _check_all(answers: Sequence[Sequence[Card]], views: Sequence[HandView],
               rules: Rules) -> list[tuple[Card, ...]]:
    if len(answers) != len(views):
        raise IllegalAnswer(f"{len(answers)} hand orders for {len(views)} hands")
    return [tuple(check_order(answer, view.hand, "hand order", rules))
            for answer, view in zip(answers, views, strict=True)]


def decide_together(rules: Rules, seatings: Sequence[Sequence[Agent]], seeds: Sequence[int],
                    key: AgentKey | None = None) -> list[Record] | None:
    """Every tactical game's record with each agent asked once for all its hands
    (``order_hands``: a learned agent runs one forward pass a position of the order, not one a
    hand). A hand seen twice (the same agent, deal and seat: one agent against several
    opponents) is decided once. Each hand is ordered from its seat's generator in its game, as
    :func:`prepare_game` orders it, and checked as the referee checks it; None when an agent
    raises or answers an illegal order (the games are then decided one by one, which names
    the forfeit)."""
    table: dict[tuple[int, int, Seat], HandView] = {}  # (players, seed, seat): whoever sits
    slots: dict[tuple[int, int, Seat], HandView] = {}  # (agent id, seed, seat), in order
    agents_by_id: dict[int, Agent] = {}
    for agents, seed in zip(seatings, seeds, strict=True):
        players = len(agents)
        if (players, seed, 0) not in table:
            dealt = deal_from_seed(rules, players, seed)
            for seat in range(players):
                table[(players, seed, seat)] = hand_view(rules, seat, dealt.seats,
                                                         len(dealt.set_aside))
        for seat, agent in enumerate(agents):
            agents_by_id[id(agent)] = agent
            slots.setdefault((id(agent), seed, seat), table[(players, seed, seat)])
    chosen: dict[tuple[int, int, Seat], tuple[Card, ...]] = {}
    for ident, agent in agents_by_id.items():
        mine = [slot for slot in slots if slot[0] == ident]
        views = [slots[slot] for slot in mine]
        try:
            call_agent(warm_agent, agent, rules, len(seatings[0]))
            answers = call_agent(_order_all, agent, views,
                                 [seat_rng(seed, seat, key) for _, seed, seat in mine])
            chosen.update(zip(mine, call_agent(_check_all, answers, views, rules), strict=True))
        except AgentRaised:
            return None
    return [Record(rules, tuple(chosen[(id(a), seed, s)] for s, a in enumerate(agents)))
            for agents, seed in zip(seatings, seeds, strict=True)]


def results_of(played: Sequence[Timed]) -> list[Result]:
    """The results of :func:`play_games`' games; the first forfeit is raised (for tools that
    treat an agent failure as an error, not a scored game)."""
    out = []
    for timed in played:
        if isinstance(timed.outcome, AgentFailure):
            raise timed.outcome
        out.append(timed.outcome.result)
    return out


def warm_up(rules: Rules, players: int) -> None:
    """Load (or, on a fresh machine, compile) the batch core's kernels for these rules now.

    A tournament does this in its parent before forking workers, which then share the loaded
    code instead of each paying for it (a few tenths of a second each, or the whole compile)."""
    if rules.mode == "classic" and rules.pickup_order == "agent":
        return
    from pyanitsa.batch import play_records

    play_records([Record.dealt(rules, players, 0)])


def play_game(rules: Rules | str | Mapping[str, Any], agents: Sequence[Agent | str], seed: int,
              *, log: bool = False,
              time_limit: float | None = None, key: AgentKey | None = None) -> GameOutcome:
    """Deal game ``seed`` and play it with ``agents[s]`` in seat ``s``.

    Tactical: each agent orders its hand. Classic: agents choose pickups when the rules say
    ``pickup_order: agent`` (otherwise the game needs no decisions). ``key`` keys the
    agents' generators (None: derived from ``seed``, as ``pyanitsa play --seed`` does).
    ``rules`` may also be a preset name or a mapping of options, and an agent a spec string
    (``play_game("tactical", ["descending", "tie_aware"], seed=7)``).
    """
    rules, agents = coerce_game(rules, agents)
    with watching_interrupts():  # once for the game, not per pickup
        return _play_game(rules, agents, seed, log=log, time_limit=time_limit, key=key)


def coerce_game(rules: Rules | str | Mapping[str, Any], agents: Sequence[Agent | str]
                ) -> tuple[Rules, list[Agent]]:
    """The rules and agents of a game from what a user passes: a :class:`Rules`, a preset
    name or a mapping of options, and agents or spec strings; anything else is a
    ``TypeError`` naming the argument."""
    from pyanitsa.agents.specs import make_agent

    if isinstance(rules, str):
        rules = Rules.from_options({"preset": rules})
    elif isinstance(rules, Mapping):
        rules = Rules.from_options(dict(rules))
    elif not isinstance(rules, Rules):
        raise TypeError(f"rules: a Rules, a preset name or a mapping of options, not "
                        f"{type(rules).__name__}")
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise TypeError(f"agents: a list of agents or spec strings, one per seat, not "
                        f"{type(agents).__name__}")
    out = []
    for seat, agent in enumerate(agents):
        if not isinstance(agent, (str, Agent)):
            raise TypeError(f"agents[{seat}]: an agent or a spec string, not "
                            f"{type(agent).__name__}")
        out.append(make_agent(agent))
    check_game(out, rules, len(out))
    return rules, out


def _play_game(rules: Rules, agents: Sequence[Agent], seed: int, *, log: bool,
               time_limit: float | None, key: AgentKey | None) -> GameOutcome:
    record = prepare_game(rules, agents, seed, time_limit=time_limit, key=key)
    if record is not None:
        game = record.game(log=log)
        return GameOutcome(record, game.play(), game.events)
    dealt = deal_from_seed(rules, len(agents), seed)
    referee = _Referee(rules, agents, seed, time_limit, key)
    play_seed = dealt.play_seed
    classic = ClassicGame(rules, dealt.seats, dealer=dealt.dealer,
                          rng=Rng(play_seed) if play_seed is not None else None,
                          pickup=referee.pickup, log=log)
    result = classic.play()
    decisions = tuple(tuple(rules.deck.cards_json(d)) for d in classic.decisions)
    record = Record(rules, dealt.seats, dealer=dealt.dealer, decisions=decisions,
                    seed=play_seed)
    return GameOutcome(record, result, classic.events)


def play_specs(rules: Rules, specs: Sequence[str], seed: int, *, log: bool = False,
               time_limit: float | None = None) -> GameOutcome:
    """:func:`play_game` with agents named by spec strings (the CLI's ``--agents``)."""
    return play_game(rules, specs, seed, log=log, time_limit=time_limit)
