"""Hostile agents (issue 12): nothing an in-process agent returns, raises or does to what it is
handed reaches the game, another game or a stored record.

* any BaseException an agent raises (SystemExit, KeyboardInterrupt, sys.exit()) is its
  forfeit, while a real Ctrl-C of the user still stops the run;
* views and the rules they carry are copies per call: writing to them reaches no other game
  and no stored record;
* lenient answers: only integers forming an exact permutation are orders.

Agents by spec come from tests/hostile_agents.py (``hostile_agents:Class``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pyanitsa.agents import (
    AgentFailure,
    AgentSpecError,
    BaseAgent,
    check_order,
    make_agent,
    play_game,
)
from pyanitsa.cli import main
from pyanitsa.errors import IllegalActionError
from pyanitsa.rules import Rules, preset

TESTS = Path(__file__).resolve().parent
TACTICAL = preset("tactical")
PICKUP = preset("classic-ru", pickup_order="agent", max_rounds=300)


@pytest.fixture(autouse=True)
def hostile_agents(monkeypatch):
    """``hostile_agents:Class`` specs import here and in forked workers."""
    monkeypatch.syspath_prepend(str(TESTS))


def H(cls: str, name: str | None = None) -> dict[str, str]:
    return {"name": name or cls.split("(")[0].lower(), "spec": f"hostile_agents:{cls}"}


class Answers(BaseAgent):
    """Returns ``answer(view)`` as its hand order."""

    def __init__(self, answer) -> None:
        self.answer = answer

    def order_hand(self, view, rng):
        return self.answer(view)


class Descending(BaseAgent):
    def order_hand(self, view, rng):
        return list(reversed(view.hand))


# -- BaseException from an agent (finding 1) -------------------------------------------------------


@pytest.mark.parametrize(("spec", "raised"), [
    ("hostile_agents:Exiting", "SystemExit: 7"),
    ("hostile_agents:Interrupting", "KeyboardInterrupt"),
    ("hostile_agents:BaseRaising", "Boom: no Exception here"),
])
@pytest.mark.parametrize("rules", [TACTICAL, PICKUP], ids=["hand", "pickup"])
def test_any_base_exception_of_an_agent_is_its_forfeit(spec, raised, rules):
    if rules is PICKUP and "BaseRaising" in spec:
        pytest.skip("BaseRaising makes hand decisions only")
    with pytest.raises(AgentFailure) as info:
        play_game(rules, [make_agent("hostile_agents:_Base"), make_agent(spec)], seed=1)
    assert info.value.seat == 1 and info.value.kind == "error"
    assert f"raised {raised}" in str(info.value)


def test_an_agent_that_exits_in_its_constructor_is_a_bad_spec():
    with pytest.raises(AgentSpecError, match=r"hostile_agents:ExitingAtBirth.*SystemExit: 5"):
        make_agent("hostile_agents:ExitingAtBirth")


def test_a_real_interrupt_during_a_decision_still_stops_play():
    """SIGINT delivered by the signal (as a terminal's Ctrl-C is) is the user's, even when the
    deciding agent catches the KeyboardInterrupt and answers."""
    for spec in ("hostile_agents:SignalsItself", "hostile_agents:SignalsItself(swallow=True)"):
        with pytest.raises(KeyboardInterrupt):
            play_game(TACTICAL, [make_agent("hostile_agents:_Base"), make_agent(spec)], seed=1)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_play_and_simulate_report_an_exiting_agent_in_one_line(capsys):
    for argv in (["play", "--preset", "tactical"],
                 ["simulate", "--preset", "tactical", "--games", "5"]):
        code = main([*argv, "--agents", "descending,hostile_agents:Exiting"])
        err = capsys.readouterr().err
        assert code == 2, argv
        assert err.count("\n") == 1 and "raised SystemExit: 7" in err, err


def _tournament(tmp_path, agents, **fields):
    from pyanitsa.tournaments.config import parse_config

    return parse_config({"name": "h", "rules": {"preset": "tactical"}, "deals": 1, "seed": 2,
                         "bootstrap": 0, "workers": 2, "output": str(tmp_path / "out"),
                         "agents": agents, **fields})


def test_exiting_and_interrupting_agents_forfeit_only_their_own_games(tmp_path):
    from pyanitsa.tournaments.runner import run_tournament
    from pyanitsa.tournaments.stats import summarize
    from pyanitsa.tournaments.store import Store

    config = _tournament(tmp_path, [H("_Base", "plain"), H("Exiting"), H("Interrupting"),
                                    H("BaseRaising")])
    result = run_tournament(config)
    assert result.games == 12
    with Store.open(config.output_dir) as store:
        rows = store.rows()
    plain, *bad = summarize(config, rows).agents
    assert plain.forfeits == {} and plain.points == 6.0
    # seats answer in order: a bad agent forfeits against plain, and in seat 0 against another
    assert [b.forfeits for b in bad] == [{"error": 4}] * 3
    reasons = " ".join(r.forfeit_reason for r in rows if r.forfeit_reason)
    for what in ("SystemExit: 7", "KeyboardInterrupt", "Boom"):
        assert what in reasons


def test_ctrl_c_stops_a_tournament_cleanly_and_resume_finishes_it(tmp_path):
    """A terminal's Ctrl-C reaches the whole process group: the workers ignore it and the
    parent stops the run (exit 130); --resume plays the rest."""
    import yaml

    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({
        "name": "c", "agents": [H("Sleepy(delay=0.02)", "a"), H("Sleepy(delay=0.02)", "b")],
        "rules": {"preset": "tactical"}, "deals": 200, "workers": 2, "bootstrap": 0,
        "output": str(tmp_path / "out")}))
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    cmd = [sys.executable, "-m", "pyanitsa", "tournament", str(path), "--quiet"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    time.sleep(4)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--resume" in err
    again = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr


# -- writing to the view (finding 2) -------------------------------------------------------------


@pytest.mark.parametrize("rules", [TACTICAL, PICKUP, preset("tactical-52", misere=True)],
                         ids=["tactical", "pickup", "misere"])
def test_writing_to_a_view_reaches_no_other_game_and_no_record(rules):
    from pyanitsa.agents.game import play_games

    vandal, plain = make_agent("hostile_agents:Vandal"), make_agent("hostile_agents:_Base")
    strong = make_agent("hostile_agents:Strong")
    seeds = list(range(12))
    lineups = [[vandal, plain] if i % 3 == 0 else [strong, plain] for i in seeds]
    clean_lineups = [[plain, plain] if i % 3 == 0 else [strong, plain] for i in seeds]
    played = play_games(rules, lineups, seeds)
    clean = play_games(rules, clean_lineups, seeds)
    clean_json = rules.to_options()
    for i, (got, want) in enumerate(zip(played, clean, strict=True)):
        assert got.outcome.record.rules == rules and got.outcome.record.rules.to_options() \
            == clean_json, i
        assert got.outcome.result == want.outcome.result, i  # the vandal plays like plain
    assert rules == Rules.from_options({"mode": rules.mode, "deck": rules.deck.to_json(),
                                        **clean_json})


def test_writing_to_a_view_changes_no_other_tournament_game(tmp_path):
    from pyanitsa.tournaments.runner import run_tournament
    from pyanitsa.tournaments.store import Store

    rows = {}
    for who in ("Vandal", "_Base"):
        config = _tournament(tmp_path / who, [H(who, "x"), H("Strong"), H("_Base", "plain")],
                             deals=3, workers=1)
        run_tournament(config)
        with Store.open(config.output_dir) as store:
            rows[who] = [r.deterministic() for r in store.rows()]
    assert rows["Vandal"] == rows["_Base"]  # the vandal plays like _Base, and nothing else moved


def test_a_view_costs_little_to_copy():
    from pyanitsa.agents.protocol import view_for

    hand = list(range(0, 36, 2))
    runs = 2000
    start = time.perf_counter()
    for _ in range(runs):
        view_for(TACTICAL, 0, 2, hand, 0)
    per_view = (time.perf_counter() - start) / runs
    assert per_view < 100e-6, f"{per_view * 1e6:.1f} us a view"


# -- lenient answers (finding 7) ------------------------------------------------------------------

HAND = (0, 5, 9, 30)

LENIENT = {
    "strings": [str(c) for c in HAND],
    "floats": [float(c) for c in HAND],
    "numpy floats": list(np.array(HAND, np.float64)),
    "float array": np.array(HAND, np.float64),
    "fractions": [c + 0.7 for c in HAND],
    "bools": [True, False],
    "numpy bools": np.array([True, False]),
    "a dict": dict.fromkeys(HAND, "x"),
    "a set": set(HAND),
    "a generator": (c for c in HAND),
    "a string": "0 5 9 30",
    "an object array": np.array(HAND, dtype=object),
    "a 2-d array": np.array([HAND]),
    "None": None,
    "a huge int": [10**5000, 5, 9, 30],
}


@pytest.mark.parametrize("name", list(LENIENT))
def test_check_order_accepts_only_integers(name):
    with pytest.raises(IllegalActionError) as info:
        check_order(LENIENT[name], HAND, "hand order", TACTICAL)
    message = str(info.value)
    assert message.startswith("hand order: ") and "\n" not in message and len(message) < 400


@pytest.mark.parametrize("answer", [
    list(HAND), tuple(reversed(HAND)), np.array(HAND), np.array(HAND, np.uint8),
    [np.int64(c) for c in HAND], [np.int8(c) for c in HAND], list(np.array(HAND, np.int32))])
def test_check_order_accepts_python_and_numpy_integers(answer):
    out = check_order(answer, HAND, "hand order", TACTICAL)
    assert sorted(out) == list(HAND) and all(type(c) is int for c in out)


def test_a_lenient_order_is_its_agents_forfeit():
    for name in ("strings", "fractions", "a dict"):
        def lenient(view, name=name):
            return {"strings": [str(c) for c in view.hand],
                    "fractions": [c + 0.7 for c in view.hand],
                    "a dict": dict.fromkeys(view.hand, 1)}[name]
        with pytest.raises(AgentFailure) as info:
            play_game(TACTICAL, [Descending(), Answers(lenient)], seed=3)
        assert info.value.seat == 1 and info.value.kind == "illegal", name
