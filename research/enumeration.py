"""Exhaustive play of every distinct two-player deal of a small deck (the War literature's way).

A deal is an arrangement of the deck's ranks (suits never matter) cut in half: seat 0 gets the
first half as its stack, top card first. A deal and its seat swap count once: the one kept is the
arrangement whose first half is not greater (lexicographically, by rank) than its second. With an
odd number of cards seat 0 gets the extra card and there is no swap to fold.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pyanitsa.cards import Card, Deck
from pyanitsa.classic import ClassicGame
from pyanitsa.errors import InvalidRulesError
from pyanitsa.results import ClassicResult, Termination
from pyanitsa.rules import Rules

MAX_ENUMERATED_DEALS = 10**12


def multinomial(counts: Iterable[int]) -> int:
    """Distinct arrangements of a multiset with these multiplicities."""
    counts = list(counts)
    total = math.factorial(sum(counts))
    for c in counts:
        total //= math.factorial(c)
    return total


def arrangements(deck: Deck) -> int:
    """Distinct arrangements of the deck's ranks."""
    return multinomial(Counter(deck.values).values())


def count_deals(deck: Deck) -> int:
    """The number of distinct deals :func:`distinct_deals` yields."""
    total = arrangements(deck)
    if deck.size % 2:
        return total
    counts = Counter(deck.values)
    if any(c % 2 for c in counts.values()):
        return total // 2
    # Arrangements whose halves are equal are their own seat swap.
    return (total + multinomial(c // 2 for c in counts.values())) // 2


def _next_permutation(a: list[int]) -> bool:
    """Step ``a`` to its next arrangement in lexicographic order; False after the last."""
    i = len(a) - 2
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = len(a) - 1
    while a[j] <= a[i]:
        j -= 1
    a[i], a[j] = a[j], a[i]
    a[i + 1:] = reversed(a[i + 1:])
    return True


def distinct_deals(deck: Deck) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every distinct deal as two rank-value sequences, in lexicographic order."""
    values = sorted(deck.values)
    half = (len(values) + 1) // 2
    fold = len(values) % 2 == 0
    while True:
        a, b = tuple(values[:half]), tuple(values[half:])
        if not fold or a <= b:
            yield a, b
        if not _next_permutation(values):
            return


@cache
def _copies(deck: Deck) -> dict[int, tuple[Card, ...]]:
    """Each rank value's cards, the last card first (handed out by popping)."""
    copies: dict[int, list[Card]] = {}
    for card in reversed(range(deck.size)):
        copies.setdefault(deck.values[card], []).append(card)
    return {v: tuple(cs) for v, cs in copies.items()}


def stacks_for(deck: Deck, deal: Sequence[Sequence[int]]) -> list[list[Card]]:
    """Cards for rank-value sequences, handing out each value's copies in order."""
    pools = {v: list(cs) for v, cs in _copies(deck).items()}
    return [[pools[v].pop() for v in seat] for seat in deal]


def unrank(values: list[int], rank: int) -> list[int]:
    """The arrangement of the multiset ``values`` at lexicographic position ``rank``."""
    counts = Counter(values)
    keys = sorted(counts)
    n = len(values)
    total = multinomial(counts.values())
    out = []
    for _ in range(len(values)):
        for v in keys:
            if not counts[v]:
                continue
            with_v = total * counts[v] // n
            if rank < with_v:
                out.append(v)
                counts[v] -= 1
                total = with_v
                n -= 1
                break
            rank -= with_v
    return out


def rank_of(values: list[int], perm: list[int]) -> int:
    """The lexicographic position of ``perm`` among the arrangements of ``values``: the inverse
    of :func:`unrank`."""
    counts = Counter(values)
    keys = sorted(counts)
    n = len(values)
    total = multinomial(counts.values())
    rank = 0
    for v in perm:
        for k in keys:
            if not counts[k]:
                continue
            with_k = total * counts[k] // n
            if k == v:
                counts[k] -= 1
                total = with_k
                n -= 1
                break
            rank += with_k
    return rank


def deal_at(deck: Deck, rank: int) -> tuple[tuple[Any, ...], ...]:
    """The deal of arrangement ``rank`` as two stacks of card names, top card first."""
    perm = unrank(sorted(deck.values), rank)
    half = (len(perm) + 1) // 2
    return tuple(tuple(deck.cards_json(s)) for s in stacks_for(deck, (perm[:half], perm[half:])))


@dataclass(frozen=True)
class Longest:
    """The longest finished game: most showdowns, ties broken by most rounds."""

    rounds: int
    showdowns: int
    deal: tuple[tuple[Any, ...], ...]
    """The two stacks, top card first, as card names."""


@dataclass
class DealStats:
    """Running totals over many two-player deals; mergeable across workers."""

    deals: int = 0
    cycles: int = 0
    capped: int = 0
    draws: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    finished: int = 0
    rounds_sum: int = 0
    showdowns_sum: int = 0
    longest: Longest | None = None

    def add(self, result: ClassicResult, deal: Callable[[], tuple[tuple[Any, ...], ...]]) -> None:
        """Count one result; ``deal`` is called only when the game is the new longest."""
        self.deals += 1
        outcome = result.outcome
        if outcome is Termination.CYCLE:
            self.cycles += 1
            return
        if outcome is Termination.CAPPED:
            self.capped += 1
            return
        if outcome is Termination.DRAW:
            self.draws += 1
        else:
            assert result.winner is not None
            self.wins[result.winner] += 1
        self.finished += 1
        self.rounds_sum += result.rounds
        self.showdowns_sum += result.showdowns
        best = self.longest
        if best is None or (result.showdowns, result.rounds) > (best.showdowns, best.rounds):
            self.longest = Longest(result.rounds, result.showdowns, deal())

    def merge(self, later: DealStats) -> None:
        """Add the totals of deals enumerated after these; at equal length our longest game
        stays, as it came first."""
        self.deals += later.deals
        self.cycles += later.cycles
        self.capped += later.capped
        self.draws += later.draws
        self.wins = [a + b for a, b in zip(self.wins, later.wins, strict=True)]
        self.finished += later.finished
        self.rounds_sum += later.rounds_sum
        self.showdowns_sum += later.showdowns_sum
        best, other = self.longest, later.longest
        if other is not None and (best is None or (other.showdowns, other.rounds)
                                  > (best.showdowns, best.rounds)):
            self.longest = other

    def to_json(self) -> dict[str, Any]:
        longest = None
        if self.longest is not None:
            longest = {"rounds": self.longest.rounds, "showdowns": self.longest.showdowns,
                       "deal": [list(s) for s in self.longest.deal]}
        return {
            "deals": self.deals,
            "cycles": self.cycles,
            "capped": self.capped,
            "mean_rounds": self.rounds_sum / self.finished if self.finished else None,
            "mean_showdowns": self.showdowns_sum / self.finished if self.finished else None,
            "longest": longest,
            "wins": list(self.wins),
            "draws": self.draws,
        }


def check_enumerable(rules: Rules) -> int:
    """Raise unless the rules' deals can be enumerated; returns the seat that leads."""
    if rules.mode != "classic":
        raise InvalidRulesError("mode: enumerate plays classic deals (tactical games depend on "
                                "the players' orders)")
    if rules.random_play or rules.pickup_order == "agent":
        raise InvalidRulesError(f"pickup_order: enumerate needs deterministic rules, not "
                                f"pickup_order={rules.pickup_order}, refill={rules.refill}")
    rules.check_players(2)  # a deck of one card cannot be dealt to two seats
    if count_deals(rules.deck) > MAX_ENUMERATED_DEALS:
        raise InvalidRulesError(f"deck: {rules.deck} has {count_deals(rules.deck):.3g} distinct "
                                "deals, too many to enumerate")
    dealer = rules.dealer if rules.dealer != "random" else 0
    if dealer > 1:
        raise InvalidRulesError(f"dealer: seat {dealer} does not exist with 2 seats")
    return dealer


def enumerate_deals(rules: Rules, *, progress: Callable[[int], None] | None = None
                    ) -> DealStats:
    """Play every distinct two-player deal with the reference engine.

    Seat 0 leads unless the rules fix another dealer. ``progress(n)`` is called with the number
    of deals done since the last call.
    """
    dealer = check_enumerable(rules)
    deck = rules.deck
    stats = DealStats()
    pending = 0
    for deal in distinct_deals(deck):
        stacks = stacks_for(deck, deal)
        result = ClassicGame(rules, stacks, dealer=dealer).play()
        stats.add(result, lambda s=stacks: tuple(tuple(deck.cards_json(x)) for x in s))
        pending += 1
        if progress is not None and pending >= 1000:
            progress(pending)
            pending = 0
    if progress is not None and pending:
        progress(pending)
    return stats
