"""Each tactical rule once (RULES.md §3), as small pieces numba inlines into every kernel that
plays tactical games.

The batch core (:mod:`pyanitsa.batch.tactical`) plays strengths and reads the showdown from the
parameter vector (:mod:`pyanitsa.batch.pieces`); the search agents' kernels and the solvers'
play rank indices through a comparison table ``cmp[a, b]`` (+1 if ``a`` beats ``b``, -1, 0 for
a tie), by scores, by margins, or over a dynamic programme's states. What they share is the rule:
the stake of a two-player showdown and the pot a tie carries on (§3.4), the split of a pot no
dispute can settle (§3.5), the cards left to the last holder (§3.6) and whose score leads
(§3.7). :class:`pyanitsa.tactical.TacticalGame` is the readable spec the parity tests hold every
kernel to.

The pieces are branch-free where a kernel's hot loop plays them: who wins a showdown is a coin
flip to the branch predictor (branching on it cost tactical-36 a quarter of its speed).
"""

from __future__ import annotations

from numba import njit

PAIR = 2
"""Cards a two-player showdown puts down: one a seat."""


@njit(cache=True, _nrt=False, inline="always")
def stake2(carried):
    """The cards a two-player showdown settles (§3.4): its own two and the pot ``carried`` into
    it by the ties just before it."""
    return carried + PAIR


@njit(cache=True, _nrt=False, inline="always")
def settle2(decided, stake):
    """A showdown of ``stake`` cards that has a winner (``decided`` 1) or is a tie (0): ``(taken,
    carried)``, the cards its winner takes (the whole stake, none on a tie) and the pot a tie
    carries on to the next showdown (the whole stake, none once taken)."""
    taken = stake * decided
    return taken, stake - taken


@njit(cache=True, _nrt=False, inline="always")
def score2(c, s0, s1, pot):
    """A two-player showdown of comparison ``c`` (+1 seat 0's card wins, -1 it loses, 0 a tie)
    onto the scores ``s0, s1`` with ``pot`` carried in: ``(s0, s1, pot carried on)``."""
    taken, pot = settle2(c != 0, stake2(pot))
    return s0 + (taken if c > 0 else 0), s1 + (taken if c < 0 else 0), pot


@njit(cache=True, _nrt=False, inline="always")
def split(pot, k):
    """A pot no dispute can settle (§3.5: a tied player has no card left) among ``k`` tied
    players: ``(share, removed)``, ``pot // k`` each and the remainder leaves the game."""
    share = pot // k
    return share, pot - share * k


@njit(cache=True, _nrt=False, inline="always")
def kept(n, m):
    """§3.6 for two players: the cards of a hand of ``n`` still held after the last showdown
    against a hand of ``m``; they go to its копилка, not a round."""
    return n - min(n, m)


@njit(cache=True, _nrt=False, inline="always")
def kept_margin(n, m):
    """What the cards kept (:func:`kept`) add to the score margin of a hand of ``n`` against a
    hand of ``m``."""
    return kept(n, m) - kept(m, n)


@njit(cache=True, _nrt=False, inline="always")
def lead_by(misere, mine, other):
    """§3.7: by how much the score ``mine`` leads ``other`` (positive ahead): higher scores lead,
    lower ones under misère."""
    return (other - mine) if misere else (mine - other)
