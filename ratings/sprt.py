"""Logistic Elo and the SPRT of a two-player pairing: a generalized SPRT on the block scores (one per duplicate
pair), logistic Elo, normal approximation as in fishtest; and how a result is stated.

Plain inputs (the hypotheses and error rates as floats, block scores one at a time); a
tournament's ``sprt:`` settings (:class:`pyanitsa.tournaments.config.SprtConfig`) are
exactly :class:`Sprt`'s keywords."""

from __future__ import annotations

import math
from dataclasses import dataclass


def expected_score(elo: float) -> float:
    """The logistic expected score of an Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: accept H0 below, H1 above."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(n: int, mean: float, var: float, elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) to H0 (``elo0``) in the normal
    approximation: ``n (s1 - s0) (2 mean - s0 - s1) / (2 var)`` with ``s = expected_score(elo)``
    and ``mean``, ``var`` the mean and variance of one observation (a duplicate pair's score)."""
    if n == 0:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


class Sprt:
    """The SPRT of one pairing, fed block scores in deal order.

    The variance gets a prior of two pseudo-observations at distance 1/2 from the mean, so a
    run that starts with identical blocks does not decide on two or three of them; the prior
    weighs nothing after a few dozen blocks.
    """

    def __init__(self, *, elo0: float, elo1: float, alpha: float, beta: float) -> None:
        self.elo0, self.elo1 = elo0, elo1
        """H0: the first agent is ``elo0`` stronger (logistic Elo); H1: ``elo1`` stronger."""
        self.lower, self.upper = sprt_bounds(alpha, beta)
        self.n = 0
        self.total = 0.0
        self.total_sq = 0.0
        self.decision: str | None = None
        """``H0``, ``H1`` or None (still running)."""

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.5

    @property
    def var(self) -> float:
        squares = self.total_sq - self.n * self.mean ** 2
        return (max(squares, 0.0) + 2 * 0.25) / (self.n + 2)

    @property
    def llr(self) -> float:
        return sprt_llr(self.n, self.mean, self.var, self.elo0, self.elo1)

    def add(self, score: float) -> str | None:
        """Count one more block; return the decision once reached (then ignore the rest)."""
        if self.decision is not None:
            return self.decision
        self.n += 1
        self.total += score
        self.total_sq += score * score
        llr = self.llr
        if llr >= self.upper:
            self.decision = "H1"
        elif llr <= self.lower:
            self.decision = "H0"
        return self.decision


def _figures(*xs: float) -> list[str]:
    """``xs`` to two decimals, or more where two would print different numbers alike (an LLR
    just inside a bound must not read as equal to it)."""
    for digits in (2, 3, 4, 6):
        texts = [f"{x:.{digits}f}" for x in xs]
        if len(set(texts)) == len(set(xs)):
            return texts
    return [repr(x) for x in xs]


def sprt_statement(decision: str | None, llr: float, lower: float, upper: float) -> str:
    """The test's state in words: ``accepted H1 at LLR 3.14 ≥ 2.94``, ``accepted H0 at LLR
    -3.01 ≤ -2.94`` or ``continuing: LLR 1.20 in (-2.94, 2.94)``."""
    text_llr, text_lower, text_upper = _figures(llr, lower, upper)
    if decision == "H1":
        return f"accepted H1 at LLR {text_llr} ≥ {text_upper}"
    if decision == "H0":
        return f"accepted H0 at LLR {text_llr} ≤ {text_lower}"
    return f"continuing: LLR {text_llr} in ({text_lower}, {text_upper})"


@dataclass
class SprtResult:
    pairing: int
    agents: tuple[str, str]
    decision: str | None
    llr: float
    lower: float
    upper: float
    blocks: int
    score: float
    elo0: float
    elo1: float

    @property
    def statement(self) -> str:
        """See :func:`sprt_statement`."""
        return sprt_statement(self.decision, self.llr, self.lower, self.upper)

    @property
    def meaning(self) -> str:
        """What the decision says about the agents ("" while the test runs)."""
        if self.decision == "H1":
            return f"{self.agents[0]} is at least {self.elo1:g} Elo stronger"
        if self.decision == "H0":
            return f"{self.agents[0]} is at most {self.elo0:g} Elo stronger"
        return ""

    @property
    def verdict(self) -> str:
        meaning = self.meaning
        return f"{self.statement}: {meaning}" if meaning else self.statement
