"""Tournaments from Python: ``run(config, **options) -> Summary``.

The same run as ``pyanitsa tournament`` (the same database, the same games, the same reports),
with the result handed back as a small typed value instead of printed::

    from pyanitsa.tournaments import run

    summary = run("configs/tournaments/demo.yaml", deals=10, output="runs/t/demo10")
    print(summary.standings[0].name, summary.forfeits, summary.output)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pyanitsa.ratings.sprt import SprtResult
from pyanitsa.tournaments.config import TournamentConfig, load_config, parse_config
from pyanitsa.tournaments.events import EventSink
from pyanitsa.tournaments.stats import Summary as Statistics

RUN_OPTIONS = ("resume", "overwrite", "progress", "events", "reports", "key")
"""The keyword arguments of :func:`run` that are not config fields."""


@dataclass(frozen=True)
class Standing:
    """One agent's line of the standings."""

    name: str
    spec: str
    elo: float | None
    """The rating (Elo scale: mean 0 over the field, or 0 for the anchor); None if it did
    not play."""
    low: float | None
    """The 95% bootstrap interval of ``elo`` (None with ``bootstrap: 0``)."""
    high: float | None
    games: int
    wins: int
    draws: int
    """Shared first places."""
    losses: int
    score: float
    """Mean points per game (1/2 is even at a two-seat table)."""
    forfeits: int
    """Games this agent forfeited (error, illegal answer or timeout)."""


@dataclass(frozen=True)
class Summary:
    """What a tournament run gives back: the standings and the run's bookkeeping."""

    name: str
    standings: tuple[Standing, ...]
    """Best first (by rating, else by score)."""
    anchor: str | None
    """The agent rated 0, if the config names one."""
    games: int
    """Games that count (complete duplicate blocks, up to each SPRT decision)."""
    played: int
    """Games this call played (fewer than ``games`` after a resume)."""
    forfeits: int
    """Forfeited games among those that count."""
    output: Path
    """The run folder: ``tournament.db`` and, unless ``reports=False``, the reports."""
    seconds: float
    """Wall time of this call's play."""
    sprt: tuple[SprtResult, ...] = ()
    """Each SPRT pairing's decision (with ``sprt:``)."""
    statistics: Statistics | None = field(default=None, repr=False, compare=False)
    """Everything the reports compute: head to head, LOS, the meta-game, exploitability
    (:class:`pyanitsa.tournaments.stats.Summary`)."""

    def standing(self, name: str) -> Standing:
        """The line of the agent called ``name``."""
        for s in self.standings:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "standings": [asdict(s) for s in self.standings],
                "anchor": self.anchor, "games": self.games, "played": self.played,
                "forfeits": self.forfeits, "output": str(self.output), "seconds": self.seconds,
                "sprt": [asdict(s) | {"verdict": s.verdict} for s in self.sprt]}


def as_config(config: TournamentConfig | Mapping[str, Any] | str | Path,
              fields: Mapping[str, Any] | None = None) -> TournamentConfig:
    """A validated config from a config, a mapping or a YAML path, with ``fields`` overriding
    top-level fields (errors: :class:`~pyanitsa.tournaments.config.TournamentConfigError`)."""
    fields = dict(fields or {})
    if isinstance(config, TournamentConfig):
        if not fields:
            return config
        return parse_config(config.model_dump() | fields)
    if isinstance(config, (str, Path)):
        loaded = load_config(config)
        return loaded if not fields else parse_config(loaded.model_dump() | fields,
                                                      source=str(config))
    if isinstance(config, Mapping):
        return parse_config(dict(config) | fields)
    raise TypeError(f"config: a TournamentConfig, a mapping or a YAML path, not "
                    f"{type(config).__name__}")


def run(config: TournamentConfig | Mapping[str, Any] | str | Path, *, resume: bool = False,
        overwrite: bool = False, progress: bool = False, events: EventSink | None = None,
        reports: bool = True, key: Any = None, **fields: Any) -> Summary:
    """Run (or, with ``resume``, finish) a tournament and return its :class:`Summary`.

    ``config``: a :class:`TournamentConfig`, a mapping of its fields, or the path of a YAML
    file. Any other keyword is a config field that overrides the config's (``deals=10``,
    ``output="runs/x"``, ``anchor="random"``). ``resume``, ``overwrite``, ``events`` and ``key``
    are those of :func:`~pyanitsa.tournaments.runner.run_tournament`; ``progress`` shows the
    tqdm bar on stderr; ``reports`` writes report.md, results.csv/json and the plots into the
    output folder, as ``pyanitsa tournament`` does.
    """
    from pyanitsa.tournaments.runner import run_tournament
    from pyanitsa.tournaments.store import hold_folder

    cfg = as_config(config, fields)
    with hold_folder(cfg.output_dir) as lock:
        result = run_tournament(cfg, resume=resume, overwrite=overwrite, progress=progress,
                                events=events, lock=lock, key=key)
        stats = statistics(cfg.output_dir, write=reports, progress=progress)
    return summary_of(stats, cfg.output_dir, played=result.played, seconds=result.seconds)


def statistics(folder: Path, *, write: bool = False, progress: bool = False) -> Statistics:
    """The statistics of a run folder's database; ``write``: the reports too."""
    from pyanitsa.tournaments.stats import summarize
    from pyanitsa.tournaments.store import Store

    with Store.open(folder) as store:
        config, rows = store.config(), store.rows()
    stats = summarize(config, rows)
    if write:
        from pyanitsa.tournaments.report import write_reports
        from pyanitsa.tournaments.strength import measure

        stats.exploitability = measure(config, Path(folder), progress=progress)
        write_reports(Path(folder), stats, rows)
    return stats


def summary_of(stats: Statistics, output: Path, *, played: int, seconds: float) -> Summary:
    from pyanitsa.tournaments.report import order

    standings = tuple(
        Standing(a.name, a.spec, a.rating, a.rating_low, a.rating_high, a.games, a.wins,
                 a.draws, a.losses, a.score, a.forfeit_count)
        for a in (stats.agents[i] for i in order(stats)))
    return Summary(stats.config.name, standings, stats.config.anchor, stats.counted, played,
                   sum(s.forfeits for s in standings), Path(output), seconds,
                   tuple(stats.sprt), stats)
