"""Compiled two-player kernels of the search agents that compare through a table ``cmp[a, b]``
(+1 if rank ``a`` beats rank ``b``, -1 if it loses, 0 for a tie; two players never meet a cycle:
it takes three contenders): the local search that resumes games from cached prefixes, and the
values of every order against a mix (the double oracle's best responses).

What a game is worth is ``cw * win + cm * margin + cs * score``, as in :mod:`pyanitsa.agents.kernels`
(which re-exports these names).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pyanitsa.batch.tactical_pieces import PAIR, kept, lead_by, score2, settle2, split, stake2


@njit(cache=True)
def _value2(s0, s1, misere, cw, cm, cs):
    margin = lead_by(misere, s0, s1)
    score = -s0 if misere else s0
    if margin > 0:
        win = 1.0
    elif margin == 0:
        win = 0.5
    else:
        win = 0.0
    return cw * win + cm * margin + cs * score



# -- two-player local search with cached prefixes ----------------------------------------------


@njit(cache=True, inline="always")
def showdown2(c, s0, s1, pot, last):
    """One two-card showdown of comparison ``c`` onto scores and the carried pot; a tie at the
    last card splits the pot."""
    s0, s1, pot = score2(c, s0, s1, pot)
    if last and pot > 0:
        share, _ = split(pot, PAIR)  # a pot of pairs: nothing is removed
        return s0 + share, s1 + share, 0
    return s0, s1, pot


@njit(cache=True)
def prefix_states2(a, n, opp, m, cmp, st0, st1, stp, fin):
    """For my order ``a`` against each sampled ``opp[s]``: the state before showdown ``t``
    (``st0``, ``st1`` scores, ``stp`` the pot a tie carries in) for ``t = 0..min(n, m)``, and
    the final scores ``fin[s] = (s0, s1)``. Two players play one card each per showdown, so
    showdown ``t`` is card ``t`` of both hands."""
    last = min(n, m)
    for s in range(opp.shape[0]):
        b = opp[s]
        s0 = 0
        s1 = 0
        pot = 0
        for t in range(last):
            st0[s, t] = s0
            st1[s, t] = s1
            stp[s, t] = pot
            s0, s1, pot = showdown2(cmp[a[t], b[t]], s0, s1, pot, t + 1 >= last)
        st0[s, last] = s0
        st1[s, last] = s1
        stp[s, last] = pot
        fin[s, 0] = s0 + kept(n, m)
        fin[s, 1] = s1 + kept(m, n)


@njit(cache=True)
def _resume2(nb, first, changed_to, b, m_last, n, m, cmp, st0, st1, stp, fin, s):
    """Final scores of order ``nb`` that equals the cached order before ``first`` and after
    ``changed_to``: resume at ``first``; once past ``changed_to`` with the cached pot, the rest of
    the game is the cached one shifted by the score difference."""
    s0 = st0[s, first]
    s1 = st1[s, first]
    pot = stp[s, first]
    for t in range(first, m_last):
        if t > changed_to and pot == stp[s, t]:
            return fin[s, 0] + s0 - st0[s, t], fin[s, 1] + s1 - st1[s, t]
        s0, s1, pot = showdown2(cmp[nb[t], b[t]], s0, s1, pot, t + 1 >= m_last)
    return s0 + kept(n, m), s1 + kept(m, n)


@njit(cache=True)
def best_neighbour2(cur, n, opp, m, weights, cmp, misere, cw, cm, cs):
    """One steepest-ascent pass: the best order one swap or one move away from ``cur``.

    Returns ``(best order, its value, neighbours evaluated)``; exact (the same values as
    :func:`evaluate2`), but a neighbour only replays the showdowns its change can reach.
    """
    ns = opp.shape[0]
    last = min(n, m)
    st0 = np.empty((ns, last + 1), np.int64)
    st1 = np.empty((ns, last + 1), np.int64)
    stp = np.empty((ns, last + 1), np.int64)
    fin = np.empty((ns, 2), np.int64)
    prefix_states2(cur, n, opp, m, cmp, st0, st1, stp, fin)
    nb = cur.copy()
    best = cur.copy()
    best_value = -1e300
    count = 0
    for kind in range(2):
        for i in range(n):
            for j in range(n):
                if kind == 0:  # swap i < j
                    if j <= i or cur[i] == cur[j]:
                        continue
                    for t in range(n):
                        nb[t] = cur[t]
                    nb[i] = cur[j]
                    nb[j] = cur[i]
                    lo = i
                    hi = j
                else:  # move the card at i to position j (|i - j| == 1 is a swap)
                    if j - i <= 1 and i - j <= 1:
                        continue
                    lo = min(i, j)
                    hi = max(i, j)
                    same = True
                    for t in range(lo, hi + 1):
                        if cur[t] != cur[i]:
                            same = False
                            break
                    if same:
                        continue
                    if i < j:
                        for t in range(n):
                            nb[t] = cur[t]
                        for t in range(i, j):
                            nb[t] = cur[t + 1]
                        nb[j] = cur[i]
                    else:
                        for t in range(n):
                            nb[t] = cur[t]
                        for t in range(i, j, -1):
                            nb[t] = cur[t - 1]
                        nb[j] = cur[i]
                # first and last positions that differ
                while lo < hi and nb[lo] == cur[lo]:
                    lo += 1
                while hi > lo and nb[hi] == cur[hi]:
                    hi -= 1
                total = 0.0
                for s in range(ns):
                    if lo >= last:
                        f0 = fin[s, 0]
                        f1 = fin[s, 1]
                    else:
                        f0, f1 = _resume2(nb, lo, hi, opp[s], last, n, m, cmp, st0, st1, stp,
                                          fin, s)
                    total += weights[s] * _value2(f0, f1, misere, cw, cm, cs)
                count += 1
                if total > best_value:
                    best_value = total
                    for t in range(n):
                        best[t] = nb[t]
    return best, best_value, count


# -- two players: every order against a mix, streamed (the double oracle's best responses) ------


def support_table(cmp: np.ndarray, opp: np.ndarray, last: int) -> np.ndarray:
    """``tab[t, r, s] = cmp[r, opp[s, t]]`` for ``t < last``: how my rank ``r`` fares at
    showdown ``t`` against support order ``s``, laid out so the kernel reads one contiguous
    row per (showdown, rank) and loops over the support innermost."""
    opp = np.asarray(opp, np.intp)
    return np.ascontiguousarray(np.transpose(cmp[:, opp[:, :last].T], (1, 0, 2)), np.int8)


@njit(cache=True, parallel=True, fastmath=True)
def order_values2(orders, tab, weights, offset, win, sign, chunk):
    """``out[i]`` = expected payoff of my order ``orders[i]`` against the opponent's mix
    ``weights`` over its support orders (given as :func:`support_table` ``tab``).

    The payoff of one game is ``sign * margin`` (or ``sign * sign(margin)`` if ``win``), the
    margin being my score minus the opponent's. Two players play card ``t`` against card ``t``;
    a showdown adds the pot (plus its two cards) to the margin with the comparison's sign, a tie
    carries it on and a tie on the last showdown splits it evenly (the margin does not move),
    so the final margin is the running one plus ``offset`` = my cards left over minus theirs
    (exactly :func:`pyanitsa.batch.tactical.play_pair`'s scores). Orders come in lexicographic
    blocks of ``chunk``: the states before each showdown are kept per support order (``int16``,
    so the loops over the support vectorise), and an order replays only the showdowns from the
    first card where it differs from the previous one; the last showdown goes straight into the
    weighted sum (``fastmath`` lets that sum vectorise too).
    """
    total = orders.shape[0]
    last = tab.shape[0]
    ns = tab.shape[2]
    out = np.empty(total, np.float64)
    wsum = 0.0
    for s in range(ns):
        wsum += weights[s]
    if last == 0:
        out[:] = sign * wsum * (((offset > 0) - (offset < 0)) if win else offset)
        return out
    off = np.int16(offset)
    blocks = (total + chunk - 1) // chunk
    for blk in prange(blocks):
        lo = blk * chunk
        hi = min(total, lo + chunk)
        d = np.zeros((last, ns), np.int16)
        pot = np.zeros((last, ns), np.int16)
        for i in range(lo, hi):
            start = 0
            if i > lo:
                while start < last - 1 and orders[i, start] == orders[i - 1, start]:
                    start += 1
            for t in range(start, last - 1):
                row = tab[t, orders[i, t]]
                d0 = d[t]
                p0 = pot[t]
                d1 = d[t + 1]
                p1 = pot[t + 1]
                for s in range(ns):
                    c = np.int16(row[s])
                    stake = stake2(p0[s])
                    _, carried = settle2(c * c, stake)
                    d1[s] = d0[s] + c * stake  # a tie (c = 0) moves no card
                    p1[s] = carried
            # the last showdown: a tie splits its pot evenly, so only a win moves the margin
            row = tab[last - 1, orders[i, last - 1]]
            d0 = d[last - 1]
            p0 = pot[last - 1]
            value = 0.0
            if win:
                for s in range(ns):
                    mg = d0[s] + np.int16(row[s]) * stake2(p0[s]) + off
                    value += weights[s] * ((mg > 0) - (mg < 0))
            else:
                for s in range(ns):
                    value += weights[s] * (d0[s] + np.int16(row[s]) * stake2(p0[s]))
                value += offset * wsum
            out[i] = sign * value
    return out
