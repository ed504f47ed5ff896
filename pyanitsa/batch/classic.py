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

The rules are the pieces of :mod:`pyanitsa.batch.pieces` (showdown, dispute step, exhausted
dispute, pickup order, repeat test), shared with the two-player kernel; the arrays' layout and
one round are in :mod:`pyanitsa.batch.classic_round`, and this module plays whole games.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pyanitsa.batch.classic_fast import fast_ok, play2
from pyanitsa.batch.classic_round import (
    CONT,
    ELIM,
    HEAD,
    IDX,
    LEADER,
    N_START,
    NELIM,
    OUTCOME,
    PCNT,
    PMAX,
    ROUNDS,
    SCNT,
    SHOWDOWNS,
    ST_ELIM,
    ST_LEADER,
    ST_NELIM,
    ST_ROUNDS,
    ST_SHOWDOWNS,
    START,
    WINNER,
    alive,
    end_check,
    make_work,
    pass_lead,
    play_round,
)
from pyanitsa.batch.encode import (
    CAPPED,
    CYCLE,
    CYCLES,
    MAX_ROUNDS,
    N_RESULT,
    R_OUTCOME,
    R_ROUNDS,
    R_SHOWDOWNS,
    R_WINNER,
)
from pyanitsa.batch.pieces import (
    DISCARD,
    DRAWN,
    TAKEN,
    VOID,
    brent,
    ring_mask,
    same_ring,
    top_set,
    write_row,
)
from pyanitsa.batch.rng import deal_s, derive_seed1

__all__ = ["N_RESULT", "R_OUTCOME", "R_ROUNDS", "R_SHOWDOWNS", "R_WINNER", "TAKEN", "VOID",
           "DISCARD", "DRAWN", "top_set", "PMAX", "N_START", "ST_ROUNDS", "make_work"]
# read from here by api.py, enumerate.py, the tactical core and the search kernels


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
    mask = ring_mask(stk.shape[2])
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
    mask = ring_mask(stk.shape[2])
    for s in range(players):
        if not (same_ring(stk[a, s], cnt[a, HEAD, s], stk[b, s], cnt[b, HEAD, s],
                          cnt[a, SCNT, s], mask)
                and same_ring(pile[a, s], 0, pile[b, s], 0, cnt[a, PCNT, s], mask)):
            return False
    return True


# phases of play_game
MAIN, LATE, ADVANCE, MU1, MU2 = 0, 1, 2, 3, 4


@njit(cache=True, _nrt=False, inline="always")
def write_result(cnt, g, k, cstart, clen, out, row, out_elim):
    """Copy ``k``'s result into row ``row`` (with the cycle's start and length, or -1)."""
    write_row(out, row, g[k, OUTCOME], g[k, WINNER], g[k, ROUNDS], g[k, SHOWDOWNS], g[k, NELIM],
              cstart, clen)
    for i in range(g[k, NELIM]):
        out_elim[row, i] = cnt[k, ELIM, i]


@njit(cache=True, _nrt=False, inline="always")
def replay_from_start(stk, pile, cnt, g, players):
    """Copies 1 and 2 back to the start, to find μ once λ is known; returns the new phase."""
    copy_state(stk, pile, cnt, g, np.int64(START), np.int64(1), players)
    copy_state(stk, pile, cnt, g, np.int64(START), np.int64(2), players)
    return ADVANCE


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
    C0, C1, C3, CS = np.int64(0), np.int64(1), np.int64(3), np.int64(START)
    copy_state(stk, pile, cnt, g, CS, C0, players)
    detect = prm[CYCLES]
    rounds0 = g[START, ROUNDS]
    k_res = 0
    cstart = clen = -1
    if detect:
        copy_state(stk, pile, cnt, g, C0, C3, players)
    power = 1
    lam = steps = mu = 0
    phase = MAIN
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
            if detect and lam > 0 and same_position(stk, pile, cnt, g, 0, 3, players):
                clen, steps, phase = lam, 0, replay_from_start(stk, pile, cnt, g, players)
                continue
            now, lam, power = brent(lam, power)
            if detect and now:
                copy_state(stk, pile, cnt, g, C0, C3, players)
            k = 0
        elif phase == LATE:
            if steps > 0 and same_position(stk, pile, cnt, g, 0, 1, players):
                clen, steps, phase = steps, 0, replay_from_start(stk, pile, cnt, g, players)
                continue
            # a cycle closed before the cap is at most stop - rounds0 long
            if steps >= stop - rounds0 or alive(cnt, 1, players) < 2:
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
    write_result(cnt, g, k_res, cstart, clen, out, row, out_elim)
    return k_res


@njit(cache=True)
def play_any(stk, pile, cnt, g, tab, sm, buf, prm, players, init, ilen, dealer, rng, out, row,
             out_elim):
    """Play one game with the fast two-player kernel when it applies, else the general one."""
    if fast_ok(prm, players) and play2(prm, init, ilen, dealer, rng, stk[0], stk[3], tab, buf,
                                       sm[CONT], sm[IDX], out, row, out_elim) == 0:
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
