"""Showdowns (RULES.md §1): which contenders are unbeaten, and what a cycle does."""

from __future__ import annotations

from collections.abc import Sequence

from pyanitsa.cards import Card, strengths
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules


class Judge:
    """Compares cards under one set of rules; built once per game (tables, not branches).

    Who beats whom is :attr:`pyanitsa.ranks.RankTable.beat`, the table every engine and
    kernel reads."""

    __slots__ = ("strength", "rank_of", "beat", "upset", "weakest", "weakest_wins")

    def __init__(self, rules: Rules) -> None:
        self.strength, _, _ = strengths(rules.deck, weakest_beats_ace=rules.weakest_beats_ace)
        table = rank_table(rules)
        self.rank_of, self.beat, self.upset = table.rank_of, table.beat, table.upset
        self.weakest = table.weakest
        self.weakest_wins = rules.cycle_rule == "weakest_wins"

    def top(self, cards: Sequence[Card]) -> list[int] | None:
        """Indices of the unbeaten cards in ``cards``; ``None`` for a void cycle.

        Usually the highest rank. If a lower rank may beat it (``weakest_beats_ace``: the
        weakest beats the ace), the unbeaten rank is looked for; if every card is beaten (a
        cycle: a middle card beats the weakest, the weakest the ace, the ace the middle card),
        ``weakest_wins`` makes the weakest cards the top set and ``void`` gives ``None``.
        """
        rank_of = self.rank_of
        rs = [rank_of[c] for c in cards]
        best = max(rs)
        if self.upset[best]:
            beat = self.beat
            best = next((r for r in rs if not any(beat[s][r] for s in rs)), -1)
            if best < 0:
                if not self.weakest_wins:
                    return None
                best = self.weakest
        return [i for i, r in enumerate(rs) if r == best]
