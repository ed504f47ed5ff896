"""Ranks as agents and environments see them: suits never matter, so a card is its rank.

Rank indices ``0..R-1`` follow the rank order of RULES.md §1 (weakest first, jokers included;
with ``weakest_beats_ace`` in ``54`` the jokers are rank 0).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import NamedTuple

from pyanitsa.cards import Card, strengths
from pyanitsa.rules import Rules


class RankTable(NamedTuple):
    """Rank index of every card of a deck under one set of rules.

    A named tuple, not a dataclass: :func:`rank_table` shares one table per rules between the
    engine's callers and every agent's view, and a tuple cannot be written to (a frozen
    dataclass yields to ``object.__setattr__``)."""

    rank_of: tuple[int, ...]
    """Rank index of each card."""
    counts: tuple[int, ...]
    """Cards of each rank in the deck."""
    labels: tuple[str, ...]
    """A short name per rank: ``6`` .. ``A``, ``X`` for jokers, research values as numbers."""
    weakest: int
    """Rank index of the weakest rank."""
    ace: int
    """Rank index of the ace (the rank the weakest beats with ``weakest_beats_ace``)."""
    special: bool
    """Whether the weakest rank beats the ace."""

    @property
    def num_ranks(self) -> int:
        return len(self.counts)

    def beats(self, a: int, b: int) -> bool:
        """Whether rank ``a`` beats rank ``b`` in a showdown of two."""
        if self.special:
            if a == self.weakest and b == self.ace:
                return True
            if a == self.ace and b == self.weakest:
                return False
        return a > b

    def histogram(self, cards: Iterable[Card]) -> list[int]:
        """Cards per rank."""
        out = [0] * len(self.counts)
        for c in cards:
            out[self.rank_of[c]] += 1
        return out



@cache
def rank_table(rules: Rules) -> RankTable:
    """The rank table of a rules' deck (cached: rules are frozen and hashable)."""
    deck = rules.deck
    strength, weakest, ace = strengths(deck, weakest_beats_ace=rules.weakest_beats_ace)
    distinct = sorted(set(strength))
    index = {s: i for i, s in enumerate(distinct)}
    rank_of = tuple(index[s] for s in strength)
    counts = [0] * len(distinct)
    for r in rank_of:
        counts[r] += 1
    labels = []
    for s in distinct:
        card = strength.index(s)
        if deck.is_joker(card):
            labels.append("X")
        else:
            labels.append(deck.card_name(card)[:-1] if not deck.is_research
                          else deck.card_name(card))
    return RankTable(rank_of, tuple(counts), tuple(labels), index[weakest], index[ace],
                     rules.weakest_beats_ace and weakest != ace)
