"""One game of the compiled classic core in its arrays: their layout, moving cards between
stacks, won piles and the table, and one round (open, disputes, pickup), with the end checks.

:mod:`pyanitsa.batch.classic` plays whole games from these (cycle detection, positions, seeded
runs); the rules themselves are the pieces of :mod:`pyanitsa.batch.pieces`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pyanitsa.batch.encode import (
    CAPPED,
    DRAW,
    MISERE,
    NEW_TOUR,
    ORDER,
    PICKUP_TO,
    REFILL,
    WIN,
)
from pyanitsa.batch.pieces import (
    DRAWN,
    GO_ON,
    TAKEN,
    TC,
    TO,
    VOID,
    dispute_rules,
    exhausted_rule,
    face_down,
    lay_card,
    order_table,
    ring_mask,
    showdown_rules,
    top_set,
)
from pyanitsa.batch.rng import shuffle

PMAX = 8
COPIES = 5
START = 4
# fields of g
LEADER, ROUNDS, SHOWDOWNS, NELIM, OUTCOME, WINNER = 0, 1, 2, 3, 4, 5
# fields of a start vector (a position to play from, see play_positions); eliminated seats in
# order from ST_ELIM
ST_LEADER, ST_ROUNDS, ST_SHOWDOWNS, ST_NELIM, ST_ELIM = 0, 1, 2, 3, 4
N_START = ST_ELIM + PMAX
# rows of the per-copy counters ``cnt[k, row, seat]``
HEAD, SCNT, PCNT, ELIM = 0, 1, 2, 3
# rows of the small scratch ``sm[row, i]`` (those of ``tab`` are in pieces.py)
ORD, CONT, FACE, IDX = 0, 1, 2, 3

# A game's arrays are passed one by one (a tuple of arrays as an argument costs a reference
# count per member per call, which made every card move ~100x slower):
#   stk  uint8[COPIES, PMAX, cap]   stacks as rings, top at cnt[k, HEAD, s]
#   pile uint8[COPIES, PMAX, cap]   won piles, first card put on it first
#   cnt  int64[COPIES, 4, PMAX]     HEAD, SCNT (stack size), PCNT (pile size), ELIM (out order)
#   g    int64[COPIES, 8]           LEADER, ROUNDS, SHOWDOWNS, NELIM, OUTCOME, WINNER
#   tab  int64[4, cap]              the table: card, owner, dispute step, sort key
#   sm   int64[4, PMAX]             play order, contenders, faces, top-set indices
#   buf  uint8[cap]                 pickup scratch


@njit(cache=True)
def make_work(cap):
    """Scratch for one game at a time; ``cap`` is a power of two >= the deck size."""
    return (np.zeros((COPIES, PMAX, cap), np.uint8), np.zeros((COPIES, PMAX, cap), np.uint8),
            np.zeros((COPIES, 4, PMAX), np.int64), np.zeros((COPIES, 8), np.int64),
            np.zeros((4, cap), np.int64), np.zeros((4, PMAX), np.int64),
            np.zeros(cap, np.uint8))




@njit(cache=True, inline="always")
def deal_work(cap, n):
    """Scratch for playing two-player deals of ``n`` cards one at a time with ``play_any``:
    :func:`make_work`'s arrays, then the generator, the deal's stacks ``init`` (seat 0 the
    first half, filled by :func:`deal_into`) with their sizes ``ilen``, and the seat count."""
    stk, pile, cnt, g, tab, sm, buf = make_work(cap)
    ilen = np.zeros(2, np.int64)
    ilen[0] = (n + 1) // 2
    ilen[1] = n - ilen[0]
    # the seat count read from an array, not the literal 2, which numba would compile apart
    return (stk, pile, cnt, g, tab, sm, buf, np.zeros(1, np.uint64), np.zeros((2, cap), np.uint8),
            ilen, ilen.shape[0])


@njit(cache=True, _nrt=False, inline="always")
def deal_into(init, ilen, table, cards):
    """A deal's two stacks into ``init``: ``table`` of the card ids ``cards``, seat 0 first."""
    half = ilen[0]
    for j in range(half):
        init[0, j] = table[cards[j]]
    for j in range(ilen[1]):
        init[1, j] = table[cards[half + j]]

@njit(cache=True, _nrt=False, inline="always")
def take(stk, pile, cnt, k, s, mask, refill_shuffle, rng):
    """The top card of a stack, turning the won pile over (or shuffling it) when it is empty."""
    if cnt[k, SCNT, s] == 0:
        n = cnt[k, PCNT, s]
        if refill_shuffle:
            shuffle(pile[k, s], n, rng)
        for i in range(n):
            stk[k, s, i] = pile[k, s, i]
        cnt[k, HEAD, s] = 0
        cnt[k, SCNT, s] = n
        cnt[k, PCNT, s] = 0
    h = cnt[k, HEAD, s]
    c = stk[k, s, h]
    cnt[k, HEAD, s] = (h + 1) & mask
    cnt[k, SCNT, s] -= 1
    return c


@njit(cache=True, _nrt=False, inline="always")
def put(stk, pile, cnt, k, s, c, mask, to_pile):
    if to_pile:
        pile[k, s, cnt[k, PCNT, s]] = c
        cnt[k, PCNT, s] += 1
    else:
        stk[k, s, (cnt[k, HEAD, s] + cnt[k, SCNT, s]) & mask] = c
        cnt[k, SCNT, s] += 1


@njit(cache=True, _nrt=False, inline="always")
def held(cnt, k, s):
    """Cards seat ``s`` of copy ``k`` holds: stack and won pile."""
    return cnt[k, SCNT, s] + cnt[k, PCNT, s]


@njit(cache=True, _nrt=False, inline="always")
def open_round(stk, pile, cnt, tab, sm, k, leader, players, mask, refill_shuffle, rng):
    """Every seat with cards, clockwise from ``leader``, into ``sm[ORD]`` and ``sm[CONT]``, its
    top card onto the table and into ``sm[FACE]``; returns how many seats play."""
    no = 0
    for i in range(players):
        s = leader + i
        if s >= players:
            s -= players
        if held(cnt, k, s) > 0:
            c = take(stk, pile, cnt, k, s, mask, refill_shuffle, rng)
            lay_card(tab, no, c, s, 0)
            sm[ORD, no] = s
            sm[CONT, no] = s
            sm[FACE, no] = c
            no += 1
    return no


@njit(cache=True, _nrt=False, inline="always")
def dispute(stk, pile, cnt, tab, sm, k, prm, nc, nt, mask, rng):
    """Showdowns from the round's first until one ends it (§2.3-2.6): ``(end, winner, nt,
    showdowns after the first)``, the table's ``nt`` cards in ``tab``."""
    _, ranks, weakest, wwins = showdown_rules(prm)
    down_up, stakes, ex = dispute_rules(prm)
    refill_shuffle = prm[REFILL]
    cont, faces, left = sm[CONT], sm[FACE], sm[IDX]
    step = 0
    while True:
        ntop = top_set(prm, ranks, weakest, wwins, faces, nc, left)
        if ntop < 0:
            return VOID, -1, nt, step
        if ntop == 1:
            return TAKEN, cont[left[0]], nt, step
        empty = False
        for j in range(ntop):
            cont[j] = cont[left[j]]
            left[j] = held(cnt, k, cont[j])
            empty |= left[j] == 0
        nc = ntop
        if empty:
            end, winner, nc = exhausted_rule(ex, cont, left, nc)
            if end != GO_ON:
                return end, winner, nt, step
        step += 1
        for j in range(nc):
            s = cont[j]
            for _ in range(face_down(down_up, stakes, held(cnt, k, s))):
                nt = lay_card(tab, nt, take(stk, pile, cnt, k, s, mask, refill_shuffle, rng), s,
                              step)
            faces[j] = take(stk, pile, cnt, k, s, mask, refill_shuffle, rng)
            nt = lay_card(tab, nt, faces[j], s, step)


@njit(cache=True, _nrt=False, inline="always")
def put_back(stk, pile, cnt, tab, sm, buf, k, prm, end, winner, leader, players, no, nt, mask,
             rng):
    """The table after the round: under the winner in ``pickup_order``, or (void) every card
    back to its owner in table order; discarded cards leave the game."""
    to_pile = prm[PICKUP_TO]
    if end == TAKEN:
        rng[0] = order_table(tab, buf, nt, prm[ORDER], winner, leader, players, rng[0])
        for j in range(nt):
            put(stk, pile, cnt, k, winner, buf[j], mask, to_pile)
    elif end == VOID:
        for i in range(no):
            s = sm[ORD, i]
            for j in range(nt):
                if tab[TO, j] == s:
                    put(stk, pile, cnt, k, s, tab[TC, j], mask, to_pile)


@njit(cache=True, _nrt=False, inline="always")
def play_round(stk, pile, cnt, g, tab, sm, buf, k, prm, players, rng):
    """Play one round of copy ``k``; returns 1 if it ended the game (draw, misère), else 0."""
    mask = ring_mask(stk.shape[2])
    g[k, ROUNDS] += 1
    leader = g[k, LEADER]
    no = open_round(stk, pile, cnt, tab, sm, k, leader, players, mask, prm[REFILL], rng)
    end, winner, nt, steps = dispute(stk, pile, cnt, tab, sm, k, prm, no, no, mask, rng)
    g[k, SHOWDOWNS] += 1 + steps
    if end == DRAWN:
        g[k, OUTCOME] = DRAW
        g[k, WINNER] = -1
        return 1
    put_back(stk, pile, cnt, tab, sm, buf, k, prm, end, winner, leader, players, no, nt, mask,
             rng)
    went = 0
    first_out = -1
    for i in range(no):
        s = sm[ORD, i]
        if held(cnt, k, s) == 0:
            cnt[k, ELIM, g[k, NELIM]] = s
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
    if held(cnt, k, leader) == 0:
        pass_lead(cnt, g, k, players)
    return 0


@njit(cache=True, _nrt=False)
def pass_lead(cnt, g, k, players):
    leader = g[k, LEADER]
    for i in range(1, players + 1):
        s = (leader + i) % players
        if cnt[k, SCNT, s] + cnt[k, PCNT, s] > 0:
            g[k, LEADER] = s
            return


@njit(cache=True, _nrt=False, inline="always")
def alive(cnt, k, players):
    """Seats of copy ``k`` that hold cards."""
    n = 0
    for s in range(players):
        n += held(cnt, k, s) > 0
    return n


@njit(cache=True, _nrt=False, inline="always")
def end_check(cnt, g, k, players, max_rounds):
    """The end conditions of §2.8 but the cycle; returns the outcome, or -1 to go on."""
    n = 0
    last = -1
    for s in range(players):
        if held(cnt, k, s) > 0:
            n += 1
            last = s
    if n == 1:
        g[k, OUTCOME] = WIN
        g[k, WINNER] = last
        return WIN
    g[k, WINNER] = -1
    if n == 0:
        g[k, OUTCOME] = DRAW
        return DRAW
    if g[k, ROUNDS] >= max_rounds:
        g[k, OUTCOME] = CAPPED
        return CAPPED
    return -1
