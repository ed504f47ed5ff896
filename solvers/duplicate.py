"""Duplicate two-player evaluation: every deal played twice with the seats swapped, and the
figures of its pairs.

The luck of the deal cancels: a *pair* (one deal, both seatings) scores the agent's mean
tournament points over its two games (win 1, shared win 1/2, loss 0, as in ``tournaments``), so
0.5 is an even match. Its figures are counted over pairs (deals are independent, the two games
of a pair are not): :func:`duplicate_match`'s 95% interval (normal approximation), from
:mod:`pyanitsa.ratings.scores`, whose pair counts and likelihood of superiority ``pyanitsa
match`` (:mod:`pyanitsa.tournaments.matches`) reports from the same pair scores.

Games are exactly :func:`pyanitsa.agents.play_game`'s games with the same seeds (deal, agent
generators, validation), but every hand of every deal is ordered first, through ``order_hands``,
so a learned agent runs one batched forward pass per position instead of one per hand, and the
batch core then plays all the games of a chunk in one call (:func:`play_pairs`, which also
plays one agent against several opponents, ordering its hands once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import cast

import numpy as np

from pyanitsa.agents.game import check_order, seat_rng
from pyanitsa.batch import play_records
from pyanitsa.dealing import deal_from_seed
from pyanitsa.protocol import Agent, HandView, hand_view
from pyanitsa.ratings.scores import half_width, mean_var
from pyanitsa.records import Record
from pyanitsa.results import TacticalResult
from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules


@dataclass(frozen=True)
class DuelResult:
    """An agent's duplicate result against one opponent."""

    opponent: str
    deals: int
    score: float
    """Mean pair score (0.5 is even)."""
    half_width: float
    """Half-width of the 95% interval of ``score``."""
    margin: float
    """Mean card margin per game (my score minus the opponent's)."""
    wins: int
    draws: int
    losses: int
    """Games (two per deal)."""

    @property
    def low(self) -> float:
        return self.score - self.half_width

    @property
    def high(self) -> float:
        return self.score + self.half_width

    @property
    def verdict(self) -> str:
        if self.low > 0.5:
            return "better"
        if self.high < 0.5:
            return "worse"
        return "not separated"

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "low": self.low, "high": self.high, "verdict": self.verdict}


def order_all(agent: Agent, views: Sequence[HandView],
              rngs: Sequence[np.random.Generator]) -> list[Sequence[int]]:
    batched = getattr(agent, "order_hands", None)
    if batched is not None:
        return list(batched(views, rngs))
    return [agent.order_hand(v, r) for v, r in zip(views, rngs, strict=True)]


def play_pairs(rules: Rules, agent: Agent, opponents: Sequence[Agent], seeds: Sequence[int]
               ) -> list[list[TacticalResult]]:
    """Every opponent's games against ``agent`` on the deals ``seeds``: ``out[o][2 * i + k]`` is
    deal ``i`` with the agent in seat ``k``. The agent orders each hand once for all of them."""
    # game (deal i, seating k): the agent in seat k, the opponent in seat 1 - k
    mine_v, opp_v = [], []
    for gs in seeds:
        dealt = deal_from_seed(rules, 2, gs)
        views = [hand_view(rules, s, dealt.seats, len(dealt.set_aside)) for s in (0, 1)]
        for k in (0, 1):
            mine_v.append(views[k])
            opp_v.append(views[1 - k])
    mine = order_all(agent, mine_v, [seat_rng(gs, k) for gs in seeds for k in (0, 1)])
    records = []
    for opponent in opponents:  # fresh generators each: the last opponent's have moved on
        theirs = order_all(opponent, opp_v, [seat_rng(gs, 1 - k) for gs in seeds for k in (0, 1)])
        for j in range(2 * len(seeds)):
            a = tuple(check_order(mine[j], mine_v[j].hand, "agent hand order", rules))
            b = tuple(check_order(theirs[j], opp_v[j].hand, "opponent hand order", rules))
            records.append(Record(rules, (a, b) if j % 2 == 0 else (b, a)))
    results = play_records(records)  # the batch core, all games in one call
    games = 2 * len(seeds)
    assert all(isinstance(r, TacticalResult) for r in results)
    tactical = cast("list[TacticalResult]", results)
    return [tactical[o * games:(o + 1) * games] for o in range(len(opponents))]


def seat_points(result: TacticalResult, seat: int) -> float:
    """A seat's tournament points: 1 for a win, shared equally among tied winners."""
    return 1.0 / len(result.winners) if seat in result.winners else 0.0


def pair_scores(results: Sequence[TacticalResult], side: int = 0) -> list[float]:
    """Each pair's mean points for the agent (``side`` 0, in seat ``k`` of game ``2 i + k``)
    or its opponent (``side`` 1)."""
    return [(seat_points(results[2 * i], side) + seat_points(results[2 * i + 1], 1 - side)) / 2
            for i in range(len(results) // 2)]


def duplicate_match(rules: Rules, agent: Agent, opponent: Agent, deals: int, seed: int, *,
                    label: str | None = None, chunk: int = 2000) -> DuelResult:
    """``agent`` against ``opponent`` on ``deals`` deals (game seeds ``derive_seed(seed, i)``)."""
    if rules.mode != "tactical":
        raise ValueError("duplicate_match plays tactical games")
    results: list[TacticalResult] = []
    for start in range(0, deals, chunk):
        seeds = [derive_seed(seed, i) for i in range(start, min(deals, start + chunk))]
        results += play_pairs(rules, agent, [opponent], seeds)[0]
    pairs = pair_scores(results)
    points = [seat_points(r, j % 2) for j, r in enumerate(results)]
    margins = [r.scores[j % 2] - r.scores[1 - j % 2] for j, r in enumerate(results)]
    name = label or getattr(opponent, "name", type(opponent).__name__)
    # one pair has no spread: its interval is reported as the point
    half = half_width(pairs, spread="normal") or 0.0
    return DuelResult(name, len(pairs), mean_var(pairs)[0], half,
                      sum(margins) / len(margins), points.count(1.0),
                      sum(0.0 < x < 1.0 for x in points), points.count(0.0))

