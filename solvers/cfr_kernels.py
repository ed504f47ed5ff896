"""Compiled (numba) kernels of the ``nash`` agent: CFR+ over behaviour strategies of a
two-player tactical deal.

**Strategies.** A seat's strategy is *behavioural*: which rank to play next, given the ranks it
still holds (the multiset ``S``, which fixes the showdown ``t = n - |S|``) and the rank it played
last (a tie there carries the pot into this showdown). The seat never sees the other hand's
order, so that is all it can condition on; an information state is ``(S, last)``, indexed
``S * (R + 1) + last`` with ``last = R`` before the first card. Every ``(S, last)`` with ``last``
among the cards already played is reachable, whatever the strategy.

**The payoff learned on.** The score margin is a sum over showdowns: a showdown ``t`` that is
not a tie is worth ``2 (1 + L_t)`` cards to its winner, ``L_t`` the tie run just before it. With
``L_t`` replaced by ``[a_{t-1} = b_{t-1}]`` (one tie carried; a run of two or more, which needs
two equal pairs in a row, counts as one), a seat's expected payoff against the other's strategy
depends on that strategy only through its *pair marginals* ``P(b_t = y)`` and
``P(b_{t-1} = l, b_t = y)``, and is exact for every order of its own hand. So each iteration is
a full-width pass with exact expected values, no sampling: a forward pass gives a seat's reach
of every state, its pair marginals and its average strategy; a backward pass against the other
seat's marginals gives the values and the counterfactual regrets. Regret matching+ with
alternating updates and linearly weighted averaging (CFR+, Tammelin 2014) then converges in a
few hundred iterations. The true game (every tie run, the split on the last card) is what
``pyanitsa exploit`` measures the result on.

**Restricted Nash responses.** Because a seat's payoff depends on the other seat only through
those marginals, an opponent model enters the same passes as its marginals
(:func:`model_marginals` of its orders), blended into what one seat learns against
(:func:`cfr`'s ``p0, m1``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pyanitsa.batch.tactical_pieces import kept_margin, stake2


@njit(cache=True)
def multipliers(counts):
    """Mixed-radix place values of sub-multisets of ``counts`` and their number."""
    nr = counts.shape[0]
    mult = np.empty(nr, np.int64)
    states = 1
    for r in range(nr):
        mult[r] = states
        states *= counts[r] + 1
    return mult, states


@njit(cache=True)
def unpack(counts, mult, states):
    """Per sub-multiset index, computed once (the passes read them hundreds of times): the
    showdown ``n - |S|``, the ranks still held (``legal[idx, :nlegal[idx]]``, with their
    counts ``lefts``) and the ranks already played (``played[idx, :nplayed[idx]]``)."""
    nr = counts.shape[0]
    n = int(counts.sum())
    lefts = np.empty((states, nr), np.int64)
    steps = np.empty(states, np.int64)
    legal = np.empty((states, nr), np.int64)
    nlegal = np.zeros(states, np.int64)
    played = np.empty((states, nr), np.int64)
    nplayed = np.zeros(states, np.int64)
    for idx in range(states):
        size = 0
        for r in range(nr):
            left = (idx // mult[r]) % (counts[r] + 1)
            lefts[idx, r] = left
            size += left
            if left > 0:
                legal[idx, nlegal[idx]] = r
                nlegal[idx] += 1
            if left < counts[r]:
                played[idx, nplayed[idx]] = r
                nplayed[idx] += 1
        steps[idx] = n - size
    return lefts, steps, legal, nlegal, played, nplayed


@njit(cache=True, inline="always")
def policy(reg, info, left, out):
    """The regret-matching strategy at ``info`` into ``out``; with no positive regret, each
    rank in proportion to its count (uniformly random card order)."""
    nr = left.shape[0]
    total = 0.0
    for r in range(nr):
        out[r] = 0.0
        if left[r] > 0:
            v = reg[info, r]
            if v > 0.0:
                out[r] = v
                total += v
    if total <= 0.0:
        for r in range(nr):
            out[r] = left[r]
            total += left[r]
    for r in range(nr):
        out[r] /= total


@njit(cache=True, inline="always")
def draw(p, u):
    """The index with cumulative probability first above ``u``."""
    acc = 0.0
    last = 0
    for r in range(p.shape[0]):
        if p[r] > 0.0:
            last = r
            acc += p[r]
            if u < acc:
                return r
    return last


@njit(cache=True)
def walk_orders(avg, counts, orders, us, sample):
    """Walk rank orders through the strategy ``avg``: with ``sample``, draw ``orders[k]`` with
    ``us[k]`` (written in place); else read them. Returns each order's probability."""
    nr = counts.shape[0]
    mult, states = multipliers(counts)
    out = np.empty(orders.shape[0])
    left = np.empty(nr, np.int64)
    p = np.empty(nr)
    for k in range(orders.shape[0]):
        left[:] = counts
        s = states - 1
        last = nr
        prob = 1.0
        for t in range(orders.shape[1]):
            policy(avg, s * (nr + 1) + last, left, p)
            if sample:
                orders[k, t] = draw(p, us[k, t])
            r = orders[k, t]
            prob *= p[r]
            left[r] -= 1
            s -= mult[r]
            last = r
        out[k] = prob
    return out


def sample_orders(avg: np.ndarray, counts: np.ndarray, us: np.ndarray) -> np.ndarray:
    """``orders[k]``: an order of the hand drawn from the strategy ``avg`` with ``us[k]``."""
    orders = np.empty((us.shape[0], int(counts.sum())), np.int8)
    walk_orders(avg, counts, orders, us, True)
    return orders


def order_probs(avg: np.ndarray, counts: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """The probability of each rank order under the strategy ``avg``."""
    return walk_orders(avg, counts, orders, np.empty((0, 0)), False)


@njit(cache=True, inline="always")
def pass_policy(reg, info, row, nl, left, p):
    """:func:`policy` over the legal ranks ``row[:nl]`` only, into ``p[r]`` (other entries of
    ``p`` are left as they were: nothing reads them)."""
    total = 0.0
    for k in range(nl):
        r = row[k]
        v = reg[info, r]
        p[r] = v if v > 0.0 else 0.0
        total += p[r]
    if total <= 0.0:
        for k in range(nl):
            r = row[k]
            p[r] = left[r]
            total += left[r]
    scale = 1.0 / total  # one division, not one a rank: this is the passes' innermost loop
    for k in range(nl):
        p[row[k]] *= scale


@njit(cache=True)
def forward(reg, avg, weight, nr, mult, states, tables, end, reach, one, two):
    """The current strategy's reach of every state, ``weight`` times it into ``avg``, and its
    marginals ``one[t, y]`` and ``two[t, l, y]`` (cards ``t - 1`` and ``t`` are ``l, y``)."""
    lefts, steps, legal, nlegal, played, nplayed = tables
    p = np.zeros(nr)
    reach[:] = 0.0
    reach[states - 1, nr] = 1.0
    one[:] = 0.0
    two[:] = 0.0
    for s in range(states - 1, -1, -1):
        t = steps[s]
        if t >= end:
            continue
        row = legal[s]
        nl = nlegal[s]
        for j in range(nplayed[s] if t > 0 else 1):
            last = played[s, j] if t > 0 else nr
            w = reach[s, last]
            if w <= 0.0:
                continue
            info = s * (nr + 1) + last
            pass_policy(reg, info, row, nl, lefts[s], p)
            for k in range(nl):
                r = row[k]
                wp = w * p[r]
                avg[info, r] += weight * wp
                one[t, r] += wp
                if last < nr:
                    two[t, last, r] += wp
                reach[s - mult[r], r] += wp


@njit(cache=True)
def immediate(one, two, cmp, sgn, end, nr, imm):
    """``imm[t, l, r]``: my expected payoff at showdown ``t`` from playing ``r`` after ``l``,
    against the other seat's marginals."""
    alone = stake2(0)  # the stake of a showdown with no tie before it
    carried = stake2(alone) - alone  # what one tie carried in adds (powers of two: exact)
    for t in range(end):
        for last in range(nr + 1):
            for r in range(nr):
                acc = 0.0
                for y in range(nr):
                    c = cmp[r, y]
                    if c != 0:
                        pr = alone * one[t, y]
                        if t > 0 and last < nr:
                            pr += carried * two[t, last, y]
                        acc += c * pr
                imm[t, last, r] = sgn * acc


@njit(cache=True)
def backward(reg, nr, n, states, mult, tables, end, m, sgn, value, imm, keep):
    """Values of every state under the current strategy against ``imm``, and the regret
    updates (a state's strategy is read before its own update, and no other state reads it in
    this pass). ``keep`` is ``(kept of a positive regret sum, of a negative one, floor)``:
    ``(1, 1, 0)`` is regret matching+; DCFR discounts the sums first and has no floor."""
    lefts, steps, legal, nlegal, played, nplayed = tables
    kp, kn, floor = keep
    q = np.empty(nr)
    p = np.zeros(nr)
    for s in range(states):
        t = steps[s]
        if t >= end:
            for last in range(nr + 1):
                value[s, last] = sgn * kept_margin(n, m)
            continue
        row = legal[s]
        nl = nlegal[s]
        for j in range(nplayed[s] if t > 0 else 1):
            last = played[s, j] if t > 0 else nr
            info = s * (nr + 1) + last
            pass_policy(reg, info, row, nl, lefts[s], p)
            v = 0.0
            for k in range(nl):
                r = row[k]
                q[k] = imm[t, last, r] + value[s - mult[r], r]
                v += p[r] * q[k]
            value[s, last] = v
            for k in range(nl):
                r = row[k]
                old = reg[info, r]
                reg[info, r] = max(old * (kp if old > 0.0 else kn) + q[k] - v, floor)


@njit(cache=True)
def model_marginals(orders, probs, nr, end):
    """The pair marginals ``one[t, y]`` and ``two[t, l, y]`` of a distribution over orders
    (``orders[k]`` with ``probs[k]``), as :func:`forward` computes them of a strategy."""
    one = np.zeros((end, nr))
    two = np.zeros((end, nr + 1, nr))
    for k in range(orders.shape[0]):
        w = probs[k]
        for t in range(end):
            y = orders[k, t]
            one[t, y] += w
            if t > 0:
                two[t, orders[k, t - 1], y] += w
    return one, two


@njit(cache=True)
def blend(one, two, p, m_one, m_two, out_one, out_two):
    """``(1 - p)`` of the learned seat's marginals plus ``p`` of a fixed model's."""
    if p <= 0.0:
        out_one[:] = one
        out_two[:] = two
    else:
        out_one[:] = (1.0 - p) * one + p * m_one
        out_two[:] = (1.0 - p) * two + p * m_two


@njit(cache=True)
def cfr(c0, c1, cmp, sgn, iters, avg0, avg1, p0=0.0, m1=None, p1=0.0, m0=None,
        discounted=False):
    """``iters`` CFR+ iterations on the deal where seat 0 holds ``c0`` cards of each rank and
    seat 1 ``c1``; the average strategies accumulate into ``avg0`` and ``avg1``.

    ``discounted`` runs DCFR(1.5, 0, 2) instead (Brown & Sandholm 2019): before iteration
    ``t + 1`` adds its regrets, a positive sum keeps ``t^1.5 / (t^1.5 + 1)`` of itself and a
    negative one half, and iteration ``t`` weighs ``t^2`` in the average. The same passes at
    the same cost; it reaches a given gap in about four fifths of CFR+'s iterations here
    (BENCHMARKS.md, "A faster teacher").

    With ``p0 > 0`` seat 0 learns against a seat 1 that plays the fixed model ``m1`` (its pair
    marginals, :func:`model_marginals`) with probability ``p0`` and seat 1's learned strategy
    otherwise, while seat 1 still learns against seat 0 alone: seat 0's average is then the
    *restricted Nash response* to ``m1`` with confidence ``p0`` (Johanson, Zinkevich & Bowling
    2008), the strategy that gains most against the model among those a best response can
    exploit least. ``p1`` and ``m0`` are the same for seat 1; both zero is plain CFR+."""
    nr = c0.shape[0]
    n0 = int(c0.sum())
    n1 = int(c1.sum())
    end = min(n0, n1)
    mult0, st0 = multipliers(c0)
    mult1, st1 = multipliers(c1)
    tab0 = unpack(c0, mult0, st0)
    tab1 = unpack(c1, mult1, st1)
    reg0 = np.zeros_like(avg0)
    reg1 = np.zeros_like(avg1)
    reach0 = np.empty((st0, nr + 1))
    reach1 = np.empty((st1, nr + 1))
    value0 = np.empty((st0, nr + 1))
    value1 = np.empty((st1, nr + 1))
    one0 = np.zeros((end, nr))
    two0 = np.zeros((end, nr + 1, nr))
    one1 = np.zeros((end, nr))
    two1 = np.zeros((end, nr + 1, nr))
    seen_one = np.zeros((end, nr))
    seen_two = np.zeros((end, nr + 1, nr))
    m0_one, m0_two = (m0[0], m0[1]) if m0 is not None else (seen_one, seen_two)
    m1_one, m1_two = (m1[0], m1[1]) if m1 is not None else (seen_one, seen_two)
    imm = np.zeros((end, nr + 1, nr))
    keep = (1.0, 1.0, 0.0)
    forward(reg0, avg0, 0.0, nr, mult0, st0, tab0, end, reach0, one0, two0)
    for it in range(iters):
        w = float(it + 1)
        if discounted:
            a = float(it) ** 1.5
            keep = (a / (a + 1.0), 0.5, -np.inf)
            w = w * w
        forward(reg1, avg1, w, nr, mult1, st1, tab1, end, reach1, one1, two1)
        blend(one1, two1, p0, m1_one, m1_two, seen_one, seen_two)
        immediate(seen_one, seen_two, cmp, sgn, end, nr, imm)
        backward(reg0, nr, n0, st0, mult0, tab0, end, n1, sgn, value0, imm, keep)
        forward(reg0, avg0, w, nr, mult0, st0, tab0, end, reach0, one0, two0)
        blend(one0, two0, p1, m0_one, m0_two, seen_one, seen_two)
        immediate(seen_one, seen_two, cmp, sgn, end, nr, imm)
        backward(reg1, nr, n1, st1, mult1, tab1, end, n0, sgn, value1, imm, keep)
