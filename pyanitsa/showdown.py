"""Showdowns (RULES.md §1): which contenders are unbeaten, with ``weakest_beats_ace``."""

from __future__ import annotations

from collections.abc import Sequence

from pyanitsa.cards import Card, strengths
from pyanitsa.rules import Rules


class Judge:
    """Compares cards under one set of rules; built once per game (tables, not branches)."""

    __slots__ = ("strength", "weakest", "ace", "special", "weakest_wins")

    def __init__(self, rules: Rules) -> None:
        self.strength, self.weakest, self.ace = strengths(
            rules.deck, weakest_beats_ace=rules.weakest_beats_ace)
        self.special = rules.weakest_beats_ace and self.weakest != self.ace
        self.weakest_wins = rules.cycle_rule == "weakest_wins"

    def top(self, cards: Sequence[Card]) -> list[int] | None:
        """Indices of the unbeaten cards in ``cards``; ``None`` for a void cycle.

        Without the special pair this is simply the highest strength. With it, a weakest card
        beats an ace and nothing else; if every card is beaten (a cycle), ``weakest_wins`` makes
        the weakest cards the top set and ``void`` gives ``None``.
        """
        strength = self.strength
        ss = [strength[c] for c in cards]
        best = max(ss)
        if not self.special or best != self.ace or self.weakest not in ss:
            return [i for i, s in enumerate(ss) if s == best]
        # An ace meets a weakest card: the weakest cards beat every ace, so the unbeaten cards
        # are the weakest ones unless something between them and the aces beats them.
        lower = [s for s in ss if s != self.ace and s != self.weakest]
        if not lower:
            return [i for i, s in enumerate(ss) if s == self.weakest]
        # A middle card beats the weakest, the weakest beats the ace, the ace beats the middle.
        if self.weakest_wins:
            return [i for i, s in enumerate(ss) if s == self.weakest]
        return None
