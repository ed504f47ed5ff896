"""Duplicate two-player evaluation: every deal played twice with the seats swapped, and the
figures of its pairs.

The luck of the deal cancels: a *pair* (one deal, both seatings) scores the agent's mean
tournament points over its two games (win 1, shared win 1/2, loss 0, as in ``tournaments``), so
0.5 is an even match. Its figures are counted over pairs (deals are independent, the two games
of a pair are not): :func:`duplicate_match`'s 95% interval (normal approximation), from
:mod:`pyanitsa.ratings.scores`, whose pair counts and likelihood of superiority ``pyanitsa
match`` (:mod:`pyanitsa.tournaments.matches`) reports from the same pair scores.

Games are exactly :func:`pyanitsa.agents.play_game`'s games with the same seeds (deal, agent
generators, validation), played by the one engine that plays every game of a tournament too,
:func:`pyanitsa.agents.game.play_games`: every hand of every deal is ordered first, each agent
asked for all its hands at once (``order_hands``), so a learned agent runs one batched forward
pass per position instead of one per hand, and the batch core then plays all the games of a
chunk in one call (:func:`play_pairs`, which also plays one agent against several opponents,
ordering its hands once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import cast

from pyanitsa.agents.game import play_games, results_of
from pyanitsa.protocol import Agent
from pyanitsa.ratings.scores import half_width, mean_var
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


def play_pairs(rules: Rules, agent: Agent, opponents: Sequence[Agent], seeds: Sequence[int]
               ) -> list[list[TacticalResult]]:
    """Every opponent's games against ``agent`` on the deals ``seeds``: ``out[o][2 * i + k]`` is
    deal ``i`` with the agent in seat ``k``. Played by the referee's engine
    (:func:`pyanitsa.agents.game.play_games`, every hand decided first, each agent asked for
    all its hands at once, the agent's hands once for all the opponents); an agent that fails
    a decision raises the referee's :class:`~pyanitsa.agents.game.AgentFailure`."""
    seatings: list[tuple[Agent, Agent]] = []
    game_seeds: list[int] = []
    for opponent in opponents:
        pair = ((agent, opponent), (opponent, agent))  # the same tuples: checked once each
        for gs in seeds:
            seatings += pair
            game_seeds += (gs, gs)
    results = results_of(play_games(rules, seatings, game_seeds, together=True))
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

