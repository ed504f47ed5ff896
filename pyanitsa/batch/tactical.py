"""The compiled tactical core (RULES.md §3): plays ordered hands to scores.

Only counts matter for the result (a копилка's score is its size), so a split gives each tied
player ``pot // k`` and ``pot % k`` cards leave the game. The rules are the pieces of
:mod:`pyanitsa.batch.tactical_pieces` (the search and solver kernels assemble the same ones).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pyanitsa.batch.classic import PMAX
from pyanitsa.batch.encode import MISERE
from pyanitsa.batch.pieces import showdown_rules, top_set, winner2
from pyanitsa.batch.rng import deal_s, derive_seed1
from pyanitsa.batch.tactical_pieces import PAIR, kept, lead_by, score2, split

# columns of a result row (scores and the winner mask are arrays of their own); T_WINNER is the
# sole winner's seat, or -1 when the win is shared
T_ROUNDS, T_SHOWDOWNS, T_REMOVED, T_WINNER = 0, 1, 2, 3
N_TRESULT = 4


@njit(cache=True)
def hand_scratch(hands):
    """The scratch :func:`play_hands` needs (``nxt, played, cont, faces, idx, holders``);
    ``faces`` takes the dtype of ``hands``. Allocate once per batch, not per game."""
    return (np.zeros(PMAX, np.int64), np.zeros(PMAX, np.int64), np.zeros(PMAX, np.int64),
            np.zeros(PMAX, hands.dtype), np.zeros(PMAX, np.int64), np.zeros(PMAX, np.int64))


@njit(cache=True, _nrt=False)
def play_hands(hands, lens, players, prm, scores, wins, out, row, nxt, played, cont, faces, idx,
               holders):
    """Play one game: ``hands[s, :lens[s]]`` strengths, first played first, under the rules
    ``prm`` (:func:`pyanitsa.batch.encode.params`).

    Writes ``scores[row, :players]``, the winner mask ``wins[row]`` and
    ``out[row] = rounds, showdowns, removed, number of winners``.
    """
    _, ranks, weakest, wwins = showdown_rules(prm)
    misere = prm[MISERE]
    for s in range(players):
        nxt[s] = 0
        scores[row, s] = 0
    rounds = 0
    showdowns = 0
    removed = 0
    while True:
        nh = 0
        for s in range(players):
            if nxt[s] < lens[s]:
                holders[nh] = s
                nh += 1
        if nh <= 1:
            for j in range(nh):
                s = holders[j]
                scores[row, s] += lens[s] - nxt[s]
                nxt[s] = lens[s]
            break
        rounds += 1
        for s in range(players):
            played[s] = 0
        pot = 0
        nc = nh
        for j in range(nh):
            cont[j] = holders[j]
        while True:
            for j in range(nc):
                s = cont[j]
                faces[j] = hands[s, nxt[s]]
                nxt[s] += 1
                played[s] += 1
            pot += nc
            showdowns += 1
            ntop = top_set(prm, ranks, weakest, wwins, faces, nc, idx)
            if ntop < 0:
                for s in range(players):
                    scores[row, s] += played[s]
                break
            if ntop == 1:
                scores[row, cont[idx[0]]] += pot
                break
            empty = False
            for j in range(ntop):
                cont[j] = cont[idx[j]]
                if nxt[cont[j]] >= lens[cont[j]]:
                    empty = True
            nc = ntop
            if empty:
                share, rest = split(pot, nc)
                for j in range(nc):
                    scores[row, cont[j]] += share
                removed += rest
                break
    out[row, T_ROUNDS] = rounds
    out[row, T_SHOWDOWNS] = showdowns
    out[row, T_REMOVED] = removed
    store_winners(scores, wins, out, row, players, misere)


@njit(cache=True, _nrt=False, inline="always")
def store_winners(scores, wins, out, row, players, misere):
    """The winner mask of row ``row``'s scores (misère: the lowest wins) and the sole winner's
    seat (-1 when the win is shared)."""
    best = scores[row, 0]
    for s in range(1, players):
        v = scores[row, s]
        if lead_by(misere, v, best) > 0:
            best = v
    nwin = 0
    winner = -1
    for s in range(players):
        win = scores[row, s] == best
        wins[row, s] = win
        nwin += win
        if win:
            winner = s
    out[row, T_WINNER] = winner if nwin == 1 else -1


@njit(cache=True, _nrt=False)
def play_pair(ha, hb, na, nb, prm):
    """Two players: hands ``ha[:na]`` and ``hb[:nb]``; returns
    ``(score a, score b, rounds, showdowns, removed)``. Two cards never make a void cycle.

    Both hands advance one card a showdown, so the game is one pass over ``min(na, nb)``
    positions: a showdown that is not a tie ends its round and takes the pot, a tie run still
    open at the end is split. The pass has no branch on the cards (who wins a showdown is a
    coin flip to the branch predictor: branching on it cost tactical-36 a quarter of its speed).
    """
    plain, ranks, _, _ = showdown_rules(prm)
    sa = 0
    sb = 0
    rounds = 0
    pot = 0
    m = min(na, nb)
    for t in range(m):
        a = ha[t]
        b = hb[t]
        won = a != b
        lead = winner2(prm, plain, ranks, a, b) == 0  # read, not used, when a == b
        sa, sb, pot = score2(won * (1 if lead else -1), sa, sb, pot)
        rounds += won
    removed = 0
    if pot > 0:
        rounds += 1
        share, removed = split(pot, PAIR)
        sa += share
        sb += share
    return sa + kept(na, nb), sb + kept(nb, na), rounds, m, removed


@njit(cache=True, _nrt=False)
def store_pair(scores, wins, out, row, sa, sb, rounds, showdowns, removed, misere):
    """:func:`play_pair`'s result into row ``row`` (misère: the lower score wins)."""
    scores[row, 0] = sa
    scores[row, 1] = sb
    if sa == sb:
        wins[row, 0] = True
        wins[row, 1] = True
        out[row, T_WINNER] = -1
    else:
        a_wins = lead_by(misere, sa, sb) > 0
        wins[row, 0] = a_wins
        wins[row, 1] = not a_wins
        out[row, T_WINNER] = 0 if a_wins else 1
    out[row, T_ROUNDS] = rounds
    out[row, T_SHOWDOWNS] = showdowns
    out[row, T_REMOVED] = removed


@njit(cache=True, _nrt=False, inline="always")
def play_row(hands, lens, players, prm, scores, wins, out, row, nxt, played, cont, faces, idx,
             holders):
    """One game into row ``row``: :func:`play_pair` for two players, else :func:`play_hands`."""
    if players == 2:
        sa, sb, rounds, showdowns, removed = play_pair(hands[0], hands[1], lens[0], lens[1],
                                                       prm)
        store_pair(scores, wins, out, row, sa, sb, rounds, showdowns, removed, prm[MISERE])
    else:
        play_hands(hands, lens, players, prm, scores, wins, out, row, nxt, played, cont, faces,
                   idx, holders)


@njit(cache=True)
def play_many(hands, lens, players, prm):
    """Games ``hands[G, P, n]`` (strengths) with ``lens[G, P]``; ``players[G]`` seats each."""
    games = hands.shape[0]
    scores = np.zeros((games, PMAX), np.int64)
    wins = np.zeros((games, PMAX), np.bool_)
    out = np.zeros((games, N_TRESULT), np.int64)
    nxt, played, cont, faces, idx, holders = hand_scratch(hands)
    for i in range(games):
        play_row(hands[i], lens[i], players[i], prm, scores, wins, out, i, nxt, played, cont,
                 faces, idx, holders)
    return scores, wins, out


@njit(cache=True)
def simulate_range(prm, strength, players, dealer_fixed, seed, first, count_, scores, wins, out,
                   row0):
    """Deal (exactly as ``pyanitsa.dealing.deal``, equal hands) and play games
    ``first .. first + count_ - 1`` into rows from ``row0``."""
    deck = strength.shape[0]
    cards = np.zeros(deck, np.int64)
    n = deck // players
    hands = np.zeros((PMAX, n), np.uint8)
    lens = np.zeros(PMAX, np.int64)
    nxt, played, cont, faces, idx, holders = hand_scratch(hands)
    misere = prm[MISERE]
    for g in range(count_):
        deal_s(derive_seed1(seed, first + g), players, deck, True, dealer_fixed, cards, strength,
               hands, lens)
        # play_row's dispatch, with the hand length a loop constant: reading it from ``lens``
        # every game cost 6% of tactical-36's speed
        if players == 2:
            sa, sb, rounds, showdowns, removed = play_pair(hands[0], hands[1], n, n, prm)
            store_pair(scores, wins, out, row0 + g, sa, sb, rounds, showdowns, removed, misere)
        else:
            play_hands(hands, lens, players, prm, scores, wins, out, row0 + g, nxt, played, cont,
                       faces, idx, holders)


@njit(cache=True, parallel=True)
def simulate_chunks(prm, strength, players, dealer_fixed, seed, first, games, chunk):
    # empty, not zeros: every cell is written by its game's row, and zeroing 2 M rows first cost
    # tactical-36 a tenth of its speed; not PMAX wide for the same reason
    scores = np.empty((games, players), np.int64)
    wins = np.empty((games, players), np.bool_)
    out = np.empty((games, N_TRESULT), np.int64)
    nchunks = (games + chunk - 1) // chunk
    for c in prange(nchunks):
        lo = c * chunk
        n = min(chunk, games - lo)
        simulate_range(prm, strength, players, dealer_fixed, seed, first + lo, n, scores, wins,
                       out, lo)
    return scores, wins, out
