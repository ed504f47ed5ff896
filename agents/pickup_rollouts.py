"""The classic pickup rollouts of ``mc_search``: candidate orders of a won table, each scored by
playing sampled worlds on with the batch core. :mod:`pyanitsa.agents.search` documents the
method and re-exports :class:`PickupRollouts`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.agents.pickup import engine_order
from pyanitsa.cards import Card
from pyanitsa.classic import FIXED_PICKUP_ORDERS, ClassicPosition
from pyanitsa.protocol import PickupView
from pyanitsa.ranks import rank_table

kernels = lazy_module("pyanitsa.agents.kernels")
batch = lazy_module("pyanitsa.batch")

# -- classic pickup rollouts -------------------------------------------------------------------------


World = tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Card, ...], ...]]
"""Every seat's stack and won pile in a sampled world."""


class PickupRollouts:
    """Candidate orders of a won table, scored by rollouts from sampled hidden stacks."""

    FIXED = FIXED_PICKUP_ORDERS

    def __init__(self, view: PickupView, horizon: int) -> None:
        self.view = view
        self.rules = view.rules
        self.horizon = horizon
        # later pickups in the rollouts go in table order
        self.sim_rules = (view.rules.replace(pickup_order="table")
                          if view.rules.pickup_order == "agent" else view.rules)
        self.strength = rank_table(view.rules).rank_of
        players = view.players
        self.leader = view.owners[0]
        order = [(self.leader + i) % players for i in range(players)]
        self.order = [s for s in order if view.in_game[s]]
        self.settled = False
        """The round ends the game whatever the order (misère with someone out, or I am the
        only one left): no search needed."""
        me = view.seat
        counts = [view.stack_sizes[s] + view.pile_sizes[s] for s in range(players)]
        counts[me] += len(view.cards)
        alive_after = [s for s in self.order if counts[s] > 0]
        went_out = [s for s in self.order if counts[s] == 0]
        if (self.rules.misere and went_out) or len(alive_after) <= 1:
            self.settled = True
        self.counts_after = counts
        self.went_out = went_out
        known = set(view.cards) | set(view.known_tail) | set(view.my_pile)
        self.hidden = [c for c in range(self.rules.deck.size) if c not in known]
        """The cards this seat cannot place, in card order (sampled into each world)."""

    def fixed_order(self, how: str) -> list[Card]:
        return engine_order(self.view, how)

    def candidates(self, rng: np.random.Generator, extra: int) -> list[tuple[Card, ...]]:
        seen: set[tuple[int, ...]] = set()
        out: list[tuple[Card, ...]] = []
        st = self.strength

        def add(order: Sequence[Card]) -> None:
            key = tuple(st[c] for c in order)
            if key not in seen:
                seen.add(key)
                out.append(tuple(order))

        for how in self.FIXED:
            add(self.fixed_order(how))
        cards = list(self.view.cards)
        for _ in range(extra):
            add([cards[i] for i in rng.permutation(len(cards))])
        return out

    def sample_world(self, rng: np.random.Generator) -> tuple[list[list[Card]], list[list[Card]]]:
        """Stacks and piles of every seat after this round, before my pickup goes in: the hidden
        cards dealt uniformly into the hidden places (the rest left the game)."""
        v = self.view
        me = v.seat
        hidden = [self.hidden[i] for i in rng.permutation(len(self.hidden))]
        stacks: list[list[Card]] = []
        piles: list[list[Card]] = []
        pos = 0
        for s in range(v.players):
            if s == me:
                top = v.stack_sizes[s] - len(v.known_tail)
                stacks.append(hidden[pos:pos + top] + list(v.known_tail))
                pos += top
                piles.append(list(v.my_pile))
            else:
                k = v.stack_sizes[s]
                stacks.append(hidden[pos:pos + k])
                pos += k
                k2 = v.pile_sizes[s]
                piles.append(hidden[pos:pos + k2])
                pos += k2
        return stacks, piles

    @staticmethod
    def freeze(world: tuple[list[list[Card]], list[list[Card]]]) -> World:
        """A sampled world as tuples, shared by the positions of every candidate."""
        return tuple(map(tuple, world[0])), tuple(map(tuple, world[1]))

    def position(self, order: Sequence[Card], world: World, seed: int) -> ClassicPosition:
        """The position after this round in a (frozen) sampled world, with ``order`` picked
        up."""
        v = self.view
        me = v.seat
        stacks = list(world[0])
        piles = list(world[1])
        if self.rules.pickup_to == "bottom":
            stacks[me] = stacks[me] + tuple(order)
        else:
            piles[me] = piles[me] + tuple(order)
        leader = self.leader
        if self.went_out and self.rules.new_tour_on_elimination:
            leader = (leader + len(self.went_out)) % v.players
        return ClassicPosition(tuple(stacks), tuple(piles), leader, v.rounds,
                               eliminated=tuple(self.went_out),
                               seed=seed if self.rules.random_play else None)

    def values(self, games: batch.ClassicBatch) -> np.ndarray:
        """What each rollout is worth to me: 1 / 0.5 / 0 for a win / draw, cycle or cap /
        loss; my share of the cards in play if the horizon stopped it (misère: one minus)."""
        me = self.view.seat
        out = np.where(games.winner == me, 1.0, np.where(games.outcome == batch.WIN, 0.0, 0.5))
        unfinished = games.outcome == batch.UNFINISHED
        total = games.counts.sum(axis=1)
        share = np.where(total > 0, games.counts[:, me] / np.maximum(total, 1), 0.5)
        if self.rules.misere:
            share = 1.0 - share
        return np.where(unfinished, share, out)

    def choose(self, candidates: list[tuple[Card, ...]], rng: np.random.Generator,
               rollouts: int, deadline: float | None) -> tuple[int, np.ndarray, int]:
        """Score every candidate in the same sampled worlds with the batch core: all worlds in
        one call, or one world per call when a deadline may cut the search short."""
        totals = np.zeros(len(candidates))
        done = 0
        while done < rollouts:
            if deadline is not None and done > 0 and time.perf_counter() > deadline:
                break
            block = rollouts - done if deadline is None else 1
            positions = []
            for _ in range(block):
                world = self.freeze(self.sample_world(rng))
                seed = int(rng.integers(1 << 62))
                positions.extend(self.position(c, world, seed) for c in candidates)
            games = batch.play_positions(self.sim_rules, positions, horizon=self.horizon)
            totals += self.values(games).reshape(block, len(candidates)).sum(axis=0)
            done += block
        means = totals / max(done, 1)
        return int(np.argmax(means)), means, done
