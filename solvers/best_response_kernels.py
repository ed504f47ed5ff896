"""Compiled (numba) kernels for exact best responses in two-player tactical deals.

With two players both seats play one card per showdown, so showdown ``t`` is card ``t`` of both
hands, a tie happens exactly when the two ranks are equal, and a tie carries the pot (``2k``
cards after ``k`` ties) to the next showdown; a tie on the last card splits it evenly. Against a
*fixed* opposing order ``b``, what I can still do depends only on which ranks I have left (the
multiset ``S``; it fixes the showdown ``t = n - |S|``) and on the carried pot. The dynamic
programme below removes the pot from the state: from ``S`` with no pot carried, a move is a
*tie run* of ``k >= 0`` cards (forced: they must equal ``b[t..t+k-1]``) closed by one card
``r != b[t+k]``, which takes or loses the whole pot ``2(k + 1)``, or a tie run to the end. The
states are the sub-multisets of my hand, at most ``prod(c_r + 1)`` (19,683 for two cards of each
of nine ranks, the 36-card deck's worst case).

Payoffs are seat-relative: ``sgn`` is +1, or -1 under misère (the lowest score wins), and the
objective is the score margin or, with ``track``, its sign (which needs the margin so far in
the state: ``4 * last + 1`` more cells a multiset).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pyanitsa.batch.tactical_pieces import kept_margin, settle2, stake2

NEG = -32768
"""Below any reachable value (values are margins of at most 120 cards)."""


@njit(cache=True)
def state_count(counts):
    """Sub-multisets of a hand with ``counts[r]`` cards of rank ``r``."""
    total = 1
    for r in range(counts.shape[0]):
        total *= counts[r] + 1
    return total


@njit(cache=True, inline="always")
def _final(d, sgn, track):
    if not track:
        return sgn * d
    if d > 0:
        return sgn
    if d < 0:
        return -sgn
    return 0


@njit(cache=True)
def dp_fixed(counts, b, m, cmp, sgn, track):
    """The best payoff of any order of my hand against the fixed order ``b[:m]``.

    ``counts[r]`` my cards of rank ``r``; ``cmp[x, y]`` +1 if rank ``x`` beats ``y``, -1 if
    it loses, 0 if equal. Returns ``(value, order)``: my payoff and a best order (rank indices).
    """
    nr = counts.shape[0]
    mult = np.empty(nr, np.int64)
    states = 1
    n = 0
    for r in range(nr):
        mult[r] = states
        states *= counts[r] + 1
        n += counts[r]
    last = min(n, m)
    off = 2 * last if track else 0
    width = 2 * off + 1
    value = np.full((states, width), NEG, np.int16)
    run = np.zeros((states, width), np.int8)  # the tie run of the best move
    close = np.zeros((states, width), np.int8)  # its closing rank, -1: ties to the end
    digits = np.empty(nr, np.int64)
    work = np.empty(nr, np.int64)
    for idx in range(states):
        size = 0
        for r in range(nr):
            digits[r] = (idx // mult[r]) % (counts[r] + 1)
            size += digits[r]
        t = n - size
        span = min(2 * t, off) if track else 0
        if t >= last:
            for d in range(-span, span + 1):
                value[idx, d + off] = _final(d + kept_margin(n, m), sgn, track)
            continue
        for d in range(-span, span + 1):
            best = NEG
            best_k = 0
            best_r = -1
            for r in range(nr):
                work[r] = digits[r]
            at = idx
            k = 0
            pot = 0
            while True:
                pos = t + k
                if pos == last:
                    v = _final(d + kept_margin(n, m), sgn, track)
                    if v > best:
                        best, best_k, best_r = v, k, -1
                    break
                br = b[pos]
                stake = stake2(pot)
                for r in range(nr):
                    if work[r] == 0 or r == br:
                        continue
                    inc = stake * cmp[r, br]
                    nxt = at - mult[r]
                    v = value[nxt, d + inc + off] if track else sgn * inc + value[nxt, 0]
                    if v > best:
                        best, best_k, best_r = v, k, r
                if work[br] == 0:
                    break
                _, pot = settle2(0, stake)  # my ``br`` ties: the stake is carried on
                work[br] -= 1
                at -= mult[br]
                k += 1
            value[idx, d + off] = best
            run[idx, d + off] = best_k
            close[idx, d + off] = best_r
    order = _rebuild(counts, b, m, cmp, mult, states, n, last, off, track, run, close)
    return int(value[states - 1, off]), order


@njit(cache=True)
def _rebuild(counts, b, m, cmp, mult, states, n, last, off, track, run, close):
    """Walk the best moves from the whole hand; cards left after the last showdown follow in
    any order (they go to my копилка whatever it is)."""
    order = np.empty(n, np.int8)
    left = counts.copy()
    idx = states - 1
    d = 0
    t = 0
    while t < last:
        k = run[idx, d + off]
        r = close[idx, d + off]
        pot = 0
        for j in range(k):
            order[t + j] = b[t + j]
            left[b[t + j]] -= 1
            idx -= mult[b[t + j]]
            _, pot = settle2(0, stake2(pot))
        t += k
        if r < 0:
            break
        order[t] = r
        left[r] -= 1
        idx -= mult[r]
        if track:
            d += stake2(pot) * cmp[r, b[t]]
        t += 1
    for r in range(counts.shape[0]):
        for _ in range(left[r]):
            order[t] = r
            t += 1
    return order
