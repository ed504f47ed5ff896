"""The empirical meta-game of a field of agents: what Elo cannot say about a non-transitive field.

Elo (Bradley–Terry, Plackett–Luce) gives every agent one number, so it assumes strength is
transitive. When the head-to-head results contain cycles (a beats b, b beats c, c beats a)
no such number exists, and the fitted ratings depend on who else is in the pool: an agent
that farms many weak opponents can be rated above one that beats it head to head. This module
reads a head-to-head matrix (a tournament's, :mod:`pyanitsa.tournaments.stats`, or any other)
and finds three things that do not make that assumption:

* The **Nash mixture** (Nash averaging, Balduzzi et al. 2018, "Re-evaluating evaluation"):
  the maximum-entropy Nash equilibrium of the symmetric zero-sum game
  ``A[i][j] = score(i vs j) - 1/2``. Its value is 0, and its equilibria are the mixtures
  ``p`` that no agent beats on average (``A p <= 0``). Of these the maximum-entropy one is
  unique, spreads over every agent any equilibrium uses, and splits evenly between exact
  copies, so adding clones of an agent cannot move it (it is uniform for rock–paper–scissors).
* Each agent's **score against that mixture**, ``1/2 + (A p)_i``: 1/2 for the agents in the
  support, below 1/2 for the rest, by how much it loses to the field's best mix.
* Every **cycle at 95%**: a > b > c > a with each of the three head-to-head scores' 95%
  intervals (a tournament's are Student-t intervals over duplicate blocks) above
  1/2. Each interval is 95% on its own (no correction for the number of triangles tried),
  but a false cycle needs three independent false results at once.

Pairs that never met (a gauntlet's non-candidates) count as even in the game and can be in no
cycle; agents with no counted game are left out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import linalg, optimize

from pyanitsa.solvers.lp import optimal_support

LEVEL = 0.95
"""The level of the head-to-head intervals (:func:`pyanitsa.ratings.scores.mean_interval`'s
default)."""
SUPPORT_TOL = 1e-9
"""A probability above this, in some equilibrium, puts an agent in the Nash support."""
METHOD = ("maximum-entropy Nash equilibrium of the symmetric zero-sum game A[i][j] = "
          "score(i vs j) - 1/2 (value 0): the support from one linear program per agent "
          "(scipy HiGHS: the largest probability any equilibrium gives it), then the entropy "
          "maximised over the equilibria on that support (SLSQP, polished by Newton's "
          "method); pairs that never met count as even. A cycle a > b > c > a holds when the 95% Student-t interval over "
          "duplicate blocks of each of its three head-to-head scores is above 1/2.")

Matrix = Sequence[Sequence[float | None]]


@dataclass
class MetaGame:
    """The meta-game of the agents ``names`` (those with at least one counted pair)."""

    names: list[str]
    nash: list[float]
    vs_nash: list[float]
    cycles: list[tuple[str, str, str]]
    """Each cycle once, starting from its agent listed first in the config."""
    inversions: list[tuple[str, str]] = field(default_factory=list)
    """(winner, loser): the winner's score is above 1/2 at 95%, yet it is rated lower."""
    missing_pairs: int = 0
    """Pairs of these agents that never met (counted as even)."""

    @property
    def support(self) -> list[str]:
        return [n for n, p in zip(self.names, self.nash, strict=True) if p > SUPPORT_TOL]

    def to_json(self) -> dict[str, Any]:
        return {
            "nash": dict(zip(self.names, self.nash, strict=True)),
            "vs_nash": dict(zip(self.names, self.vs_nash, strict=True)),
            "support": self.support,
            "cycles": [list(c) for c in self.cycles],
            "elo_inversions": [list(x) for x in self.inversions],
            "missing_pairs": self.missing_pairs,
            "level": LEVEL,
            "method": METHOD,
        }


# -- the Nash mixture -------------------------------------------------------------------------------


def payoff_matrix(score: Matrix) -> np.ndarray:
    """``A[i][j] = score[i][j] - 1/2``, missing pairs and the diagonal 0, made exactly
    antisymmetric (the head-to-head scores of a pair sum to 1 up to rounding)."""
    n = len(score)
    A = np.zeros((n, n))
    for i, j in itertools.product(range(n), repeat=2):
        s = score[i][j]
        if i != j and s is not None and math.isfinite(s):
            A[i, j] = s - 0.5
    return 0.5 * (A - A.T)


def equilibrium_support(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of the supports of all equilibria, and an equilibrium with that support.

    The equilibria are the mixtures ``{p in simplex: A p <= 0}`` (the value of a symmetric
    zero-sum game is 0, so the set is never empty): the row player's optimal mixes of the game
    ``-A^T``, whose support the solvers' LP finds, one LP per agent. The maximum-entropy
    equilibrium is positive on that union too.
    """
    found = optimal_support(-A.T, 0.0, SUPPORT_TOL)
    if found is None:  # cannot happen for an antisymmetric A; keep going regardless
        n = len(A)
        return np.ones(n, dtype=bool), np.full(n, 1.0 / n)
    return found


def _neg_entropy(x: np.ndarray) -> tuple[float, np.ndarray]:
    safe = np.maximum(x, 1e-300)
    return float(np.sum(x * np.log(safe))), np.log(safe) + 1.0


def _polish(inner: np.ndarray, outside: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Newton's method on SLSQP's answer, which is only good to about 1e-6 (the entropy is
    flat at its maximum): with the outside constraints it left active held as equalities the
    problem is smooth and strictly concave on the affine set, and a few steps reach 1e-12."""
    active = outside[np.abs(outside @ x) < 1e-7] if len(outside) else outside
    rows = np.vstack([inner, active, np.ones((1, len(x)))])
    target = np.zeros(len(rows))
    target[-1] = 1.0
    x = x - np.linalg.pinv(rows) @ (rows @ x - target)  # back onto the affine set exactly
    basis = linalg.null_space(rows, rcond=1e-10)
    for _ in range(50):
        if not basis.shape[1] or np.any(x <= 0.0):
            break
        grad = basis.T @ (np.log(x) + 1.0)
        step = -np.linalg.solve(basis.T @ (basis / x[:, None]), grad)
        dx = basis @ step
        t = 1.0
        while np.any(x + t * dx <= 0.0):
            t *= 0.5
        x = x + t * dx
        if np.abs(grad).max() < 1e-13:
            break
    x = np.clip(x, 0.0, None)
    return x / x.sum()


def _slsqp(inner: np.ndarray, outside: np.ndarray, x0: np.ndarray) -> np.ndarray | None:
    """The entropy maximised from the equilibrium ``x0`` over ``x = x0 + N z`` (``N`` the null
    space of ``inner`` and the sum), ``x >= 0``, ``outside x <= 0``; None if ``x0`` is the only
    point (the usual case: a generic game has one equilibrium)."""
    basis = linalg.null_space(np.vstack([inner, np.ones((1, len(x0)))]), rcond=1e-10)
    if not basis.shape[1]:
        return None
    cons = [{"type": "ineq", "fun": lambda z: x0 + basis @ z, "jac": lambda z: basis}]
    if len(outside):
        cons.append({"type": "ineq", "fun": lambda z: -(outside @ (x0 + basis @ z)),
                     "jac": lambda z: -(outside @ basis)})

    def objective(z: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = _neg_entropy(x0 + basis @ z)
        return value, basis.T @ grad

    res = optimize.minimize(objective, np.zeros(basis.shape[1]), jac=True, method="SLSQP",
                            constraints=cons, options={"ftol": 1e-14, "maxiter": 500})
    return np.clip(x0 + basis @ res.x, 0.0, None)


def max_entropy_nash(A: np.ndarray) -> np.ndarray:
    """The maximum-entropy Nash equilibrium of the antisymmetric payoff matrix ``A``.

    On the support ``S`` every equilibrium ``q`` has ``(A q)_i = 0`` for ``i`` in ``S``
    (``p^T A q = 0`` for equilibria ``p``, ``q``), so the equilibria on ``S`` are the affine
    set ``{A_SS x = 0, sum x = 1}`` cut by ``x >= 0`` and ``A_TS x <= 0`` for the agents ``T``
    outside. Parametrising the affine set by its null space leaves a small problem with no
    constraint that is secretly an equality, for SLSQP, then Newton's method polishes it. Each
    answer is checked (an equilibrium, more entropy than the last): the best one that passes
    is kept, the LP's if none does.
    """
    on, start = equilibrium_support(A)
    S, T = np.flatnonzero(on), np.flatnonzero(~on)
    inner, outside = A[np.ix_(S, S)], A[np.ix_(T, S)]
    x = start[S]
    raw = _slsqp(inner, outside, x)
    if raw is not None:
        for candidate in (raw / raw.sum(), _polish(inner, outside, raw)):
            ok = not len(T) or bool(np.all(outside @ candidate <= 1e-9))
            if ok and _neg_entropy(candidate)[0] <= _neg_entropy(x)[0] + 1e-12:
                x = candidate
    p = np.zeros(len(A))
    p[S] = x
    return p


# -- cycles and inversions ------------------------------------------------------------------------


def _beats(low: Matrix, a: int, b: int) -> bool:
    lo = low[a][b]
    return lo is not None and lo > 0.5


def cycles(names: Sequence[str], low: Matrix) -> list[tuple[str, str, str]]:
    """Every a > b > c > a whose three head-to-head intervals are all above 1/2, each once,
    starting from its first agent in ``names`` order (the list is in that order too)."""
    out = []
    for a, b, c in itertools.combinations(range(len(names)), 3):
        for x, y, z in ((a, b, c), (a, c, b)):
            if _beats(low, x, y) and _beats(low, y, z) and _beats(low, z, x):
                out.append((names[x], names[y], names[z]))
    return out


def inversions(names: Sequence[str], low: Matrix, elo: Sequence[float | None]
               ) -> list[tuple[str, str]]:
    """(winner, loser) pairs where the winner is above 1/2 at 95% but rated below the loser:
    the plainest sign that the ratings are not a head-to-head prediction."""
    out = []
    for a, b in itertools.permutations(range(len(names)), 2):
        ea, eb = elo[a], elo[b]
        if ea is not None and eb is not None and ea < eb and _beats(low, a, b):
            out.append((names[a], names[b]))
    return out


# -- the whole meta-game ----------------------------------------------------------------------------


def meta_game(names: Sequence[str], score: Matrix, low: Matrix,
              elo: Sequence[float | None] | None = None) -> MetaGame | None:
    """The meta-game of the agents with at least one counted pair (None with fewer than two).

    ``score[i][j]`` is i's head-to-head score against j (None if they never met), ``low[i][j]``
    the lower end of its 95% interval (None with fewer than two blocks: never significant).
    """
    keep = [i for i in range(len(names))
            if any(score[i][j] is not None for j in range(len(names)) if j != i)]
    if len(keep) < 2:
        return None
    sub_names = [names[i] for i in keep]
    sub_score = [[score[i][j] for j in keep] for i in keep]
    sub_low = [[low[i][j] for j in keep] for i in keep]
    A = payoff_matrix(sub_score)
    p = max_entropy_nash(A)
    vs = 0.5 + A @ p
    missing = sum(1 for a, b in itertools.combinations(range(len(keep)), 2)
                  if sub_score[a][b] is None)
    sub_elo = [elo[i] for i in keep] if elo is not None else [None] * len(keep)
    # rounded to 1e-12 so that reports show 0.5 and 0, not the solvers' last bits
    return MetaGame(sub_names, [round(float(x), 12) for x in p],
                    [round(float(x), 12) for x in vs],
                    cycles(sub_names, sub_low), inversions(sub_names, sub_low, sub_elo),
                    missing)
