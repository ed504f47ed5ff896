"""SplitMix64, Lemire's bounded draw and Fisher–Yates, compiled; bit for bit ``pyanitsa.rng``.

A generator's state is one ``uint64``, held in a local (functions return the new state) or, where
callees must advance it in place, in a one-element ``uint64`` array. All arithmetic is on
``np.uint64`` (it wraps modulo 2**64).
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
def randbelow_s(s, n):
    """A uniform integer in ``[0, n)`` from state ``s``, exactly as ``Rng.randbelow``:
    returns ``(new state, draw)``. Kernels keep the state in a local; the wrappers below keep
    it in a ``uint64[1]`` array for callees that advance it in place."""
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


@njit(cache=True, _nrt=False, inline="always")
def shuffle_s(items, n, s):
    """Fisher–Yates of ``items[:n]`` from the last position down, as ``Rng.shuffle``; returns
    the new state."""
    for i in range(n - 1, 0, -1):
        s, j = randbelow_s(s, i + 1)
        t = items[i]
        items[i] = items[j]
        items[j] = t
    return s


@njit(cache=True, _nrt=False, inline="always")
def deal_s(s, players, deck_size, equal, dealer_fixed, cards, strength, seats, seat_len):
    """``pyanitsa.dealing.deal`` from state ``s``: seat ``t`` receives the strengths of its
    cards in ``seats[t, :seat_len[t]]`` in the order received. ``cards`` is scratch of
    ``deck_size``. Returns ``(new state, dealer)``."""
    if dealer_fixed < 0:
        s, dealer = randbelow_s(s, players)
    else:
        dealer = dealer_fixed
    # the deck's strengths shuffled are the shuffled deck's strengths (one lookup less a card)
    for i in range(deck_size):
        cards[i] = strength[i]
    s = shuffle_s(cards, deck_size, s)
    dealt = deck_size - deck_size % players if equal else deck_size
    first = dealer + 1
    if first == players:
        first = 0
    # card i goes to seat first + i (round the table), position i // players: seat by seat,
    # a strided copy with no branch in it
    extra = dealt % players
    for k in range(players):
        u = first + k
        if u >= players:
            u -= players
        n = dealt // players + (1 if k < extra else 0)
        for pos in range(n):
            seats[u, pos] = cards[k + pos * players]
        seat_len[u] = n
    return s, dealer


@njit(cache=True, _nrt=False)
def shuffle(items, n, state):
    """:func:`shuffle_s` with the state in ``state[0]``."""
    state[0] = shuffle_s(items, n, state[0])


@njit(cache=True, _nrt=False)
def derive_seed1(seed, i):
    """``derive_seed(seed, i)`` for a 64-bit ``seed`` and a game index ``i >= 0``."""
    s = mix64(np.uint64(seed) + GOLDEN)
    return mix64((s ^ mix64(np.uint64(i) + GOLDEN)) + GOLDEN)
