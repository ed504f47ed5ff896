"""The compiled classic core (RULES.md §2): every deterministic option, shuffled pickups and
shuffled refills, exact cycle detection.

A game lives in a :data:`Work` of preallocated arrays with a leading *copy* axis: copy 0 is the
game being played, copies 1 and 2 replay it to find where a cycle starts, copy 3 holds the
snapshot Brent's algorithm compares against. Stacks are ring buffers of card strengths, top card
at ``head``; won piles are plain arrays (first card put on it first).

Cycle detection (when ``rules.cycle_detection``) is exact and needs O(1) memory: Brent's
algorithm on the sequence of positions finds the cycle length λ exactly, then replaying two
copies λ rounds apart from the start finds μ, the round where the position first stood, and
the reference engine reports the cycle at round μ + λ. A game capped before Brent noticed a
cycle is checked once more (does the capped position come back, and did the cycle close before
the cap?), so the result is the reference engine's in every case.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from pyanitsa.batch.encode import (
    ACE,
    CAPPED,
    CYCLE,
    CYCLES,
    DISPUTE,
    DRAW,
    EXHAUSTED,
    MAX_ROUNDS,
    MISERE,
    NEW_TOUR,
    ORDER,
    PICKUP_TO,
    REFILL,
    SPECIAL,
    STAKES,
    WEAKEST,
    WEAKEST_WINS,
    WIN,
)
from pyanitsa.batch.rng import deal_into, derive_seed1, shuffle

PMAX = 8
COPIES = 4
# fields of Work.g
LEADER, ROUNDS, SHOWDOWNS, NELIM, OUTCOME, WINNER = 0, 1, 2, 3, 4, 5
# how a round ended
TAKEN, VOID, DISCARD, DRAWN = 0, 1, 2, 3
# columns of a result row
R_OUTCOME, R_WINNER, R_ROUNDS, R_SHOWDOWNS, R_NELIM, R_CSTART, R_CLEN = 0, 1, 2, 3, 4, 5, 6
N_RESULT = 7

Work = namedtuple("Work", "stk head scnt pile pcnt g elim tc to ts order cont faces idx buf key")


@njit(cache=True)
def make_work(cap):
    """Scratch for one game at a time; ``cap`` is a power of two >= the deck size."""
    return Work(np.zeros((COPIES, PMAX, cap), np.uint8), np.zeros((COPIES, PMAX), np.int64),
                np.zeros((COPIES, PMAX), np.int64), np.zeros((COPIES, PMAX, cap), np.uint8),
                np.zeros((COPIES, PMAX), np.int64), np.zeros((COPIES, 8), np.int64),
                np.zeros((COPIES, PMAX), np.int64), np.zeros(cap, np.uint8),
                np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(PMAX, np.int64),
                np.zeros(PMAX, np.int64), np.zeros(PMAX, np.uint8), np.zeros(PMAX, np.int64),
                np.zeros(cap, np.uint8), np.zeros(cap, np.int64))


@njit(cache=True, inline="always")
def count(w, k, s):
    return w.scnt[k, s] + w.pcnt[k, s]


@njit(cache=True)
def take(w, k, s, mask, refill_shuffle, rng):
    """The top card of a stack, turning the won pile over (or shuffling it) when it is empty."""
    if w.scnt[k, s] == 0:
        n = w.pcnt[k, s]
        if refill_shuffle:
            shuffle(w.pile[k, s], n, rng)
        for i in range(n):
            w.stk[k, s, i] = w.pile[k, s, i]
        w.head[k, s] = 0
        w.scnt[k, s] = n
        w.pcnt[k, s] = 0
    h = w.head[k, s]
    c = w.stk[k, s, h]
    w.head[k, s] = (h + 1) & mask
    w.scnt[k, s] -= 1
    return c


@njit(cache=True, inline="always")
def put(w, k, s, c, mask, to_pile):
    if to_pile:
        w.pile[k, s, w.pcnt[k, s]] = c
        w.pcnt[k, s] += 1
    else:
        w.stk[k, s, (w.head[k, s] + w.scnt[k, s]) & mask] = c
        w.scnt[k, s] += 1


@njit(cache=True)
def top_set(faces, n, idx, special, weakest, ace, weakest_wins):
    """Indices of the unbeaten faces into ``idx``; returns how many, or -1 for a void cycle."""
    best = faces[0]
    for j in range(1, n):
        if faces[j] > best:
            best = faces[j]
    if special and best == ace:
        has_weak = False
        lower = False
        for j in range(n):
            f = faces[j]
            if f == weakest:
                has_weak = True
            elif f != ace:
                lower = True
        if has_weak:
            if lower and not weakest_wins:
                return -1
            m = 0
            for j in range(n):
                if faces[j] == weakest:
                    idx[m] = j
                    m += 1
            return m
    m = 0
    for j in range(n):
        if faces[j] == best:
            idx[m] = j
            m += 1
    return m


@njit(cache=True)
def pickup(w, k, prm, winner, no, nt, mask, rng):
    """Put the table under the winner's stack (or on the won pile) in ``pickup_order``."""
    how = prm[ORDER]
    to_pile = prm[PICKUP_TO]
    tc, to = w.tc, w.to
    if how == 0:
        for j in range(nt):
            put(w, k, winner, tc[j], mask, to_pile)
    elif how == 1:
        for i in range(no):
            s = w.order[i]
            for j in range(nt):
                if to[j] == s:
                    put(w, k, winner, tc[j], mask, to_pile)
    elif how == 2 or how == 3:
        first_mine = how == 2
        for half in range(2):
            mine = (half == 0) == first_mine
            for j in range(nt):
                if (to[j] == winner) == mine:
                    put(w, k, winner, tc[j], mask, to_pile)
    elif how == 7:
        buf = w.buf
        for j in range(nt):
            buf[j] = tc[j]
        shuffle(buf, nt, rng)
        for j in range(nt):
            put(w, k, winner, buf[j], mask, to_pile)
    else:
        # stable insertion sort of table positions by key
        key = w.key
        for j in range(nt):
            if how == 4:
                key[j] = -np.int64(tc[j])
            elif how == 5:
                key[j] = np.int64(tc[j])
            else:
                key[j] = -(w.ts[j] * 256 + np.int64(tc[j]))
        buf = w.buf
        for j in range(nt):
            buf[j] = tc[j]
        for j in range(1, nt):
            kj = key[j]
            cj = buf[j]
            i = j - 1
            while i >= 0 and key[i] > kj:
                key[i + 1] = key[i]
                buf[i + 1] = buf[i]
                i -= 1
            key[i + 1] = kj
            buf[i + 1] = cj
        for j in range(nt):
            put(w, k, winner, buf[j], mask, to_pile)


@njit(cache=True)
def play_round(w, k, prm, players, rng):
    """Play one round of copy ``k``; returns 1 if it ended the game (draw, misère), else 0."""
    mask = w.stk.shape[2] - 1
    g = w.g
    refill_shuffle = prm[REFILL]
    to_pile = prm[PICKUP_TO]
    g[k, ROUNDS] += 1
    leader = g[k, LEADER]
    order, cont, faces = w.order, w.cont, w.faces
    tc, to, ts = w.tc, w.to, w.ts
    no = 0
    for i in range(players):
        s = leader + i
        if s >= players:
            s -= players
        if w.scnt[k, s] + w.pcnt[k, s] > 0:
            order[no] = s
            no += 1
    nt = 0
    for i in range(no):
        s = order[i]
        c = take(w, k, s, mask, refill_shuffle, rng)
        tc[nt] = c
        to[nt] = s
        ts[nt] = 0
        nt += 1
        faces[i] = c
        cont[i] = s
    nc = no
    g[k, SHOWDOWNS] += 1
    step = 0
    winner = -1
    end = TAKEN
    special = prm[SPECIAL]
    weakest = prm[WEAKEST]
    ace = prm[ACE]
    wwins = prm[WEAKEST_WINS]
    down_up = prm[DISPUTE]
    stakes = prm[STAKES]
    while True:
        ntop = top_set(faces, nc, w.idx, special, weakest, ace, wwins)
        if ntop < 0:
            end = VOID
            break
        if ntop == 1:
            winner = cont[w.idx[0]]
            break
        for j in range(ntop):
            cont[j] = cont[w.idx[j]]
        nc = ntop
        first_empty = -1
        for j in range(nc):
            s = cont[j]
            if w.scnt[k, s] + w.pcnt[k, s] == 0:
                first_empty = s
                break
        if first_empty >= 0:
            ex = prm[EXHAUSTED]
            if ex == 0:
                winner = first_empty
                break
            if ex == 1:
                winner = cont[0]
                break
            if ex == 3:
                end = DISCARD
                break
            if ex == 4:
                end = DRAWN
                break
            m = 0
            for j in range(nc):
                s = cont[j]
                if w.scnt[k, s] + w.pcnt[k, s] > 0:
                    cont[m] = s
                    m += 1
            nc = m
            if nc == 1:
                winner = cont[0]
                break
            if nc == 0:
                end = DISCARD
                break
        step += 1
        for j in range(nc):
            s = cont[j]
            if down_up:
                nd = min(stakes, w.scnt[k, s] + w.pcnt[k, s] - 1)
                for _ in range(nd):
                    tc[nt] = take(w, k, s, mask, refill_shuffle, rng)
                    to[nt] = s
                    ts[nt] = step
                    nt += 1
            c = take(w, k, s, mask, refill_shuffle, rng)
            tc[nt] = c
            to[nt] = s
            ts[nt] = step
            nt += 1
            faces[j] = c
        g[k, SHOWDOWNS] += 1

    if end == TAKEN:
        pickup(w, k, prm, winner, no, nt, mask, rng)
    elif end == VOID:
        for i in range(no):
            s = order[i]
            for j in range(nt):
                if to[j] == s:
                    put(w, k, s, tc[j], mask, to_pile)
    elif end == DRAWN:
        g[k, OUTCOME] = DRAW
        g[k, WINNER] = -1
        return 1
    went = 0
    first_out = -1
    for i in range(no):
        s = order[i]
        if w.scnt[k, s] + w.pcnt[k, s] == 0:
            w.elim[k, g[k, NELIM]] = s
            g[k, NELIM] += 1
            went += 1
            if first_out < 0:
                first_out = s
    if prm[MISERE] and went:
        g[k, OUTCOME] = WIN
        g[k, WINNER] = first_out
        return 1
    if went and prm[NEW_TOUR]:
        leader = (leader + went) % players
    g[k, LEADER] = leader
    if w.scnt[k, leader] + w.pcnt[k, leader] == 0:
        pass_lead(w, k, players)
    return 0


@njit(cache=True)
def pass_lead(w, k, players):
    leader = w.g[k, LEADER]
    for i in range(1, players + 1):
        s = (leader + i) % players
        if w.scnt[k, s] + w.pcnt[k, s] > 0:
            w.g[k, LEADER] = s
            return


@njit(cache=True)
def end_check(w, k, players, max_rounds):
    """The end conditions of §2.8 but the cycle; returns the outcome, or -1 to go on."""
    alive = 0
    last = -1
    for s in range(players):
        if w.scnt[k, s] + w.pcnt[k, s] > 0:
            alive += 1
            last = s
    g = w.g
    if alive == 1:
        g[k, OUTCOME] = WIN
        g[k, WINNER] = last
        return WIN
    g[k, WINNER] = -1
    if alive == 0:
        g[k, OUTCOME] = DRAW
        return DRAW
    if g[k, ROUNDS] >= max_rounds:
        g[k, OUTCOME] = CAPPED
        return CAPPED
    return -1


@njit(cache=True)
def load(w, k, players, init, ilen, dealer):
    """Set copy ``k`` to the start of a game: stacks ``init[s, :ilen[s]]`` (top first)."""
    for s in range(players):
        n = ilen[s]
        for i in range(n):
            w.stk[k, s, i] = init[s, i]
        w.head[k, s] = 0
        w.scnt[k, s] = n
        w.pcnt[k, s] = 0
    g = w.g
    g[k, LEADER] = dealer
    g[k, ROUNDS] = 0
    g[k, SHOWDOWNS] = 0
    g[k, NELIM] = 0
    g[k, OUTCOME] = -1
    g[k, WINNER] = -1
    if ilen[dealer] == 0:
        pass_lead(w, k, players)


@njit(cache=True)
def copy_state(w, src, dst, players):
    mask = w.stk.shape[2] - 1
    for s in range(players):
        h = w.head[src, s]
        n = w.scnt[src, s]
        for i in range(n):
            w.stk[dst, s, i] = w.stk[src, s, (h + i) & mask]
        w.head[dst, s] = 0
        w.scnt[dst, s] = n
        m = w.pcnt[src, s]
        for i in range(m):
            w.pile[dst, s, i] = w.pile[src, s, i]
        w.pcnt[dst, s] = m
        w.elim[dst, s] = w.elim[src, s]
    for f in range(w.g.shape[1]):
        w.g[dst, f] = w.g[src, f]


@njit(cache=True)
def same_position(w, a, b, players):
    """Whether copies ``a`` and ``b`` stand in the same position (§2.9)."""
    if w.g[a, LEADER] != w.g[b, LEADER]:
        return False
    for s in range(players):
        if w.scnt[a, s] != w.scnt[b, s] or w.pcnt[a, s] != w.pcnt[b, s]:
            return False
    mask = w.stk.shape[2] - 1
    for s in range(players):
        ha = w.head[a, s]
        hb = w.head[b, s]
        for i in range(w.scnt[a, s]):
            if w.stk[a, s, (ha + i) & mask] != w.stk[b, s, (hb + i) & mask]:
                return False
        for i in range(w.pcnt[a, s]):
            if w.pile[a, s, i] != w.pile[b, s, i]:
                return False
    return True


@njit(cache=True)
def find_start(w, prm, players, init, ilen, dealer, lam, rng):
    """μ for a cycle of length ``lam``: copy 2 ends at round μ + λ. Returns μ."""
    load(w, 1, players, init, ilen, dealer)
    load(w, 2, players, init, ilen, dealer)
    for _ in range(lam):
        play_round(w, 2, prm, players, rng)
    mu = 0
    while not same_position(w, 1, 2, players):
        play_round(w, 1, prm, players, rng)
        play_round(w, 2, prm, players, rng)
        mu += 1
    w.g[2, OUTCOME] = CYCLE
    w.g[2, WINNER] = -1
    return mu


@njit(cache=True)
def play_game(w, prm, players, init, ilen, dealer, rng, out, row, out_elim):
    """Play one game from its stacks and write its result row."""
    load(w, 0, players, init, ilen, dealer)
    detect = prm[CYCLES]
    max_rounds = prm[MAX_ROUNDS]
    k = 0
    cstart = -1
    clen = -1
    if detect:
        copy_state(w, 0, 3, players)
    power = 1
    lam = 0
    while True:
        code = end_check(w, 0, players, max_rounds)
        if code >= 0:
            if code == CAPPED and detect:
                clen = late_cycle(w, prm, players, max_rounds, rng)
                if clen > 0:
                    mu = find_start(w, prm, players, init, ilen, dealer, clen, rng)
                    if mu + clen < max_rounds:
                        k = 2
                        cstart = mu
                    else:
                        clen = -1
            break
        if detect and lam > 0:
            if same_position(w, 0, 3, players):
                cstart = find_start(w, prm, players, init, ilen, dealer, lam, rng)
                clen = lam
                k = 2
                break
            if lam == power:
                copy_state(w, 0, 3, players)
                power *= 2
                lam = 0
        lam += 1
        if play_round(w, 0, prm, players, rng):
            break
    g = w.g
    out[row, R_OUTCOME] = g[k, OUTCOME]
    out[row, R_WINNER] = g[k, WINNER]
    out[row, R_ROUNDS] = g[k, ROUNDS]
    out[row, R_SHOWDOWNS] = g[k, SHOWDOWNS]
    out[row, R_NELIM] = g[k, NELIM]
    out[row, R_CSTART] = cstart
    out[row, R_CLEN] = clen
    for i in range(g[k, NELIM]):
        out_elim[row, i] = w.elim[k, i]


@njit(cache=True)
def late_cycle(w, prm, players, max_rounds, rng):
    """At the cap: the rounds until copy 0's position comes back (at most ``max_rounds``), or -1.

    Played on copy 1; copy 0 stays at the cap.
    """
    copy_state(w, 0, 1, players)
    for steps in range(1, max_rounds + 1):
        alive = 0
        for s in range(players):
            if w.scnt[1, s] + w.pcnt[1, s] > 0:
                alive += 1
        if alive < 2 or play_round(w, 1, prm, players, rng):
            return -1
        if same_position(w, 0, 1, players):
            return steps
    return -1


@njit(cache=True)
def play_stacks(prm, players, init, ilen, dealers, seeds, cap):
    """Play games from given stacks: ``init[G, P, n]`` strengths, ``ilen[G, P]``, ``dealers[G]``
    (the first leader), ``seeds[G]`` (generator states for shuffling rules)."""
    games = init.shape[0]
    out = np.zeros((games, N_RESULT), np.int64)
    out_elim = np.full((games, PMAX), -1, np.int64)
    w = make_work(cap)
    rng = np.zeros(1, np.uint64)
    for i in range(games):
        rng[0] = seeds[i]
        play_game(w, prm, players[i], init[i], ilen[i], dealers[i], rng, out, i, out_elim)
    return out, out_elim


@njit(cache=True)
def simulate_range(prm, strength, players, equal, dealer_fixed, seed, first, count_, cap,
                   out, out_elim, out_row0):
    """Deal and play games ``first .. first + count_ - 1`` of a seeded run into rows from
    ``out_row0``: game ``i`` is dealt from ``derive_seed(seed, i)`` and the same generator goes
    on into play."""
    deck = strength.shape[0]
    w = make_work(cap)
    rng = np.zeros(1, np.uint64)
    cards = np.zeros(deck, np.int64)
    seat_cards = np.zeros((PMAX, deck), np.int64)
    seat_len = np.zeros(PMAX, np.int64)
    init = np.zeros((PMAX, cap), np.uint8)
    for i in range(count_):
        rng[0] = derive_seed1(seed, first + i)
        dealer = deal_into(rng, players, deck, equal, dealer_fixed, cards, seat_cards, seat_len)
        for s in range(players):
            for j in range(seat_len[s]):
                init[s, j] = strength[seat_cards[s, j]]
        play_game(w, prm, players, init, seat_len, dealer, rng, out, out_row0 + i, out_elim)


@njit(cache=True, parallel=True)
def simulate_chunks(prm, strength, players, equal, dealer_fixed, seed, first, games, chunk,
                    cap):
    """Games ``first .. first + games - 1`` in chunks of ``chunk`` spread over threads; the
    result depends only on the games, never on the threads."""
    out = np.zeros((games, N_RESULT), np.int64)
    out_elim = np.full((games, PMAX), -1, np.int64)
    nchunks = (games + chunk - 1) // chunk
    for c in prange(nchunks):
        lo = c * chunk
        n = min(chunk, games - lo)
        simulate_range(prm, strength, players, equal, dealer_fixed, seed, first + lo, n, cap,
                       out, out_elim, lo)
    return out, out_elim
