"""A person at the terminal as an agent: ``pyanitsa play --agents human,mc_search``."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from pyanitsa.agents.specs import register
from pyanitsa.cards import Card
from pyanitsa.errors import PyanitsaError
from pyanitsa.protocol import BaseAgent, HandView, PickupView
from pyanitsa.ranks import RankTable, rank_table
from pyanitsa.rules import Rules

SHORTCUTS = {
    "asc": "asc", "ascending": "asc", "up": "asc", "low": "asc",
    "desc": "desc", "descending": "desc", "down": "desc", "high": "desc",
    "random": "random", "shuffle": "random", "rnd": "random",
    "table": "table",
}
"""Words that order every card not named before them."""

HELP = ("Type the cards in the order to play them, first played first, separated by spaces or "
        "commas: card names (As Kd 6c) or ranks (A K 6: any card of that rank, suits never "
        "matter). End with asc, desc or random{table} to order the cards you did not name, or "
        "type just that word.{always}")
ALWAYS_HELP = (" 'always' before one of those words (always table) orders this pickup and every "
               "later one that way without asking.")


class OrderError(PyanitsaError):
    """Input that does not describe an order of the given cards."""


def parse_order(text: str, cards: Sequence[Card], rules: Rules, rng: np.random.Generator,
                *, table_order: bool = False) -> list[Card]:
    """Read an order of ``cards`` from a line of input (see :data:`HELP`).

    ``cards`` is the default order (the table for a pickup, the hand weakest first) that the
    ``table`` shortcut keeps. Raises :class:`OrderError` explaining what is wrong.
    """
    deck = rules.deck
    ranks = rank_table(rules)
    tokens = [t for t in text.replace(",", " ").split() if t]
    if not tokens:
        raise OrderError("type an order (or 'help')")
    left = list(cards)
    out: list[Card] = []
    labels = {label.lower(): r for r, label in enumerate(ranks.labels)}
    names = {name.lower() for name in deck.names}
    for k, token in enumerate(tokens):
        word = token.lower()
        if word in SHORTCUTS and (SHORTCUTS[word] != "table" or table_order):
            if k != len(tokens) - 1:
                raise OrderError(f"{token!r} orders the remaining cards: put it last")
            out.extend(_shortcut(SHORTCUTS[word], left, ranks, rng))
            return out
        if not deck.is_research and word.startswith("10"):
            word = "t" + word[2:]
        if word in names:
            pick = [c for c in left if deck.names[c].lower() == word]
            what = f"card {token}"
        elif word in labels:
            pick = [c for c in left if ranks.rank_of[c] == labels[word]]
            what = f"card of rank {ranks.labels[labels[word]]}"
        else:
            raise OrderError(f"{token!r} is neither a card nor a rank of this deck")
        if not pick:
            where = "on the table" if table_order else "in your hand"
            raise OrderError(f"no {what} left to place ({token!r}: not {where}, or "
                             "already placed)")
        left.remove(pick[0])
        out.append(pick[0])
    if left:
        raise OrderError(f"you placed {len(out)} of {len(cards)} cards: name them all, or end "
                         "with asc, desc or random for the rest")
    return out


def _shortcut(how: str, cards: list[Card], ranks: RankTable,
              rng: np.random.Generator) -> list[Card]:
    if how == "asc":
        return sorted(cards, key=lambda c: ranks.rank_of[c])
    if how == "desc":
        return sorted(cards, key=lambda c: -ranks.rank_of[c])
    if how == "random":
        return [cards[i] for i in rng.permutation(len(cards))]
    return list(cards)


@register("human", decisions=("hand", "pickup"))
class Human(BaseAgent):
    """A person at the terminal orders the hand, or the pickups, typing card names or ranks.

    Input: cards in order separated by spaces or commas, as names (``As Kd``) or ranks (``A K
    6``: suits never matter), optionally ending with ``asc``, ``desc`` or ``random`` (pickups:
    also ``table``) for the cards not named; a typo is explained and asked again. ``stdin`` and
    ``stdout`` default to the terminal (tests pass streams).
    """

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        for label, stream, method in (("stdin", stdin, "readline"), ("stdout", stdout, "write")):
            if stream is not None and not hasattr(stream, method):
                raise ValueError(f"{label}: {stream!r} is not a text stream")
        self.stdin = stdin
        self.stdout = stdout
        self.always: str | None = None
        """The shortcut (asc, desc, random, table) every pickup takes once the player typed
        ``always WORD``; None: ask at each pickup."""

    def _say(self, text: str) -> None:
        out = self.stdout or sys.stdout
        out.write(text + "\n")
        out.flush()

    def _ask(self, prompt: str, cards: Sequence[Card], rules: Rules, rng: np.random.Generator,
             *, table_order: bool) -> list[Card]:
        out = self.stdout or sys.stdout
        while True:
            out.write(prompt)
            out.flush()
            line = (self.stdin or sys.stdin).readline()
            if not line:
                raise EOFError("no more input from the human player")
            if line.strip().lower() in ("help", "?"):
                self._say(HELP.format(table=", table" if table_order else "",
                                      always=ALWAYS_HELP if table_order else ""))
                continue
            words = line.lower().split()
            if table_order and words[:1] == ["always"]:
                if len(words) != 2 or words[1] not in SHORTCUTS:
                    self._say("  ! always what? 'always asc', 'always desc', 'always random' "
                              "or 'always table'")
                    continue
                self.always = SHORTCUTS[words[1]]
                self._say(f"  from now on every pickup goes in {self.always} order")
                return _shortcut(self.always, list(cards), rank_table(rules), rng)
            try:
                return parse_order(line, cards, rules, rng, table_order=table_order)
            except OrderError as exc:
                self._say(f"  ! {exc}; try again ('help' explains)")

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        deck, ranks = view.rules.deck, view.ranks
        unseen = " ".join(f"{ranks.labels[r]}x{n}" for r, n in enumerate(view.unseen) if n)
        aside = f", {view.set_aside} set aside" if view.set_aside else ""
        self._say(f"\nP{view.seat}: your hand ({view.hand_size} cards, weakest first): "
                  f"{deck.format_cards(view.hand)}")
        others = view.players - 1
        self._say(f"   unseen ({others} opponent{'s' if others > 1 else ''}{aside}): {unseen}")
        return self._ask("Your order, first played first (e.g. 'A K 6 asc'; 'help'): ",
                         view.hand, view.rules, rng, table_order=False)

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> list[Card]:
        deck = view.rules.deck
        shown = " ".join(f"{deck.names[c]}{'' if up else '(down)'}/P{o}"
                         for c, o, up in zip(view.cards, view.owners, view.face_up,
                                             strict=True))
        seat = view.seat
        counts = ", ".join(f"P{s} {view.stack_sizes[s] + view.pile_sizes[s]}"
                           for s in range(view.players) if view.in_game[s])
        self._say(f"\nP{seat}: you won round {view.rounds}; the table: {shown}")
        if self.always is not None:
            self._say(f"   placed in {self.always} order (you chose 'always {self.always}')")
            return _shortcut(self.always, list(view.cards), view.ranks, rng)
        self._say(f"   cards held before it: {counts}; your stack {view.stack_sizes[seat]} "
                  f"(bottom, known: {deck.format_cards(view.known_tail) or '-'}), "
                  f"won pile {deck.format_cards(view.my_pile) or '-'}")
        return self._ask("Pickup order, first played first (e.g. 'A K table', 'always table'; "
                         "'help'): ",
                         view.cards, view.rules, rng, table_order=True)
