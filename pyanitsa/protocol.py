"""The agent protocol: one object answers both decisions of the game.

* ``order_hand`` (tactical): the order in which to play my hand, first played first.
* ``order_pickup`` (classic, ``pickup_order: agent``): the order in which a table I won goes
  under my stack, first played first.

Each call gets a *view* holding exactly what the seat may know, and a seeded
``numpy.random.Generator`` that is the agent's only source of randomness. A view is the
agent's own: it is built for the call, its rules are a copy (:meth:`Rules.copy`), its other
fields are tuples, and nothing is read back from it, so an agent that writes to it (frozen
dataclasses yield to ``object.__setattr__``) changes nothing but that view.

The protocol lives in the core so that every layer that seats a player (the environments, the
agents, the tournaments) shares it without importing another. Spec strings (``"descending"``)
are names the agents layer defines: :func:`agent_from_spec` asks the resolver that an installed
distribution declares in the entry-point group :data:`SPEC_GROUP`, and so names no package of
ours; see docs/architecture.md for why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from pyanitsa.cards import Card, Seat
from pyanitsa.classic_view import PickupView
from pyanitsa.errors import PyanitsaError
from pyanitsa.ranks import RankTable, rank_table
from pyanitsa.rules import Rules

if TYPE_CHECKING:
    from pyanitsa.pickups import PickupRequest


class UnsupportedDecisionError(PyanitsaError):
    """An agent asked for a decision it does not make (a hand orderer asked to pick up)."""


@dataclass(frozen=True)
class HandView:
    """What a tactical player knows when it orders its hand (RULES.md §3.2)."""

    rules: Rules
    seat: Seat
    players: int
    hand: tuple[Card, ...]
    """My hand, sorted by rank (weakest first); the dealt order carries no information."""
    unseen: tuple[int, ...]
    """Cards of each rank not in my hand: spread over the opponents and the set-aside cards."""
    set_aside: int
    """How many cards were dealt to nobody."""

    @property
    def ranks(self) -> RankTable:
        return rank_table(self.rules)

    @property
    def hand_size(self) -> int:
        return len(self.hand)

    def hand_ranks(self) -> list[int]:
        """Rank index of each card of my hand, in ``hand`` order."""
        rank_of = self.ranks.rank_of
        return [rank_of[c] for c in self.hand]


@runtime_checkable
class Agent(Protocol):
    """Anything with these two methods plays pyanitsa."""

    def order_hand(self, view: HandView, rng: np.random.Generator) -> Sequence[Card]:
        """The hand in the order to play it, first played first."""
        ...

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> Sequence[Card]:
        """The won table in the order it goes under the stack, first played first."""
        ...


Mix = list[tuple[tuple[Card, ...], float]]
"""A distribution over hand orders: ``(order, probability)`` pairs, probabilities summing to 1."""


class BaseAgent:
    """A convenient base: a display name, and a clear error for the decision not made."""

    spec: str = ""
    """The spec string that builds this agent (set by :func:`pyanitsa.agents.make_agent`)."""

    @property
    def name(self) -> str:
        return self.spec or type(self).__name__

    def order_hand(self, view: HandView, rng: np.random.Generator) -> Sequence[Card]:
        raise UnsupportedDecisionError(f"agent {self.name!r} does not order tactical hands")

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> Sequence[Card]:
        raise UnsupportedDecisionError(f"agent {self.name!r} does not order classic pickups")

    def order_hands(self, views: Sequence[HandView],
                    rngs: Sequence[np.random.Generator]) -> list[Sequence[Card]]:
        """Many hands at once; learned agents override this to batch inference."""
        return [self.order_hand(v, r) for v, r in zip(views, rngs, strict=True)]

    def check_game(self, rules: Rules, players: int) -> None:
        """Refuse, before any game is played, a game this agent cannot play (a policy trained
        for other rules): raise an error naming what differs. The default plays any game."""

    def mix(self, view: HandView) -> Mix | None:
        """The whole distribution of :meth:`order_hand` on ``view``, as ``(order,
        probability)`` pairs, when the agent knows it; None when it does not (then
        ``pyanitsa exploit`` samples the agent instead). Orders of equal rank sequence may be
        listed once."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class Deterministic(BaseAgent):
    """A base for agents whose hand order ignores ``rng``: the distribution is that order."""

    def mix(self, view: HandView) -> Mix:
        return [(tuple(self.order_hand(view, np.random.default_rng(0))), 1.0)]


def hand_view(rules: Rules, seat: Seat, hands: Sequence[Sequence[Card]],
              set_aside: int) -> HandView:
    """The view of ``seat`` when every seat holds ``hands`` (as dealt)."""
    return view_for(rules, seat, len(hands), hands[seat], set_aside)


def view_for(rules: Rules, seat: Seat, players: int, hand: Sequence[Card],
             set_aside: int) -> HandView:
    """The view a seat holding ``hand`` gets among ``players`` seats."""
    table = rank_table(rules)
    rank_of = table.rank_of
    sorted_hand = tuple(sorted(hand, key=lambda c: (rank_of[c], c)))
    mine = table.histogram(sorted_hand)
    unseen = tuple(total - own for total, own in zip(table.counts, mine, strict=True))
    return HandView(rules.copy(), seat, players, sorted_hand, unseen, set_aside)


def pickup_view(request: PickupRequest) -> PickupView:
    """The winner's view of a table it must order: its view of the game and the table."""
    return PickupView.of(request.view, request.cards, request.owners, request.face_up)


def check_game(agents: Sequence[object], rules: Rules, players: int) -> None:
    """Each distinct agent's :meth:`BaseAgent.check_game`, if it has one: run before a game,
    a tournament or a simulation starts, so a mismatch is one error, not a forfeit a game."""
    seen: set[int] = set()
    for agent in agents:
        check = getattr(agent, "check_game", None)
        if id(agent) not in seen and callable(check):
            seen.add(id(agent))
            check(rules, players)


SpecResolver = Callable[[object], Agent]
"""Builds the agent a spec string names (:func:`pyanitsa.agents.make_agent`)."""

SPEC_GROUP = "pyanitsa.agent_specs"
"""The entry-point group of spec strings. Its entry named :data:`SPEC_RESOLVER` is the resolver
(pyanitsa's own, ``pyanitsa.agents.specs:make_agent``, declared in pyproject.toml); every other
entry adds a ``scheme:`` (its name) that the resolver serves. The core reads the group only for
a caller that passed a spec string (``import pyanitsa.envs``, then
``gym.make(..., opponents="descending")``, in a fresh worker process too)."""

SPEC_RESOLVER = "builtin"
"""The name of the resolver's entry in :data:`SPEC_GROUP`."""

_resolver: SpecResolver | None = None


def set_spec_resolver(resolver: SpecResolver | None) -> None:
    """Install the function that turns spec strings into agents in place of the entry point's
    (a program embedding its own names, a test); ``None`` goes back to the entry point."""
    global _resolver
    _resolver = resolver


def agent_from_spec(spec: object) -> Agent:
    """The agent a spec string names; an agent object passes through unchanged (anything else
    is for the resolver to refuse, with its own message)."""
    if isinstance(spec, Agent):
        return spec
    resolver = _resolver or _installed_resolver(spec)
    set_spec_resolver(resolver)
    return resolver(spec)


def _installed_resolver(spec: object) -> SpecResolver:
    """The resolver the installed metadata declares; none (a stale editable install, say) or
    two is an error naming the group."""
    found = list(entry_points(group=SPEC_GROUP, name=SPEC_RESOLVER))
    where = f"entry point {SPEC_RESOLVER!r} in group {SPEC_GROUP!r}"
    if not found:
        raise PyanitsaError(f"agent spec {spec!r}: no {where} is installed (reinstall "
                            "pyanitsa: pip install -e .)")
    if len(found) > 1:
        names = ", ".join(sorted(e.dist.name if e.dist else e.value for e in found))
        raise PyanitsaError(f"agent spec {spec!r}: {len(found)} distributions declare an "
                            f"{where} ({names}); only pyanitsa's may")
    (entry,) = found
    try:
        return entry.load()
    except ImportError as exc:
        raise PyanitsaError(f"agent spec {spec!r}: {where} ({entry.value}) does not load: "
                            f"{exc}") from None
