"""Compiled (numba) kernels for the search agents: tactical games on rank orders.

Suits never matter in a tactical game, and neither do the cards' identities for the score (a
копилка's score is its size; a split gives each tied player ``pot // k``), so these kernels play
*rank orders*: ``int8`` arrays of rank indices (:mod:`pyanitsa.ranks`), first played first.
They give exactly :class:`pyanitsa.tactical.TacticalGame`'s scores, which
``tests/test_agents_search.py`` checks on thousands of random hands, ties, splits, void cycles,
``weakest_beats_ace`` and misère included.

Games are played by the batch core: :func:`pyanitsa.batch.tactical.play_pair` for two players
and :func:`pyanitsa.batch.tactical.play_hands` for more (the showdown of RULES.md §1; rank
indices order cards exactly as the core's strengths do). What is left here is search: scoring
candidates against samples, and the two-player local search, which resumes games from cached
prefixes (a neighbour replays only the showdowns its change can reach). That one compares
through a table ``cmp[a, b]``: +1 if rank ``a`` beats rank ``b``, -1 if it loses, 0 for a tie
(two players never meet a cycle: it takes three contenders).

What a game is worth to "me" (seat 0 of the kernel) is ``cw * win + cm * margin + cs * score``:
``win`` is my share of the win (1, 1/k when k seats share it, else 0), ``margin`` my score minus
the best opponent score, ``score`` my score; under misère the lowest score wins, ``margin`` is
the lowest opponent score minus mine and ``score`` is minus my score.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
from numba import njit, prange

from pyanitsa.batch.classic import PMAX
from pyanitsa.batch.enumerate import next_permutation
from pyanitsa.batch.tactical import N_TRESULT, T_REMOVED, hand_scratch, play_hands, play_pair
from pyanitsa.ranks import RankTable


def cmp_table(table: RankTable) -> np.ndarray:
    """``cmp[a, b]``: +1 if rank ``a`` beats rank ``b`` in a two-card showdown, -1, or 0."""
    r = table.num_ranks
    out = np.zeros((r, r), np.int8)
    for a in range(r):
        for b in range(r):
            out[a, b] = 1 if table.beats(a, b) else (-1 if table.beats(b, a) else 0)
    return out


def pair_judge(table: RankTable) -> tuple[int, int, int]:
    """``(special, weakest, ace)`` for the batch core's two-player game."""
    return int(table.special), table.weakest, table.ace


def judge_params(table: RankTable, cycle_rule: str) -> tuple[int, int, int, int]:
    """``(special, weakest, ace, weakest_wins)`` for the batch core's showdown."""
    return (int(table.special), table.weakest, table.ace, int(cycle_rule == "weakest_wins"))


# -- two players -----------------------------------------------------------------------------


@njit(cache=True, parallel=True)
def margin_matrix2(rows, row_len, cols, col_len, special, weakest, ace):
    """``out[i, j]`` = seat 0's score minus seat 1's when ``rows[i]`` meets ``cols[j]``."""
    k = rows.shape[0]
    m = cols.shape[0]
    out = np.empty((k, m), np.int16)
    for i in prange(k):
        a = rows[i]
        for j in range(m):
            s0, s1, _, _, _ = play_pair(a, cols[j], row_len, col_len, special, weakest, ace)
            out[i, j] = s0 - s1
    return out


@njit(cache=True)
def scores2(rows, row_len, cols, col_len, special, weakest, ace):
    """``(s0[i], s1[i])`` of ``rows[i]`` against ``cols[i]``, pair by pair."""
    n = rows.shape[0]
    s0 = np.empty(n, np.int64)
    s1 = np.empty(n, np.int64)
    for i in range(n):
        s0[i], s1[i], _, _, _ = play_pair(rows[i], cols[i], row_len, col_len, special, weakest,
                                          ace)
    return s0, s1


@njit(cache=True)
def _value2(s0, s1, misere, cw, cm, cs):
    if misere:
        margin = s1 - s0
        score = -s0
    else:
        margin = s0 - s1
        score = s0
    if margin > 0:
        win = 1.0
    elif margin == 0:
        win = 0.5
    else:
        win = 0.0
    return cw * win + cm * margin + cs * score


@njit(cache=True)
def evaluate2(cands, n, opp, m, weights, special, weakest, ace, misere, cw, cm, cs):
    """Weighted mean value of each candidate order ``cands[k, :n]`` over the opponent orders
    ``opp[s, :m]`` (weights sum to 1)."""
    k = cands.shape[0]
    out = np.zeros(k, np.float64)
    for c in range(k):
        a = cands[c]
        total = 0.0
        for s in range(opp.shape[0]):
            s0, s1, _, _, _ = play_pair(a, opp[s], n, m, special, weakest, ace)
            total += weights[s] * _value2(s0, s1, misere, cw, cm, cs)
        out[c] = total
    return out


# -- any number of players --------------------------------------------------------------------


@njit(cache=True)
def _value_many(scores, players, misere, cw, cm, cs):
    mine = scores[0]
    other = scores[1]
    for s in range(2, players):
        v = scores[s]
        if (v < other) if misere else (v > other):
            other = v
    margin = (other - mine) if misere else (mine - other)
    win = 0.0
    if margin > 0:
        win = 1.0
    elif margin == 0:
        k = 0
        for s in range(players):
            if scores[s] == mine:
                k += 1
        win = 1.0 / k
    return cw * win + cm * margin + (-mine if misere else mine) * cs


@njit(cache=True)
def one_game(hands):
    """A one-row result (scores, winner mask, counters) and the scratch of
    :func:`~pyanitsa.batch.tactical.play_hands`, to play games one by one into row 0."""
    return (np.zeros((1, PMAX), np.int64), np.zeros((1, PMAX), np.bool_),
            np.zeros((1, N_TRESULT), np.int64), hand_scratch(hands))


@njit(cache=True)
def evaluate_many(cands, n, opp, lens, weights, special, weakest, ace, wwins, misere, cw, cm,
                  cs):
    """Like :func:`evaluate2` for any number of seats: I am seat 0 with ``cands[k, :n]``; sample
    ``s`` gives the other seats' orders ``opp[s, j, :lens[s, j]]`` (seat ``j + 1``)."""
    k = cands.shape[0]
    ns = opp.shape[0]
    players = opp.shape[1] + 1
    width = max(n, opp.shape[2])
    hands = np.zeros((players, width), np.int8)
    hl = np.zeros(players, np.int64)
    scores, wins, res, (nxt, played, cont, faces, idx, holders) = one_game(hands)
    out = np.zeros(k, np.float64)
    hl[0] = n
    for c in range(k):
        for t in range(n):
            hands[0, t] = cands[c, t]
        total = 0.0
        for s in range(ns):
            for j in range(players - 1):
                hl[j + 1] = lens[s, j]
                for t in range(lens[s, j]):
                    hands[j + 1, t] = opp[s, j, t]
            play_hands(hands, hl, players, special, weakest, ace, wwins, False, scores, wins,
                       res, 0, nxt, played, cont, faces, idx, holders)
            total += weights[s] * _value_many(scores[0], players, misere, cw, cm, cs)
        out[c] = total
    return out


@njit(cache=True)
def scores_many(hands, lens, special, weakest, ace, wwins):
    """Scores and removed cards of games ``hands[g, s, :lens[g, s]]`` (for tests and tools)."""
    games, players = hands.shape[0], hands.shape[1]
    out = np.zeros((games, players), np.int64)
    removed = np.zeros(games, np.int64)
    scores, wins, res, (nxt, played, cont, faces, idx, holders) = one_game(hands)
    for g in range(games):
        play_hands(hands[g], lens[g], players, special, weakest, ace, wwins, False, scores, wins,
                   res, 0, nxt, played, cont, faces, idx, holders)
        removed[g] = res[0, T_REMOVED]
        for s in range(players):
            out[g, s] = scores[0, s]
    return out, removed


# -- distinct rank orders ---------------------------------------------------------------------


def count_orders(ranks: Sequence[int]) -> int:
    """Distinct orders of a multiset of ranks: ``n! / prod(c_r!)``."""
    out = math.factorial(len(ranks))
    for c in Counter(int(r) for r in ranks).values():
        out //= math.factorial(c)
    return out


def distinct_orders(ranks: Sequence[int]) -> np.ndarray:
    """Every distinct order of ``ranks`` (``int8``, one per row), in lexicographic order."""
    base = np.sort(np.asarray(ranks, np.int8))
    return multiset_orders(base, count_orders(base))


@njit(cache=True)
def multiset_orders(sorted_ranks, count):
    """All ``count`` distinct orders of a multiset (given sorted), in lexicographic order."""
    n = sorted_ranks.shape[0]
    out = np.empty((count, n), np.int8)
    cur = sorted_ranks.copy()
    for r in range(count):
        out[r] = cur
        if not next_permutation(cur):
            break
    return out


# -- two-player local search with cached prefixes ----------------------------------------------


@njit(cache=True, inline="always")
def showdown2(c, s0, s1, pot, last):
    """One two-card showdown of comparison ``c`` onto scores and the carried pot; a tie at the
    last card splits the pot (it is even)."""
    pot += 2
    if c > 0:
        return s0 + pot, s1, 0
    if c < 0:
        return s0, s1 + pot, 0
    if last:
        return s0 + (pot >> 1), s1 + (pot >> 1), 0
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
        fin[s, 0] = s0 + n - last
        fin[s, 1] = s1 + m - last


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
    return s0 + n - m_last, s1 + m - m_last


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
    two = np.int16(2)
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
                    p = p0[s] + two
                    d1[s] = d0[s] + c * p
                    p1[s] = p - p * (c * c)
            row = tab[last - 1, orders[i, last - 1]]
            d0 = d[last - 1]
            p0 = pot[last - 1]
            value = 0.0
            if win:
                for s in range(ns):
                    mg = d0[s] + np.int16(row[s]) * (p0[s] + two) + off
                    value += weights[s] * ((mg > 0) - (mg < 0))
            else:
                for s in range(ns):
                    value += weights[s] * (d0[s] + np.int16(row[s]) * (p0[s] + two))
                value += offset * wsum
            out[i] = sign * value
    return out
