"""Showdown odds and tie-aware sequencing: the arithmetic the scripted agents share.

Everything works on rank indices (:mod:`pyanitsa.ranks`): suits never matter. An opponent's
card is modelled as a draw from a *pool* (cards per rank): the unseen cards in a tactical game,
the cards I cannot place in a classic one. Draws for different opponents are treated as
independent, which is exact for one opponent's single card and a good approximation otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from pyanitsa.ranks import RankTable

Odds = tuple[list[float], list[float], list[float]]
"""Per rank: P(my card wins the showdown), P(it ties at the top), P(it loses)."""


def showdown_odds(table: RankTable, pool: Sequence[int], opponents: int = 1) -> Odds:
    """Per rank ``r``: the chances that my card of rank ``r`` wins, ties at the top or loses a
    showdown against ``opponents`` cards drawn from ``pool``.

    With ``weakest_beats_ace`` the weakest rank wins only against aces and the ace loses to
    it; a void cycle (three or more players) counts as a loss here, a small approximation.
    """
    n = table.num_ranks
    total = sum(pool)
    if total <= 0:  # nobody can hold anything: every card of mine wins
        return [1.0] * n, [0.0] * n, [0.0] * n
    m = max(1, opponents)
    win, tie, lose = [0.0] * n, [0.0] * n, [0.0] * n
    for r, beats in enumerate(table.beat):
        beaten = sum(pool[b] for b in range(n) if beats[b])
        qw = beaten / total
        qt = pool[r] / total
        w = qw ** m
        t = (qw + qt) ** m - w
        win[r], tie[r], lose[r] = w, t, max(0.0, 1.0 - w - t)
    return win, tie, lose


def tie_and_edge(table: RankTable, pool: Sequence[int], opponents: int,
                 misere: bool) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per rank: the chance to tie at the top against ``opponents`` cards from ``pool``, and
    the follower's edge against one (its chance to win minus its chance to lose; misère:
    the other way round), as :func:`tie_chain` takes them."""
    return _tie_and_edge(table, tuple(pool), opponents, misere)


@lru_cache(maxsize=1024)
def _tie_and_edge(table: RankTable, pool: tuple[int, ...], opponents: int,
                  misere: bool) -> tuple[tuple[float, ...], tuple[float, ...]]:
    # cached: a pure function of the view, while an agent sampled many times on one view (the
    # `nash` teacher's model, 128 calls a deal) would recompute it every time
    _, tie, _ = showdown_odds(table, pool, opponents)
    win1, _, lose1 = showdown_odds(table, pool, 1)
    sign = -1.0 if misere else 1.0
    return tuple(tie), tuple(sign * (w - lo) for w, lo in zip(win1, lose1, strict=True))


def tie_chain(ranks: Sequence[int], tie: Sequence[float], edge: Sequence[float],
              rng: np.random.Generator, *, lead_tie: float | None = None) -> list[int]:
    """An order of the items ``0..n-1`` (item ``i`` has rank ``ranks[i]``) in which the cards
    most likely to tie are followed by the cards most likely to win the dispute that follows.

    A tie carries the pot to the next card, so the order is worth roughly the sum, over
    consecutive pairs ``(a, b)``, of ``tie[a] * edge[b]``. The greedy below is the
    rearrangement inequality made into a path: the most tie-prone card gets the strongest
    follower, the next one the next strongest, and so on, never closing a loop; the pieces are
    then joined in a random order. ``lead_tie`` is the tie chance of a card that is already in
    front of the sequence (the last card of a classic stack): it claims a follower first if its
    tie chance is the highest. Equal values are ordered by ``rng``.
    """
    n = len(ranks)
    if n <= 1:
        return list(range(n))
    shuffled = rng.permutation(n).tolist()
    tie_of = [tie[r] for r in ranks]
    edge_of = [edge[r] for r in ranks]
    # reverse=True keeps equal keys in their shuffled order (Python's sort stays stable)
    preds = sorted(shuffled, key=tie_of.__getitem__, reverse=True)
    lead = n if lead_tie is not None else -1
    if lead_tie is not None:
        tie_of.append(lead_tie)
        preds.insert(next((k for k, i in enumerate(preds) if tie_of[i] < lead_tie), n), lead)
    free = sorted(shuffled, key=edge_of.__getitem__, reverse=True)  # followers not yet taken
    nxt = [-1] * (n + 1)
    head = list(range(n + 1))  # head[t] for a chain's tail t
    tail = list(range(n + 1))  # tail[h] for a chain's head h
    for a in preds:
        if tie_of[a] <= 0.0 or not free:
            break
        h = head[a]  # a is a chain's tail; linking it to that chain's head would close a loop
        for k, b in enumerate(free):  # a loop, not next(genexpr): this runs 128 times a deal
            if b != h and b != a:
                del free[k]
                break
        else:
            continue
        nxt[a] = b
        t = tail[b]
        head[t] = h
        tail[h] = t
    has_pred = [False] * (n + 1)
    for a in range(n + 1):
        if nxt[a] >= 0:
            has_pred[nxt[a]] = True
    heads = [i for i in range(n) if not has_pred[i]]
    order = rng.permutation(len(heads)).tolist()
    starts = [heads[k] for k in order]
    if lead >= 0 and nxt[lead] >= 0:
        starts.insert(0, nxt[lead])  # it has a predecessor, so it is not among the heads
    out: list[int] = []
    for s in starts:
        i = s
        while i >= 0:
            out.append(i)
            i = nxt[i]
    return out


def interleave_gap(order: list[int], gap: int) -> list[int]:
    """Spread a sequence so that neighbours end up ``gap`` places apart.

    With ``dispute: down_up`` the card that decides a dispute comes ``stakes + 1`` places after
    the tied card; cutting a tie-aware sequence into ``gap`` parts and dealing them out in turn
    keeps each tied card followed, ``gap`` places later, by the card chosen to follow it.
    """
    if gap <= 1 or len(order) <= gap:
        return order
    n = len(order)
    size, extra = divmod(n, gap)
    parts, start = [], 0
    for p in range(gap):
        end = start + size + (1 if p < extra else 0)
        parts.append(order[start:end])
        start = end
    out = []
    for k in range(size + 1):
        for part in parts:
            if k < len(part):
                out.append(part[k])
    return out
