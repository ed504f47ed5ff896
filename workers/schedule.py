"""Which game a key names: the agents in its seats and the seed of its cards.

A game is named by its key ``(pairing, deal, rotation)``. The cards of a deal come from
``derive_seed(seed, pairing, deal)`` alone (with ``agent_key: random``, from a BLAKE2b of the
same numbers keyed with the tournament's secret key), so every rotation of a duplicate deal has
the same cards; the rotation only moves the agents over the seats (each agent's own random generator
depends on its seat, hence on the rotation). Nothing here depends on workers, order of play or
backend, which is why any schedule of the same keys gives the same games. Which line-ups play
(round robin, gauntlet) is the tournament's: :mod:`pyanitsa.tournaments.schedule`.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from pyanitsa.agents.seeding import AgentKey, AgentKeyError, keyed_deal_seed
from pyanitsa.rng import derive_seed


class GameKey(NamedTuple):
    """The unique name of one game of a tournament."""

    pairing: int
    deal: int
    rotation: int


@dataclass(frozen=True)
class Pairing:
    """One table's line-up: agent indices in entry order (a gauntlet's candidate first)."""

    index: int
    entries: tuple[int, ...]

    def seats(self, rotation: int) -> tuple[int, ...]:
        """Agent index in each seat for ``rotation``: seat ``s`` gets entry ``(s + r) mod k``."""
        k = len(self.entries)
        return tuple(self.entries[(s + rotation) % k] for s in range(k))


@dataclass(frozen=True)
class Schedule:
    """The games of a tournament, in the order they are handed out (deal by deal)."""

    pairings: tuple[Pairing, ...]
    players: int
    deals: int
    duplicate: bool
    seed: int
    secret: bool = False
    """``agent_key: random``: the deals are keyed with :attr:`key`, not derived from the seed."""
    key: AgentKey | None = field(default=None, repr=False)

    def rotations(self, deal: int) -> tuple[int, ...]:
        """Every rotation for a duplicate deal; otherwise one, taking turns deal by deal."""
        if self.duplicate:
            return tuple(range(self.players))
        return (deal % self.players,)

    @property
    def block_size(self) -> int:
        """Games per block: the games of one deal of one pairing."""
        return self.players if self.duplicate else 1

    @property
    def total_games(self) -> int:
        return len(self.pairings) * self.deals * self.block_size

    def block(self, pairing: int, deal: int) -> list[GameKey]:
        return [GameKey(pairing, deal, r) for r in self.rotations(deal)]

    def blocks(self) -> Iterator[tuple[int, int]]:
        """``(pairing, deal)`` in hand-out order: deal 0 of every pairing, then deal 1, ..."""
        for deal in range(self.deals):
            for p in range(len(self.pairings)):
                yield p, deal

    def missing(self, done: Container[GameKey]) -> Iterator[list[GameKey]]:
        """The games not in ``done``, block by block in hand-out order, made as they are asked
        for: ``deals`` has no memory cost up front."""
        for pairing, deal in self.blocks():
            keys = [k for k in self.block(pairing, deal) if k not in done]
            if keys:
                yield keys

    def seats(self, key: GameKey) -> tuple[int, ...]:
        return self.pairings[key.pairing].seats(key.rotation)

    def seed_of(self, key: GameKey) -> int:
        """The seed that deals the cards of the key's deal (the same for every rotation)."""
        if not self.secret:
            return derive_seed(self.seed, key.pairing, key.deal)
        if self.key is None:
            raise AgentKeyError("the deals of an agent_key: random tournament need its key")
        return keyed_deal_seed(self.seed, key.pairing, key.deal, self.key)
