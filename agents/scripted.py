"""Scripted tactical agents: fixed rules of thumb for ordering a Тактический пьяница hand.

Suits never matter, so every agent here thinks in rank indices (:mod:`pyanitsa.ranks`):
"strongest" means highest in the rank order of RULES.md §1 (the ace, or the jokers above it).
The ideas, and what they are good against:

* Against an opponent who orders at random, every position of my hand meets a uniformly random
  opposing card, so *which* card I play where changes nothing on average, except through ties:
  a tie carries the pot to the next card. That is what ``tie_aware`` exploits.
* Against an opponent with a predictable order (say strongest first), I can lose my weakest
  cards to its strongest and beat everything else by a little: ``sacrifice`` (Tian Ji's horse
  race).
* ``mixed`` draws one of several orders per hand, so that it cannot be predicted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pyanitsa.agents.odds import tie_and_edge, tie_chain
from pyanitsa.agents.specs import register, split_specs
from pyanitsa.agents.warm import warm_agent
from pyanitsa.cards import Card
from pyanitsa.protocol import BaseAgent, Deterministic, HandView, Mix, PickupView
from pyanitsa.ranks import RankTable
from pyanitsa.rules import Rules

MIX_MAX_ORDERS = 40_320
"""``random`` lists its distribution for hands with up to this many distinct orders (8!)."""


def by_rank(view: HandView) -> list[Card]:
    """My hand weakest first (the view's hand is already sorted so)."""
    return list(view.hand)


@register("random", decisions=("hand", "pickup"))
class RandomAgent(BaseAgent):
    """Uniformly random orders: the hand, and classic pickups too.

    The baseline every heuristic is measured against. Against it, every position of an opposing
    hand holds a uniformly random card.
    """

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        return self.order_cards(np.asarray(view.hand, np.int64), rng).tolist()

    def order_cards(self, hand: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """:meth:`order_hand` from the view's ``hand`` alone (an int64 array, sorted as the view
        sorts it), the only part of the view this agent reads: an env may call this without
        building the view, and the same draw from ``rng`` gives the same order."""
        order = hand.copy()  # shuffled in place: hand[rng.permutation(n)], draw for draw
        rng.shuffle(order)
        return order

    def mix(self, view: HandView) -> Mix | None:
        """Uniform over the distinct rank orders (each stands for the same number of card
        orders), for hands with at most :data:`MIX_MAX_ORDERS` of them."""
        from pyanitsa.agents.kernels import count_orders, distinct_orders
        from pyanitsa.agents.search import cards_for_ranks

        ranks = view.hand_ranks()
        count = count_orders(ranks)
        if count > MIX_MAX_ORDERS:
            return None
        return [(tuple(cards_for_ranks(view.hand, o, view.ranks)), 1.0 / count)
                for o in distinct_orders(ranks)]

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> list[Card]:
        return [view.cards[i] for i in rng.permutation(len(view.cards))]


@register("ascending")
class Ascending(Deterministic):
    """Weakest card first, strongest last (rank order; equal ranks in card order).

    Saves the strong cards for the end, where opponents who lead strong have run out of them.
    A tie is followed by an equal or stronger card, which is why it edges out ``random`` with
    two players (not with four).
    """

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        return by_rank(view)


@register("descending")
class Descending(Deterministic):
    """Strongest card first, weakest last (rank order; equal ranks in card order).

    The instinctive order: win early while the others may still hold weak cards. With two
    players a tie is followed by an equal or weaker card, so it does slightly worse than
    ``random``, and ``sacrifice`` beats it almost every time; with four it beats ``random``.
    """

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        return by_rank(view)[::-1]


class _TopK(BaseAgent):
    """The k strongest cards apart from the rest (``strongest_first``, ``strongest_last``)."""

    def __init__(self, k: int = 3) -> None:
        if k < 0:
            raise ValueError(f"k={k}: must be 0 or more")
        self.k = k

    def split(self, view: HandView, rng: np.random.Generator) -> tuple[list[Card], list[Card]]:
        """The k strongest cards, weakest of them first, and the rest in random order."""
        cards = by_rank(view)
        cut = len(cards) - min(self.k, len(cards))
        rest = cards[:cut]
        return cards[cut:], [rest[i] for i in rng.permutation(len(rest))]


@register("strongest_first")
class StrongestFirst(_TopK):
    """The k strongest cards lead, strongest first; the rest follow in random order.

    Grabs the first rounds for sure and hides the rest of the plan. ``k=0`` is ``random``, and
    ``k`` of the hand size or more is ``descending``.
    """

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        top, rest = self.split(view, rng)
        return top[::-1] + rest


@register("strongest_last")
class StrongestLast(_TopK):
    """The rest in random order, then the k strongest cards, the strongest played last.

    The mirror of ``strongest_first``: keeps the big cards for the end, when opponents who led
    strong have only weak cards left.
    """

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        top, rest = self.split(view, rng)
        return rest + top


def threat_profile(table: RankTable, pool: Sequence[int], hand_size: int, opponents: int,
                   assume: str) -> list[int]:
    """The strongest opposing rank expected at each position if every opponent plays ``assume``.

    Each opponent's hand is a random draw of ``hand_size`` cards from the unseen ``pool``. If
    they all play strongest first, position ``i`` shows their ``i``-th strongest cards, and the
    best of them is about the ``(i * opponents + 1)``-th strongest of all their cards together:
    an order statistic, whose expected place in the sorted pool is ``k (U + 1) / (N + 1)``
    (``k``-th of ``N`` cards drawn from ``U``). With one opponent holding every unseen card (two
    players, 36 cards) this is exactly their hand, strongest first.
    """
    total = sum(pool)
    if total == 0 or hand_size == 0:
        return [0] * hand_size
    drawn = min(total, hand_size * max(1, opponents))
    ranks_desc = [r for r in range(table.num_ranks - 1, -1, -1) for _ in range(pool[r])]
    out = []
    for i in range(hand_size):
        k = i * max(1, opponents) + 1
        place = round(k * (total + 1) / (drawn + 1)) - 1
        out.append(ranks_desc[min(max(place, 0), total - 1)])
    return out if assume == "descending" else out[::-1]


def tian_ji(mine: Sequence[int], threats: Sequence[int],
            beats: Callable[[int, int], bool], key: Callable[[int], int],
            special: tuple[int, int] | None = None) -> list[int]:
    """Tian Ji's assignment: my ranks placed against ``threats`` (one per position) to win the
    most showdowns. Returns my rank for each position.

    The classic greedy on both sides sorted by ``key`` (slow to fast): if my fastest beats their
    fastest, take it; else if my slowest beats their slowest, take that; else lose my slowest
    to their fastest. ``special = (x, y)`` first pairs my ``x`` cards with their ``y`` ones when
    ``x`` beats ``y`` against the sort order (the weakest rank against an ace).
    """
    n = len(threats)
    out = [-1] * n
    mine = sorted(mine, key=key)
    pos = sorted(range(n), key=lambda i: key(threats[i]))
    if special is not None:
        x, y = special
        mx = [j for j, r in enumerate(mine) if r == x]
        py = [i for i in pos if threats[i] == y]
        used = min(len(mx), len(py))
        for i in py[:used]:
            out[i] = x
        drop_m, drop_p = set(mx[:used]), set(py[:used])
        mine = [r for j, r in enumerate(mine) if j not in drop_m]
        pos = [i for i in pos if i not in drop_p]
    lo, hi = 0, len(mine) - 1
    tlo, thi = 0, len(pos) - 1
    while tlo <= thi:
        if beats(mine[hi], threats[pos[thi]]):
            out[pos[thi]] = mine[hi]
            hi -= 1
            thi -= 1
        elif beats(mine[lo], threats[pos[tlo]]):
            out[pos[tlo]] = mine[lo]
            lo += 1
            tlo += 1
        else:
            out[pos[thi]] = mine[lo]
            lo += 1
            thi -= 1
    return out


def cards_for_ranks(view: HandView, ranks: Sequence[int]) -> list[Card]:
    """My cards in the order of ``ranks`` (which must be my hand's ranks in some order)."""
    by: dict[int, list[Card]] = {}
    rank_of = view.ranks.rank_of
    for c in view.hand:
        by.setdefault(rank_of[c], []).append(c)
    return [by[r].pop() for r in ranks]


@register("sacrifice")
class Sacrifice(Deterministic):
    """Tian Ji's horse race: lose my weakest cards where the opponents are expected to be
    strongest, and beat each of their other cards with the smallest card that does.

    The opponents are assumed to play strongest first (``assume="descending"``) or weakest
    first (``"ascending"``); their likely cards at each position are order statistics of the
    unseen cards (see :func:`threat_profile`). With ``weakest_beats_ace`` my weakest cards go
    where their aces are expected; under misère the roles flip (lose as much as possible).
    Against a random orderer it is no better than random; against a predictable one it is
    devastating.
    """

    def __init__(self, assume: str = "descending") -> None:
        if assume not in ("descending", "ascending"):
            raise ValueError(f"assume={assume!r}: use 'descending' or 'ascending'")
        self.assume = assume

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        table = view.ranks
        threats = threat_profile(table, view.unseen, view.hand_size, view.players - 1,
                                 self.assume)
        mine = view.hand_ranks()
        special = None
        if view.rules.misere:
            def beats(a: int, b: int) -> bool:
                return table.beats(b, a)

            def key(r: int) -> int:
                return -r

            if table.special:
                special = (table.ace, table.weakest)
        else:
            beats, key = table.beats, int
            if table.special:
                special = (table.weakest, table.ace)
        return cards_for_ranks(view, tian_ji(mine, threats, beats, key, special))


@register("tie_aware")
class TieAware(BaseAgent):
    """Put my strongest cards right after the cards most likely to tie: a tie carries the pot
    to the next card, and that card should win it.

    A card of rank r ties with the chance that the best opposing card is also an r (from the
    unseen cards); the follower is rated by its chance to win minus its chance to lose against
    one opponent (disputes are mostly between two). The most tie-prone card gets the strongest
    follower, the next one the next strongest, as one chain (:func:`tie_chain`). Under misère
    the follower is the card most likely to lose.
    """

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        table = view.ranks
        tie, edge = tie_and_edge(table, view.unseen, view.players - 1, view.rules.misere)
        order = tie_chain(view.hand_ranks(), tie, edge, rng)
        return [view.hand[i] for i in order]


DEFAULT_POOL = "tie_aware,sacrifice"


@register("mixed")
class Mixed(BaseAgent):
    """Each hand ordered by an agent drawn at random from a pool, so no order can be exploited.

    Any fixed order can be beaten by one that expects it (``sacrifice`` crushes
    ``descending``); the default pool mixes the two strongest heuristics.

    ``pool`` is a comma-separated list of hand agents' specs, parameters allowed
    (``"descending,strongest_first(k=2)"``); ``weights`` their relative chances (default:
    equal), e.g. ``mixed(pool="tie_aware,sacrifice", weights=(3, 1))``.
    """

    def __init__(self, pool: str = DEFAULT_POOL, weights: Sequence[float] | None = None) -> None:
        from pyanitsa.agents.specs import make_agent

        specs = [s for s in split_specs(pool, allow_empty=True) if s]
        if not specs:
            raise ValueError("pool: name at least one agent")
        self.members = [make_agent(s) for s in specs]
        if weights is None:
            weights = [1.0] * len(specs)
        weights = [float(w) for w in weights]
        if len(weights) != len(specs) or min(weights) < 0 or sum(weights) <= 0:
            raise ValueError(f"weights: {len(specs)} non-negative numbers, not all zero, one "
                             "per pool member")
        total = sum(weights)
        self.p = np.array([w / total for w in weights])

    def warm_up(self, rules: Rules | None = None, players: int = 2) -> None:
        for member in self.members:  # a pool may hold mc_search or nash
            warm_agent(member, rules, players)

    def order_hand(self, view: HandView, rng: np.random.Generator) -> Sequence[Card]:
        member = self.members[int(rng.choice(len(self.members), p=self.p))]
        return member.order_hand(view, rng)
