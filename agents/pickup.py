"""Classic pickup agents: the order in which a won table goes under my stack.

Every fixed ``pickup_order`` of RULES.md §2.5 is an agent here (``pickup_table`` ...
``pickup_shuffled``) giving exactly the engine's order, so a game with ``pickup_order: agent``
and these agents in every seat is the same game as with the fixed order (a test checks it).
Then heuristics of our own, built on what we measured moves a game of War (duplicate deals,
``benchmarks/heuristics_h2h.py``):

* Strongest first is the big lever: against random pickups it wins 57% of two-player games
  in ``classic-ru``/``-ua`` (weakest first: 28%) and 70% in ``war-52``. Most of it comes
  from sorting the dispute tables; only running out loses, and a sorted table plays its winners
  before its losers.
* A tie is decided by the next face-up card (``stakes + 1`` cards later with ``down_up``), and
  a dispute's pot is large: ``pickup_tie_aware`` puts a strong card right after each card
  likely to tie. Alone it is worth less (53%; nothing with ``down_up``); on the two-card
  tables of a one-up game it adds to strongest first (``pickup_strong_ties``: 58%).
"""

from __future__ import annotations

import numpy as np

from pyanitsa.agents.odds import interleave_gap, tie_and_edge, tie_chain
from pyanitsa.agents.specs import register
from pyanitsa.cards import Card
from pyanitsa.classic import fixed_pickup_order
from pyanitsa.protocol import BaseAgent, PickupView
from pyanitsa.rng import Rng


def table_steps(view: PickupView) -> list[int]:
    """The dispute step of each card of the table (0 for the first showdown).

    The view gives owners and face-up flags, which determine the steps: the first showdown has
    one face-up card from every player of the round, in play order; each later step has, for
    each disputing player in play order, their face-down stakes then one face-up card, so a new
    step begins when the play order goes back.
    """
    owners, up = view.owners, view.face_up
    k = len(set(owners))
    place = {s: i for i, s in enumerate(owners[:k])}
    steps = [0] * k
    step, last, i, n = 0, k, k, len(owners)
    while i < n:
        j = i
        while not up[j]:
            j += 1
        p = place[owners[j]]
        if p <= last:
            step += 1
        last = p
        steps.extend([step] * (j - i + 1))
        i = j + 1
    return steps


def engine_order(view: PickupView, how: str) -> list[Card]:
    """The order the engine gives a table under a fixed, non-random ``pickup_order``."""
    steps = table_steps(view)  # every fixed order may read the dispute steps
    # first appearance of each owner is the round's play order
    return fixed_pickup_order(how, view.cards, view.owners, steps, view.ranks.rank_of,
                              view.seat, list(dict.fromkeys(view.owners)))


class FixedPickup(BaseAgent):
    """A fixed ``pickup_order`` of the engine, as an agent."""

    how = ""

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> list[Card]:
        return engine_order(view, self.how)


@register("pickup_table", decisions=("pickup",))
class PickupTable(FixedPickup):
    """The cards in the order they reached the table (``pickup_order: table``)."""

    how = "table"


@register("pickup_by_seat", decisions=("pickup",))
class PickupBySeat(FixedPickup):
    """Each player's cards together, players in the round's play order (``by_seat``)."""

    how = "by_seat"


@register("pickup_winner_first", decisions=("pickup",))
class PickupWinnerFirst(FixedPickup):
    """My own cards first, then everyone else's, each in table order (``winner_first``)."""

    how = "winner_first"


@register("pickup_loser_first", decisions=("pickup",))
class PickupLoserFirst(FixedPickup):
    """Everyone else's cards first, then my own, each in table order (``loser_first``)."""

    how = "loser_first"


@register("pickup_high_first", decisions=("pickup",))
class PickupHighFirst(FixedPickup):
    """Strongest first, equal ranks in table order (``high_first``)."""

    how = "high_first"


@register("pickup_low_first", decisions=("pickup",))
class PickupLowFirst(FixedPickup):
    """Weakest first, equal ranks in table order (``low_first``)."""

    how = "low_first"


@register("pickup_natural", decisions=("pickup",))
class PickupNatural(FixedPickup):
    """The pile turned over: last showdown first, within one strongest first (``natural``)."""

    how = "natural"


@register("pickup_shuffled", decisions=("pickup",))
class PickupShuffled(BaseAgent):
    """A uniformly random order (``shuffled``).

    By default it draws from the agent's generator. Given ``seed``, it shuffles with the
    engine's SplitMix64 generator started from that state, continuing it from call to call:
    with the game's play seed (a record's ``seed``) and ``refill: turn_over`` that is exactly
    the engine's ``pickup_order: shuffled`` (one agent object per game, then).
    """

    def __init__(self, seed: int | None = None) -> None:
        self.stream = None if seed is None else Rng(int(seed))

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> list[Card]:
        cards = list(view.cards)
        if self.stream is None:
            return [cards[i] for i in rng.permutation(len(cards))]
        self.stream.shuffle(cards)
        return cards


# -- heuristics ---------------------------------------------------------------------------------


def opponent_pool(view: PickupView) -> list[int]:
    """Cards per rank I cannot place: the deck minus what I know I hold (my known stack tail,
    my won pile, this table). The opponents' cards are among them."""
    table = view.ranks
    pool = list(table.counts)
    rank_of = table.rank_of
    for group in (view.known_tail, view.my_pile, view.cards):
        for c in group:
            pool[rank_of[c]] -= 1
    return pool


def tie_aware_order(view: PickupView, rng: np.random.Generator) -> list[Card]:
    """The table ordered so that cards likely to tie are followed by cards likely to win."""
    table = view.ranks
    pool = opponent_pool(view)
    opponents = max(1, sum(view.in_game) - 1)
    tie, edge = tie_and_edge(table, pool, opponents, view.rules.misere)
    rules = view.rules
    gap = rules.stakes + 1 if rules.dispute == "down_up" else 1
    before = view.my_pile[-1:] or view.known_tail[-1:]
    lead = tie[table.rank_of[before[0]]] if before and gap == 1 else None
    ranks = [table.rank_of[c] for c in view.cards]
    order = interleave_gap(tie_chain(ranks, tie, edge, rng, lead_tie=lead), gap)
    return [view.cards[i] for i in order]


@register("pickup_tie_aware", decisions=("pickup",))
class PickupTieAware(BaseAgent):
    """Put my strongest cards right after the cards most likely to tie: a dispute is decided
    by the next card (``stakes + 1`` cards on with ``down_up``) and takes a big pot.

    Tie chances come from the cards I cannot place (the deck minus my known stack tail, my won
    pile and this table), which hold the opponents' cards; the card already at the bottom of
    my stack counts as the first tied card. Under misère the follower is the likeliest loser.
    """

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> list[Card]:
        return tie_aware_order(view, rng)


def strongest_first(view: PickupView) -> list[Card]:
    rank_of = view.ranks.rank_of
    sign = 1 if view.rules.misere else -1
    return sorted(view.cards, key=lambda c: sign * rank_of[c])


@register("pickup_strong_ties", decisions=("pickup",))
class PickupStrongTies(BaseAgent):
    """Strongest first, the biggest lever we measured in War, except that a two-card table in
    a one-up game is ordered for ties (``pickup_tie_aware``).

    Duplicate deals, two players, against random pickups: strongest first wins 57% of games
    in ``classic-ru``/``-ua`` and 70% in ``war-52``, weakest first 28%; sorting the dispute
    tables carries most of it. With ``dispute: one_up`` the card after a two-card table's
    first card decides a tie on it, and ordering those pairs for ties instead lifts
    ``classic-ru``/``-ua`` to 58%. Under misère (running out wins) the weakest go first.
    """

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> list[Card]:
        if len(view.cards) == 2 and view.rules.dispute == "one_up":
            return tie_aware_order(view, rng)
        return strongest_first(view)
