"""The compiled classic core (RULES.md §2): every deterministic option, shuffled pickups and
shuffled refills, exact cycle detection.

A game lives in preallocated arrays with a leading *copy* axis: copy 0 is the game being played,
copies 1 and 2 replay it to find where a cycle starts, copy 3 holds the snapshot Brent's
algorithm compares against and copy 4 the position the game started from (a deal, or any
position between two rounds: :func:`play_positions` continues games from the middle). Stacks are
ring buffers of card strengths, top card at ``head``; won piles are plain arrays (first card put
on it first).

Cycle detection (when ``rules.cycle_detection``) is exact and needs O(1) memory: Brent's
algorithm on the sequence of positions finds the cycle length λ exactly, then replaying two
copies λ rounds apart from the start finds μ, the round where the position first stood, and
the reference engine reports the cycle at round μ + λ. A game capped before Brent noticed a
cycle is checked once more (does the capped position come back, and did the cycle close before
the cap?), so the result is the reference engine's in every case. A *horizon* (stop after so
many rounds) is the same thing as a lower cap.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pyanitsa.batch.classic_fast import fast_ok, play2, sort_table
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
    N_RESULT,
    NEW_TOUR,
    ORDER,
    PICKUP_TO,
    R_CLEN,
    R_CSTART,
    R_NELIM,
    R_OUTCOME,
    R_ROUNDS,
    R_SHOWDOWNS,
    R_WINNER,
    REFILL,
    SPECIAL,
    STAKES,
    WEAKEST,
    WEAKEST_WINS,
    WIN,
)
from pyanitsa.batch.rng import deal_s, derive_seed1, shuffle

PMAX = 8
COPIES = 5
START = 4
# fields of g
LEADER, ROUNDS, SHOWDOWNS, NELIM, OUTCOME, WINNER = 0, 1, 2, 3, 4, 5
# fields of a start vector (a position to play from, see play_positions); eliminated seats in
# order from ST_ELIM
ST_LEADER, ST_ROUNDS, ST_SHOWDOWNS, ST_NELIM, ST_ELIM = 0, 1, 2, 3, 4
N_START = ST_ELIM + PMAX
# how a round ended
TAKEN, VOID, DISCARD, DRAWN = 0, 1, 2, 3

# rows of the per-copy counters ``cnt[k, row, seat]``
HEAD, SCNT, PCNT, ELIM = 0, 1, 2, 3
# rows of the table scratch ``tab[row, j]`` (row 3 is classic_fast.sort_table's key) and of the
# small scratch ``sm[row, i]``
TC, TO, TS = 0, 1, 2
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


@njit(cache=True, _nrt=False, inline="always")
def pickup(stk, pile, cnt, tab, sm, buf, k, prm, winner, no, nt, mask, rng):
    """Put the table under the winner's stack (or on the won pile) in ``pickup_order``."""
    how = prm[ORDER]
    to_pile = prm[PICKUP_TO]
    if how == 0:
        for j in range(nt):
            put(stk, pile, cnt, k, winner, tab[TC, j], mask, to_pile)
    elif how == 1:
        for i in range(no):
            s = sm[ORD, i]
            for j in range(nt):
                if tab[TO, j] == s:
                    put(stk, pile, cnt, k, winner, tab[TC, j], mask, to_pile)
    elif how == 2 or how == 3:
        first_mine = how == 2
        for half in range(2):
            mine = (half == 0) == first_mine
            for j in range(nt):
                if (tab[TO, j] == winner) == mine:
                    put(stk, pile, cnt, k, winner, tab[TC, j], mask, to_pile)
    elif how == 7:
        for j in range(nt):
            buf[j] = tab[TC, j]
        shuffle(buf, nt, rng)
        for j in range(nt):
            put(stk, pile, cnt, k, winner, buf[j], mask, to_pile)
    else:
        sort_table(tab, buf, nt, how)
        for j in range(nt):
            put(stk, pile, cnt, k, winner, buf[j], mask, to_pile)


@njit(cache=True, _nrt=False, inline="always")
def play_round(stk, pile, cnt, g, tab, sm, buf, k, prm, players, rng):
    """Play one round of copy ``k``; returns 1 if it ended the game (draw, misère), else 0."""
    mask = stk.shape[2] - 1
    refill_shuffle = prm[REFILL]
    to_pile = prm[PICKUP_TO]
    g[k, ROUNDS] += 1
    leader = g[k, LEADER]
    no = 0
    for i in range(players):
        s = leader + i
        if s >= players:
            s -= players
        if cnt[k, SCNT, s] + cnt[k, PCNT, s] > 0:
            sm[ORD, no] = s
            no += 1
    nt = 0
    for i in range(no):
        s = sm[ORD, i]
        c = take(stk, pile, cnt, k, s, mask, refill_shuffle, rng)
        tab[TC, nt] = c
        tab[TO, nt] = s
        tab[TS, nt] = 0
        nt += 1
        sm[FACE, i] = c
        sm[CONT, i] = s
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
    faces = sm[FACE]
    idx = sm[IDX]
    while True:
        ntop = top_set(faces, nc, idx, special, weakest, ace, wwins)
        if ntop < 0:
            end = VOID
            break
        if ntop == 1:
            winner = sm[CONT, idx[0]]
            break
        for j in range(ntop):
            sm[CONT, j] = sm[CONT, idx[j]]
        nc = ntop
        first_empty = -1
        for j in range(nc):
            s = sm[CONT, j]
            if cnt[k, SCNT, s] + cnt[k, PCNT, s] == 0:
                first_empty = s
                break
        if first_empty >= 0:
            ex = prm[EXHAUSTED]
            if ex == 0:
                winner = first_empty
                break
            if ex == 1:
                winner = sm[CONT, 0]
                break
            if ex == 3:
                end = DISCARD
                break
            if ex == 4:
                end = DRAWN
                break
            m = 0
            for j in range(nc):
                s = sm[CONT, j]
                if cnt[k, SCNT, s] + cnt[k, PCNT, s] > 0:
                    sm[CONT, m] = s
                    m += 1
            nc = m
            if nc == 1:
                winner = sm[CONT, 0]
                break
            if nc == 0:
                end = DISCARD
                break
        step += 1
        for j in range(nc):
            s = sm[CONT, j]
            if down_up:
                nd = min(stakes, cnt[k, SCNT, s] + cnt[k, PCNT, s] - 1)
                for _ in range(nd):
                    tab[TC, nt] = take(stk, pile, cnt, k, s, mask, refill_shuffle, rng)
                    tab[TO, nt] = s
                    tab[TS, nt] = step
                    nt += 1
            c = take(stk, pile, cnt, k, s, mask, refill_shuffle, rng)
            tab[TC, nt] = c
            tab[TO, nt] = s
            tab[TS, nt] = step
            nt += 1
            faces[j] = c
        g[k, SHOWDOWNS] += 1

    if end == TAKEN:
        pickup(stk, pile, cnt, tab, sm, buf, k, prm, winner, no, nt, mask, rng)
    elif end == VOID:
        for i in range(no):
            s = sm[ORD, i]
            for j in range(nt):
                if tab[TO, j] == s:
                    put(stk, pile, cnt, k, s, tab[TC, j], mask, to_pile)
    elif end == DRAWN:
        g[k, OUTCOME] = DRAW
        g[k, WINNER] = -1
        return 1
    went = 0
    first_out = -1
    for i in range(no):
        s = sm[ORD, i]
        if cnt[k, SCNT, s] + cnt[k, PCNT, s] == 0:
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
    if cnt[k, SCNT, leader] + cnt[k, PCNT, leader] == 0:
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
def end_check(cnt, g, k, players, max_rounds):
    """The end conditions of §2.8 but the cycle; returns the outcome, or -1 to go on."""
    alive = 0
    last = -1
    for s in range(players):
        if cnt[k, SCNT, s] + cnt[k, PCNT, s] > 0:
            alive += 1
            last = s
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


@njit(cache=True, _nrt=False)
def load(stk, cnt, g, k, players, init, ilen, dealer):
    """Set copy ``k`` to the start of a game: stacks ``init[s, :ilen[s]]`` (top first)."""
    for s in range(players):
        n = ilen[s]
        for i in range(n):
            stk[k, s, i] = init[s, i]
        cnt[k, HEAD, s] = 0
        cnt[k, SCNT, s] = n
        cnt[k, PCNT, s] = 0
    g[k, NELIM] = 0
    set_counters(cnt, g, k, players, dealer, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def set_counters(cnt, g, k, players, leader, rounds, showdowns):
    """Copy ``k``'s counters for a game about to go on (after its cards are in place)."""
    g[k, LEADER] = leader
    g[k, ROUNDS] = rounds
    g[k, SHOWDOWNS] = showdowns
    g[k, OUTCOME] = -1
    g[k, WINNER] = -1
    if cnt[k, SCNT, leader] + cnt[k, PCNT, leader] == 0:
        pass_lead(cnt, g, k, players)


@njit(cache=True, _nrt=False)
def load_position(stk, pile, cnt, g, k, players, init, ilen, pinit, plen, st):
    """Set copy ``k`` to a position between rounds: stacks ``init[s, :ilen[s]]`` (top first),
    won piles ``pinit[s, :plen[s]]`` and the counters of the start vector ``st``."""
    for s in range(players):
        n = ilen[s]
        for i in range(n):
            stk[k, s, i] = init[s, i]
        m = plen[s]
        for i in range(m):
            pile[k, s, i] = pinit[s, i]
        cnt[k, HEAD, s] = 0
        cnt[k, SCNT, s] = n
        cnt[k, PCNT, s] = m
    nelim = st[ST_NELIM]
    for i in range(nelim):
        cnt[k, ELIM, i] = st[ST_ELIM + i]
    g[k, NELIM] = nelim
    set_counters(cnt, g, k, players, st[ST_LEADER], st[ST_ROUNDS], st[ST_SHOWDOWNS])


@njit(cache=True, _nrt=False)
def copy_state(stk, pile, cnt, g, src, dst, players):
    mask = stk.shape[2] - 1
    for s in range(players):
        h = cnt[src, HEAD, s]
        n = cnt[src, SCNT, s]
        for i in range(n):
            stk[dst, s, i] = stk[src, s, (h + i) & mask]
        cnt[dst, HEAD, s] = 0
        cnt[dst, SCNT, s] = n
        m = cnt[src, PCNT, s]
        for i in range(m):
            pile[dst, s, i] = pile[src, s, i]
        cnt[dst, PCNT, s] = m
        cnt[dst, ELIM, s] = cnt[src, ELIM, s]
    for f in range(g.shape[1]):
        g[dst, f] = g[src, f]


@njit(cache=True, _nrt=False, inline="always")
def same_position(stk, pile, cnt, g, a, b, players):
    """Whether copies ``a`` and ``b`` stand in the same position (§2.9)."""
    if g[a, LEADER] != g[b, LEADER]:
        return False
    for s in range(players):
        if cnt[a, SCNT, s] != cnt[b, SCNT, s] or cnt[a, PCNT, s] != cnt[b, PCNT, s]:
            return False
    mask = stk.shape[2] - 1
    for s in range(players):
        ha = cnt[a, HEAD, s]
        hb = cnt[b, HEAD, s]
        for i in range(cnt[a, SCNT, s]):
            if stk[a, s, (ha + i) & mask] != stk[b, s, (hb + i) & mask]:
                return False
        for i in range(cnt[a, PCNT, s]):
            if pile[a, s, i] != pile[b, s, i]:
                return False
    return True


# phases of play_game
MAIN, LATE, ADVANCE, MU1, MU2 = 0, 1, 2, 3, 4


@njit(cache=True, _nrt=False)
def play_game(stk, pile, cnt, g, tab, sm, buf, prm, players, stop, rng, out, row, out_elim):
    """Play one game from the position in copy START until it ends or its rounds reach
    ``stop`` (the rules' ``max_rounds``, or a lower horizon: either way the game reads as
    capped there), write its result row and return the copy that holds the final position.

    One loop with a single round call site (rounds are inlined; a call passing arrays costs
    more than a round), run as a small state machine:

    - MAIN plays copy 0 with the end checks and Brent's comparison against copy 3;
    - LATE, at the cap with detection on, plays copy 1 on from the capped position to see if
      it comes back (a cycle Brent would only have noticed after the cap);
    - ADVANCE puts copy 2 λ rounds ahead of copy 1 (both from the start), then MU1/MU2 step
      them together until they meet: at round μ of copy 1, copy 2 stands at round μ + λ.
    """
    # numba would compile a callee once per literal argument; these are plain int64
    C0, C1, C2, C3, CS = np.int64(0), np.int64(1), np.int64(2), np.int64(3), np.int64(START)
    copy_state(stk, pile, cnt, g, CS, C0, players)
    detect = prm[CYCLES]
    rounds0 = g[START, ROUNDS]
    k_res = 0
    cstart = -1
    clen = -1
    if detect:
        copy_state(stk, pile, cnt, g, C0, C3, players)
    power = 1
    lam = 0
    phase = MAIN
    steps = 0
    mu = 0
    while True:
        if phase == MAIN:
            code = end_check(cnt, g, 0, players, stop)
            if code >= 0:
                if code != CAPPED or not detect:
                    break
                copy_state(stk, pile, cnt, g, C0, C1, players)
                steps = 0
                phase = LATE
                continue
            if detect and lam > 0:
                if same_position(stk, pile, cnt, g, 0, 3, players):
                    clen = lam
                    copy_state(stk, pile, cnt, g, CS, C1, players)
                    copy_state(stk, pile, cnt, g, CS, C2, players)
                    steps = 0
                    phase = ADVANCE
                    continue
                if lam == power:
                    copy_state(stk, pile, cnt, g, C0, C3, players)
                    power *= 2
                    lam = 0
            lam += 1
            k = 0
        elif phase == LATE:
            if steps > 0 and same_position(stk, pile, cnt, g, 0, 1, players):
                clen = steps
                copy_state(stk, pile, cnt, g, CS, C1, players)
                copy_state(stk, pile, cnt, g, CS, C2, players)
                steps = 0
                phase = ADVANCE
                continue
            alive = 0
            for s in range(players):
                if cnt[1, SCNT, s] + cnt[1, PCNT, s] > 0:
                    alive += 1
            # a cycle closed before the cap is at most stop - rounds0 long
            if steps >= stop - rounds0 or alive < 2:
                break  # no cycle closed before the cap: copy 0 is capped
            steps += 1
            k = 1
        elif phase == ADVANCE:
            if steps == clen:
                phase = MU1
                continue
            steps += 1
            k = 2
        elif phase == MU1:
            if same_position(stk, pile, cnt, g, 1, 2, players):
                if rounds0 + mu + clen < stop:
                    k_res = 2
                    cstart = rounds0 + mu
                    g[2, OUTCOME] = CYCLE
                    g[2, WINNER] = -1
                else:
                    clen = -1
                break
            k = 1
            phase = MU2
        else:
            k = 2
            phase = MU1
            mu += 1
        # MAIN: the game ended; LATE: copy 1 ended, copy 0 stays capped (replays never end)
        if play_round(stk, pile, cnt, g, tab, sm, buf, k, prm, players, rng) and phase <= LATE:
            break
    out[row, R_OUTCOME] = g[k_res, OUTCOME]
    out[row, R_WINNER] = g[k_res, WINNER]
    out[row, R_ROUNDS] = g[k_res, ROUNDS]
    out[row, R_SHOWDOWNS] = g[k_res, SHOWDOWNS]
    out[row, R_NELIM] = g[k_res, NELIM]
    out[row, R_CSTART] = cstart
    out[row, R_CLEN] = clen
    for i in range(g[k_res, NELIM]):
        out_elim[row, i] = cnt[k_res, ELIM, i]
    return k_res


@njit(cache=True)
def play_any(stk, pile, cnt, g, tab, sm, buf, prm, players, init, ilen, dealer, rng, out, row,
             out_elim):
    """Play one game with the fast two-player kernel when it applies, else the general one."""
    if fast_ok(prm, players) and play2(prm, init, ilen, dealer, rng, stk[0], stk[3], tab, buf,
                                       out, row, out_elim) == 0:
        return
    load(stk, cnt, g, np.int64(START), players, init, ilen, dealer)
    play_game(stk, pile, cnt, g, tab, sm, buf, prm, players, prm[MAX_ROUNDS], rng, out, row,
              out_elim)


@njit(cache=True)
def play_stacks(prm, players, init, ilen, dealers, seeds, cap):
    """Play games from given stacks: ``init[G, P, n]`` strengths, ``ilen[G, P]``, ``dealers[G]``
    (the first leader), ``seeds[G]`` (generator states for shuffling rules)."""
    games = init.shape[0]
    out = np.zeros((games, N_RESULT), np.int64)
    out_elim = np.full((games, PMAX), -1, np.int64)
    stk, pile, cnt, g, tab, sm, buf = make_work(cap)
    rng = np.zeros(1, np.uint64)
    for i in range(games):
        rng[0] = seeds[i]
        play_any(stk, pile, cnt, g, tab, sm, buf, prm, players[i], init[i], ilen[i],
                 dealers[i], rng, out, i, out_elim)
    return out, out_elim


@njit(cache=True)
def fill_positions(flat, ilen, plen, init, pinit):
    """Spread ``flat`` (every position's stacks and piles, seat by seat, stack before pile)
    into ``init`` and ``pinit`` by the lengths ``ilen`` and ``plen``."""
    k = 0
    for g in range(ilen.shape[0]):
        for s in range(ilen.shape[1]):
            for i in range(ilen[g, s]):
                init[g, s, i] = flat[k]
                k += 1
            for i in range(plen[g, s]):
                pinit[g, s, i] = flat[k]
                k += 1


@njit(cache=True)
def play_positions(prm, players, init, ilen, pinit, plen, starts, stops, seeds, cap):
    """Continue games from positions between rounds: stacks ``init[G, P, n]`` (top first) and
    won piles ``pinit[G, P, n]`` as strengths with lengths ``ilen``/``plen[G, P]``, start
    vectors ``starts[G, N_START]`` (leader, rounds and showdowns so far, who went out), the
    round ``stops[G]`` to stop at (at most ``max_rounds``) and generator states ``seeds[G]``.

    Returns the result rows, the eliminated seats and each seat's cards at the end
    (``[G, PMAX]``). Cycle detection remembers positions from the given one on.
    """
    games = init.shape[0]
    out = np.zeros((games, N_RESULT), np.int64)
    out_elim = np.full((games, PMAX), -1, np.int64)
    counts = np.zeros((games, PMAX), np.int64)
    stk, pile, cnt, g, tab, sm, buf = make_work(cap)
    rng = np.zeros(1, np.uint64)
    cs = np.int64(START)
    for i in range(games):
        rng[0] = seeds[i]
        p = players[i]
        load_position(stk, pile, cnt, g, cs, p, init[i], ilen[i], pinit[i], plen[i], starts[i])
        k = play_game(stk, pile, cnt, g, tab, sm, buf, prm, p, stops[i], rng, out, i, out_elim)
        for s in range(p):
            counts[i, s] = cnt[k, SCNT, s] + cnt[k, PCNT, s]
    return out, out_elim, counts


@njit(cache=True)
def simulate_range(prm, strength, players, equal, dealer_fixed, seed, first, count_, cap,
                   out, out_elim, out_row0):
    """Deal and play games ``first .. first + count_ - 1`` of a seeded run into rows from
    ``out_row0``: game ``i`` is dealt from ``derive_seed(seed, i)`` and the same generator goes
    on into play."""
    deck = strength.shape[0]
    stk, pile, cnt, g, tab, sm, buf = make_work(cap)
    rng = np.zeros(1, np.uint64)
    cards = np.zeros(deck, np.int64)
    seat_len = np.zeros(PMAX, np.int64)
    init = np.zeros((PMAX, cap), np.uint8)
    for i in range(count_):
        rng[0], dealer = deal_s(derive_seed1(seed, first + i), players, deck, equal,
                                dealer_fixed, cards, strength, init, seat_len)
        play_any(stk, pile, cnt, g, tab, sm, buf, prm, players, init, seat_len, dealer, rng,
                 out, out_row0 + i, out_elim)


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
