"""Aggregate statistics of a tournament, computed from its game rows alone.

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
  generator.
* SPRT (:mod:`~pyanitsa.tournaments.sprt`): which blocks it counts, up to its decision.
* The meta-game (``meta``): the Nash mixture of the head-to-head game, each agent's score
  against it and the cycles that hold at 95%, because in a non-transitive field the ratings
  alone mislead.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, sparse
from scipy import stats as sps

from pyanitsa.rng import derive_seed
from pyanitsa.tournaments.anchor import anchored
from pyanitsa.tournaments.config import TournamentConfig
from pyanitsa.tournaments.games import FORFEIT, GameRow
from pyanitsa.tournaments.meta import MetaGame, meta_game
from pyanitsa.tournaments.schedule import GameKey, Schedule
from pyanitsa.tournaments.sprt import Sprt, SprtResult

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural log-strength: P(i beats j) = 1 / (1 + 10^(-(Ri - Rj)/400))."""
PRIOR_SD_ELO = 1000.0
_BOOTSTRAP_STREAM = 0xB007


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
            test = Sprt(config.sprt)
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


def mean_interval(xs: Sequence[float], level: float = 0.95
                  ) -> tuple[float, float | None, float | None]:
    """The mean with a Student-t interval (None for fewer than two values)."""
    arr = np.asarray(xs, dtype=float)
    mean = float(arr.mean())
    if len(arr) < 2:
        return mean, None, None
    half = float(sps.t.ppf(0.5 + level / 2, len(arr) - 1) * arr.std(ddof=1) / math.sqrt(len(arr)))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


# -- Plackett–Luce / Bradley–Terry ------------------------------------------------------------------------


@dataclass
class RankingData:
    """Every game's places as the terms of the Plackett–Luce log-likelihood.

    ``LL(theta; w) = (A^T w) . theta - sum_t (T w)_t log(sum_{i in set_t} exp(theta_i))``: ``A``
    (games x agents) holds the numerator coefficients, ``T`` (terms x games) the weights of the
    denominators, ``M`` (terms x agents) which agents each denominator sums over. Game weights
    ``w`` are 1, or bootstrap counts.
    """

    n_agents: int
    A: np.ndarray
    T: sparse.csr_matrix
    M: np.ndarray

    @classmethod
    def build(cls, n_agents: int, games: Sequence[tuple[Sequence[int], Sequence[int]]]
              ) -> RankingData:
        """``games``: (agent in each seat, place of each seat) per game."""
        A = np.zeros((len(games), n_agents))
        term_ids: dict[frozenset[int], int] = {}
        t_rows: list[int] = []
        t_cols: list[int] = []
        t_vals: list[float] = []
        for g, (agents, places) in enumerate(games):
            remaining = set(agents)
            for place in sorted(set(places)):
                group = [agents[s] for s in range(len(agents)) if places[s] == place]
                for i in group:
                    A[g, i] += 1.0
                size = len(group)
                # Expected log-likelihood over the orders breaking the tie: the m-th pick of
                # the group divides by the remaining strength minus m already-picked members.
                for m in range(size):
                    weight = 1.0 / math.comb(size, m)
                    for picked in itertools.combinations(group, m):
                        members = frozenset(remaining.difference(picked))
                        if len(members) == 1:
                            (j,) = members
                            A[g, j] -= weight
                            continue
                        tid = term_ids.setdefault(members, len(term_ids))
                        t_rows.append(tid)
                        t_cols.append(g)
                        t_vals.append(weight)
                remaining.difference_update(group)
        T = sparse.csr_matrix((t_vals, (t_rows, t_cols)), shape=(len(term_ids), len(games)))
        M = np.zeros((len(term_ids), n_agents))
        for members, tid in term_ids.items():
            M[tid, list(members)] = 1.0
        return cls(n_agents, A, T, M)

    def log_likelihood(self, elo: np.ndarray, weights: np.ndarray | None = None) -> float:
        """The log-likelihood of ratings ``elo`` (no prior)."""
        w = np.ones(self.A.shape[0]) if weights is None else np.asarray(weights, dtype=float)
        theta = np.asarray(elo, dtype=float) / ELO_PER_NAT
        return float((self.A.T @ w) @ theta - (self.T @ w) @ np.log(self.M @ np.exp(theta)))

    def fit(self, weights: np.ndarray | None = None, *, prior_sd: float | None = PRIOR_SD_ELO,
            start: np.ndarray | None = None) -> np.ndarray:
        """Maximum-likelihood (MAP with the prior) ratings in Elo, mean 0.

        The negative log-likelihood is convex; it is minimised by scipy's trust-region Newton
        method with the exact gradient and Hessian.
        """
        w = np.ones(self.A.shape[0]) if weights is None else np.asarray(weights, dtype=float)
        a = self.A.T @ w
        c = self.T @ w
        M = self.M
        inv_var = 0.0 if prior_sd is None else (ELO_PER_NAT / prior_sd) ** 2
        eye = np.eye(self.n_agents)

        def share(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
            top = theta.max()
            e = np.exp(theta - top)
            s = M @ e
            return M * (e / s[:, None]), s, top

        def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
            P, s, top = share(theta)
            value = -(a @ theta) + c @ (np.log(s) + top) + 0.5 * inv_var * (theta @ theta)
            return float(value), -a + P.T @ c + inv_var * theta

        def hess(theta: np.ndarray) -> np.ndarray:
            P, _, _ = share(theta)
            return np.diag(P.T @ c) - (P.T * c) @ P + inv_var * eye

        x0 = np.zeros(self.n_agents) if start is None else np.asarray(start) / ELO_PER_NAT
        res = optimize.minimize(nll, x0, jac=True, hess=hess, method="trust-exact",
                                options={"gtol": 1e-8, "maxiter": 500})
        theta = res.x - res.x.mean()
        return theta * ELO_PER_NAT


@dataclass
class Ratings:
    elo: list[float]
    low: list[float] | None
    high: list[float] | None
    los: list[list[float]] | None
    """``los[i][j]``: the share of bootstrap fits in which i is rated above j."""
    bootstrap: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def ratings(config: TournamentConfig, blocks: dict[tuple[int, int], list[GameRow]]
            ) -> Ratings | None:
    games = [row for rows in blocks.values() for row in rows]
    if not games:
        return None
    n = len(config.agents)
    data = RankingData.build(n, [(row.seats, row.places) for row in games])
    elo = anchored(config, data.fit())
    if config.bootstrap == 0:
        return Ratings(list(map(float, elo)), None, None, None, 0)
    # block index of each game, blocks grouped by pairing
    block_ids: dict[tuple[int, int], int] = {}
    game_block = np.array([block_ids.setdefault((r.pairing, r.deal), len(block_ids))
                           for r in games])
    by_pairing: dict[int, list[int]] = defaultdict(list)
    for (pairing, _), bid in block_ids.items():
        by_pairing[pairing].append(bid)
    # a config that has not run yet has no seed; the database's always has the one it played
    seed = config.seed if config.seed is not None else 0
    rng = np.random.default_rng(derive_seed(seed, _BOOTSTRAP_STREAM))
    samples = np.empty((config.bootstrap, n))
    for k in range(config.bootstrap):
        counts = np.zeros(len(block_ids))
        for bids in by_pairing.values():
            picks = rng.integers(0, len(bids), size=len(bids))
            np.add.at(counts, np.asarray(bids)[picks], 1.0)
        samples[k] = data.fit(counts[game_block], start=elo)
    low, high = np.percentile(anchored(config, samples), [2.5, 97.5], axis=0)
    greater = (samples[:, :, None] > samples[:, None, :]).mean(axis=0)
    equal = (samples[:, :, None] == samples[:, None, :]).mean(axis=0)
    los = greater + 0.5 * equal
    np.fill_diagonal(los, 0.5)
    return Ratings(list(map(float, elo)), list(map(float, low)), list(map(float, high)),
                   [list(map(float, r)) for r in los], config.bootstrap)


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
            "exploitability": self.exploitability,
        }


def summarize(config: TournamentConfig, rows: Sequence[GameRow]) -> Summary:
    schedule = Schedule.from_config(config)
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
    return Summary(config, stats, h2h, rated, sprts, len(rows), len(counted),
                   schedule.total_games, counted, meta)
