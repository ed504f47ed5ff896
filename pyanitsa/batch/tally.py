"""Running totals of a seeded run, so a run of any length needs memory for its longest game only.

A :class:`Tally` takes one :class:`~pyanitsa.batch.api.Simulation` chunk at a time and keeps
counts, sums and a histogram of game lengths per outcome; its :meth:`Tally.summary` is what
``Simulation.summary`` gives for all the games at once, to the last bit: the percentiles follow
numpy's ``linear`` method step by step, and the sums are exact integers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyanitsa.batch.encode import CAPPED, CYCLE, DRAW
from pyanitsa.rules import Rules

OUTCOMES = 4
"""Outcome codes a histogram row is kept for: 0 win, 1 draw, 2 cycle, 3 capped."""


class Tally:
    """Counts of games played so far; ``add`` a chunk, read ``summary()``."""

    def __init__(self, rules: Rules, players: int, seed: int) -> None:
        self.rules = rules
        self.players = players
        self.seed = seed
        self.games = 0
        self.rounds_total = 0
        self.showdowns_total = 0
        self.lengths = np.zeros((OUTCOMES, 1), np.int64)
        """``[outcome, rounds]``: games of that outcome and length."""
        self.wins = np.zeros(players, np.int64)
        """Sole wins per seat."""
        self.shared_wins = np.zeros(players, np.int64)
        """Tactical: games each seat won or shared."""
        self.score_totals = np.zeros(players, np.int64)
        """Tactical: the seat's копилка summed over the games."""

    def add(self, sim: Any) -> None:
        """Count the games of ``sim`` (a ``Simulation`` of this run's rules and seats)."""
        # one C call: a Ctrl-C between two fields cannot leave the totals half-updated
        self.__dict__.update(self.counted(sim))

    def counted(self, sim: Any) -> dict[str, Any]:
        """The fields that count ``sim``'s games too (nothing is stored)."""
        r = np.asarray(sim.rounds, np.int64)
        if not len(r):
            return {}
        width = max(self.lengths.shape[1], int(r.max()) + 1)
        chunk = np.bincount(sim.outcome * width + r, minlength=OUTCOMES * width)
        lengths = np.pad(self.lengths, ((0, 0), (0, width - self.lengths.shape[1])))
        new = {
            "games": self.games + len(r),
            "rounds_total": self.rounds_total + int(r.sum()),
            "showdowns_total": self.showdowns_total + int(np.asarray(sim.showdowns).sum()),
            "lengths": lengths + chunk.reshape(OUTCOMES, width),
            "wins": self.wins + np.bincount(sim.winner[sim.winner >= 0],
                                            minlength=self.players),
        }
        if sim.winners is not None:
            new["shared_wins"] = self.shared_wins + sim.winners.sum(axis=0)
            new["score_totals"] = self.score_totals + sim.scores.sum(axis=0)
        return new

    @property
    def histogram(self) -> np.ndarray:
        """Games by length in rounds, every outcome together."""
        return self.lengths.sum(axis=0)

    def summary(self, seconds: float = 0.0) -> dict[str, Any]:
        """The keys and values of ``Simulation.summary`` for every game added."""
        n = self.games
        hist = self.histogram
        classic = self.rules.mode == "classic"
        out: dict[str, Any] = {
            "mode": self.rules.mode, "deck": str(self.rules.deck), "players": self.players,
            "seed": self.seed, "games": n,
            "mean_rounds": self.rounds_total / n if n else None,
            "median_rounds": median(hist) if n else None,
            "p10_rounds": percentile(hist, 10) if n else None,
            "p90_rounds": percentile(hist, 90) if n else None,
            "max_rounds": int(np.flatnonzero(hist)[-1]) if n else None,
            "mean_showdowns": self.showdowns_total / n if n else None,
            "wins": [int(x) for x in self.wins],
            "draws": int(self.lengths[DRAW].sum()),
            "cycles": int(self.lengths[CYCLE].sum()) if classic else 0,
            "capped": int(self.lengths[CAPPED].sum()) if classic else 0,
        }
        if not classic:
            out["shared_wins"] = [int(x) for x in self.shared_wins]
            out["mean_scores"] = [float(x) / n for x in self.score_totals] if n else []
        out["seconds"] = round(seconds, 4)
        return out


def _at(cum: np.ndarray, k: int) -> int:
    """The ``k``-th smallest value (from 0) of the sample whose cumulative histogram is ``cum``."""
    return int(np.searchsorted(cum, k, side="right"))


def percentile(hist: np.ndarray, q: float) -> float:
    """``np.percentile(sample, q)`` (method ``linear``) of the sample counted by ``hist``."""
    cum = np.cumsum(hist)
    n = int(cum[-1])
    index = (n - 1) * np.float64(np.true_divide(q, 100))  # numpy's virtual index
    if index >= n - 1:
        return float(_at(cum, n - 1))
    lo = int(np.floor(index))
    t = index - lo
    a, b = np.int64(_at(cum, lo)), np.int64(_at(cum, lo + 1))
    diff = b - a
    # numpy's _lerp: from the nearer end, so t near 1 loses no precision
    return float(b - diff * (1 - t) if t >= 0.5 else a + diff * t)


def median(hist: np.ndarray) -> float:
    """``np.median(sample)`` of the sample counted by ``hist``: the mean of the middle values."""
    cum = np.cumsum(hist)
    n = int(cum[-1])
    if n % 2:
        return float(_at(cum, n // 2))
    return float((np.float64(_at(cum, n // 2 - 1)) + np.float64(_at(cum, n // 2))) / 2)


class SeatedTally(Tally):
    """A :class:`Tally` that also counts, for each named player (an agent), its games and sole
    wins by the seat it held."""

    def __init__(self, rules: Rules, names: list[str], seed: int) -> None:
        super().__init__(rules, len(names), seed)
        self.names = names
        self.games_by_seat = np.zeros((len(names), len(names)), np.int64)
        """``[player, seat]``: games the player held that seat."""
        self.wins_by_seat = np.zeros((len(names), len(names)), np.int64)

    def add_seated(self, sim: Any, seatings: np.ndarray) -> None:
        """Count ``sim``'s games, where seat ``s`` of game ``g`` held player ``seatings[g, s]``."""
        new = self.counted(sim)
        seats = np.arange(self.players)
        games, wins = self.games_by_seat.copy(), self.wins_by_seat.copy()
        np.add.at(games, (seatings, seats), 1)
        won = np.flatnonzero(sim.winner >= 0)
        np.add.at(wins, (seatings[won, sim.winner[won]], sim.winner[won]), 1)
        new.update(games_by_seat=games, wins_by_seat=wins)
        self.__dict__.update(new)  # the game totals and the players' in one step

    def by_player(self) -> list[dict[str, Any]]:
        """Each player's ``games``, ``wins``, ``games_by_seat`` and ``wins_by_seat``."""
        return [{"agent": name, "games": int(g.sum()), "wins": int(w.sum()),
                 "games_by_seat": [int(x) for x in g], "wins_by_seat": [int(x) for x in w]}
                for name, g, w in zip(self.names, self.games_by_seat, self.wins_by_seat,
                                      strict=True)]
