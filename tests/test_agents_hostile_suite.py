"""Issue 12's goal, in one tournament: every in-process agent of the hostile suite forfeits only
its own games, and every other game is identical to a clean run's.

The hostile run seats good agents (``random`` uses its generator, so its games show that no
generator moved) beside agents that raise ``SystemExit``, ``KeyboardInterrupt`` and a bare
``BaseException``, answer leniently, overrun the time limit, kill their own worker, write to
everything their view reaches, flood their output and cheat with their generator. The clean
run has a well-behaved stand-in in each hostile agent's place. (The `cmd:` suite is
tests/test_agents_cmd.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pyanitsa.tournaments.config import parse_config
from pyanitsa.tournaments.runner import run_tournament
from pyanitsa.tournaments.store import Store

TESTS = Path(__file__).resolve().parent
GOOD = ["random", "tie_aware", "descending"]
PLAIN = "hostile_agents:_Base"
# name: (spec, stand-in, the forfeit kinds of its games: empty for one that plays on)
HOSTILE = {
    "exits": ("hostile_agents:Exiting", PLAIN, {"error"}),
    "interrupts": ("hostile_agents:Interrupting", PLAIN, {"error"}),
    "boom": ("hostile_agents:BaseRaising", PLAIN, {"error"}),
    "lenient": ("hostile_agents:Lenient", PLAIN, {"illegal"}),
    "sleepy": ("hostile_agents:Sleepy(delay=0.6)", PLAIN, {"timeout"}),
    "suicide": ("hostile_agents:LastWords", PLAIN, {"error"}),
    "vandal": ("hostile_agents:Vandal", PLAIN, set()),
    "flood": ("hostile_agents:Flooding(mib=0.05)", PLAIN, set()),
    "cheater": ("hostile_agents:Cheater", "tie_aware", set()),
}


@pytest.fixture(autouse=True)
def hostile(monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setenv("PYTHONPATH", str(TESTS))


def _run(folder: Path, hostile: bool):
    agents = [{"name": g, "spec": g} for g in GOOD] + [
        {"name": n, "spec": spec if hostile else stand_in}
        for n, (spec, stand_in, _) in HOSTILE.items()]
    config = parse_config({"name": "suite", "agents": agents, "rules": {"preset": "tactical"},
                           "deals": 1, "seed": 11, "bootstrap": 0, "workers": 2,
                           "time_limit": 0.3, "output": str(folder)})
    run_tournament(config, progress=False)
    names = config.names
    with Store.open(config.output_dir) as store:
        rows = store.rows()
    return names, {(tuple(names[s] for s in r.seats), r.deal, r.rotation): r for r in rows}


def test_the_hostile_suite_forfeits_only_its_own_games(tmp_path):
    _, clean = _run(tmp_path / "clean", hostile=False)
    names, played = _run(tmp_path / "hostile", hostile=True)
    assert len(played) == len(clean) == 2 * len(names) * (len(names) - 1) // 2
    forfeits = {n: set() for n in HOSTILE}
    for key, row in played.items():
        if row.forfeit_seat is not None:
            who = key[0][row.forfeit_seat]
            assert who in HOSTILE, row.forfeit_reason  # no good agent ever forfeits
            forfeits[who].add(row.forfeit_kind)
    assert forfeits == {n: kinds for n, (_, _, kinds) in HOSTILE.items()}
    plays_on = set(GOOD) | {n for n, (_, _, kinds) in HOSTILE.items() if not kinds}
    same = [k for k in played if set(k[0]) <= plays_on]
    assert len(same) == 2 * len(plays_on) * (len(plays_on) - 1) // 2
    for key in same:  # as if no agent had misbehaved: cards, orders, outcome and record
        assert played[key].deterministic() == clean[key].deterministic(), key
