"""A hunt's searchers advanced as Ray tasks, one core each, on a local or remote cluster.

Ray is the optional ``ray`` extra, imported only when this backend runs (see
:mod:`pyanitsa.research.enumeration_ray`, whose cluster start this reuses). A task is
:meth:`Hunt.advance` on one searcher's state: a pure function of the rules, the hunt's
settings, the state and the deal count to reach, so a task Ray retries after a worker died
returns what the first attempt would have, and the parent commits whole rounds in searcher
order, exactly as the local backend does.
"""

from __future__ import annotations

import functools
import json
from typing import Any

_HUNTS: dict[str, Any] = {}
"""Each worker's hunts by rules and settings: the block library is built once a process."""


def _advance(key: str, settings: dict[str, Any], state: dict[str, Any], until: int,
             stop_on_cycle: bool) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    from pyanitsa.batch import set_workers
    from pyanitsa.research.enumeration_store import rules_from_key
    from pyanitsa.research.hunt import Hunt, HuntState

    set_workers(1)  # one core a task: Ray runs one task per CPU
    name = key + json.dumps(settings, sort_keys=True)
    hunt = _HUNTS.get(name)
    if hunt is None:
        hunt = _HUNTS[name] = Hunt(rules_from_key(key), **settings)
    st = HuntState.from_json(state)
    rows = hunt.advance(st, until, stop_on_cycle)
    return st.to_json(with_cycles=True), rows


@functools.cache
def _remote_advance() -> Any:
    """The Ray task of :func:`_advance`, made once a process (a hunt runs many rounds)."""
    import ray

    return ray.remote(num_cpus=1, max_retries=2)(_advance)


def run_round(key: str, settings: dict[str, Any],
              work: dict[int, tuple[dict[str, Any], int]], stop_on_cycle: bool
              ) -> dict[int, tuple[dict[str, Any], list[tuple[Any, ...]]]]:
    """Advance each searcher ``i`` of ``work`` (its state JSON and deal count to reach) as a
    task on the running cluster; their new states and rows, by searcher."""
    import ray

    refs = {i: _remote_advance().remote(key, settings, st, until, stop_on_cycle)
            for i, (st, until) in work.items()}
    done: dict[int, tuple[dict[str, Any], list[tuple[Any, ...]]]] = {}
    try:
        for i, ref in refs.items():
            done[i] = ray.get(ref)
    finally:
        for i, ref in refs.items():
            if i not in done:
                ray.cancel(ref, force=True)
    return done
