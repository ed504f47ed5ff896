"""Seeded deals (RULES.md §1): the dealer lot, the shuffle, and one card at a time clockwise."""

from __future__ import annotations

from dataclasses import dataclass

from pyanitsa.cards import Card, Seat
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules


@dataclass(frozen=True)
class Deal:
    """The outcome of dealing: who dealt, what each seat got, what was set aside."""

    dealer: Seat
    """The dealer, who leads the first classic round."""
    seats: tuple[tuple[Card, ...], ...]
    """Each seat's cards in the order received: a classic stack top first, a tactical hand."""
    set_aside: tuple[Card, ...]
    """Cards dealt to nobody (``deal: equal``); they count for nobody."""
    play_seed: int | None = None
    """The generator's state after the deal for rules that shuffle during play (what play
    goes on from, a record's ``seed``); ``None`` for rules that do not."""


def deal_from_seed(rules: Rules, players: int, seed: int) -> Deal:
    """Game ``seed``'s deal: how ``pyanitsa play --seed``, every seeded run, env and solver
    deals (``derive_seed(seed, i)`` names deal ``i`` of a run)."""
    return deal(rules, players, Rng(seed))


def deal(rules: Rules, players: int, rng: Rng) -> Deal:
    """Deal with ``rng``: the lot for the dealer (if random) first, then a Fisher–Yates shuffle.

    Cards go one at a time clockwise from the seat left of the dealer, so with ``deal: all``
    the earlier seats may get one card more.
    """
    rules.check_players(players)
    dealer = rng.randbelow(players) if rules.dealer == "random" else rules.dealer
    cards = list(range(rules.deck.size))
    rng.shuffle(cards)
    dealt = len(cards) if rules.deal == "all" else len(cards) - len(cards) % players
    seats: list[list[Card]] = [[] for _ in range(players)]
    for i in range(dealt):
        seats[(dealer + 1 + i) % players].append(cards[i])
    return Deal(dealer, tuple(tuple(s) for s in seats), tuple(cards[dealt:]),
                rng.state if rules.random_play else None)
