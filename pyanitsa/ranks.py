"""Ranks as agents and environments see them: suits never matter, so a card is its rank.

Rank indices ``0..R-1`` follow the rank order of RULES.md §1 (weakest first, jokers included;
with ``weakest_beats_ace`` in ``54`` the jokers are rank 0). Who beats whom is written here
once, as :func:`beats_table`: the reference engine's showdown (:class:`pyanitsa.showdown.Judge`),
the batch core's parameter vector (:func:`pyanitsa.batch.encode.params`) and the agents all
read it.
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
    beat: tuple[tuple[bool, ...], ...]
    """``beat[a][b]``: rank ``a`` beats rank ``b`` (:func:`beats_table`)."""
    upset: tuple[bool, ...]
    """``upset[r]``: some lower rank beats rank ``r`` (the highest card of a showdown is
    unbeaten unless this holds)."""

    @property
    def num_ranks(self) -> int:
        return len(self.counts)

    @property
    def special(self) -> bool:
        """Whether the weakest rank beats the ace."""
        return self.beat[self.weakest][self.ace]

    def beats(self, a: int, b: int) -> bool:
        """Whether rank ``a`` beats rank ``b`` in a showdown of two."""
        return self.beat[a][b]

    def histogram(self, cards: Iterable[Card]) -> list[int]:
        """Cards per rank."""
        out = [0] * len(self.counts)
        for c in cards:
            out[self.rank_of[c]] += 1
        return out



def beats_table(rules: Rules, num_ranks: int, weakest: int,
                ace: int) -> tuple[tuple[bool, ...], ...]:
    """``beat[a][b]``: whether rank ``a`` beats rank ``b`` (RULES.md §1): the higher rank,
    except the upsets the rules make, a lower rank beating a higher one and not the other way
    (``weakest_beats_ace``: the weakest beats the ace).

    Every upset is the weakest rank's, so a showdown in which every card is beaten (a cycle)
    holds a weakest card, which ``cycle_rule: weakest_wins`` makes the winner."""
    upsets = set()
    if rules.weakest_beats_ace and weakest != ace:
        upsets.add((weakest, ace))
    if any(low != weakest or low >= high for low, high in upsets):
        raise ValueError(f"upsets {sorted(upsets)}: only the weakest rank beats a higher one")
    return tuple(tuple((a, b) in upsets or (a > b and (b, a) not in upsets)
                       for b in range(num_ranks)) for a in range(num_ranks))


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
    beat = beats_table(rules, len(distinct), index[weakest], index[ace])
    upset = tuple(any(beat[low][r] for low in range(r)) for r in range(len(distinct)))
    return RankTable(rank_of, tuple(counts), tuple(labels), index[weakest], index[ace], beat,
                     upset)
