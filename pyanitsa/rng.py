"""The project's random number generator: SplitMix64.

Every random choice of a game (the dealer lot, the shuffle, shuffled pickups and refills) comes
from one generator seeded with the game's seed. SplitMix64 was chosen because its whole state is a
single 64-bit integer, so the compiled batch core reproduces it bit for bit and a record can carry
the state reached after the deal as its ``seed``. Bounded draws use Lemire's multiply-and-reject
method on the top 32 bits, which is exact (unbiased) and needs no 128-bit arithmetic.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB

T = TypeVar("T")


def mix64(z: int) -> int:
    """SplitMix64's finaliser: a bijective scramble of a 64-bit integer."""
    z = ((z ^ (z >> 30)) * _MUL1) & MASK64
    z = ((z ^ (z >> 27)) * _MUL2) & MASK64
    return z ^ (z >> 31)


def derive_seed(seed: int, *path: int) -> int:
    """A 64-bit seed for a sub-stream named by ``path`` (say, game ``i`` of a run).

    Depends only on its arguments, so a game's seed does not depend on scheduling or workers.
    """
    s = mix64((seed + GOLDEN) & MASK64)
    for p in path:
        s = mix64(((s ^ mix64((p + GOLDEN) & MASK64)) + GOLDEN) & MASK64)
    return s


class Rng:
    """SplitMix64 generator. ``state`` is the whole state; ``Rng(r.state)`` continues ``r``."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int, not {type(seed).__name__}")
        self.state = seed & MASK64

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32``."""
        if not 0 < n < 1 << 32:
            raise ValueError(f"randbelow needs 0 < n < 2**32, got {n}")
        m = (self.next_u64() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next_u64() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place, from the last position down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> Rng:
        return Rng(self.state)

    def __repr__(self) -> str:
        return f"Rng({self.state:#x})"
