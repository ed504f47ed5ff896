"""Hostile agents (issue 12): nothing an in-process agent returns, raises or does to what it is
handed reaches the game, another game or a stored record.

* any BaseException an agent raises (SystemExit, KeyboardInterrupt, sys.exit()) is its
  forfeit, while a real Ctrl-C of the user still stops the run;
* views and the rules they carry are copies per call: writing to them reaches no other game
  and no stored record;
* an agent's generator tells it nothing about the deal: it is seeded by a one-way, keyed
  derivation (a tournament's key is secret and kept in its database);
* lenient answers: only integers forming an exact permutation are orders.

Agents by spec come from tests/hostile_agents.py (``hostile_agents:Class``).
"""

from __future__ import annotations

import os
import signal
import sqlite3
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


@pytest.mark.parametrize(("spec", "raised", "rules"), [
    ("hostile_agents:Exiting", "SystemExit: 7", TACTICAL),
    ("hostile_agents:Exiting", "SystemExit: 7", PICKUP),
    ("hostile_agents:Interrupting", "KeyboardInterrupt", TACTICAL),
    ("hostile_agents:Interrupting", "KeyboardInterrupt", PICKUP),
    ("hostile_agents:BaseRaising", "Boom: no Exception here", TACTICAL),
])
def test_any_base_exception_of_an_agent_is_its_forfeit(spec, raised, rules):
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
        "rules": {"preset": "tactical"}, "deals": 100, "workers": 2, "bootstrap": 0,
        "output": str(tmp_path / "out")}))
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    cmd = [sys.executable, "-m", "pyanitsa", "tournament", str(path), "--quiet"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    db = tmp_path / "out" / "tournament.db"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # until games are stored
        try:
            if db.exists():
                with sqlite3.connect(db, timeout=1) as conn:
                    if conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] >= 20:
                        break
        except sqlite3.OperationalError:  # no table yet
            pass
        time.sleep(0.05)
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
    """Each decision gets its own view (a vandal cannot touch the next one's), so a view must
    stay a few tuples and a shallow copy of the rules: counted in bytes, which do not depend on
    the machine's load (a wall-clock bound here failed on a busy machine; speed is measured in
    benchmarks). About 1 KB a view today; a deep copy of the rules tables would be several."""
    import tracemalloc

    from pyanitsa.protocol import view_for

    hand = list(range(0, 36, 2))
    view_for(TACTICAL, 0, 2, hand, 0)  # caches (the rank table) filled before counting
    tracemalloc.start()
    try:
        views = [view_for(TACTICAL, 0, 2, hand, 0) for _ in range(200)]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len({id(v) for v in views}) == 200 and len({id(v.rules) for v in views}) == 200
    assert views[0].rules == TACTICAL
    assert held / 200 < 4096, f"{held / 200:.0f} bytes a view"


# -- reading the generator (finding 3) -----------------------------------------------------------


def _seed_reader_log(rules, players, seeds, **kwargs):
    import hostile_agents

    from pyanitsa.agents.game import play_games

    reader, plain = make_agent("hostile_agents:SeedReader"), make_agent("hostile_agents:_Base")
    hostile_agents.SeedReader.log = []
    played = play_games(rules, [[reader] + [plain] * (players - 1)] * len(seeds), seeds,
                        **kwargs)
    return played, hostile_agents.SeedReader.log


def test_the_generator_does_not_give_the_deal_away():
    """The old derivation (SplitMix64 steps) ran backwards from the generator's seed to the
    game seed, so every hand was known: now no game's deal is recovered."""
    _, log = _seed_reader_log(TACTICAL, 2, list(range(40)))
    assert len(log) == 40
    assert sum(recovered for recovered, _ in log) == 0


@pytest.mark.parametrize("keyed", [False, True], ids=["play", "tournament"])
def test_a_bot_reading_its_generator_predicts_no_better_than_chance(keyed):
    """Three seats: who holds each of the 24 cards I do not is hidden (chance: 1/2). A bot
    that takes its guesses from the deal its generator points to does no better."""
    seeds = [7919 * i for i in range(60)]
    if keyed:
        from pyanitsa.agents.seeding import new_key

        played, log = _seed_reader_log(TACTICAL, 3, seeds, key=new_key())
    else:
        played, log = _seed_reader_log(TACTICAL, 3, seeds)
    right = total = 0
    for timed, (_, guess) in zip(played, log, strict=True):
        hands = timed.outcome.record.seats
        holder = {c: s for s, cards in enumerate(hands) for c in cards}
        right += sum(holder[c] == s for c, s in guess.items())
        total += len(guess)
    assert total == 60 * 24
    assert 0.44 < right / total < 0.56, right / total


def test_agent_seeds_are_keyed_and_reproducible():
    from pyanitsa.agents.game import seat_rng
    from pyanitsa.agents.seeding import agent_seed, key_from_seed, new_key

    key = new_key()
    assert len(key) == 32 and key != new_key()
    assert agent_seed(5, 0, key) == agent_seed(5, 0, key)
    assert len({agent_seed(5, 0, key), agent_seed(5, 1, key), agent_seed(6, 0, key),
                agent_seed(5, 0, new_key()), agent_seed(5, 0, key, purpose=b"other")}) == 5
    # play and simulate: the key comes from the game seed, so --seed reproduces the games
    a, b = seat_rng(5, 1), seat_rng(5, 1)
    assert a.integers(1 << 62) == b.integers(1 << 62)
    assert seat_rng(5, 1).bit_generator.seed_seq.entropy == agent_seed(5, 1, key_from_seed(5))


def test_the_key_is_in_nothing_an_agent_is_handed():
    import pickle

    from pyanitsa.agents.seeding import new_key

    handed = []

    class Keeper(BaseAgent):
        def order_hand(self, view, rng):
            handed.append((view, rng))
            return list(view.hand)

    key = new_key()
    play_game(TACTICAL, [Keeper(), Keeper()], seed=4, key=key)
    blob = pickle.dumps(handed)  # everything the views and generators reach
    assert len(handed) == 2 and key not in blob and key.hex().encode() not in blob


def test_a_tournament_keeps_a_secret_key_and_resumes_exactly(tmp_path):
    from pyanitsa.tournaments.runner import run_tournament
    from pyanitsa.tournaments.store import Store

    agents = [H("_Base", "plain"), H("Strong"), {"name": "random", "spec": "random"}]
    part = _tournament(tmp_path / "a", agents, deals=2, workers=2)
    run_tournament(part)
    with Store.open(part.output_dir) as store:
        key = store.agent_key()
    assert len(key) == 32
    more = _tournament(tmp_path / "a", agents, deals=5, workers=1)
    run_tournament(more, resume=True)
    with Store.open(more.output_dir) as store:
        assert store.agent_key() == key
        resumed = [r.deterministic() for r in store.rows()]
    whole = _tournament(tmp_path / "b", agents, deals=5, workers=2)
    run_tournament(whole, key=key)  # the same key: the same games, as an uninterrupted run
    with Store.open(whole.output_dir) as store:
        assert [r.deterministic() for r in store.rows()] == resumed
    again = _tournament(tmp_path / "c", agents, deals=5, workers=2)
    run_tournament(again)  # the same config and seed: the same key, the same games
    with Store.open(again.output_dir) as store:
        assert store.agent_key() == key
        assert [r.deterministic() for r in store.rows()] == resumed
    other = _tournament(tmp_path / "d", agents, deals=5, workers=2).model_copy(
        update={"agent_key": "random"})
    run_tournament(other)  # a fresh secret: the random agent plays other orders
    with Store.open(other.output_dir) as store:
        assert store.agent_key() != key
        assert [r.deterministic() for r in store.rows()] != resumed
    from pyanitsa.cli import main as cli

    assert cli(["report", str(whole.output_dir), "--quiet"]) == 0
    for path in whole.output_dir.iterdir():
        if path.suffix in (".json", ".md", ".csv"):
            assert key.hex() not in path.read_text(), path.name


def test_a_database_without_an_agent_key_is_not_resumed(tmp_path):
    import sqlite3

    from pyanitsa.tournaments.runner import run_tournament
    from pyanitsa.tournaments.store import DB_NAME, TournamentStoreError

    config = _tournament(tmp_path, [H("_Base", "plain"), H("Strong")], workers=1)
    run_tournament(config)
    with sqlite3.connect(config.output_dir / DB_NAME) as conn:  # as an older pyanitsa left it
        conn.execute("DELETE FROM meta WHERE key = 'agent_key'")
    with pytest.raises(TournamentStoreError, match="older pyanitsa.*overwrite=True"):
        run_tournament(config, resume=True)
    assert run_tournament(config, overwrite=True).played == 2


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


@pytest.mark.parametrize(("argv", "key"), [
    (["play", "--seed", "-1"], "--seed"),
    (["play", "--seed", str(2**64)], "--seed"),
    (["play", "--seed", "9" * 5000], "--seed"),
    (["play", "--agents", "descending,descending", "--time-limit", "nan"], "--time-limit"),
    (["play", "--agents", "descending,descending", "--time-limit", "inf"], "--time-limit"),
    (["play", "--agents", "descending,descending", "--time-limit", "0"], "--time-limit"),
    (["simulate", "--games", "3", "--seed", "-1"], "--seed"),
    (["simulate", "--games", "3", "--workers", "0"], "--workers"),
    (["simulate", "--games", "3", "--workers", "-2"], "--workers"),
    (["enumerate", "--deck", "ranks=2,suits=2", "--workers", "0"], "--workers"),
    (["exploit", "descending", "--deals", "1", "--seed", "-1"], "--seed"),
    (["demo", "--seed", "-5"], "--seed"),
])
def test_values_out_of_range_are_refused_in_one_line(argv, key, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.count("\n") == 1 and f"argument {key}: " in err and len(err) < 300, err


@pytest.mark.parametrize(("field", "value"), [
    ("deals", True), ("players", True), ("workers", False), ("seed", True),
    ("time_limit", True), ("bootstrap", True), ("sprt", {"elo1": True}),
    ("exploit", {"deals": True})])
def test_booleans_are_not_numbers_in_a_tournament_config(field, value):
    from pyanitsa.tournaments.config import TournamentConfigError, parse_config

    data = {"agents": ["descending", "ascending"], "rules": "tactical", field: value}
    with pytest.raises(TournamentConfigError, match=rf"{field}(\.\w+)?: .*true or false"):
        parse_config(data)


@pytest.mark.parametrize("limit", [float("nan"), float("inf"), 0.0, -1.0])
def test_play_game_refuses_a_time_limit_that_is_no_limit(limit):
    from pyanitsa.errors import PyanitsaError

    with pytest.raises(PyanitsaError, match="time_limit"):
        play_game(TACTICAL, [Descending(), Descending()], seed=1, time_limit=limit)
