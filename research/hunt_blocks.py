"""Cycles built from blocks: the cycle hunt's search space (``hunt --target cycle``).

The 32-card natural cycles of period 48 (and every cycle random 4 × 4 and 6 × 4 deals fall
into) are made of independent pieces. Cut both stacks into *block pairs*: the leader's first
``ka`` cards with the other player's first ``kb``, then the next pair, and so on. If the rounds
played from the first pair use up exactly those ``ka`` and ``kb`` cards (no dispute reaches into
the next pair) and put back ``ka`` cards under the leader's stack and ``kb`` under the other's,
the next pair then stands on top exactly as the first did, and the new blocks wait at the
bottom in the same order. A pair's *step* is that map ``F``; a pair whose steps return it to
itself (``F^t = id``) is a *cycling pair*, and stacks made of cycling pairs cycle for ever,
whatever the pairs' ranks relative to each other, since cards of different pairs never meet.

So a cycle hunt (1) lists the cycling pairs of small blocks as rank patterns (which card is
higher, equal or lower than which), once for the rules (:func:`pair_library`, on the batch
core's own round pieces), then (2) draws seeded random compositions of patterns whose ranks,
placed in the deck's ranks by order-preserving maps, use every card of the deck exactly once
with both stacks the deal's sizes (:class:`Composer`). Each composition is a deal; the hunt
plays it on the batch core like any other, and the reference engine replays every find.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit

from pyanitsa.batch.classic_fast import round2
from pyanitsa.batch.encode import DISPUTE, ORDER, PLAIN, plain_order
from pyanitsa.batch.pieces import TAKEN, ring_mask
from pyanitsa.errors import InvalidRulesError
from pyanitsa.rules import Rules

MAX_ORBIT = 64
"""Steps a pair may take to come back to itself."""
RING = 64
"""Ring buffer of the step kernel (a pair holds at most 2 × 16 cards)."""


@njit(cache=True, _nrt=False)
def block_step(prm, blk, ka, kb, out, stk, tab, buf, cont, left):
    """One step of the pair ``blk[:ka]`` (the leader's block, top first) and ``blk[ka:ka + kb]``:
    the rounds until both blocks are used up, the new blocks into ``out``; returns the rounds
    played, or 0 when the rounds reach past a block or the blocks change size (no step).

    The rounds are the two-player kernel's own (:func:`classic_fast.round2`, as in
    :func:`classic_fast.play2`).
    """
    mask = ring_mask(stk.shape[1])
    for i in range(ka):
        stk[0, i] = blk[i]
    for i in range(kb):
        stk[1, i] = blk[ka + i]
    how = prm[ORDER]
    h_a = h_b = rounds = 0
    n_a, n_b = ka, kb
    s = np.uint64(0)
    while True:
        rounds += 1
        a, b = stk[0, h_a & mask], stk[1, h_b & mask]
        h_a += 1
        h_b += 1
        n_a -= 1
        n_b -= 1
        end, h_a, n_a, h_b, n_b, _, s = round2(prm, stk, tab, buf, cont, left, a, b, h_a, n_a,
                                               h_b, n_b, how, prm[PLAIN], s, mask)
        if end != TAKEN:  # a stack ran out: in a longer stack it would read on
            return 0
        if h_a > ka or h_b > kb:
            return 0
        if h_a == ka or h_b == kb:
            if h_a != ka or h_b != kb or n_a != ka or n_b != kb:
                return 0
            for i in range(ka):
                out[i] = stk[0, (h_a + i) & mask]
            for i in range(kb):
                out[ka + i] = stk[1, (h_b + i) & mask]
            return rounds


@njit(cache=True)
def _orbit(prm, seq, ka, kb, cur, nxt, stk, tab, buf, cont, left):
    """``(steps, rounds)`` of the pair ``seq`` back to itself, ``(0, 0)`` if it never is."""
    m = ka + kb
    for i in range(m):
        cur[i] = seq[i]
    rounds = 0
    for t in range(1, MAX_ORBIT + 1):
        r = block_step(prm, cur, ka, kb, nxt, stk, tab, buf, cont, left)
        if r == 0:
            return 0, 0
        rounds += r
        same = True
        for i in range(m):
            cur[i] = nxt[i]
            same = same and nxt[i] == seq[i]
        if same:
            return t, rounds
    return 0, 0


@njit(cache=True)
def pair_library(prm, ka, kb, values, copies, cap):
    """The cycling pairs of blocks ``ka`` and ``kb`` as rank patterns: every sequence of
    ``ka + kb`` ranks ``0 .. j - 1`` using each of them (``j <= values``), none more than
    ``copies`` times, whose steps bring it back. Returns ``(patterns[N, ka + kb], steps[N],
    rounds[N])``, at most ``cap`` of them."""
    m = ka + kb
    pats = np.zeros((cap, m), np.uint8)
    steps = np.zeros(cap, np.int64)
    rounds = np.zeros(cap, np.int64)
    stk = np.zeros((2, RING), np.uint8)
    tab = np.zeros((4, RING), np.int64)
    buf = np.zeros(RING, np.uint8)
    cont = np.zeros(2, np.int64)
    left = np.zeros(2, np.int64)
    cur = np.zeros(m, np.uint8)
    nxt = np.zeros(m, np.uint8)
    seq = np.zeros(m, np.uint8)
    hist = np.zeros(values, np.int64)
    found = 0
    for j in range(1, values + 1):
        for i in range(m):
            seq[i] = 0
        while True:
            for v in range(j):
                hist[v] = 0
            for i in range(m):
                hist[seq[i]] += 1
            ok = True
            for v in range(j):
                ok = ok and 0 < hist[v] <= copies
            if ok:
                t, r = _orbit(prm, seq, ka, kb, cur, nxt, stk, tab, buf, cont, left)
                if t > 0 and found < cap:
                    pats[found, :] = seq
                    steps[found] = t
                    rounds[found] = r
                    found += 1
            i = m - 1  # the next sequence, odometer-wise
            while i >= 0 and seq[i] == j - 1:
                seq[i] = 0
                i -= 1
            if i < 0:
                break
            seq[i] += 1
    return pats[:found], steps[:found], rounds[:found]


def check_rules(rules: Rules, prm: np.ndarray) -> None:
    """Refuse rules the block step does not model: it plays two players with one face-up card a
    dispute step (a stake count would read the other blocks' cards) and plain rank order."""
    if prm[DISPUTE] != 0:
        raise InvalidRulesError(f"dispute: {rules.dispute}: the cycle hunt's blocks need "
                                "dispute: one_up")
    if not plain_order(prm):
        raise InvalidRulesError("weakest_beats_ace: the cycle hunt's blocks need plain rank "
                                "order")


class Composer:
    """Seeded random compositions of cycling pairs into deals of a deck (see the module).

    ``table[c]`` is card ``c``'s strength; ``sizes`` the leader's and the other player's stack
    sizes; ``blocks`` the ``(ka, kb)`` block sizes whose cycling pairs are listed, patterns of
    at most ``values`` ranks (every cycling pair this finds on 16 to 32 cards is of 4 + 4 cards
    and 3 to 5 ranks; docs/research.md).
    """

    def __init__(self, rules: Rules, prm: np.ndarray, table: np.ndarray,
                 sizes: tuple[int, int], blocks: tuple[tuple[int, int], ...] = ((4, 4),),
                 values: int = 5) -> None:
        check_rules(rules, prm)
        levels = np.unique(table)
        self.rank = np.searchsorted(levels, table)
        self.n_ranks = len(levels)
        self.copies = np.bincount(self.rank, minlength=self.n_ranks)
        self.ids = [np.flatnonzero(self.rank == r) for r in range(self.n_ranks)]
        self.sizes = sizes
        pats: list[tuple[int, int, np.ndarray]] = []
        for ka, kb in blocks:
            found, _, _ = pair_library(prm, ka, kb, min(values, self.n_ranks),
                                       int(self.copies.max()), 1 << 16)
            pats.extend((ka, kb, p) for p in found)
        self.patterns = pats
        self._options()

    def _options(self) -> None:
        """Every pattern placed in the deck's ranks: its rank counts, sizes and placed ranks."""
        counts, sizes, placed = [], [], []
        for ka, kb, pat in self.patterns:
            j = int(pat.max()) + 1
            hist = np.bincount(pat, minlength=j)
            for comb in combinations(range(self.n_ranks), j):
                at = np.array(comb)
                row = np.zeros(self.n_ranks, np.int64)
                row[at] = hist
                if (row <= self.copies).all():
                    counts.append(row)
                    sizes.append((ka, kb))
                    placed.append(at[pat])
        self.counts = np.array(counts, dtype=np.int64).reshape(-1, self.n_ranks)
        self.block_sizes = np.array(sizes, dtype=np.int64).reshape(-1, 2)
        self.placed = placed

    def draw(self, rng: np.random.Generator, tries: int = 64
             ) -> tuple[np.ndarray, np.ndarray] | None:
        """One random composition: the leader's stack and the other's (card ids, top first),
        or None when ``tries`` greedy attempts all got stuck (each picks pairs at random among
        those that still fit until the stacks are full)."""
        for _ in range(tries):
            left = self.copies.copy()
            room = np.array(self.sizes, dtype=np.int64)
            chosen: list[int] = []
            while room.any():
                fit = np.flatnonzero((self.counts <= left).all(axis=1)
                                     & (self.block_sizes <= room).all(axis=1))
                if fit.size == 0:
                    break
                k = int(fit[rng.integers(fit.size)])
                chosen.append(k)
                left -= self.counts[k]
                room -= self.block_sizes[k]
            if not room.any():
                return self._deal(chosen)
        return None

    def sizes_fit(self) -> bool:
        """Whether some sum of the listed pairs' block sizes makes both stacks' sizes."""
        a0, b0 = self.sizes
        reach = np.zeros((a0 + 1, b0 + 1), dtype=bool)
        reach[0, 0] = True
        steps = {tuple(int(x) for x in row) for row in self.block_sizes}
        for a in range(a0 + 1):
            for b in range(b0 + 1):
                if reach[a, b]:
                    for ka, kb in steps:
                        if a + ka <= a0 and b + kb <= b0:
                            reach[a + ka, b + kb] = True
        return bool(reach[a0, b0])

    def _deal(self, chosen: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The card ids of a composition: each rank's cards taken lowest id first."""
        pool = [list(ids) for ids in self.ids]
        lead: list[int] = []
        other: list[int] = []
        for k in chosen:
            ka = int(self.block_sizes[k, 0])
            ranks = self.placed[k]
            lead.extend(pool[r].pop(0) for r in ranks[:ka])
            other.extend(pool[r].pop(0) for r in ranks[ka:])
        return np.array(lead, dtype=np.int64), np.array(other, dtype=np.int64)
