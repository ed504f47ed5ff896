"""SplitMix64, Lemire's bounded draw and Fisher–Yates, compiled; bit for bit ``pyanitsa.rng``.

A generator's state is one ``uint64``; compiled code keeps it in a one-element ``uint64`` array so
that callees advance it in place. All arithmetic is on ``np.uint64`` (it wraps modulo 2**64).
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(cache=True, _nrt=False, inline="always")
def mix64(z):
    z = (z ^ (z >> _S30)) * _MUL1
    z = (z ^ (z >> _S27)) * _MUL2
    return z ^ (z >> _S31)


@njit(cache=True, _nrt=False, inline="always")
def next_u64(state):
    """Advance ``state`` (a ``uint64[1]`` array) and return the next output."""
    s = state[0] + GOLDEN
    state[0] = s
    return mix64(s)


@njit(cache=True, _nrt=False, inline="always")
def randbelow(state, n):
    """A uniform integer in ``[0, n)``, exactly as ``Rng.randbelow``."""
    un = np.uint64(n)
    m = (next_u64(state) >> _S32) * un
    low = m & _LOW32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next_u64(state) >> _S32) * un
            low = m & _LOW32
    return np.int64(m >> _S32)


@njit(cache=True, _nrt=False)
def shuffle(items, n, state):
    """Fisher–Yates of ``items[:n]`` from the last position down, as ``Rng.shuffle``."""
    for i in range(n - 1, 0, -1):
        j = randbelow(state, i + 1)
        t = items[i]
        items[i] = items[j]
        items[j] = t


@njit(cache=True, _nrt=False)
def derive_seed1(seed, i):
    """``derive_seed(seed, i)`` for a 64-bit ``seed`` and a game index ``i >= 0``."""
    s = mix64(np.uint64(seed) + GOLDEN)
    return mix64((s ^ mix64(np.uint64(i) + GOLDEN)) + GOLDEN)


@njit(cache=True, _nrt=False)
def deal_into(state, players, deck_size, equal, dealer_fixed, cards, seat_cards, seat_len):
    """``pyanitsa.dealing.deal`` with the generator ``state``; returns the dealer.

    ``cards`` is scratch of ``deck_size``; seat ``s`` receives card ids in
    ``seat_cards[s, :seat_len[s]]`` in the order received.
    """
    dealer = randbelow(state, players) if dealer_fixed < 0 else dealer_fixed
    for i in range(deck_size):
        cards[i] = i
    shuffle(cards, deck_size, state)
    dealt = deck_size - deck_size % players if equal else deck_size
    for s in range(players):
        seat_len[s] = 0
    s = (dealer + 1) % players
    for i in range(dealt):
        seat_cards[s, seat_len[s]] = cards[i]
        seat_len[s] += 1
        s += 1
        if s == players:
            s = 0
    return dealer


@njit(cache=True, _nrt=False)
def randbelow_s(s, n):
    """:func:`randbelow` on a state held in a local: returns ``(new state, draw)``."""
    un = np.uint64(n)
    s = s + GOLDEN
    m = (mix64(s) >> _S32) * un
    low = m & _LOW32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            s = s + GOLDEN
            m = (mix64(s) >> _S32) * un
            low = m & _LOW32
    return s, np.int64(m >> _S32)
