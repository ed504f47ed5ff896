"""Rules to integer parameters, and records to arrays of card strengths, for the compiled core.

The compiled core never sees card identities: every outcome depends only on each card's
strength (its place in the rank order, RULES.md §1), so stacks and hands become ``uint8``
strengths. A strength is the card's rank index of :mod:`pyanitsa.ranks` (``0`` the weakest),
so the search agents' rank orders and the batch core's hands are read with one parameter
vector.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pyanitsa.errors import InvalidRulesError
from pyanitsa.ranks import rank_table
from pyanitsa.rules import OPTION_CHOICES, Rules

# Indices into the int64 parameter vector.
DISPUTE = 0          # 0 one_up, 1 down_up
STAKES = 1
EXHAUSTED = 2        # see EXHAUSTED_CODES
PICKUP_TO = 3        # 0 bottom, 1 won_pile
REFILL = 4           # 0 turn_over, 1 shuffle
ORDER = 5            # see ORDER_CODES
NEW_TOUR = 6
CYCLES = 7           # rules.cycle_detection
MAX_ROUNDS = 8
MISERE = 9
RANKS = 10           # R, the deck's ranks: the side of the beats table
WEAKEST = 11         # the weakest rank (strength 0, the winner of a weakest_wins cycle)
WEAKEST_WINS = 12    # cycle_rule: weakest_wins
PLAIN = 13           # the beats table is plain rank order (no upset): the higher rank wins
BEATS = 14
"""Then ``prm[BEATS + a * R + b]``: rank ``a`` beats rank ``b`` (``RankTable.beat``), and
``prm[BEATS + R * R + r]``: a lower rank beats rank ``r`` (``RankTable.upset``)."""


def literal_codes(option: str) -> dict[str, int]:
    """Codes ``0, 1, ...`` for an option's values in the order its ``Literal`` declares them."""
    return {value: i for i, value in enumerate(OPTION_CHOICES[option])}


CODES: dict[str, dict[str, int]] = {key: literal_codes(key) for key in OPTION_CHOICES}
"""Every ``Literal`` option's codes, derived from :class:`Rules` (never written out here)."""
EXHAUSTED_CODES = CODES["dispute_exhausted"]
ORDER_CODES = CODES["pickup_order"]
REFUSED = {("pickup_order", "agent"): "an agent chooses each pickup; play such games with the "
                                      "reference engine"}
"""Values the batch core never plays, with why (the reference engine plays them)."""



def code(rules: Rules, option: str) -> int:
    """The kernel code of ``rules``' value for ``option``; an error naming both if no kernel
    piece plays it."""
    from pyanitsa.batch.pieces import PLAYED  # the pieces declare what they play

    value = getattr(rules, option)
    why = REFUSED.get((option, value))
    if why is None and CODES[option][value] not in PLAYED[option]:
        why = "no kernel piece plays it yet (pyanitsa/batch/pieces.py PLAYED)"
    if why is not None:
        raise InvalidRulesError(f"{option}: {value} is not supported by the batch core ({why})")
    return CODES[option][value]


# Columns of a classic result row.
R_OUTCOME, R_WINNER, R_ROUNDS, R_SHOWDOWNS, R_NELIM, R_CSTART, R_CLEN = 0, 1, 2, 3, 4, 5, 6
N_RESULT = 7

# Classic outcomes as the core writes them.
WIN, DRAW, CYCLE, CAPPED = 0, 1, 2, 3
OUTCOME_NAMES = ("win", "draw", "cycle", "capped")


def strength_table(rules: Rules) -> np.ndarray:
    """Strength of each card id (``uint8``): its rank index."""
    return np.asarray(rank_table(rules).rank_of, dtype=np.uint8)


def params(rules: Rules) -> np.ndarray:
    """The rules as an int64 vector indexed by the constants above: the one parameter record
    of every kernel, classic, tactical and the search agents' alike."""
    table = rank_table(rules)
    r = table.num_ranks
    p = np.zeros(BEATS + r * r + r, dtype=np.int64)
    p[DISPUTE] = code(rules, "dispute")
    p[EXHAUSTED] = code(rules, "dispute_exhausted")
    p[PICKUP_TO] = code(rules, "pickup_to")
    p[REFILL] = code(rules, "refill")
    p[ORDER] = code(rules, "pickup_order")
    p[STAKES] = rules.stakes
    p[NEW_TOUR] = rules.new_tour_on_elimination
    p[CYCLES] = rules.cycle_detection
    p[MAX_ROUNDS] = rules.max_rounds
    p[MISERE] = rules.misere
    p[RANKS] = r
    p[WEAKEST] = table.weakest
    p[WEAKEST_WINS] = code(rules, "cycle_rule")
    p[PLAIN] = not any(table.upset)
    p[BEATS:BEATS + r * r] = np.asarray(table.beat, dtype=np.int64).ravel()
    p[BEATS + r * r:] = table.upset
    return p


def plain_order(prm: np.ndarray) -> bool:
    """Whether the higher rank always wins (no lower rank beats a higher one)."""
    return bool(prm[PLAIN])


def ring_size(deck_size: int) -> int:
    """The power of two (at least 64) that holds every card of the deck."""
    cap = 64
    while cap < deck_size:
        cap *= 2
    return cap


def seats_array(rules: Rules, seats_list: Sequence[Sequence[Sequence[int]]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """Card ids of many games' seats to (strengths ``[G, P, n]`` padded with 0, lengths)."""
    games = len(seats_list)
    players = max(len(s) for s in seats_list)
    width = max(1, max(len(c) for seats in seats_list for c in seats))
    table = strength_table(rules)
    out = np.zeros((games, players, width), dtype=np.uint8)
    lengths = np.zeros((games, players), dtype=np.int64)
    for g, seats in enumerate(seats_list):
        for s, cards in enumerate(seats):
            lengths[g, s] = len(cards)
            out[g, s, :len(cards)] = table[np.asarray(cards, dtype=np.int64)]
    return out, lengths
