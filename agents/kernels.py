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
candidates against samples and enumerating distinct orders. Every game kernel takes the batch
core's parameter vector ``prm`` (:func:`pyanitsa.batch.encode.params` of the rules; its
strengths are these rank indices). The two-player kernels that compare through a table
``cmp[a, b]`` (the local search resuming games from cached prefixes, and every
order's value against a mix) are in :mod:`pyanitsa.agents.pair_kernels`, re-exported here.

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

from pyanitsa.agents.pair_kernels import (
    _value2,
    best_neighbour2,
    order_values2,
    prefix_states2,
    showdown2,
    support_table,
)
from pyanitsa.batch.classic import PMAX
from pyanitsa.batch.encode import MISERE, params
from pyanitsa.batch.pieces import next_permutation
from pyanitsa.batch.tactical import N_TRESULT, T_REMOVED, hand_scratch, play_hands, play_pair
from pyanitsa.batch.tactical_pieces import lead_by
from pyanitsa.ranks import RankTable

__all__ = ["best_neighbour2", "order_values2", "params", "prefix_states2", "showdown2",
           "support_table"]
# the two-player comparison-table kernels live in pair_kernels.py, the parameter vector in
# pyanitsa.batch.encode; callers name them from here (this module is imported lazily)


def cmp_table(table: RankTable) -> np.ndarray:
    """``cmp[a, b]``: +1 if rank ``a`` beats rank ``b`` in a two-card showdown, -1, or 0."""
    r = table.num_ranks
    out = np.zeros((r, r), np.int8)
    for a in range(r):
        for b in range(r):
            out[a, b] = 1 if table.beats(a, b) else (-1 if table.beats(b, a) else 0)
    return out


# -- two players -----------------------------------------------------------------------------


@njit(cache=True, parallel=True)
def margin_matrix2(rows, row_len, cols, col_len, prm):
    """``out[i, j]`` = seat 0's score minus seat 1's when ``rows[i]`` meets ``cols[j]``."""
    k = rows.shape[0]
    m = cols.shape[0]
    out = np.empty((k, m), np.int16)
    for i in prange(k):
        a = rows[i]
        for j in range(m):
            s0, s1, _, _, _ = play_pair(a, cols[j], row_len, col_len, prm)
            out[i, j] = s0 - s1
    return out


@njit(cache=True)
def scores2(rows, row_len, cols, col_len, prm):
    """``(s0[i], s1[i])`` of ``rows[i]`` against ``cols[i]``, pair by pair."""
    n = rows.shape[0]
    s0 = np.empty(n, np.int64)
    s1 = np.empty(n, np.int64)
    for i in range(n):
        s0[i], s1[i], _, _, _ = play_pair(rows[i], cols[i], row_len, col_len, prm)
    return s0, s1


@njit(cache=True)
def evaluate2(cands, n, opp, m, weights, prm, cw, cm, cs):
    """Weighted mean value of each candidate order ``cands[k, :n]`` over the opponent orders
    ``opp[s, :m]`` (weights sum to 1)."""
    misere = prm[MISERE]
    k = cands.shape[0]
    out = np.zeros(k, np.float64)
    for c in range(k):
        a = cands[c]
        total = 0.0
        for s in range(opp.shape[0]):
            s0, s1, _, _, _ = play_pair(a, opp[s], n, m, prm)
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
        if lead_by(misere, v, other) > 0:
            other = v
    margin = lead_by(misere, mine, other)
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
def evaluate_many(cands, n, opp, lens, weights, prm, cw, cm, cs):
    """Like :func:`evaluate2` for any number of seats: I am seat 0 with ``cands[k, :n]``; sample
    ``s`` gives the other seats' orders ``opp[s, j, :lens[s, j]]`` (seat ``j + 1``)."""
    k = cands.shape[0]
    ns = opp.shape[0]
    players = opp.shape[1] + 1
    width = max(n, opp.shape[2])
    hands = np.zeros((players, width), np.int8)
    hl = np.zeros(players, np.int64)
    scores, wins, res, (nxt, played, cont, faces, idx, holders) = one_game(hands)
    misere = prm[MISERE]
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
            play_hands(hands, hl, players, prm, scores, wins, res, 0, nxt, played, cont, faces,
                       idx, holders)
            total += weights[s] * _value_many(scores[0], players, misere, cw, cm, cs)
        out[c] = total
    return out


@njit(cache=True)
def scores_many(hands, lens, prm):
    """Scores and removed cards of games ``hands[g, s, :lens[g, s]]`` (for tests and tools)."""
    games, players = hands.shape[0], hands.shape[1]
    out = np.zeros((games, players), np.int64)
    removed = np.zeros(games, np.int64)
    scores, wins, res, (nxt, played, cont, faces, idx, holders) = one_game(hands)
    for g in range(games):
        play_hands(hands[g], lens[g], players, prm, scores, wins, res, 0, nxt, played, cont,
                   faces, idx, holders)
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
