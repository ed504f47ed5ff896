"""What a run reports as it goes: the records its event sink receives, and the progress bar."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyanitsa.tournaments.games import GameRow

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


def progress_bar(total: int, initial: int, name: str, show: bool) -> Any:
    """A tqdm bar on stderr, or None when not ``show``."""
    if not show:
        return None
    from tqdm import tqdm

    # no monitor thread: workers may be forked later, and a fork should copy one thread only
    saved, tqdm.monitor_interval = tqdm.monitor_interval, 0
    try:
        return tqdm(total=total, initial=initial, unit="game", desc=name, file=sys.stderr,
                    dynamic_ncols=True, smoothing=0.05)
    finally:
        tqdm.monitor_interval = saved
