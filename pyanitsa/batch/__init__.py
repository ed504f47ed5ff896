"""The compiled batch core: many games per call on integer-encoded cards (numba).

Import it lazily (``from pyanitsa.batch import simulate``): importing numba takes a while, so
``pyanitsa`` itself never imports this package. Results are identical to the reference engine's
(``tests/test_batch_parity.py``); the reference engine remains the specification.

Compiled functions are cached on disk (``cache=True``). numba keys each cache entry on the
source file of the function it compiled, not on the files of the functions it calls: after
editing ``rng.py``, ``classic.py``, ``classic_fast.py`` or ``tactical.py``, clear
``pyanitsa/batch/__pycache__`` (and ``agents/__pycache__`` for the search kernels) so the
callers in the other modules recompile.
"""

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
