"""Speed of the batch core and the reference engine, next to the C yardsticks of the same run.

    make bench                                  # or: .venv/bin/python benchmarks/run.py
    .venv/bin/python benchmarks/run.py --quick  # a smoke run of some seconds
    .venv/bin/python benchmarks/run.py --json --only tactical-36

The workloads, the measuring and the report live in ``batch_bench.py`` beside this script;
this script runs them from a checkout. Results are recorded in
``BENCHMARKS.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    # `python benchmarks/run.py` puts benchmarks/ (not the repo) first on sys.path; import the
    # checkout itself so the script works whatever state the editable install is in.
    sys.path.insert(0, str(REPO_ROOT))
# the sibling modules (batch_bench.py), also when a test loads this file by its path
sys.path.insert(0, str(Path(__file__).resolve().parent))

from batch_bench import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
