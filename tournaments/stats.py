"""Aggregate statistics of a tournament, computed from its game rows alone: this module
counts the rows and turns them into the plain inputs of the maths, which lives below it
(:mod:`pyanitsa.ratings` the ratings, intervals and SPRT; :mod:`pyanitsa.solvers.meta_game`
and :mod:`pyanitsa.solvers.alpharank` the meta-games).

* Per agent: games, wins/draws/losses, points, mean score margin (tactical), game length,
  forfeits.
* Head-to-head: agent i's pairwise score against j (1 for a better place, 1/2 for the same),
  averaged per duplicate block (one deal of one pairing, all its rotations) and then over
  blocks, with a Student-t 95% interval over blocks: the rotations of a deal share its cards,
  so its games are not independent, but different deals are.
* Ratings on the Elo scale: the Plackett–Luce maximum-likelihood fit of every game's places
  (for two-player tables this is exactly Bradley–Terry), ties by the expected log-likelihood
  over the orders that break them (a two-player draw counts half a win each way), with a weak
  Gaussian prior (sd 1000 Elo) that keeps ratings finite for an agent that always wins or
  loses. Mean rating 0, or 0 for the ``anchor``. Intervals and the LOS matrix come from a
  bootstrap over deals: blocks resampled with replacement within each pairing, with a seeded
  generator (:mod:`pyanitsa.ratings.plackett_luce`).
* SPRT (:mod:`pyanitsa.ratings.sprt`): which blocks it counts, up to its decision.
* The meta-game (:mod:`pyanitsa.solvers.meta_game`): the Nash mixture of the head-to-head
  game, each agent's score against it and the cycles that hold at 95%, because in a
  non-transitive field the ratings alone mislead.
* At 3+ seats, the seating game (``seatings``): each agent's mean points a seat per seating,
  its α-Rank, and a gauntlet's verdict (does any opponent beat the candidate at 95%).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pyanitsa.ratings.plackett_luce import Ratings, rate
from pyanitsa.ratings.scores import mean_interval
from pyanitsa.ratings.sprt import Sprt, SprtResult
from pyanitsa.solvers.meta_game import MetaGame, meta_game
from pyanitsa.tournaments.anchor import anchor_index
from pyanitsa.tournaments.config import TournamentConfig
from pyanitsa.tournaments.fallbacks import fallback_notices
from pyanitsa.tournaments.schedule import schedule_of
from pyanitsa.tournaments.seatings import SeatingGame, seating_game
from pyanitsa.workers.games import FORFEIT, GameRow
from pyanitsa.workers.schedule import GameKey, Schedule

# -- counting -----------------------------------------------------------------------------------------


def block_score(rows: Sequence[GameRow], agent: int) -> float:
    """An agent's mean points over the games of a block."""
    return sum(r.points[r.seats.index(agent)] for r in rows) / len(rows)


def count_blocks(config: TournamentConfig, schedule: Schedule, rows: Iterable[GameRow]
                 ) -> tuple[dict[tuple[int, int], list[GameRow]], list[SprtResult], int]:
    """The complete blocks that count, the SPRT of each pairing, and how many rows do not count.

    A block counts when all its rotations are present and its deal is below ``deals``; with an
    SPRT, only the blocks up to the decision in deal order count (the runner may have played a
    few more while the decision was pending; they stay in the database).
    """
    by_block: dict[tuple[int, int], list[GameRow]] = defaultdict(list)
    total = 0
    for row in rows:
        total += 1
        by_block[(row.pairing, row.deal)].append(row)
    size = schedule.block_size
    complete = {b: sorted(rs, key=lambda r: r.rotation) for b, rs in by_block.items()
                if len(rs) == size and b[1] < schedule.deals}
    sprts: list[SprtResult] = []
    if config.sprt is not None:
        names = config.names
        for pairing in schedule.pairings:
            test = Sprt(**config.sprt.model_dump())
            first = pairing.entries[0]
            deal = 0
            while (pairing.index, deal) in complete and test.decision is None:
                test.add(block_score(complete[(pairing.index, deal)], first))
                deal += 1
            if test.decision is not None:
                for b in [b for b in complete if b[0] == pairing.index and b[1] >= deal]:
                    del complete[b]
            a, b = pairing.entries
            sprts.append(SprtResult(pairing.index, (names[a], names[b]), test.decision,
                                    test.llr, test.lower, test.upper, test.n, test.mean,
                                    config.sprt.elo0, config.sprt.elo1))
    counted = sum(len(rs) for rs in complete.values())
    return dict(sorted(complete.items())), sprts, total - counted


# -- per-agent statistics -----------------------------------------------------------------------------


@dataclass
class AgentStats:
    name: str
    spec: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    """Shared first places."""
    losses: int = 0
    points: float = 0.0
    margin_total: float = 0.0
    margin_games: int = 0
    rounds_total: int = 0
    rounds_games: int = 0
    forfeits: dict[str, int] = field(default_factory=dict)
    rating: float | None = None
    rating_low: float | None = None
    rating_high: float | None = None

    @property
    def score(self) -> float:
        """Mean points per game (1/k is even at a k-seat table)."""
        return self.points / self.games if self.games else math.nan

    @property
    def margin(self) -> float | None:
        """Tactical: mean of (own score - best other score)."""
        return self.margin_total / self.margin_games if self.margin_games else None

    @property
    def length(self) -> float | None:
        return self.rounds_total / self.rounds_games if self.rounds_games else None

    @property
    def forfeit_count(self) -> int:
        return sum(self.forfeits.values())

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("margin_total", "margin_games", "rounds_total", "rounds_games"):
            del out[key]
        out.update(score=self.score, margin=self.margin, length=self.length)
        return out


def agent_stats(config: TournamentConfig, blocks: dict[tuple[int, int], list[GameRow]]
                ) -> list[AgentStats]:
    out = [AgentStats(a.name, a.spec) for a in config.agents]
    for rows in blocks.values():
        for row in rows:
            first = sum(1 for p in row.places if p == 1)
            for seat, agent in enumerate(row.seats):
                s = out[agent]
                s.games += 1
                s.points += row.points[seat]
                if row.places[seat] == 1:
                    if first == 1:
                        s.wins += 1
                    else:
                        s.draws += 1
                else:
                    s.losses += 1
                if row.outcome == FORFEIT:
                    if row.forfeit_seat == seat:
                        kind = row.forfeit_kind or "error"
                        s.forfeits[kind] = s.forfeits.get(kind, 0) + 1
                    continue
                if row.rounds is not None:
                    s.rounds_total += row.rounds
                    s.rounds_games += 1
                if row.scores is not None:
                    others = [x for o, x in enumerate(row.scores) if o != seat]
                    s.margin_total += row.scores[seat] - max(others)
                    s.margin_games += 1
    return out


# -- head to head ---------------------------------------------------------------------------------------


@dataclass
class HeadToHead:
    """Pairwise scores: ``score[i][j]`` is i's mean score against j over blocks."""

    score: list[list[float | None]]
    low: list[list[float | None]]
    high: list[list[float | None]]
    blocks: list[list[int]]
    games: list[list[int]]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def pairwise(places: Sequence[int], a: int, b: int) -> float:
    """Seat a's score against seat b in one game: 1 better place, 1/2 same, 0 worse."""
    if places[a] < places[b]:
        return 1.0
    return 0.5 if places[a] == places[b] else 0.0


def head_to_head(n: int, blocks: dict[tuple[int, int], list[GameRow]]) -> HeadToHead:
    values: dict[tuple[int, int], list[float]] = defaultdict(list)
    games = [[0] * n for _ in range(n)]
    for rows in blocks.values():
        acc: dict[tuple[int, int], list[float]] = defaultdict(list)
        for row in rows:
            for sa, a in enumerate(row.seats):
                for sb, b in enumerate(row.seats):
                    if a != b:
                        acc[(a, b)].append(pairwise(row.places, sa, sb))
                        games[a][b] += 1
        for pair, xs in acc.items():
            values[pair].append(sum(xs) / len(xs))
    score: list[list[float | None]] = [[None] * n for _ in range(n)]
    low: list[list[float | None]] = [[None] * n for _ in range(n)]
    high: list[list[float | None]] = [[None] * n for _ in range(n)]
    count = [[0] * n for _ in range(n)]
    for (a, b), xs in values.items():
        mean, lo, hi = mean_interval(xs)
        score[a][b], low[a][b], high[a][b], count[a][b] = mean, lo, hi, len(xs)
    return HeadToHead(score, low, high, count, games)


# -- ratings ------------------------------------------------------------------------------------------


def ratings(config: TournamentConfig, blocks: dict[tuple[int, int], list[GameRow]]
            ) -> Ratings | None:
    """The Plackett–Luce ratings of the games that count (None before any), with the
    config's bootstrap over deals: blocks resampled within each pairing."""
    games = [row for rows in blocks.values() for row in rows]
    if not games:
        return None
    # block index of each game, blocks grouped by pairing
    block_ids: dict[tuple[int, int], int] = {}
    game_block = [block_ids.setdefault((r.pairing, r.deal), len(block_ids)) for r in games]
    by_pairing: dict[int, list[int]] = defaultdict(list)
    for (pairing, _), bid in block_ids.items():
        by_pairing[pairing].append(bid)
    # a config that has not run yet has no seed; the database's always has the one it played
    seed = config.seed if config.seed is not None else 0
    return rate(len(config.agents), [(row.seats, row.places) for row in games],
                anchor=anchor_index(config), bootstrap=config.bootstrap,
                game_block=game_block, strata=list(by_pairing.values()), seed=seed)


# -- the summary ---------------------------------------------------------------------------------------


@dataclass
class Summary:
    """Everything a report shows, computed from the rows and the configuration."""

    config: TournamentConfig
    agents: list[AgentStats]
    h2h: HeadToHead
    ratings: Ratings | None
    sprt: list[SprtResult]
    games: int
    """Games in the database."""
    counted: int
    """Games that count (complete blocks, within ``deals``, up to each SPRT decision)."""
    scheduled: int
    counted_keys: frozenset[GameKey] = field(default=frozenset(), repr=False)
    """The keys of the games that count."""
    meta: MetaGame | None = None
    """The head-to-head meta-game (None with fewer than two agents that played)."""
    exploitability: dict[str, dict[str, Any]] | None = None
    """Each agent's full-deal exploitability (with ``exploit:``; see
    :mod:`pyanitsa.tournaments.strength`)."""
    seating: SeatingGame | None = None
    """Tables of 3+ seats: the meta-game over seatings (:mod:`~pyanitsa.tournaments.seatings`)."""
    fallbacks: dict[str, str] = field(default_factory=dict)
    """Agents that play another agent at this table, and why
    (:mod:`~pyanitsa.tournaments.fallbacks`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.config.name,
            "config": self.config.model_dump(mode="json"),
            "games": self.games, "counted": self.counted, "scheduled": self.scheduled,
            "agents": [a.to_json() for a in self.agents],
            "head_to_head": self.h2h.to_json(),
            "ratings": None if self.ratings is None else self.ratings.to_json(),
            "sprt": [asdict(s) | {"verdict": s.verdict} for s in self.sprt],
            "meta_game": None if self.meta is None else self.meta.to_json(),
            "exploitability": self.exploitability, "fallbacks": self.fallbacks,
        } | ({} if self.seating is None else {"seating_game": self.seating.to_json()})


def summarize(config: TournamentConfig, rows: Sequence[GameRow]) -> Summary:
    schedule = schedule_of(config)
    blocks, sprts, _ = count_blocks(config, schedule, rows)
    stats = agent_stats(config, blocks)
    rated = ratings(config, blocks)
    if rated is not None:
        for i, s in enumerate(stats):
            if not s.games:
                continue
            s.rating = rated.elo[i]
            if rated.low is not None and rated.high is not None:
                s.rating_low, s.rating_high = rated.low[i], rated.high[i]
    counted = frozenset(r.key for rs in blocks.values() for r in rs)
    h2h = head_to_head(len(config.agents), blocks)
    meta = meta_game(config.names, h2h.score, h2h.low, [s.rating for s in stats])
    seating = seating_game(config, blocks, h2h.score, h2h.low, h2h.high)
    return Summary(config, stats, h2h, rated, sprts, len(rows), len(counted),
                   schedule.total_games, counted, meta, seating=seating,
                   fallbacks=fallback_notices(config))
