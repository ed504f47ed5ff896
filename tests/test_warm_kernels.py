"""``tests/warm_kernels.py``, the step of ``make test`` that fills numba's cache before the
workers start: every step runs in one of the two processes, a bad step name is one line, and on
an empty cache it compiles every kernel module's functions."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import warm_kernels

SCRIPT = Path(warm_kernels.__file__)


def test_the_two_parts_run_every_step_once() -> None:
    steps = [name for part in warm_kernels.PARTS for name in part]
    assert sorted(steps) == sorted(warm_kernels.STEPS)
    assert len(warm_kernels.PARTS) == 2  # one process a core of CI's two


def test_an_unknown_step_is_one_line_and_exit_2() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "warm_engines", "warm_nothing"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "warm_kernels: no step 'warm_nothing' (one of "
        f"{', '.join(warm_kernels.STEPS)})"]


KERNEL_FILES = ("agents/kernels", "agents/pair_kernels", "solvers/cfr_kernels",
                "solvers/best_response_kernels", "solvers/table_kernels", "batch/classic",
                "batch/classic_fast", "batch/tactical", "batch/deals",
                "research/enumeration_batch", "research/hunt", "research/hunt_blocks")


@pytest.mark.slow  # 2 min of compiling; make test itself runs the suite on the cache it fills
def test_on_an_empty_cache_it_compiles_every_kernel_module(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "failed" not in done.stderr, done.stderr
    # numba names a cache folder after the source's folder, its index files after the module
    found = {(p.parent.name.rsplit("_", 1)[0], p.name.split(".", 1)[0])
             for p in cache.rglob("*.nbi")}
    missing = [f for f in KERNEL_FILES if tuple(f.split("/")) not in found]
    assert missing == []
