"""Compiled (numba) kernels of the n-player Monte Carlo CFR solve (:mod:`pyanitsa.solvers.mccfr`).

**The table.** One behaviour strategy, shared by every seat (the game is symmetric between
seats, so this looks for a symmetric equilibrium): ``σ(a | S, last)``, the rank ``a`` to play
next given the multiset ``S`` of ranks still held and the rank played last (``R``, "none",
before the first card, or always when the abstraction drops it). ``S`` is a sub-multiset of the
deck's rank counts of at most ``n`` cards (a hand): its mixed-radix index over the deck counts
(as :func:`pyanitsa.solvers.cfr_kernels.multipliers`) is mapped by ``lookup`` to a dense state
number, and a row of the table is ``state * (R + 1) + last``. The key forgets the hand the seat
was dealt and the order of its earlier cards: an *imperfect-recall* abstraction (the real
choice of a tactical player is a whole order of the dealt hand, fixed before any card shows).

**One deal.** Chance deals the hands; every seat's order is drawn from the current
regret-matching policy. Then each seat in turn is the traverser: its own order is drawn again
with exploration ``eps`` (``(1 - eps) σ + eps`` the uniform card order), and at each of its
decisions on that trajectory *every* legal rank is valued by one rollout (the prefix, the rank,
an on-policy continuation; the same random numbers for every rank) against the other seats'
fixed orders, played by the batch core's exact tactical game. Regrets get
``w (v(a) - Σ σ(b) v(b))`` and the average ``w σ``, with ``w`` the weight of the prefix,
``π_σ(prefix) / q(prefix)``: the histories behind one row are then weighted as they occur in
play (own reach included: with imperfect recall the hidden part of a row is the seat's own
past, so the counterfactual ``1 / π`` weighting would weigh rare pasts like common ones), and
regret matching is unchanged by a row's scale. With ``eps = 0``, ``w = 1``.

**Determinism.** Every random number comes from a counter-based generator keyed by
``(seed, deal number, traverser, step)``; a batch of deals reads the table, writes its updates
into per-deal buffers in parallel, and they are added in deal order: the same seed gives the
same table on any number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pyanitsa.agents.kernels import _value_many, one_game
from pyanitsa.batch.encode import MISERE
from pyanitsa.batch.tactical import play_hands
from pyanitsa.solvers.cfr_kernels import draw, multipliers, policy

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's finaliser: a counter in, 64 well-mixed bits out."""
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def stream(key, a, b):
    """A generator state for sub-stream ``(a, b)`` of ``key``."""
    return mix64(key ^ mix64(np.uint64(a) * GOLDEN + np.uint64(b) + np.uint64(1)))


@njit(cache=True, inline="always")
def uniform(st):
    """The next uniform in [0, 1) of the one-element state array ``st``."""
    st[0] += GOLDEN
    return float(mix64(st[0]) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def layout(deck_counts, n):
    """``mult`` (mixed-radix place values over the deck counts), ``lookup`` (index -> state
    number, -1 for multisets of more than ``n`` cards) and the number of states."""
    nr = deck_counts.shape[0]
    mult, size = multipliers(deck_counts)
    lookup = np.full(size, -1, np.int32)
    states = 0
    for idx in range(size):
        cards = 0
        for r in range(nr):
            cards += (idx // mult[r]) % (deck_counts[r] + 1)
        if cards <= n:
            lookup[idx] = states
            states += 1
    return mult, lookup, states


@njit(cache=True, inline="always")
def row_of(lookup, s, last, nr, use_last):
    return np.int64(lookup[s]) * (nr + 1) + (last if use_last else nr)


@njit(cache=True, inline="always")
def with_uniform(p, left, b, out):
    """``(1 - b) p + b`` the uniformly random card order (each rank by its count) into
    ``out``."""
    total = 0.0
    for a in range(left.shape[0]):
        total += left[a]
    for a in range(left.shape[0]):
        out[a] = (1.0 - b) * p[a] + b * left[a] / total if left[a] > 0 else 0.0


@njit(cache=True)
def walk(table, lookup, mult, use_last, left, s, last, order, t0, st, p, sample=True):
    """Fill ``order[t0:]`` from the policy of ``table`` (regret matching, or an average: both
    are normalised positive parts), drawing with ``st`` (or, without ``sample``, read it);
    ``left`` is used up. Returns the probability of that continuation."""
    nr = left.shape[0]
    prob = 1.0
    for t in range(t0, order.shape[0]):
        policy(table, row_of(lookup, s, last, nr, use_last), left, p)
        if sample:
            order[t] = draw(p, uniform(st))
        r = order[t]
        prob *= p[r]
        left[r] -= 1
        s -= mult[r]
        last = r
    return prob


@njit(cache=True)
def deal(deck, players, n, st, hands, counts):
    """A uniform deal: ``hands[k]`` the sorted-free ranks of seat ``k``, ``counts`` their
    histograms (a partial Fisher-Yates shuffle of ``deck``)."""
    pool = deck.copy()
    size = pool.shape[0]
    counts[:] = 0
    for k in range(players * n):
        j = k + int(uniform(st) * (size - k))
        pool[k], pool[j] = pool[j], pool[k]
        hands[k // n, k % n] = pool[k]
        counts[k // n, pool[k]] += 1


@njit(cache=True)
def seat_value(scores, seat, players, misere, cw, cm, cs, rot):
    """The payoff of ``seat`` (``kernels._value_many`` counts from seat 0)."""
    for k in range(players):
        rot[k] = scores[(seat + k) % players]
    return _value_many(rot, players, misere, cw, cm, cs)


@njit(cache=True)
def full_index(counts, mult):
    s = 0
    for r in range(counts.shape[0]):
        s += counts[r] * mult[r]
    return s


@njit(cache=True)
def traverse(reg, lookup, mult, use_last, me, orders, counts, players, prm, key, gi, eps, cw,
             cm, cs, rows, dreg, davg):
    """Seat ``me``'s regret and average updates of deal ``gi`` into ``rows[me * n + t]``,
    ``dreg``, ``davg`` (row -1: a decision with one legal rank, no update); ``orders`` holds
    every seat's on-policy order and gets ``me``'s explored trajectory."""
    nr = counts.shape[1]
    n = orders.shape[1]
    misere = prm[MISERE]
    lens = np.full(players, n, np.int64)
    scores, wins, res, (nxt, played, cont, faces, idx, holders) = one_game(orders)
    rot = np.zeros(players, np.int64)
    left = counts[me].copy()
    tmp = np.empty(nr, np.int64)
    p = np.zeros(nr)
    q = np.zeros(nr)
    u = np.zeros(nr)
    st = np.zeros(1, np.uint64)
    s = full_index(left, mult)
    last = nr
    w = 1.0
    for t in range(n):
        slot = me * n + t
        rows[slot] = -1
        row = row_of(lookup, s, last, nr, use_last)
        policy(reg, row, left, p)
        legal = 0
        for a in range(nr):
            if left[a] > 0:
                legal += 1
        st[0] = stream(key, gi, slot)
        if legal > 1:
            base = st[0]
            v = 0.0
            for a in range(nr):
                if left[a] == 0:
                    continue
                tmp[:] = left
                tmp[a] -= 1
                orders[me, t] = a
                st[0] = base  # common random numbers: every rank gets the same continuation
                walk(reg, lookup, mult, use_last, tmp, s - mult[a], a, orders[me], t + 1, st, q)
                play_hands(orders, lens, players, prm, scores, wins, res, 0, nxt, played, cont,
                           faces, idx, holders)
                u[a] = seat_value(scores[0], me, players, misere, cw, cm, cs, rot)
                v += p[a] * u[a]
            rows[slot] = row
            for a in range(nr):
                dreg[slot, a] = w * (u[a] - v) if left[a] > 0 else 0.0
                davg[slot, a] = w * p[a] if left[a] > 0 else 0.0
        with_uniform(p, left, eps, q)  # the trajectory's next rank, with exploration
        a = draw(q, uniform(st))
        w *= p[a] / q[a]
        orders[me, t] = a
        left[a] -= 1
        s -= mult[a]
        last = a


@njit(cache=True)
def one_deal(reg, lookup, mult, use_last, deck, players, n, prm, key, gi, eps, cw, cm, cs,
             rows, dreg, davg):
    """Deal ``gi``: every seat traverses once (its updates at ``rows[seat * n:]``)."""
    nr = reg.shape[1]
    st = np.zeros(1, np.uint64)
    st[0] = stream(key, gi, players * n)
    hands = np.zeros((players, n), np.int8)
    counts = np.zeros((players, nr), np.int64)
    deal(deck, players, n, st, hands, counts)
    base = np.zeros((players, n), np.int8)
    p = np.zeros(nr)
    for k in range(players):
        left = counts[k].copy()
        walk(reg, lookup, mult, use_last, left, full_index(counts[k], mult), nr, base[k], 0, st,
             p)
    orders = base.copy()
    for me in range(players):
        orders[:] = base
        traverse(reg, lookup, mult, use_last, me, orders, counts, players, prm, key, gi, eps,
                 cw, cm, cs, rows, dreg, davg)


@njit(cache=True, parallel=True)
def run_batch(reg, avg, lookup, mult, use_last, deck, players, n, prm, key, first, size, eps,
              weight, cw, cm, cs):
    """Deals ``first .. first + size - 1`` against the regrets as they stand, in parallel; then
    their updates, scaled by ``weight`` (linear averaging: the batch number), added to ``reg``
    and ``avg`` in deal order."""
    nr = reg.shape[1]
    slots = players * n
    rows = np.full((size, slots), -1, np.int64)
    dreg = np.zeros((size, slots, nr), np.float64)
    davg = np.zeros((size, slots, nr), np.float64)
    for d in prange(size):
        one_deal(reg, lookup, mult, use_last, deck, players, n, prm, key, first + d, eps, cw,
                 cm, cs, rows[d], dreg[d], davg[d])
    for d in range(size):
        for k in range(slots):
            row = rows[d, k]
            if row < 0:
                continue
            for a in range(nr):
                reg[row, a] += weight * dreg[d, k, a]
                avg[row, a] += weight * davg[d, k, a]


@njit(cache=True)
def sample_order(table, lookup, mult, use_last, counts, order, st):
    """An order of the hand ``counts`` drawn from ``table``; returns its probability."""
    p = np.zeros(counts.shape[0])
    left = counts.copy()
    return walk(table, lookup, mult, use_last, left, full_index(counts, mult), counts.shape[0],
                order, 0, st, p)


@njit(cache=True)
def order_probs(table, lookup, mult, use_last, counts, orders):
    """The probability of each order ``orders[k]`` of the hand ``counts`` under ``table``."""
    nr = counts.shape[0]
    out = np.empty(orders.shape[0])
    p = np.zeros(nr)
    st = np.zeros(1, np.uint64)
    for k in range(orders.shape[0]):
        left = counts.copy()
        out[k] = walk(table, lookup, mult, use_last, left, full_index(counts, mult), nr,
                      orders[k], 0, st, p, False)
    return out
