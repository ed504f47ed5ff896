"""Killing a worker while an agent decides, for the tests of worker deaths.

The tests seat ``tournament_agents:Slow(delay=0.1)``: every decision sleeps 0.1 s, so 0.05 s
after a game is stored the worker is well inside the next decision.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def kill_in_next_decision(kill: Callable[[], None]
                          ) -> tuple[list[dict[str, Any]], Callable[[dict[str, Any]], None],
                                     threading.Thread]:
    """``(events, sink, thread)``: pass ``sink`` as the run's event sink and start ``thread``
    before the run; ``kill()`` runs 0.05 s after the first stored game. ``events`` collects
    every event the run sends."""
    first_game = threading.Event()
    events: list[dict[str, Any]] = []

    def sink(event: dict[str, Any]) -> None:
        events.append(event)
        if event["event"] == "game":
            first_game.set()

    def killer() -> None:
        assert first_game.wait(60)
        time.sleep(0.05)
        kill()

    return events, sink, threading.Thread(target=killer)
