"""Duplicate two-player matches: every deal played twice with the seats swapped.

The luck of the deal cancels: a *pair* (one deal, both seatings) scores the agent's mean
tournament points over its two games (win 1, shared win 1/2, loss 0, as in ``tournaments``), so
0.5 is an even match. The 95% interval is over pairs (normal approximation; deals are
independent, the two games of a pair are not).

Games are exactly :func:`pyanitsa.agents.play_game`'s games with the same seeds (deal, agent
generators, validation), but every hand of every deal is ordered first, through ``order_hands``,
so a learned agent runs one batched forward pass per position instead of one per hand, and the
batch core then plays all the games of a chunk in one call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from pyanitsa.agents.game import check_order, seat_rng
from pyanitsa.batch import play_records
from pyanitsa.dealing import deal_from_seed
from pyanitsa.protocol import Agent, HandView, hand_view
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


def duplicate_match(rules: Rules, agent: Agent, opponent: Agent, deals: int, seed: int, *,
                    label: str | None = None, chunk: int = 2000) -> DuelResult:
    """``agent`` against ``opponent`` on ``deals`` deals (game seeds ``derive_seed(seed, i)``)."""
    if rules.mode != "tactical":
        raise ValueError("duplicate_match plays tactical games")
    pairs: list[float] = []
    margins: list[int] = []
    w = d = lo = 0
    for start in range(0, deals, chunk):
        seeds = [derive_seed(seed, i) for i in range(start, min(deals, start + chunk))]
        # game (deal i, seating k): the agent in seat k, the opponent in seat 1 - k
        mine_v, mine_r, opp_v, opp_r = [], [], [], []
        for gs in seeds:
            dealt = deal_from_seed(rules, 2, gs)
            views = [hand_view(rules, s, dealt.seats, len(dealt.set_aside)) for s in (0, 1)]
            for k in (0, 1):
                mine_v.append(views[k])
                mine_r.append(seat_rng(gs, k))
                opp_v.append(views[1 - k])
                opp_r.append(seat_rng(gs, 1 - k))
        mine = order_all(agent, mine_v, mine_r)
        theirs = order_all(opponent, opp_v, opp_r)
        records = []
        for j in range(2 * len(seeds)):
            a = tuple(check_order(mine[j], mine_v[j].hand, "agent hand order", rules))
            b = tuple(check_order(theirs[j], opp_v[j].hand, "opponent hand order", rules))
            records.append(Record(rules, (a, b) if j % 2 == 0 else (b, a)))
        results = play_records(records)  # the batch core, all games of the chunk in one call
        for i in range(len(seeds)):
            total = 0.0
            for k in (0, 1):
                result = results[2 * i + k]
                assert isinstance(result, TacticalResult)
                if k in result.winners:
                    share = 1.0 / len(result.winners)
                    total += share
                    if share == 1.0:
                        w += 1
                    else:
                        d += 1
                else:
                    lo += 1
                margins.append(result.scores[k] - result.scores[1 - k])
            pairs.append(total / 2)
    n = len(pairs)
    mean = sum(pairs) / n
    var = sum((p - mean) ** 2 for p in pairs) / max(1, n - 1)
    name = label or getattr(opponent, "name", type(opponent).__name__)
    return DuelResult(name, n, mean, 1.96 * math.sqrt(var / n), sum(margins) / len(margins),
                      w, d, lo)
