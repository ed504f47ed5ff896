"""The meta-game of a table of three or more seats: the empirical payoff table over seatings,
its α-Rank, and a gauntlet's verdict.

The head-to-head game (:mod:`pyanitsa.solvers.meta_game`) reduces every table to pairs of
places. At three or more seats who else sits at the table matters too, so this module keeps
the results per **seating** (the multiset of agents at a table, whatever their seats): each
agent's mean points a seat there (and its mean cards, tactical), over complete duplicate blocks,
in which every seat rotation of a deal is played. That is the empirical symmetric game whose
strategies are the agents, and its α-Rank (:mod:`pyanitsa.solvers.alpharank`) ranks them
by which of them a population settles on. α-Rank needs, for every two agents, every table of
those two alone: a round robin with ``copies: true`` plays them; a table of one agent alone is
never played, its seats share its 1 point a game evenly.

A gauntlet at 3+ seats asks one thing: does anything beat the candidate? An opponent beats it
at 95% when the opponent's head-to-head score against it has its 95% interval (Student-t over
duplicate blocks) above 1/2.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pyanitsa.solvers.alpharank import ALPHA, POPULATION, seating_alpha_rank
from pyanitsa.tournaments.config import TournamentConfig
from pyanitsa.tournaments.meta import _md_table
from pyanitsa.workers.games import GameRow

Matrix = Sequence[Sequence[float | None]]
METHOD = (f"single-population α-Rank (Omidshafiei et al. 2019) of the symmetric game of "
          f"mean points a seat per seating, selection intensity α = {ALPHA:g}, population "
          f"m = {POPULATION}; a player's table mates are drawn from the population without "
          "replacement; a table of one agent alone is worth 1/k a seat.")
SHOWN = 40
"""Seatings listed in report.md (all of them are in results.json)."""


@dataclass(frozen=True)
class Seating:
    """One seating's results over its complete blocks."""

    agents: tuple[int, ...]
    """The agents at the table, sorted (an agent twice with ``copies``)."""
    blocks: int
    points: dict[int, float]
    """Each agent's mean points a seat (1/k is even at k seats)."""
    cards: dict[int, float] | None
    """Each agent's mean tactical score a seat (None in classic games)."""


@dataclass(frozen=True)
class Beaten:
    """A gauntlet opponent's head-to-head score against the candidate."""

    opponent: str
    score: float
    low: float | None
    high: float | None

    @property
    def beats(self) -> bool:
        return self.low is not None and self.low > 0.5


@dataclass
class SeatingGame:
    """The n-player meta-game of a tournament (tables of 3+ seats)."""

    names: list[str]
    players: int
    seatings: list[Seating]
    alpha_rank: list[float] | None
    """The α-Rank mass of each agent, None when tables of two agents alone are missing."""
    candidate: str | None = None
    gauntlet: list[Beaten] | None = None
    """A gauntlet's opponents against its candidate, strongest first."""

    @property
    def beaten_by(self) -> list[str]:
        return [b.opponent for b in self.gauntlet or () if b.beats]

    def to_json(self) -> dict[str, Any]:
        n = self.names
        return {
            "players": self.players,
            "seatings": [{"agents": [n[i] for i in s.agents], "blocks": s.blocks,
                          "points": {n[i]: p for i, p in s.points.items()},
                          "cards": None if s.cards is None else
                          {n[i]: c for i, c in s.cards.items()}} for s in self.seatings],
            "alpha_rank": None if self.alpha_rank is None else
            dict(zip(n, self.alpha_rank, strict=True)),
            "alpha": ALPHA, "population": POPULATION, "method": METHOD,
            "gauntlet": None if self.gauntlet is None else {
                "candidate": self.candidate, "beaten_by": self.beaten_by,
                "opponents": [{"opponent": b.opponent, "score": b.score, "low": b.low,
                               "high": b.high, "beats": b.beats} for b in self.gauntlet]},
        }


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def seatings(blocks: dict[tuple[int, int], list[GameRow]]) -> list[Seating]:
    """Each seating's per-seat means: within a block over its games and the agent's seats,
    then over blocks."""
    points: dict[tuple[int, ...], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    cards: dict[tuple[int, ...], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for rows in blocks.values():
        table = tuple(sorted(rows[0].seats))
        for agent in set(table):
            mine = [(r, s) for r in rows for s, a in enumerate(r.seats) if a == agent]
            points[table][agent].append(_mean([r.points[s] for r, s in mine]))
            scored = [r.scores[s] for r, s in mine if r.scores is not None]
            if scored:
                cards[table][agent].append(_mean(scored))
    out = []
    for table in sorted(points):
        by_agent = points[table]
        scored = cards.get(table)
        out.append(Seating(table, len(next(iter(by_agent.values()))),
                           {a: _mean(xs) for a, xs in sorted(by_agent.items())},
                           None if not scored else
                           {a: _mean(xs) for a, xs in sorted(scored.items())}))
    return out


def rank(n: int, players: int, found: Sequence[Seating]) -> list[float] | None:
    """α-Rank of the agents ``0..n-1`` on the seatings' mean points."""
    p = seating_alpha_rank(n, players, {s.agents: s.points for s in found})
    return None if p is None else [round(float(x), 12) for x in p]


def seating_game(config: TournamentConfig, blocks: dict[tuple[int, int], list[GameRow]],
                 score: Matrix, low: Matrix, high: Matrix) -> SeatingGame | None:
    """The meta-game of a 3+ seat tournament (None at two seats, or with no counted game);
    ``score``, ``low``, ``high``: the head-to-head matrices with their 95% intervals."""
    if config.players < 3 or not blocks:
        return None
    found = seatings(blocks)
    names = config.names
    game = SeatingGame(names, config.players, found, rank(len(names), config.players, found))
    if config.format == "gauntlet":
        c = config.candidate_index
        game.candidate = names[c]
        game.gauntlet = sorted((Beaten(names[j], s, low[j][c], high[j][c])
                                for j, s in ((j, score[j][c]) for j in range(len(names)))
                                if j != c and s is not None),
                               key=lambda b: (-b.score, b.opponent))
    return game


# -- rendering ------------------------------------------------------------------------------------


def _alpha_text(g: SeatingGame) -> str:
    if g.alpha_rank is None:
        return ("α-Rank needs every table of two agents alone (a round robin with "
                "`copies: true`)")
    mix = ", ".join(f"{n} {100 * p:.0f}%" for n, p in
                    sorted(zip(g.names, g.alpha_rank, strict=True), key=lambda x: -x[1])
                    if p > 0.005)
    return f"α-Rank {mix}"


def verdict(g: SeatingGame) -> str | None:
    """A gauntlet's answer in one sentence (None for a round robin)."""
    if g.gauntlet is None:
        return None
    if not g.beaten_by:
        return (f"no opponent beats {g.candidate} at 95% ({len(g.gauntlet)} opponent(s), "
                f"{g.players} seats)")
    return f"{', '.join(g.beaten_by)} beat(s) {g.candidate} at 95%"


def console_line(g: SeatingGame) -> str:
    """One line: the α-Rank, and a gauntlet's verdict."""
    said = verdict(g)
    return f"{g.players}-seat meta-game: " + (said if said is not None else _alpha_text(g))


def _cell(g: SeatingGame, s: Seating) -> str:
    return "; ".join(f"{g.names[a]}: {p:.3f}" +
                     ("" if s.cards is None or a not in s.cards else f" ({s.cards[a]:.1f})")
                     for a, p in s.points.items())


def _table_name(g: SeatingGame, agents: tuple[int, ...]) -> str:
    return " + ".join(g.names[a] + (f" ×{agents.count(a)}" if agents.count(a) > 1 else "")
                      for a in sorted(set(agents)))


def markdown_section(g: SeatingGame) -> list[str]:
    """report.md's section: the gauntlet's verdict or the α-Rank, then the seating table."""
    out = [f"## The {g.players}-seat meta-game", "",
           "Who sits at the table matters at three or more seats, so the results are kept per "
           "seating (the agents at a table, whatever their seats): each agent's mean points a "
           "seat (1/k is even; tactical: its mean cards in brackets) over duplicate blocks, "
           "every seat rotation of each deal.", ""]
    said = verdict(g)
    if said is not None:
        rows = [[b.opponent, f"{100 * b.score:.1f}" + (
                    "" if b.low is None or b.high is None
                    else f" [{100 * b.low:.0f}–{100 * b.high:.0f}]"),
                 "yes" if b.beats else "no"] for b in g.gauntlet or ()]
        against = f"score against {g.candidate}".replace("|", "\\|")
        out += [f"Gauntlet: {said}. An opponent beats the candidate when its head-to-head "
                "score against it (better place 100, same 50) has its 95% interval above 50.",
                "", _md_table(["opponent", against, "beats it"], rows, [False, True, False]),
                ""]
    elif g.alpha_rank is not None:
        rows = [[n, f"{100 * p:.1f}"] for n, p in
                sorted(zip(g.names, g.alpha_rank, strict=True), key=lambda x: -x[1])]
        out += [f"α-Rank: the share of time a population of players spends on each agent when "
                f"mutants that do better take over ({METHOD})", "",
                _md_table(["agent", "α-Rank %"], rows, [False, True]), ""]
    else:
        out += [_alpha_text(g) + ".", ""]
    shown = [[_table_name(g, s.agents), str(s.blocks), _cell(g, s)] for s in g.seatings[:SHOWN]]
    more = [f"… and {len(g.seatings) - SHOWN} more seatings in results.json.", ""] \
        if len(g.seatings) > SHOWN else []
    return [*out, _md_table(["seating", "blocks", "points a seat (cards)"], shown,
                            [False, True, False]), "", *more]
