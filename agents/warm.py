"""Warming agents up before the clock starts, so a time limit measures the agent, not numba.

An agent built on compiled kernels pays for them on its first decision: several seconds of
compiling with an empty numba cache, a few tenths of a second of loading with a full one (a
policy's first forward pass likewise sets up torch and the env's layout). Charged to a timed
decision, that forfeits games on a fresh machine and not on a second run.

The referee (:mod:`pyanitsa.agents.game`) calls :func:`warm_agent` before every timed decision,
outside the clock, in every process that plays (tournament workers, Ray actors, ``play`` and
``simulate --agents``). It calls the agent's optional ``warm_up`` hook: with ``(rules, players)``
if the hook takes ``rules`` (the built-in agents, through :class:`Warming`), else with no
arguments (a user's hook: start a process, load a model). User agents need no change.

A built-in agent warms up by one untimed decision of a cheap copy of itself (:meth:`Warming.lite`:
few samples, one iteration) on game 0 of the rules: the same kernels, with the same types, as its
real decisions, at a small fraction of their cost. It does so once per rules and player count.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from pyanitsa.agents.specs import make_agent
from pyanitsa.classic import ClassicGame, PickupRequest
from pyanitsa.dealing import deal_from_seed
from pyanitsa.protocol import hand_view, pickup_view
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules

PICKUPS = 4
"""Pickup decisions of the warm-up game (the first ones can be trivial: one candidate)."""


def warm_agent(agent: Any, rules: Rules | None = None, players: int = 2) -> None:
    """Call ``agent``'s optional ``warm_up`` hook: ``warm_up(rules, players)`` if it takes
    ``rules``, else ``warm_up()``; nothing if it has none."""
    warm = getattr(agent, "warm_up", None)
    if not callable(warm):
        return
    if _takes_rules(getattr(warm, "__func__", warm)):
        warm(rules, players)
    else:
        warm()


@lru_cache(maxsize=256)
def _takes_rules(fn: Callable[..., Any]) -> bool:
    # cached per function: the referee asks before every decision, and a signature costs µs
    try:
        return "rules" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin or C callable without a signature
        return False


class Warming:
    """Mixin of the built-in agents whose first decision compiles or loads something.

    ``warm_up(rules, players)`` runs :meth:`warm` once per ``(rules, players)``; by default
    that is one decision of :meth:`lite` on game 0 (:func:`dummy_decision`)."""

    def warm_up(self, rules: Rules | None = None, players: int = 2) -> None:
        if rules is None:  # called as a plain hook: nothing is known to warm for
            return
        done: set[tuple[Rules, int]] = self.__dict__.setdefault("_warmed", set())
        if (rules, players) in done:
            return
        self.warm(rules, players)
        done.add((rules, players))

    def warm(self, rules: Rules, players: int) -> None:
        dummy_decision(self.lite(), rules, players)

    def lite(self) -> Any:
        """A copy that decides as this agent does, on the same kernels, but cheaply."""
        return self


class FallingBack(Warming):
    """Mixin of the agents that hand some decisions to another agent, named by
    ``fallback_spec``: it is built once, at the first decision that needs it or at warm-up
    (then that decision is warm too)."""

    fallback_spec: str
    _fallback: Any = None

    @property
    def fallback(self) -> Any:
        if self._fallback is None:
            self._fallback = make_agent(self.fallback_spec)
        return self._fallback

    def warm_fallback(self, rules: Rules, players: int) -> None:
        warm_agent(self.fallback, rules, players)

    def table_fallback(self, rules: Rules, players: int) -> str | None:
        """Why this agent hands some or all of its decisions at this table to its fallback
        (None if it plays every hand itself), known before a game is dealt: tournaments say it
        at the start and in the report (:func:`fallback_notice`)."""
        return None

    def fall_back(self, name: str, view: Any, rng: np.random.Generator, reason: str) -> list[Any]:
        """The fallback's order for ``view``, said out loud: the first time ``name`` falls back
        to this fallback in a process, one line on stderr names the agent, the fallback and why
        (an agent that cannot play a table never turns into another silently)."""
        key = (name, self.fallback_spec)
        if key not in _SAID:
            _SAID.add(key)
            print(f"pyanitsa: {name} plays {self.fallback_spec} instead ({reason})",
                  file=sys.stderr, flush=True)
        return list(self.fallback.order_hand(view, rng))


def fallback_notice(agent: Any, rules: Rules, players: int) -> str | None:
    """One line: which agent ``agent`` plays instead at this table and why (None if it plays
    itself, or is not a :class:`FallingBack` agent)."""
    if not isinstance(agent, FallingBack):
        return None
    reason = agent.table_fallback(rules, players)
    return None if reason is None else f"plays {agent.fallback_spec} instead: {reason}"


_SAID: set[tuple[str, str]] = set()
"""(agent, fallback) pairs already said on stderr in this process."""


class _Stop(Exception):  # noqa: N818
    """Ends the warm-up game (not an error)."""


def dummy_decision(agent: Any, rules: Rules, players: int) -> None:
    """Decisions of ``agent`` in game 0 of ``rules``, answers thrown away: seat 0's hand order
    (tactical), or the first :data:`PICKUPS` pickups (classic, ``pickup_order: agent``).
    Classic games with fixed pickups ask nothing."""
    dealt = deal_from_seed(rules, players, 0)
    gen = np.random.default_rng(0)
    if rules.mode == "tactical":
        agent.order_hand(hand_view(rules, 0, dealt.seats, len(dealt.set_aside)), gen)
        return
    if rules.pickup_order != "agent":
        return
    asked = 0

    def pickup(request: PickupRequest) -> list[int]:
        nonlocal asked
        order = list(agent.order_pickup(pickup_view(request), gen))
        asked += 1
        if asked >= PICKUPS:
            raise _Stop
        return order

    game = ClassicGame(rules, dealt.seats, dealer=dealt.dealer,
                       rng=Rng(dealt.play_seed) if dealt.play_seed is not None else None,
                       pickup=pickup)
    with contextlib.suppress(_Stop):
        game.play()
