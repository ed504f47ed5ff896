"""A faster classic kernel for the commonest shape: two players, won cards under the stack.

Every other option is covered (disputes and stakes, every ``dispute_exhausted``, every
pickup order including ``shuffled``, ``weakest_beats_ace``, misère). Counters live in locals
and the seats are relabelled so the leader is seat A: with two players the lead never moves
(a player going out ends the game). Cycle detection uses Brent's comparison too, but when it
finds a repeat, or a game reaches ``max_rounds`` with detection on, or a game starts with an
empty stack, the kernel hands the game to the general engine (:func:`classic.play_game`),
which works out μ and λ exactly; those games are rare.
"""

from __future__ import annotations

from numba import njit

from pyanitsa.batch.encode import (
    ACE,
    CAPPED,
    CYCLES,
    DISPUTE,
    DRAW,
    EXHAUSTED,
    MAX_ROUNDS,
    MISERE,
    ORDER,
    PICKUP_TO,
    R_CLEN,
    R_CSTART,
    R_NELIM,
    R_OUTCOME,
    R_ROUNDS,
    R_SHOWDOWNS,
    R_WINNER,
    SPECIAL,
    STAKES,
    WEAKEST,
    WIN,
)
from pyanitsa.batch.rng import randbelow_s, shuffle_s

WATCH_FROM = 1024
"""Rounds before the kernel starts looking for a repeated position. A cycle, once entered,
repeats for ever, so looking late only delays noticing it (the general engine then finds μ and
λ exactly), and games shorter than this pay nothing for detection."""


@njit(cache=True, _nrt=False)
def fast_ok(prm, players):
    """Whether :func:`play2` plays games of these rules."""
    return players == 2 and prm[PICKUP_TO] == 0


@njit(cache=True, _nrt=False, inline="always")
def winner2(a, b, special, weakest, ace):
    """0 if the leader's ``a`` beats ``b``, else 1 (``a != b``)."""
    if special and a == weakest and b == ace:
        return 0
    if special and b == weakest and a == ace:
        return 1
    return 0 if a > b else 1


@njit(cache=True, _nrt=False, inline="always")
def lay(stk, seat, h, n, tab, nt, step, stakes, down_up, mask):
    """A seat's stakes (``down_up``) and its next face card onto the table at ``nt``;
    returns ``(face, h, n, nt)`` after them."""
    if down_up:
        for _ in range(min(stakes, n - 1)):
            tab[0, nt] = stk[seat, h]
            tab[1, nt] = seat
            tab[2, nt] = step
            nt += 1
            h = (h + 1) & mask
            n -= 1
    c = stk[seat, h]
    h = (h + 1) & mask
    n -= 1
    tab[0, nt] = c
    tab[1, nt] = seat
    tab[2, nt] = step
    return c, h, n, nt + 1


@njit(cache=True, _nrt=False, inline="always")
def snapshot(stk, snap, h_a, n_a, h_b, n_b, mask):
    """Copy both stacks where Brent's comparison will look for them."""
    for i in range(n_a):
        snap[0, (h_a + i) & mask] = stk[0, (h_a + i) & mask]
    for i in range(n_b):
        snap[1, (h_b + i) & mask] = stk[1, (h_b + i) & mask]


@njit(cache=True, _nrt=False, inline="always")
def sort_table(tab, buf, nt, how):
    """The table's cards (``tab[0]``, dispute steps in ``tab[2]``) into ``buf``, stably sorted
    for ``high_first`` (4), ``low_first`` (5) or ``natural`` (6); ``tab[3]`` is scratch."""
    for j in range(nt):
        c = tab[0, j]
        if how == 4:
            tab[3, j] = -c
        elif how == 5:
            tab[3, j] = c
        else:
            tab[3, j] = -(tab[2, j] * 256 + c)
        buf[j] = c
    for j in range(1, nt):
        kj = tab[3, j]
        cj = buf[j]
        i = j - 1
        while i >= 0 and tab[3, i] > kj:
            tab[3, i + 1] = tab[3, i]
            buf[i + 1] = buf[i]
            i -= 1
        tab[3, i + 1] = kj
        buf[i + 1] = cj


@njit(cache=True, _nrt=False)
def play2(prm, init, ilen, dealer, rng, stk, snap, tab, buf, out, row, out_elim):
    """Play a two-player game with ``pickup_to: bottom``; returns 1 to hand it to the general
    engine (nothing written), else 0 with the result row written.

    ``stk`` uint8[2, cap] and ``snap`` uint8[2, cap] are scratch; ``tab`` int64[4, cap];
    ``buf`` uint8[cap].
    """
    mask = stk.shape[1] - 1
    other = 1 - dealer
    n_a = ilen[dealer]
    n_b = ilen[other]
    if n_a == 0 or n_b == 0:
        return 1
    for i in range(n_a):
        stk[0, i] = init[dealer, i]
    for i in range(n_b):
        stk[1, i] = init[other, i]
    h_a = 0
    h_b = 0
    detect = prm[CYCLES]
    max_rounds = prm[MAX_ROUNDS]
    special = prm[SPECIAL]
    weakest = prm[WEAKEST]
    ace = prm[ACE]
    down_up = prm[DISPUTE]
    stakes = prm[STAKES]
    ex = prm[EXHAUSTED]
    how = prm[ORDER]
    misere = prm[MISERE]
    s = rng[0]
    rounds = 0
    showdowns = 0
    power = 1
    lam = 0
    s_na = n_a
    s_nb = n_b
    s_ha = 0
    s_hb = 0
    outcome = -1
    winner = -1
    nelim = 0
    while True:
        if rounds >= max_rounds:
            if detect:
                return 1
            outcome = CAPPED
            break
        if detect and rounds >= WATCH_FROM:
            if rounds == WATCH_FROM:
                snapshot(stk, snap, h_a, n_a, h_b, n_b, mask)
                s_na = n_a
                s_nb = n_b
                s_ha = h_a
                s_hb = h_b
            elif n_a == s_na and n_b == s_nb:
                same = True
                for i in range(n_a):
                    if stk[0, (h_a + i) & mask] != snap[0, (s_ha + i) & mask]:
                        same = False
                        break
                if same:
                    for i in range(n_b):
                        if stk[1, (h_b + i) & mask] != snap[1, (s_hb + i) & mask]:
                            same = False
                            break
                if same:
                    return 1
            if lam == power:
                snapshot(stk, snap, h_a, n_a, h_b, n_b, mask)
                s_na = n_a
                s_nb = n_b
                s_ha = h_a
                s_hb = h_b
                power *= 2
                lam = 0
            lam += 1
        rounds += 1
        showdowns += 1
        a = stk[0, h_a]
        h_a = (h_a + 1) & mask
        n_a -= 1
        b = stk[1, h_b]
        h_b = (h_b + 1) & mask
        n_b -= 1
        if a != b:
            # no dispute (most rounds): two cards, put straight under the winner's stack
            w = winner2(a, b, special, weakest, ace)
            if how == 7:
                s, j = randbelow_s(s, 2)
                a_first = j == 1
            elif how <= 1:
                a_first = True
            elif how == 2:
                a_first = w == 0
            elif how == 3:
                a_first = w == 1
            elif how == 5:
                a_first = a < b
            else:  # high_first, natural
                a_first = a > b
            c1 = a if a_first else b
            c2 = b if a_first else a
            if w == 0:
                stk[0, (h_a + n_a) & mask] = c1
                stk[0, (h_a + n_a + 1) & mask] = c2
                n_a += 2
            else:
                stk[1, (h_b + n_b) & mask] = c1
                stk[1, (h_b + n_b + 1) & mask] = c2
                n_b += 2
        else:
            tab[0, 0] = a
            tab[1, 0] = 0
            tab[2, 0] = 0
            tab[0, 1] = b
            tab[1, 1] = 1
            tab[2, 1] = 0
            nt = 2
            step = 0
            take = 1  # 1 taken by `w`, 0 the table leaves the game, 2 the game is drawn
            w = 0
            while True:
                if a != b:
                    w = winner2(a, b, special, weakest, ace)
                    break
                if n_a == 0 or n_b == 0:
                    if ex == 0:  # takes_pot: the first empty one in play order
                        w = 0 if n_a == 0 else 1
                    elif ex == 1:  # earliest_wins
                        w = 0
                    elif ex == 3:  # discard
                        take = 0
                    elif ex == 4:  # draw
                        take = 2
                    elif n_a == 0 and n_b == 0:  # drops_out, nobody left
                        take = 0
                    else:
                        w = 1 if n_a == 0 else 0
                    break
                step += 1
                a, h_a, n_a, nt = lay(stk, 0, h_a, n_a, tab, nt, step, stakes, down_up, mask)
                b, h_b, n_b, nt = lay(stk, 1, h_b, n_b, tab, nt, step, stakes, down_up, mask)
                showdowns += 1
            if take == 2:
                outcome = DRAW
                break
            if take == 1:
                # the pickup order into buf
                if how == 0:
                    for j in range(nt):
                        buf[j] = tab[0, j]
                elif how == 1 or how == 2 or how == 3:
                    # by_seat: A (the leader) first; winner_first: w first; loser_first: 1 - w first
                    first = 0 if how == 1 else (w if how == 2 else 1 - w)
                    m = 0
                    for j in range(nt):
                        if tab[1, j] == first:
                            buf[m] = tab[0, j]
                            m += 1
                    for j in range(nt):
                        if tab[1, j] != first:
                            buf[m] = tab[0, j]
                            m += 1
                elif how == 7:
                    for j in range(nt):
                        buf[j] = tab[0, j]
                    s = shuffle_s(buf, nt, s)
                else:
                    sort_table(tab, buf, nt, how)
                if w == 0:
                    for j in range(nt):
                        stk[0, (h_a + n_a + j) & mask] = buf[j]
                    n_a += nt
                else:
                    for j in range(nt):
                        stk[1, (h_b + n_b + j) & mask] = buf[j]
                    n_b += nt
        if n_a == 0 or n_b == 0:
            if n_a == 0:
                out_elim[row, nelim] = dealer
                nelim += 1
            if n_b == 0:
                out_elim[row, nelim] = other
                nelim += 1
            if misere:
                outcome = WIN
                winner = out_elim[row, 0]
            elif nelim == 2:
                outcome = DRAW
            else:
                outcome = WIN
                winner = other if n_a == 0 else dealer
            break
    rng[0] = s
    if outcome != WIN:
        winner = -1
    out[row, R_NELIM] = nelim
    out[row, R_OUTCOME] = outcome
    out[row, R_WINNER] = winner
    out[row, R_ROUNDS] = rounds
    out[row, R_SHOWDOWNS] = showdowns
    out[row, R_CSTART] = -1
    out[row, R_CLEN] = -1
    return 0
