"""Exhaustive two-player enumeration on the batch core, in parallel and in constant memory.

The same deals, in the same order, as :func:`pyanitsa.research.enumeration.distinct_deals`:
arrangements of the deck's rank values in lexicographic order, cut in half, seat 0 taking the
first half, an arrangement kept only when its first half is not greater than its second (even
deck sizes). The arrangements are split into chunks of consecutive ranks; each chunk starts from
its unranked first arrangement and steps with next-permutation, so memory stays constant. Chunk
statistics are merged in enumeration order, an earlier chunk's longest game winning ties, so the
result is :func:`pyanitsa.research.enumeration.enumerate_deals`'s exactly, for any number of workers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from pyanitsa.batch.api import set_workers
from pyanitsa.batch.classic import (
    N_RESULT,
    PMAX,
    R_OUTCOME,
    R_ROUNDS,
    R_SHOWDOWNS,
    R_WINNER,
    play_any,
)
from pyanitsa.batch.classic_round import deal_into, deal_work
from pyanitsa.batch.encode import (
    CAPPED,
    CYCLE,
    DRAW,
    R_CLEN,
    R_CSTART,
    params,
    ring_size,
    strength_table,
)
from pyanitsa.batch.pieces import next_permutation
from pyanitsa.interrupts import ctrl_c_between_calls
from pyanitsa.research.enumeration import (
    DealStats,
    Longest,
    arrangements,
    check_enumerable,
    deal_at,
    rank_of,
    unrank,
)
from pyanitsa.rules import Rules

# chunk statistics
S_DEALS, S_CYCLES, S_CAPPED, S_DRAWS, S_WIN0, S_WIN1, S_FINISHED = 0, 1, 2, 3, 4, 5, 6
S_ROUNDS, S_SHOWDOWNS, S_FOUND, S_LSHOW, S_LROUNDS = 7, 8, 9, 10, 11
N_STATS = 12

DEFAULT_CHUNK = 1 << 15


@njit(cache=True)
def enumerate_chunk(prm, lut, start, count_, fold, dealer, cap, stats, longest, cyc):
    """Play the deals among ``count_`` arrangements from ``start``; fill ``stats``/``longest``,
    and a row of ``cyc`` per cycle: the arrangement's offset from ``start``, the cycle's start
    and its period in rounds."""
    n = start.shape[0]
    half = (n + 1) // 2
    perm = start.copy()
    stk, pile, cnt, g, tab, sm, buf, rng, init, ilen, players = deal_work(cap, n)
    out = np.zeros((1, N_RESULT), np.int64)
    out_elim = np.zeros((1, PMAX), np.int64)
    row = out_elim.shape[0] - 1  # likewise for the literal 0
    for it in range(count_):
        if it > 0:
            next_permutation(perm)
        if fold:
            keep = True
            for i in range(half):
                a = perm[i]
                b = perm[half + i]
                if a != b:
                    keep = a < b
                    break
            if not keep:
                continue
        deal_into(init, ilen, lut, perm)
        play_any(stk, pile, cnt, g, tab, sm, buf, prm, players, init, ilen, dealer, rng, out, row,
                 out_elim)
        stats[S_DEALS] += 1
        outcome = out[row, R_OUTCOME]
        if outcome == CYCLE:
            k = stats[S_CYCLES]
            cyc[k, 0] = it
            cyc[k, 1] = out[row, R_CSTART]
            cyc[k, 2] = out[row, R_CLEN]
            stats[S_CYCLES] += 1
            continue
        if outcome == CAPPED:
            stats[S_CAPPED] += 1
            continue
        if outcome == DRAW:
            stats[S_DRAWS] += 1
        elif out[row, R_WINNER] == 0:
            stats[S_WIN0] += 1
        else:
            stats[S_WIN1] += 1
        stats[S_FINISHED] += 1
        r = out[row, R_ROUNDS]
        s = out[row, R_SHOWDOWNS]
        stats[S_ROUNDS] += r
        stats[S_SHOWDOWNS] += s
        if (stats[S_FOUND] == 0 or s > stats[S_LSHOW]
                or (s == stats[S_LSHOW] and r > stats[S_LROUNDS])):
            stats[S_FOUND] = 1
            stats[S_LSHOW] = s
            stats[S_LROUNDS] = r
            for i in range(n):
                longest[i] = perm[i]


@njit(cache=True, parallel=True)
def enumerate_chunks(prm, lut, starts, counts, fold, dealer, cap):
    chunks = starts.shape[0]
    stats = np.zeros((chunks, N_STATS), np.int64)
    longest = np.zeros(starts.shape, np.int64)
    cyc = np.zeros((chunks, counts.max(), 3), np.int64)
    for c in prange(chunks):
        enumerate_chunk(prm, lut, starts[c], counts[c], fold, dealer, cap, stats[c], longest[c],
                        cyc[c])
    return stats, longest, cyc


@dataclass
class RangeResult:
    """What the arrangements of ranks ``lo`` to ``hi`` (excluded) gave: mergeable in order."""

    lo: int
    hi: int
    stats: DealStats
    """The range's totals and its longest game (the first of the range at its length)."""
    longest_rank: int | None
    """The arrangement rank of the longest game, ``None`` if no game finished."""
    cycles: list[tuple[int, int, int]] = field(default_factory=list)
    """Each cycle's arrangement rank, the rounds before its position first stood, its period."""


@dataclass(frozen=True)
class _Setup:
    """The compiled core's view of the rules, built once per range."""

    prm: np.ndarray
    lut: np.ndarray
    values: list[int]
    fold: bool
    dealer: int
    cap: int
    total: int


def _setup(rules: Rules) -> _Setup:
    dealer = check_enumerable(rules)
    deck = rules.deck
    strength = strength_table(rules)
    lut = np.zeros(max(deck.values) + 1, dtype=np.uint8)
    for card, v in enumerate(deck.values):
        lut[v] = strength[card]
    values = sorted(deck.values)
    return _Setup(params(rules), lut, values, len(values) % 2 == 0, dealer,
                  ring_size(deck.size), arrangements(deck))


def enumerate_range(rules: Rules, lo: int, hi: int, *, workers: int | None = None,
                    chunk: int = DEFAULT_CHUNK, progress: Callable[[int], None] | None = None,
                    keep_cycles: bool = True) -> RangeResult:
    """The deals among arrangements ``lo`` to ``hi`` of the deal ranking, on the batch core.

    ``workers`` threads (default: every core); ``progress(n)`` gets the deals done since its
    last call. Without ``keep_cycles`` the cycles are only counted, so memory stays constant.
    """
    su = _setup(rules)
    if not 0 <= lo <= hi <= su.total:
        raise ValueError(f"range {lo}:{hi} is outside the {su.total} arrangements")
    n_threads = set_workers(workers)
    per_call = max(1, 4 * n_threads)
    stats = DealStats()
    best: tuple[int, int] | None = None
    best_rank: int | None = None
    cycles: list[tuple[int, int, int]] = []
    at = lo
    with ctrl_c_between_calls() as check:  # raised in the kernel, it is a SystemError
        while at < hi:
            ranks = list(range(at, min(hi, at + per_call * chunk), chunk))
            starts = np.array([unrank(su.values, r) for r in ranks], dtype=np.int64)
            counts = np.array([min(chunk, hi - r) for r in ranks], dtype=np.int64)
            part, longest, cyc = enumerate_chunks(su.prm, su.lut, starts, counts, su.fold,
                                                  su.dealer, su.cap)
            check()
            done = 0
            for c in range(len(ranks)):
                row = part[c]
                _count(stats, row)
                done += int(row[S_DEALS])
                if keep_cycles:
                    cycles.extend((ranks[c] + int(o), int(s), int(p))
                                  for o, s, p in cyc[c, :row[S_CYCLES]])
                if row[S_FOUND]:
                    key = (int(row[S_LSHOW]), int(row[S_LROUNDS]))
                    if best is None or key > best:
                        best = key
                        best_rank = rank_of(su.values, [int(x) for x in longest[c]])
            if progress is not None:
                progress(done)
            at += per_call * chunk
    if best is not None:
        assert best_rank is not None
        stats.longest = Longest(best[1], best[0], deal_at(rules.deck, best_rank))
    return RangeResult(lo, hi, stats, best_rank, cycles)


def _count(stats: DealStats, row: np.ndarray) -> None:
    stats.deals += int(row[S_DEALS])
    stats.cycles += int(row[S_CYCLES])
    stats.capped += int(row[S_CAPPED])
    stats.draws += int(row[S_DRAWS])
    stats.wins[0] += int(row[S_WIN0])
    stats.wins[1] += int(row[S_WIN1])
    stats.finished += int(row[S_FINISHED])
    stats.rounds_sum += int(row[S_ROUNDS])
    stats.showdowns_sum += int(row[S_SHOWDOWNS])


def enumerate_batch(rules: Rules, *, workers: int | None = None, chunk: int = DEFAULT_CHUNK,
                    progress: Callable[[int], None] | None = None) -> DealStats:
    """:func:`pyanitsa.research.enumeration.enumerate_deals` on the batch core (the same result).

    ``workers`` threads (default: every core); ``progress(n)`` gets the deals done since its
    last call.
    """
    total = arrangements(rules.deck)
    return enumerate_range(rules, 0, total, workers=workers, chunk=chunk, progress=progress,
                           keep_cycles=False).stats
