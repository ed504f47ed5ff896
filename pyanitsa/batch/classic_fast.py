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

from pyanitsa.batch import pieces
from pyanitsa.batch.encode import (
    CAPPED,
    CYCLES,
    DRAW,
    MAX_ROUNDS,
    MISERE,
    ORDER,
    PICKUP_TO,
    PLAIN,
    WIN,
)
from pyanitsa.batch.pieces import DRAWN, TAKEN

WATCH_FROM = 1024
"""Rounds before the kernel starts looking for a repeated position. A cycle, once entered,
repeats for ever, so looking late only delays noticing it (the general engine then finds μ and
λ exactly), and games shorter than this pay nothing for detection."""


@njit(cache=True, _nrt=False)
def fast_ok(prm, players):
    """Whether :func:`play2` plays games of these rules."""
    return players == 2 and prm[PICKUP_TO] == 0


@njit(cache=True, _nrt=False, inline="always")
def lay(stk, seat, h, n, tab, nt, step, stakes, down_up, mask):
    """A seat's dispute step: its face-down cards and its next face card onto the table at
    ``nt``; returns ``(face, h, n, nt)`` after them."""
    for _ in range(pieces.face_down(down_up, stakes, n)):
        nt = pieces.lay_card(tab, nt, stk[seat, h], seat, step)
        h = (h + 1) & mask
        n -= 1
    c = stk[seat, h]
    return c, (h + 1) & mask, n - 1, pieces.lay_card(tab, nt, c, seat, step)


@njit(cache=True, _nrt=False, inline="always")
def snapshot(stk, snap, h_a, n_a, h_b, n_b, mask):
    """Copy both stacks where Brent's comparison will look for them; returns where they are."""
    for i in range(n_a):
        snap[0, (h_a + i) & mask] = stk[0, (h_a + i) & mask]
    for i in range(n_b):
        snap[1, (h_b + i) & mask] = stk[1, (h_b + i) & mask]
    return h_a, n_a, h_b, n_b


@njit(cache=True, _nrt=False, inline="always")
def dispute2(prm, stk, tab, cont, left, a, b, h_a, n_a, h_b, n_b, mask):
    """A tied round (``a == b``) to its end: ``(end, w, h_a, n_a, h_b, n_b, nt, showdowns)``,
    the table's ``nt`` cards in ``tab`` and the showdowns after the first."""
    plain, ranks, _, _ = pieces.showdown_rules(prm)
    down_up, stakes, ex = pieces.dispute_rules(prm)
    nt = pieces.lay_card(tab, pieces.lay_card(tab, 0, a, 0, 0), b, 1, 0)
    step = 0
    while a == b:
        if n_a == 0 or n_b == 0:
            cont[0], cont[1], left[0], left[1] = 0, 1, n_a, n_b
            end, w, _ = pieces.exhausted_rule(ex, cont, left, 2)
            return end, w, h_a, n_a, h_b, n_b, nt, step
        step += 1
        a, h_a, n_a, nt = lay(stk, 0, h_a, n_a, tab, nt, step, stakes, down_up, mask)
        b, h_b, n_b, nt = lay(stk, 1, h_b, n_b, tab, nt, step, stakes, down_up, mask)
    return TAKEN, pieces.winner2(prm, plain, ranks, a, b), h_a, n_a, h_b, n_b, nt, step


@njit(cache=True, _nrt=False, inline="always")
def under(stk, seat, h, n, c, mask):
    """Card ``c`` under ``seat``'s stack; returns its new size."""
    stk[seat, (h + n) & mask] = c
    return n + 1


@njit(cache=True, _nrt=False, inline="always")
def round2(prm, stk, tab, buf, cont, left, a, b, h_a, n_a, h_b, n_b, how, plain, s, mask):
    """A round after its two face cards ``a`` and ``b`` were drawn: the dispute if they tie,
    then the won cards under the winner's stack. Returns ``(end, h_a, n_a, h_b, n_b,
    showdowns, s)``: how it ended (:data:`TAKEN` or the exhausted rule's end), the stacks
    after it, the showdowns after the first and the shuffle state ``s``. ``how`` and ``plain``
    are ``prm``'s own (the caller may know them when compiling)."""
    if a != b:  # no dispute (most rounds): two cards under the winner's stack
        _, ranks, _, _ = pieces.showdown_rules(prm)
        w = pieces.winner2(prm, plain, ranks, a, b)
        a_first, s = pieces.pair_first(how, a, b, w, s)
        c1, c2 = (a, b) if a_first else (b, a)
        if w == 0:
            n_a = under(stk, 0, h_a, under(stk, 0, h_a, n_a, c1, mask), c2, mask)
        else:
            n_b = under(stk, 1, h_b, under(stk, 1, h_b, n_b, c1, mask), c2, mask)
        return TAKEN, h_a, n_a, h_b, n_b, 0, s
    end, w, h_a, n_a, h_b, n_b, nt, more = dispute2(prm, stk, tab, cont, left, a, b, h_a, n_a,
                                                   h_b, n_b, mask)
    if end == TAKEN:
        s = pieces.order_table(tab, buf, nt, how, w, 0, 2, s)
        for j in range(nt):
            if w == 0:
                n_a = under(stk, 0, h_a, n_a, buf[j], mask)
            else:
                n_b = under(stk, 1, h_b, n_b, buf[j], mask)
    return end, h_a, n_a, h_b, n_b, more, s


def _compiled(order):
    """:func:`play2` compiled for one ``pickup_order`` code and plain rank order, or for every
    rule (``order < 0``: both read from ``prm``). numba freezes a closure's variables into the
    machine code, so the copy for war-52's rules (``winner_first``, no ``weakest_beats_ace``)
    has no per-round branch on them: ~10% of its speed, for one more compilation of a body
    written once."""

    @njit(cache=True, _nrt=False)
    def play(prm, init, ilen, dealer, rng, stk, snap, tab, buf, cont, left, out, row, out_elim):
        mask = pieces.ring_mask(stk.shape[1])
        n_a, n_b = ilen[dealer], ilen[1 - dealer]
        if n_a == 0 or n_b == 0:
            return 1
        for i in range(n_a):
            stk[0, i] = init[dealer, i]
        for i in range(n_b):
            stk[1, i] = init[1 - dealer, i]
        detect, max_rounds = prm[CYCLES], prm[MAX_ROUNDS]
        how = prm[ORDER] if order < 0 else order
        plain = prm[PLAIN] if order < 0 else 1
        s = rng[0]
        h_a = h_b = rounds = steps = lam = 0
        power = 1
        s_ha, s_na, s_hb, s_nb = 0, n_a, 0, n_b
        outcome = -1
        # one test a round for both the cap and Brent's watch
        slow_from = min(max_rounds, WATCH_FROM) if detect else max_rounds
        while n_a > 0 and n_b > 0:
            if rounds >= slow_from:
                if rounds >= max_rounds:
                    if detect:
                        return 1
                    outcome = CAPPED
                    break
                if (rounds > WATCH_FROM and n_a == s_na and n_b == s_nb
                        and pieces.same_ring(stk[0], h_a, snap[0], s_ha, n_a, mask)
                        and pieces.same_ring(stk[1], h_b, snap[1], s_hb, n_b, mask)):
                    return 1
                now, lam, power = pieces.brent(lam, power)
                if now or rounds == WATCH_FROM:
                    s_ha, s_na, s_hb, s_nb = snapshot(stk, snap, h_a, n_a, h_b, n_b, mask)
            rounds += 1
            a, b = stk[0, h_a], stk[1, h_b]
            h_a, h_b = (h_a + 1) & mask, (h_b + 1) & mask
            n_a -= 1
            n_b -= 1
            end, h_a, n_a, h_b, n_b, more, s = round2(prm, stk, tab, buf, cont, left, a, b, h_a,
                                                      n_a, h_b, n_b, how, plain, s, mask)
            steps += more
            if end == DRAWN:
                outcome = DRAW
                break
        rng[0] = s
        finish2(out, row, out_elim, outcome, rounds, rounds + steps, n_a, n_b, dealer, prm[MISERE])
        return 0

    return play


_PLAY_WAR = _compiled(pieces.WINNER_FIRST)
_PLAY_ANY = _compiled(-1)


@njit(cache=True, _nrt=False)
def play2(prm, init, ilen, dealer, rng, stk, snap, tab, buf, cont, left, out, row, out_elim):
    """Play a two-player game with ``pickup_to: bottom``; returns 1 to hand it to the general
    engine (nothing written), else 0 with the result row written. Seats are relabelled so
    the leader is 0.

    ``stk`` and ``snap`` uint8[2, cap], ``tab`` int64[4, cap], ``buf`` uint8[cap], ``cont``
    and ``left`` int64[2] are scratch.
    """
    if prm[ORDER] == pieces.WINNER_FIRST and prm[PLAIN]:
        return _PLAY_WAR(prm, init, ilen, dealer, rng, stk, snap, tab, buf, cont, left, out, row,
                         out_elim)
    return _PLAY_ANY(prm, init, ilen, dealer, rng, stk, snap, tab, buf, cont, left, out, row,
                     out_elim)


@njit(cache=True, _nrt=False, inline="always")
def finish2(out, row, out_elim, outcome, rounds, showdowns, n_a, n_b, dealer, misere):
    """The result row of a game that ended (``outcome``) or in which a seat ran out (-1)."""
    nelim = 0
    winner = -1
    if outcome < 0:
        if n_a == 0:
            out_elim[row, nelim] = dealer
            nelim += 1
        if n_b == 0:
            out_elim[row, nelim] = 1 - dealer
            nelim += 1
        outcome = DRAW if nelim == 2 and not misere else WIN
        if outcome == WIN:
            winner = out_elim[row, 0] if misere else (1 - dealer if n_a == 0 else dealer)
    pieces.write_row(out, row, outcome, winner, rounds, showdowns, nelim, -1, -1)
