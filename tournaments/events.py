"""What a run reports as it goes: the records its event sink receives, and its progress on
stderr with the live standings."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from pyanitsa.workers.games import GameRow

EventSink = Callable[[dict[str, Any]], None]


def game_event(row: GameRow, names: Sequence[str]) -> dict[str, Any]:
    """The ``game`` event of a stored game."""
    forfeit = None if row.forfeit_seat is None else {
        "seat": row.forfeit_seat, "agent": names[row.seats[row.forfeit_seat]],
        "kind": row.forfeit_kind, "reason": row.forfeit_reason}
    return {"event": "game", "pairing": row.pairing, "deal": row.deal,
            "rotation": row.rotation, "agents": [names[i] for i in row.seats],
            "outcome": row.outcome, "points": list(row.points), "places": list(row.places),
            "rounds": row.rounds, "forfeit": forfeit}


def file_size(path: Path) -> int:
    """The size of ``path`` in bytes, 0 if it does not exist."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def standings_event(games: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``standings`` event: games stored so far and the live table, best first (see
    :class:`~pyanitsa.tournaments.live.LiveStandings`)."""
    return {"event": "standings", "games": games, "standings": rows}


LOG_SECONDS = 30.0
"""How often a run not on a terminal writes its progress line and standings."""
TABLE_ROWS = 8
"""Agents shown in the live standings (the best ones)."""


def standings_lines(rows: Sequence[dict[str, Any]], limit: int = TABLE_ROWS) -> list[str]:
    """The live standings as a compact text table: agent, score, Elo, games."""
    shown = rows[:limit]
    width = max([5, *(len(r["agent"]) for r in shown)])
    width = min(width, 24)
    lines = [f"  {'agent':<{width}}  {'score':>5}  {'Elo':>5}  {'games':>7}"]
    for r in shown:
        score = "–" if r["score"] is None else f"{r['score']:.3f}"
        elo = "–" if r["elo"] is None else f"{round(r['elo']):+d}"
        lines.append(f"  {r['agent'][:width]:<{width}}  {score:>5}  {elo:>5}  {r['games']:>7}")
    if len(rows) > limit:
        lines.append(f"  … {len(rows) - limit} more")
    return lines


class Progress:
    """A run's progress on stderr (or ``file``) with the live standings.

    On a terminal: a tqdm bar, the standings in tqdm status lines below it, redrawn in place.
    Elsewhere (a CI log, a file) carriage returns and cursor moves would garble the log, so
    plain lines instead: games done, rate and time left, then the standings, at most every
    ``log_every`` seconds.
    """

    def __init__(self, total: int, initial: int, name: str, *, file: TextIO | None = None,
                 tty: bool | None = None, log_every: float = LOG_SECONDS) -> None:
        self.file = file if file is not None else sys.stderr
        self.tty = _isatty(self.file) if tty is None else tty
        self.name = name
        self.n = initial
        self.total = total
        self.log_every = log_every
        self.started = time.monotonic()
        self.initial = initial
        self.logged = self.started
        self.status: list[Any] = []
        self.bar = _tqdm(total=total, initial=initial, unit="game", desc=name, file=self.file,
                         dynamic_ncols=True, smoothing=0.05) if self.tty else None

    def update(self, n: int) -> None:
        self.n += n
        if self.bar is not None:
            self.bar.update(n)

    def set_total(self, total: int) -> None:
        """A new total (an SPRT decision dropped a pairing's games)."""
        self.total = total
        if self.bar is not None:
            self.bar.total = total
            self.bar.refresh()

    def show(self, rows: Sequence[dict[str, Any]]) -> None:
        """Show these standings (see :func:`standings_lines`)."""
        lines = standings_lines(rows)
        if self.bar is None:
            now = time.monotonic()
            if now - self.logged >= self.log_every:
                self.logged = now
                print("\n".join([self.line(), *lines]), file=self.file, flush=True)
            return
        while len(self.status) < len(lines):
            self.status.append(_tqdm(total=0, position=len(self.status) + 1, leave=False,
                                     bar_format="{desc}", file=self.file))
        for bar, line in zip(self.status, [*lines, *[""] * len(self.status)], strict=False):
            bar.set_description_str(line, refresh=True)

    def line(self, *, end: bool = False) -> str:
        """``NAME: 880/3000 games (29%), 1580 games/s, 1 min 20 s left``, at the ``end``
        ``NAME: 3000/3000 games in 2 s, 1580 games/s``: one log line."""
        seconds = time.monotonic() - self.started
        rate = (self.n - self.initial) / seconds if seconds > 0 else 0.0
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        left = f", {_duration((self.total - self.n) / rate)} left" if rate > 0 else ""
        if end:
            share, left = f" in {_duration(seconds)}", ""
        return f"{self.name}: {self.n}/{self.total} games{share}, {rate:.0f} games/s{left}"

    def close(self) -> None:
        for bar in reversed(self.status):
            bar.close()
        if self.bar is not None:
            self.bar.close()
        else:
            print(self.line(end=True), file=self.file, flush=True)


def _isatty(file: TextIO) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds // 60 % 60} min"


def _tqdm(**kwargs: Any) -> Any:
    from tqdm import tqdm

    # no monitor thread: workers may be forked later, and a fork should copy one thread only
    saved, tqdm.monitor_interval = tqdm.monitor_interval, 0
    try:
        return tqdm(**kwargs)
    finally:
        tqdm.monitor_interval = saved
