"""The round before: every two-player position one classic round earlier than a given one.

For the sorting pickup orders (RULES.md §2.5 ``high_first``, ``low_first``) with one face-up
card a showdown (``dispute: one_up``) and cards under the stack (``pickup_to: bottom``), a round
is undone from its result alone: the winner's stack ends with the table sorted, the table is
ties (pairs of equal ranks, in any order) and one final pair won by its higher card. Searching
back from the positions of a known cycle finds the deals that lead into it: Mathieu &
Delahaye's period-1,125 cycle (11 ranks × 4, ``high_first``) is listed from a position of
24 + 20 cards, and no position of it splits the deck 22 + 22, but positions one round before
it do (``docs/research.md``).

Positions are pairs of stacks of rank indices (:func:`pyanitsa.ranks.rank_table`), top card
first. Only rounds whose table was collected are undone: a round whose table left the game
(``dispute_exhausted``) changes the deck and is not a step back within one deck.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator

from pyanitsa.errors import InvalidRulesError
from pyanitsa.ranks import rank_table
from pyanitsa.records import Record
from pyanitsa.rules import Rules

Ranks = tuple[int, ...]
"""A stack as rank indices, top card first."""
Pair = tuple[Ranks, Ranks]
"""A two-player position: seat 0's stack, seat 1's stack."""


def sorted_descending(rules: Rules) -> bool:
    """Whether ``rules`` sort the table high first (``False``: low first); raises
    :class:`InvalidRulesError` for rules whose rounds this module cannot undo."""
    needs = {"mode": "classic", "dispute": "one_up", "pickup_to": "bottom",
             "weakest_beats_ace": False}
    for key, value in needs.items():
        if getattr(rules, key) != value:
            raise InvalidRulesError(f"{key}: preimages need {value!r}, not "
                                    f"{getattr(rules, key)!r}")
    if rules.pickup_order not in ("high_first", "low_first"):
        raise InvalidRulesError(f"pickup_order: preimages need high_first or low_first, not "
                                f"{rules.pickup_order!r}")
    return rules.pickup_order == "high_first"


def _orders(ranks: Counter[int]) -> Iterator[Ranks]:
    """Every distinct order of a multiset of ranks."""
    if not +ranks:
        yield ()
        return
    for r in sorted(+ranks):
        rest = ranks.copy()
        rest[r] -= 1
        for tail in _orders(rest):
            yield (r, *tail)


def _tables(pile: Ranks) -> Iterator[tuple[Ranks, int, int]]:
    """The rounds a sorted table ``pile`` can come from: (tie ranks in play order, the
    winner's last card, the loser's last card)."""
    count = Counter(pile)
    for hi in sorted(count):
        for lo in sorted(count):
            if lo >= hi:
                continue
            ties = count.copy()
            ties[hi] -= 1
            ties[lo] -= 1
            if any(v % 2 for v in ties.values()):
                continue
            for order in _orders(Counter({r: v // 2 for r, v in ties.items()})):
                yield order, hi, lo


def preimages(pair: Pair, *, descending: bool = True) -> list[Pair]:
    """Every position from which one round gives ``pair`` (each seat may have won it)."""
    out: list[Pair] = []
    for w in (0, 1):
        won, lost = pair[w], pair[1 - w]
        for m in range(1, len(won) // 2 + 1):
            pile = won[len(won) - 2 * m:]
            if any((a < b) if descending else (a > b)
                   for a, b in zip(pile, pile[1:], strict=False)):
                break  # a longer tail is not sorted either
            rest = won[:len(won) - 2 * m]
            for ties, hi, lo in _tables(pile):
                before_w, before_l = (*ties, hi, *rest), (*ties, lo, *lost)
                out.append((before_w, before_l) if w == 0 else (before_l, before_w))
    return out


def search_back(positions: Iterable[Pair], *, descending: bool = True, max_depth: int = 8,
                max_positions: int = 1_000_000) -> Iterator[tuple[int, Pair]]:
    """Breadth first back from ``positions`` (a cycle's, say): every position not among them
    that leads into them, with its depth (rounds to reach them), until ``max_depth`` or
    ``max_positions`` positions seen."""
    frontier = list(dict.fromkeys(positions))  # in the order given, for a repeatable search
    seen = set(frontier)
    for depth in range(1, max_depth + 1):
        found: list[Pair] = []
        for pos in frontier:
            for before in preimages(pos, descending=descending):
                if before not in seen:
                    seen.add(before)
                    found.append(before)
                    yield depth, before
                    if len(seen) >= max_positions:
                        return
        frontier = found


def rank_positions(record: Record, rounds: int) -> list[Pair]:
    """The positions of ``record``'s game before each of its first ``rounds`` rounds, as
    rank indices (a cycle's, given its period and a record standing on it)."""
    game = record.game()
    rank_of = rank_table(record.rules).rank_of
    out: list[Pair] = []
    for _ in range(rounds):
        a, b = (tuple(rank_of[c] for c in s) for s in game.stacks)
        if not game.play_round():
            break
        out.append((a, b))
    return out


def record_of(rules: Rules, pair: Pair, *, dealer: int = 0) -> Record:
    """A record whose stacks hold ``pair``'s ranks (copies of a rank taken in deck order)."""
    table = rank_table(rules)
    pools: dict[int, deque[int]] = {}
    for card, r in enumerate(table.rank_of):
        pools.setdefault(r, deque()).append(card)
    try:
        seats = tuple(tuple(pools[r].popleft() for r in stack) for stack in pair)
    except (KeyError, IndexError):
        raise InvalidRulesError("stacks: more cards of a rank than the deck holds") from None
    return Record(rules, seats, dealer=dealer)
