"""Small agents for the tournament tests, named by spec as ``tournament_agents:Class``.

The tests put this folder on ``sys.path`` (and on ``PYTHONPATH`` for subprocesses and Ray), so
the specs import in every worker. They do not depend on the built-in agents.
"""

from __future__ import annotations

import os
import time

import numpy as np

from pyanitsa.agents import BaseAgent


class _Base(BaseAgent):
    spec = ""

    @property
    def name(self) -> str:
        return self.spec or type(self).__name__

    def order_pickup(self, view, rng):
        return list(view.cards)


class Strong(_Base):
    """Strongest card first (deterministic)."""

    def order_hand(self, view, rng):
        rank = view.ranks.rank_of
        return sorted(view.hand, key=lambda c: (-rank[c], c))


class Weak(_Base):
    """Weakest card first (deterministic)."""

    def order_hand(self, view, rng):
        return list(view.hand)


class Random(_Base):
    """A uniformly random order from the seat's generator; random pickups too."""

    def order_hand(self, view, rng):
        return list(rng.permutation(np.array(view.hand)))

    def order_pickup(self, view, rng):
        return list(rng.permutation(np.array(view.cards)))


class Raising(_Base):
    def order_hand(self, view, rng):
        raise RuntimeError("boom")


class Cheating(_Base):
    """Plays its first card twice."""

    def order_hand(self, view, rng):
        return [view.hand[0], *view.hand[:-1]]


class Slow(_Base):
    """Takes ``delay`` seconds over every decision."""

    def __init__(self, delay: float = 0.3) -> None:
        self.delay = delay

    def order_hand(self, view, rng):
        time.sleep(self.delay)
        return list(view.hand)


class Hanging(_Base):
    """Never answers in seat 0 (sleeps an hour); plays like Weak in other seats."""

    def order_hand(self, view, rng):
        if view.seat == 0:
            time.sleep(3600)
        return list(view.hand)


class Crashing(_Base):
    """Kills its own process when it sits in seat 1."""

    def order_hand(self, view, rng):
        if view.seat == 1:
            os._exit(3)
        return list(view.hand)


class Sleepy(_Base):
    """Like Strong, but slow enough that a run can be killed half-way."""

    def __init__(self, delay: float = 0.004) -> None:
        self.delay = delay

    def order_hand(self, view, rng):
        time.sleep(self.delay)
        rank = view.ranks.rank_of
        return sorted(view.hand, key=lambda c: (-rank[c], c))


class Noisy(_Base):
    """Plays like Weak and talks: print, sys.stderr and a raw write to descriptor 1."""

    def order_hand(self, view, rng):
        import sys

        print(f"noisy stdout seat {view.seat}")
        print(f"noisy stderr seat {view.seat}", file=sys.stderr)
        os.write(1, b"noisy raw fd\n")
        return list(view.hand)
