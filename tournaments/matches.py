"""A duplicate match of two agents: ``match(a, b) -> MatchResult``, and ``pyanitsa match``.

A match is a two-agent round robin with duplicate deals run by the tournament machinery (the
same database, seeds, workers, forfeits and SPRT), so a match and a tournament of the same two
agents play the same games. Its figures are counted per duplicate pair (one deal, both
seatings), the unit that is independent from one deal to the next:

* ``score``: the first agent's mean pair score, with a Student-t 95% interval over pairs;
* ``elo``: the logistic Elo difference of that score, the interval's ends mapped the same way
  (as cutechess and fastchess report it);
* ``los``: the likelihood of superiority, ``Phi((score - 1/2) / standard error)``;
* ``pairs``: pairs won (score above 1/2), drawn and lost, and the pentanomial counts (pairs
  scoring 0, 1/4, 1/2, 3/4 and 1).

The pair figures are :mod:`pyanitsa.ratings.scores`', as for the duplicate evaluation that
training and the benchmarks run in memory (:func:`~pyanitsa.solvers.duplicate.duplicate_match`).
Both play their games with the referee's one engine (:func:`pyanitsa.agents.game.play_games`);
a match goes through the runner, for its store, workers, time limits, forfeits and SPRT.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pyanitsa.ratings.scores import PairCounts, likelihood_of_superiority, mean_interval
from pyanitsa.ratings.sprt import SprtResult, elo_of_score
from pyanitsa.tournaments.api import Standing, run, statistics, summary_of
from pyanitsa.tournaments.config import TournamentConfig, parse_config
from pyanitsa.tournaments.sandboxing import used_level
from pyanitsa.tournaments.schedule import schedule_of
from pyanitsa.tournaments.stats import block_score, count_blocks
from pyanitsa.workers.games import GameRow

DEALS = 100
"""Deals (duplicate pairs) of a match without an SPRT."""
SPRT_DEALS = 10_000
"""The most deals of a match with an SPRT, which usually stops it long before."""


@dataclass(frozen=True)
class MatchResult:
    """The figures of a match, from the first agent's side."""

    agents: tuple[str, str]
    seed: int
    """The match's seed (drawn when none was given): ``seed=`` plays the same games again."""
    pairs_played: int
    """Duplicate pairs that count (complete, up to the SPRT's decision)."""
    score: float
    """The first agent's mean pair score (1/2: even); NaN before any pair."""
    ci95: tuple[float, float] | None
    """The 95% interval of ``score`` (None with fewer than two pairs)."""
    elo: float
    """The Elo difference of ``score`` (first minus second; +-inf at a score of 1 or 0)."""
    elo_ci95: tuple[float, float] | None
    los: float | None
    """The probability that the first agent is the stronger (None with fewer than two pairs)."""
    pairs: PairCounts
    standings: tuple[Standing, Standing]
    """Both agents in entry order: games, W/D/L, forfeits and the Bradley–Terry rating with
    its bootstrap interval (relative to the anchor, if any)."""
    anchor: str | None
    sprt: SprtResult | None
    output: Path | None
    """The run folder, if kept (``output=``); None for a temporary one."""
    seconds: float
    sandbox: str | None = None
    """The sandbox level of the ``cmd:`` bots (None: no ``cmd:`` bot)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe mapping: infinite or undefined numbers become None."""
        return {
            "agents": list(self.agents), "seed": self.seed, "pairs_played": self.pairs_played,
            "score": _finite(self.score), "ci95": _pair(self.ci95), "elo": _finite(self.elo),
            "elo_ci95": _pair(self.elo_ci95), "los": self.los,
            "pairs": asdict(self.pairs) | {"pentanomial": list(self.pairs.pentanomial)},
            "standings": [{k: _finite(v) for k, v in asdict(s).items()}
                          for s in self.standings],
            "anchor": self.anchor,
            "sprt": None if self.sprt is None else asdict(self.sprt) | {
                "verdict": self.sprt.verdict},
            "output": None if self.output is None else str(self.output),
            "seconds": self.seconds, "sandbox": self.sandbox,
        }


def _finite(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _pair(x: tuple[float, float] | None) -> list[Any] | None:
    return None if x is None else [_finite(v) for v in x]


def agent_names(a: str, b: str) -> tuple[str, str]:
    """Display names: the specs, the second one marked when both are the same spec."""
    return (a, b) if a != b else (a, f"{b}#2")


def match_config(a: str, b: str, *, deals: int | None = None,
                 rules: Mapping[str, Any] | str = "tactical", seed: int | None = None,
                 sprt: Mapping[str, Any] | None = None, workers: int = 1,
                 time_limit: float | None = None, anchor: str | None = None,
                 output: str | Path | None = None, **fields: Any) -> TournamentConfig:
    """The tournament config of a match: two entries, two seats, duplicate deals; without a
    ``seed``, one is drawn when the games start (:attr:`MatchResult.seed` gives it)."""
    names = agent_names(a, b)
    data = {"name": "match", "agents": [{"name": n, "spec": s} for n, s in zip(names, (a, b), strict=True)],
            "rules": rules, "players": 2, "format": "round_robin", "duplicate": True,
            "deals": deals if deals is not None else (DEALS if sprt is None else SPRT_DEALS),
            "seed": seed, "sprt": None if sprt is None else dict(sprt), "workers": workers,
            "time_limit": time_limit, "anchor": anchor,
            "output": None if output is None else str(output), **fields}
    return parse_config(data, source="match")


def match(a: str, b: str, *, output: str | Path | None = None, resume: bool = False,
          overwrite: bool = False, progress: bool = False, **options: Any) -> MatchResult:
    """Play a duplicate match of agent specs ``a`` and ``b`` and return its figures.

    ``options`` are those of :func:`match_config` (``deals``, ``rules``, ``seed``, ``sprt``,
    ``workers``, ``time_limit``, ``anchor``) or any other config field. Without ``output`` the
    games go to a temporary folder deleted afterwards; with it they are kept (``pyanitsa
    report DIR`` rebuilds the reports) and ``resume`` continues them.
    """
    if output is None:
        if resume:
            raise parse_error("resume: needs an output folder to continue")
        with tempfile.TemporaryDirectory(prefix="pyanitsa-match-") as tmp:
            return _play(match_config(a, b, output=tmp, **options), keep=False,
                         resume=False, overwrite=False, progress=progress)
    return _play(match_config(a, b, output=output, **options), keep=True, resume=resume,
                 overwrite=overwrite, progress=progress)


def parse_error(message: str) -> Exception:
    from pyanitsa.tournaments.config import TournamentConfigError

    return TournamentConfigError(f"match: {message}")


def _play(config: TournamentConfig, *, keep: bool, resume: bool, overwrite: bool,
          progress: bool) -> MatchResult:
    summary = run(config, resume=resume, overwrite=overwrite, progress=progress,
                  reports=keep)
    from pyanitsa.tournaments.store import Store

    with Store.open(config.output_dir) as store:
        config, rows = store.config(), store.rows()  # the stored config has the seed played
    stats = summary.statistics if summary.statistics is not None else \
        statistics(config.output_dir)
    return figures(config, rows, stats, output=config.output_dir if keep else None, seconds=summary.seconds)


def figures(config: TournamentConfig, rows: list[GameRow], stats: Any, *,
            output: Path | None, seconds: float) -> MatchResult:
    """The match figures of a two-agent run's rows (see the module docstring)."""
    blocks, sprts, _ = count_blocks(config, schedule_of(config), rows)
    scores = [block_score(rs, 0) for rs in blocks.values()]
    if scores:
        score, low, high = mean_interval(scores)
    else:
        score, low, high = math.nan, None, None
    ci = None if low is None or high is None else (low, high)
    standing = summary_of(stats, config.output_dir, played=0, seconds=0.0)
    first, second = (standing.standing(n) for n in config.names)
    return MatchResult(
        (config.names[0], config.names[1]), int(config.seed or 0), len(scores), score, ci,
        elo_of_score(score) if scores else math.nan,
        None if ci is None else (elo_of_score(ci[0]), elo_of_score(ci[1])),
        likelihood_of_superiority(scores), PairCounts.of(scores), (first, second), config.anchor,
        sprts[0] if sprts else None, output, seconds, used_level(config))

