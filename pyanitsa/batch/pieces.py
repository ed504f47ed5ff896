"""Each classic rule once, as small pieces numba inlines into every kernel that plays it.

The general kernel (:mod:`pyanitsa.batch.classic`, any number of seats, won piles) and the
two-player kernel (:mod:`pyanitsa.batch.classic_fast`, counters in locals) keep their cards
differently, so what they share is the rule: who beats whom (§1, §2.3), how many cards a
dispute step puts down (§2.4), what an exhausted dispute does (§2.6), the order a won table
goes under (§2.5) and the repeat test and schedule of cycle detection (§2.9). The tactical core
and the search kernels read the same showdown; the tactical rules after it are the pieces of
:mod:`pyanitsa.batch.tactical_pieces`.

Cards are strengths; ``tab`` is the table scratch ``int64[4, cap]``: card, owner, dispute step
and a sort key by row, one column per card in the order they went down.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pyanitsa.batch.encode import (
    BEATS,
    CODES,
    DISPUTE,
    EXHAUSTED,
    PLAIN,
    R_CLEN,
    R_CSTART,
    R_NELIM,
    R_OUTCOME,
    R_ROUNDS,
    R_SHOWDOWNS,
    R_WINNER,
    RANKS,
    STAKES,
    WEAKEST,
    WEAKEST_WINS,
)
from pyanitsa.batch.rng import randbelow_s, shuffle_s

# The codes the pieces branch on, by name (CODES comes from the Literal types of Rules): a
# renamed value fails here, at import.
TAKES_POT, EARLIEST_WINS, DROPS_OUT, EX_DISCARD, EX_DRAW = (
    CODES["dispute_exhausted"][v]
    for v in ("takes_pot", "earliest_wins", "drops_out", "discard", "draw"))
TABLE, BY_SEAT, WINNER_FIRST, LOSER_FIRST, HIGH_FIRST, LOW_FIRST, NATURAL, SHUFFLED = (
    CODES["pickup_order"][v] for v in ("table", "by_seat", "winner_first", "loser_first",
                                       "high_first", "low_first", "natural", "shuffled"))

PLAYED: dict[str, tuple[int, ...]] = {
    "dispute_exhausted": (TAKES_POT, EARLIEST_WINS, DROPS_OUT, EX_DISCARD, EX_DRAW),
    "pickup_order": (TABLE, BY_SEAT, WINNER_FIRST, LOSER_FIRST, HIGH_FIRST, LOW_FIRST, NATURAL,
                     SHUFFLED),
    **{option: tuple(CODES[option][v] for v in values) for option, values in (
        ("mode", ("classic", "tactical")), ("deal", ("all", "equal")),
        ("dispute", ("one_up", "down_up")), ("pickup_to", ("bottom", "won_pile")),
        ("refill", ("turn_over", "shuffle")), ("cycle_rule", ("void", "weakest_wins")))},
}
"""The codes the pieces have a branch for. A value added to a ``Literal`` gets a code but no
branch until its piece is written, and ``encode.code`` refuses it by name meanwhile (rather
than a kernel's last ``else`` playing it as some other value)."""

# how a round (or a dispute that ran out of cards) ends; GO_ON: the dispute goes on
TAKEN, VOID, DISCARD, DRAWN, GO_ON = 0, 1, 2, 3, 4
# rows of ``tab``
TC, TO, TS, TK = 0, 1, 2, 3


@njit(cache=True, _nrt=False, inline="always")
def showdown_rules(prm):
    """What a showdown reads from the parameter vector besides its beats table: ``(plain,
    ranks, weakest, weakest_wins)`` (hoist it out of loops; ``ranks`` is the table's side,
    ``plain`` says the table is plain rank order)."""
    return prm[PLAIN], prm[RANKS], prm[WEAKEST], prm[WEAKEST_WINS]


@njit(cache=True, _nrt=False, inline="always")
def dispute_rules(prm):
    """What a dispute reads from it: ``(down_up, stakes, dispute_exhausted code)``."""
    return prm[DISPUTE], prm[STAKES], prm[EXHAUSTED]


@njit(cache=True, _nrt=False, inline="always")
def winner2(prm, plain, ranks, a, b):
    """0 if the leader's ``a`` beats ``b``, else 1 (``a != b``), by the beats table."""
    if plain:  # the table's lookup cost war-52 13% of its speed; plain order is a comparison
        return 0 if a > b else 1
    return 0 if prm[BEATS + a * ranks + b] else 1


@njit(cache=True, _nrt=False, inline="always")
def unbeaten(prm, ranks, faces, n):
    """The face of ``faces[:n]`` that no other beats, or -1 if each is beaten (a cycle)."""
    for j in range(n):
        c = faces[j]
        beaten = False
        for k in range(n):
            if prm[BEATS + faces[k] * ranks + c]:
                beaten = True
                break
        if not beaten:
            return np.int64(c)
    return np.int64(-1)


@njit(cache=True, _nrt=False, inline="always")
def top_set(prm, ranks, weakest, weakest_wins, faces, n, idx):
    """Indices of the unbeaten faces into ``idx``; returns how many, or -1 for a void cycle
    (every face beaten, ``cycle_rule: void``; ``weakest_wins``: the weakest faces win)."""
    best = np.int64(faces[0])
    for j in range(1, n):
        if faces[j] > best:
            best = np.int64(faces[j])
    if prm[BEATS + ranks * ranks + best]:  # a lower rank beats the highest: look further
        best = unbeaten(prm, ranks, faces, n)
        if best < 0:
            if not weakest_wins:
                return -1
            best = weakest
    m = 0
    for j in range(n):
        if faces[j] == best:
            idx[m] = j
            m += 1
    return m


@njit(cache=True, _nrt=False, inline="always")
def face_down(down_up, stakes, held):
    """Cards a contender holding ``held`` puts face down before its face card in a dispute
    step: ``stakes`` with ``down_up``, fewer to keep one for the face."""
    if not down_up:
        return 0
    return min(stakes, held - 1)


@njit(cache=True, _nrt=False, inline="always")
def lay_card(tab, nt, c, seat, step):
    """Card ``c`` of ``seat`` onto the table at ``nt`` in dispute step ``step``; returns
    ``nt + 1``."""
    tab[TC, nt] = c
    tab[TO, nt] = seat
    tab[TS, nt] = step
    return nt + 1


@njit(cache=True, _nrt=False, inline="always")
def exhausted_rule(ex, cont, left, nc):
    """``dispute_exhausted`` (§2.6) when a contender of ``cont[:nc]`` (in play order) has no
    card for the next step; ``left[:nc]`` their cards. Returns ``(end, winner, nc)``: TAKEN by
    ``winner``, DISCARD, DRAWN, or GO_ON with the contenders left (``drops_out``) compacted."""
    if ex == TAKES_POT:
        for j in range(nc):
            if left[j] == 0:
                return TAKEN, cont[j], nc
    if ex == EARLIEST_WINS:
        return TAKEN, cont[0], nc
    if ex == EX_DISCARD:
        return DISCARD, -1, nc
    if ex == EX_DRAW:
        return DRAWN, -1, nc
    m = 0
    if ex == DROPS_OUT:
        for j in range(nc):
            if left[j] > 0:
                cont[m] = cont[j]
                left[m] = left[j]
                m += 1
    if m == 1:
        return TAKEN, cont[0], 1
    if m == 0:
        return DISCARD, -1, 0
    return GO_ON, -1, m


@njit(cache=True, _nrt=False, inline="always")
def pickup_key(how, c, owner, step, winner, lead, players):
    """Where card ``c`` goes in a fixed ``pickup_order`` (§2.5): a stable sort by this key puts
    the table in that order (lower first)."""
    c = np.int64(c)  # stacks hold uint8: negated, it must not wrap
    if how == BY_SEAT:  # clockwise from the leader, which is the play order
        d = owner - lead
        return d + players if d < 0 else d
    if how == WINNER_FIRST:
        return 0 if owner == winner else 1
    if how == LOSER_FIRST:
        return 1 if owner == winner else 0
    if how == HIGH_FIRST:
        return -c
    if how == LOW_FIRST:
        return c
    if how == NATURAL:  # later dispute steps first, then the higher card
        return -(step * 256 + c)
    return 0  # table


@njit(cache=True, _nrt=False, inline="always")
def order_table(tab, buf, nt, how, winner, lead, players, s):
    """The table's ``nt`` cards into ``buf`` in ``pickup_order`` ``how``, first to go under
    first; returns the generator state ``s`` (advanced by ``shuffled``)."""
    if how == BY_SEAT or how == WINNER_FIRST or how == LOSER_FIRST:  # noqa: SIM109 (numba)
        # keys 0 .. seats - 1: one pass per key is cheaper than sorting (disputes are hot)
        m = 0
        for v in range(players if how == BY_SEAT else 2):
            for j in range(nt):
                if pickup_key(how, 0, tab[TO, j], 0, winner, lead, players) == v:
                    buf[m] = tab[TC, j]
                    m += 1
        return s
    for j in range(nt):
        buf[j] = tab[TC, j]
    if how == SHUFFLED:
        return shuffle_s(buf, nt, s)
    if how == TABLE:
        return s
    for j in range(nt):
        tab[TK, j] = pickup_key(how, tab[TC, j], tab[TO, j], tab[TS, j], winner, lead, players)
    for j in range(1, nt):  # insertion sort: stable, and tables are short
        kj = tab[TK, j]
        cj = buf[j]
        i = j - 1
        while i >= 0 and tab[TK, i] > kj:
            tab[TK, i + 1] = tab[TK, i]
            buf[i + 1] = buf[i]
            i -= 1
        tab[TK, i + 1] = kj
        buf[i + 1] = cj
    return s


@njit(cache=True, _nrt=False, inline="always")
def pair_first(how, a, b, winner, s):
    """:func:`order_table` for a two-card table (leader's ``a``, then ``b``, step 0) without
    writing it out: whether ``a`` goes under first, and the generator state."""
    if how == WINNER_FIRST:  # the commonest order, without the key chain (war-52's)
        return winner == 0, s
    if how == SHUFFLED:  # Fisher-Yates of two cards: one draw, a swap unless it is 1
        s, j = randbelow_s(s, 2)
        return j == 1, s
    return (pickup_key(how, a, 0, 0, winner, 0, 2) <= pickup_key(how, b, 1, 0, winner, 0, 2)), s


@njit(cache=True, _nrt=False, inline="always")
def ring_mask(slots):
    """The index mask of a ring of ``slots`` (a power of two) places, visibly non-negative:
    ``h & mask`` is then a proven non-negative index and numba's negative-index wraparound
    test on every stack access folds away (war-52 plays 16% faster for it)."""
    return (slots - 1) & 0x7FFFFFFF


@njit(cache=True, _nrt=False, inline="always")
def same_ring(x, hx, y, hy, n, mask):
    """Whether ring ``x`` from ``hx`` and ring ``y`` from ``hy`` hold the same ``n`` cards."""
    for i in range(n):  # noqa: SIM110 (numba compiles no generator for all())
        if x[(hx + i) & mask] != y[(hy + i) & mask]:
            return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def brent(lam, power):
    """Brent's schedule, once a round: ``(snapshot now, lam, power)``. The snapshot moves to the
    current position whenever ``lam`` reaches the power of two, so a cycle of length λ is seen
    as a repeat of the snapshot within about 2λ rounds of being entered."""
    if lam == power:
        return True, 1, power * 2
    return False, lam + 1, power


@njit(cache=True, _nrt=False, inline="always")
def write_row(out, row, outcome, winner, rounds, showdowns, nelim, cstart, clen):
    """A classic result row (the columns of encode.py; -1 for no winner, no cycle)."""
    out[row, R_OUTCOME] = outcome
    out[row, R_WINNER] = winner
    out[row, R_ROUNDS] = rounds
    out[row, R_SHOWDOWNS] = showdowns
    out[row, R_NELIM] = nelim
    out[row, R_CSTART] = cstart
    out[row, R_CLEN] = clen


@njit(cache=True, _nrt=False)
def next_permutation(a):
    """Step ``a`` to its next arrangement in lexicographic order, in place; False after the
    last (the enumeration's and the search kernels' walk over distinct orders)."""
    n = a.shape[0]
    i = n - 2
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while a[j] <= a[i]:
        j -= 1
    t = a[i]
    a[i] = a[j]
    a[j] = t
    lo = i + 1
    hi = n - 1
    while lo < hi:
        t = a[lo]
        a[lo] = a[hi]
        a[hi] = t
        lo += 1
        hi -= 1
    return True
