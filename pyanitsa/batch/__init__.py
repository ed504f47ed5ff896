"""The compiled batch core: many games per call on integer-encoded cards (numba).

Import it lazily (``from pyanitsa.batch import simulate``): importing numba takes a while, so
``pyanitsa`` itself never imports this package. Results are identical to the reference engine's
(``tests/test_batch_parity.py``); the reference engine remains the specification.

Compiled functions are cached on disk (``cache=True``), each entry keyed on its own file and
every module of this package (:mod:`pyanitsa.batch._cache`), so editing any of them recompiles
what may have inlined it; nothing needs clearing by hand.
"""

from pyanitsa.batch import _cache  # noqa: F401  (first: the cache locators, before any kernel)
from pyanitsa.batch.api import (
    CAPPED,
    CYCLE,
    DRAW,
    UNFINISHED,
    WIN,
    ClassicBatch,
    Simulation,
    TacticalBatch,
    play_positions,
    play_records,
    set_workers,
    simulate,
    tactical_scores,
)

__all__ = ["CAPPED", "CYCLE", "DRAW", "UNFINISHED", "WIN", "ClassicBatch", "Simulation",
           "TacticalBatch", "play_positions", "play_records", "set_workers", "simulate",
           "tactical_scores"]
