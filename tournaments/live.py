"""What a run tallies as it goes, from the games it stores: the SPRT of every pairing (which
stops pairings) and the live standings (shown during the run and sent as ``standings``
events). The reports are computed from the database afterwards; these are running totals, so
a long run pays a dictionary update a game for them, never a re-read of the database."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pyanitsa.ratings.plackett_luce import bradley_terry
from pyanitsa.ratings.sprt import Sprt
from pyanitsa.tournaments.config import TournamentConfig
from pyanitsa.tournaments.stats import block_score, pairwise
from pyanitsa.workers.games import GameRow
from pyanitsa.workers.schedule import Schedule

STANDINGS_SECONDS = 5.0
"""How often the live standings are recomputed (and sent as an event)."""


class SprtTracker:
    """The SPRT of every pairing, fed complete blocks in deal order (as the statistics are)."""

    def __init__(self, config: TournamentConfig, schedule: Schedule) -> None:
        assert config.sprt is not None
        self.schedule = schedule
        self.tests = {p.index: Sprt(**config.sprt.model_dump()) for p in schedule.pairings}
        self.next_deal = dict.fromkeys(self.tests, 0)
        self.partial: dict[tuple[int, int], list[GameRow]] = {}
        self.ready: dict[tuple[int, int], float] = {}

    def stopped(self, pairing: int) -> bool:
        return self.tests[pairing].decision is not None

    def add(self, row: GameRow) -> str | None:
        """Count a game; return the pairing's decision if this game completed it."""
        pairing, deal = row.pairing, row.deal
        if deal >= self.schedule.deals or self.stopped(pairing):
            return None
        block = self.partial.setdefault((pairing, deal), [])
        block.append(row)
        if len(block) < self.schedule.block_size:
            return None
        # the same block score the statistics use (stats.count_blocks)
        first = self.schedule.pairings[pairing].entries[0]
        self.ready[(pairing, deal)] = block_score(block, first)
        del self.partial[(pairing, deal)]
        test = self.tests[pairing]
        while (pairing, self.next_deal[pairing]) in self.ready and test.decision is None:
            test.add(self.ready.pop((pairing, self.next_deal[pairing])))
            self.next_deal[pairing] += 1
        return test.decision



class LiveStandings:
    """Games, score and Elo of every agent so far, from running totals.

    A game is tallied by its seats, points and places (a counter of those tuples: scripted
    agents produce few distinct ones), so tallying costs one dictionary
    update; the numbers are worked out only when asked for, every ``every`` seconds.

    Score is mean points per game, as in the reports. Elo is a Bradley–Terry fit of the
    pairwise results (a better place beats a worse one, equal places draw) with one virtual
    draw per pair that met, so it stays finite; for two-seat tables that is the reports'
    rating, for more seats an approximation of their Plackett–Luce fit. Mean 0 over the agents
    that played, or 0 for the ``anchor`` (an agent index) once it has played. Every stored game counts, also those the reports leave out (incomplete blocks,
    games past an SPRT decision).
    """

    def __init__(self, names: Sequence[str], every: float = STANDINGS_SECONDS,
                 anchor: int | None = None) -> None:
        self.names = list(names)
        self.anchor = anchor
        self.every = every
        self.tally: Counter[tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...]]] = \
            Counter()
        self.games = 0
        self.last = time.monotonic()

    def add(self, row: GameRow) -> None:
        """Count one stored game."""
        self.tally[(row.seats, row.points, row.places)] += 1
        self.games += 1

    def due(self) -> bool:
        """Whether ``every`` seconds have passed since the standings were last worked out."""
        return time.monotonic() - self.last >= self.every

    def rows(self) -> list[dict[str, Any]]:
        """The standings, best first: ``agent``, ``games``, ``score``, ``elo`` (None for an
        agent without games)."""
        self.last = time.monotonic()
        n = len(self.names)
        games = [0] * n
        points = [0.0] * n
        wins = [[0.0] * n for _ in range(n)]
        met = [[0] * n for _ in range(n)]
        for (seats, pts, places), count in self.tally.items():
            for sa, a in enumerate(seats):
                games[a] += count
                points[a] += pts[sa] * count
                for sb, b in enumerate(seats):
                    if a != b:
                        wins[a][b] += pairwise(places, sa, sb) * count
                        met[a][b] += count
        elo = bradley_terry(wins, met)
        if self.anchor is not None and elo[self.anchor] is not None:
            zero = elo[self.anchor]
            elo = [None if e is None else e - zero for e in elo]
        rows = [{"agent": self.names[i], "games": games[i],
                 "score": points[i] / games[i] if games[i] else None, "elo": elo[i]}
                for i in range(n)]
        return sorted(rows, key=lambda r: (r["elo"] is None, -(r["elo"] or 0.0),
                                           -(r["score"] or 0.0)))
