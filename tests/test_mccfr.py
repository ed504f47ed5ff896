"""The n-player Monte Carlo CFR solve (:mod:`pyanitsa.solvers.mccfr`) and ``nash`` playing its
strategy at 3+ players: exact exploitability on tiny decks, tables whose equilibrium is known,
determinism, bad files and the ``solve-table`` command."""

from __future__ import annotations

import json
from pathlib import Path

import numba
import numpy as np
import pytest

from pyanitsa import preset
from pyanitsa.agents import make_agent
from pyanitsa.cli import main
from pyanitsa.dealing import deal
from pyanitsa.errors import CorruptFileError
from pyanitsa.protocol import hand_view
from pyanitsa.rng import Rng
from pyanitsa.rules import Rules
from pyanitsa.solvers import mccfr
from pyanitsa.solvers.cfr import NashAgent
from pyanitsa.solvers.exploitability_n import exploit_table
from pyanitsa.solvers.mccfr import Solver, StrategyFileError, load, stored_strategy

TOLERANCE = 0.015
"""NashConv / N (cards a game) the solve must reach on three 2-card hands, where the exact
equilibrium's is 0 (and uniform random's is 0.039)."""


def research(ranks: int, suits: int) -> Rules:
    return Rules.from_options({"mode": "tactical", "deck": {"ranks": ranks, "suits": suits}})


def solved(tmp_path: Path, rules: Rules, players: int, deals: int, **kw: object) -> NashAgent:
    solver = Solver(rules, players, seed=3, batch=64, **kw)
    solver.run(deals=deals)
    path = tmp_path / f"s{players}-{deals}.npz"
    solver.strategy().save(path)
    return NashAgent(strategy=str(path))


def test_tiny_three_player_game_is_within_tolerance_of_its_exact_equilibrium(tmp_path):
    """Three seats with two cards each: the abstraction loses nothing here (the first card
    fixes the order), so the solve must come within TOLERANCE of an exact equilibrium's 0,
    by the exact method (every split, every listed order), and well under random's."""
    rules = research(3, 2)
    rep = exploit_table(rules, solved(tmp_path, rules, 3, 20_000), players=3, deals=30, seed=1)
    rand = exploit_table(rules, make_agent("random"), players=3, deals=30, seed=1)
    assert rep["method"] == "exact" and rand["method"] == "exact"
    assert rep["exploitability"] <= TOLERANCE < rand["exploitability"] / 2


@pytest.mark.parametrize(("deck", "players"), [((1, 6), 3), ((4, 1), 4), ((2, 2), 4)],
                         ids=["every-hand-equal", "one-card", "one-card-two-ranks"])
def test_known_equilibria_come_out_at_zero(tmp_path, deck, players):
    """Every card equal (every order of every hand is the same game), or one card a seat (one
    order): any strategy is an equilibrium, and the solve's exploitability is exactly 0."""
    rules = research(*deck)
    rep = exploit_table(rules, solved(tmp_path, rules, players, 512), players=players, deals=6,
                        seed=2)
    assert rep["method"] == "exact"
    assert rep["exploitability"] == pytest.approx(0.0, abs=1e-12)


def test_same_seed_same_bytes_on_one_or_two_threads(tmp_path):
    rules = research(4, 3)
    files = []
    for k, threads in enumerate((1, 2, 2)):
        numba.set_num_threads(threads)
        solver = Solver(rules, 3, seed=5 if k < 2 else 6, batch=32, eps=0.2)
        solver.run(deals=1024)
        files.append(tmp_path / f"{k}.npz")
        solver.strategy().save(files[-1])
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    data = [f.read_bytes() for f in files]
    assert data[0] == data[1] != data[2]
    assert load(files[0]).table.any()


def test_nash_samples_the_stored_strategy_deterministically(tmp_path):
    rules = research(4, 3)
    agent = solved(tmp_path, rules, 3, 2048)
    hands = deal(rules, 3, Rng(4)).seats
    view = hand_view(rules, 0, hands, 0)
    first = agent.order_hand(view, np.random.default_rng(9))
    assert sorted(first) == sorted(view.hand)
    assert agent.order_hand(view, np.random.default_rng(9)) == first
    assert agent.last_info["strategy"] == "stored"
    mix = agent.mix(view)
    assert mix is not None and sum(p for _, p in mix) == pytest.approx(1.0)
    support = {order for order, _ in mix}
    assert {tuple(agent.order_hand(view, np.random.default_rng(s))) for s in range(40)} <= support


@pytest.mark.parametrize("players", [3, 4, 6])
def test_tactical_36_ships_a_strategy(players):
    rules = preset("tactical")
    strat = stored_strategy(rules, players)
    assert strat is not None and strat.layout.players == players and strat.deals > 0
    agent = make_agent("nash")
    view = hand_view(rules, 1, deal(rules, players, Rng(2)).seats, 0)
    order = agent.order_hand(view, np.random.default_rng(0))
    assert sorted(order) == sorted(view.hand) and agent.last_info["strategy"] == "stored"


def test_strategy_for_other_rules_or_players_is_refused(tmp_path):
    rules = research(4, 3)
    agent = solved(tmp_path, rules, 3, 256)
    other = research(3, 4)
    with pytest.raises(StrategyFileError, match="solved for rules"):
        agent.order_hand(hand_view(other, 0, deal(other, 3, Rng(1)).seats, 0),
                         np.random.default_rng(0))
    with pytest.raises(StrategyFileError, match="solved for players=3, not 4"):
        agent.order_hand(hand_view(rules, 0, deal(rules, 4, Rng(1)).seats, 0),
                         np.random.default_rng(0))


def test_damaged_or_foreign_files_are_one_line_errors(tmp_path, capsys, monkeypatch):
    rules = research(4, 3)
    solver = Solver(rules, 3, seed=1, batch=16)
    solver.run(deals=64)
    good = tmp_path / "good.npz"
    solver.strategy().save(good)
    with monkeypatch.context() as m:
        m.setattr(mccfr, "FORMAT_VERSION", 99)
        solver.strategy().save(tmp_path / "v99.npz")
    with pytest.raises(StrategyFileError, match="version 99, this pyanitsa reads version 1"):
        load(tmp_path / "v99.npz")
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(CorruptFileError, match="damaged"):
        load(cut)
    for bad, words in ((cut, "damaged"), (tmp_path / "none.npz", "no such file")):
        code = main(["exploit", f"nash(strategy='{bad}')", "--players", "3", "--deals", "1",
                     "--deck", "ranks=4,suits=3"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code != 0 and len(err) == 1 and words in err[0], err
        assert "Traceback" not in err[0]


def test_solve_table_command_end_to_end(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text("rules: {mode: tactical, deck: {ranks: 4, suits: 3}}\nplayers: 3\n"
                      "deals: 1024\nseed: 2\nbatch: 64\noutput: out/tiny.npz\n"
                      "curve: {snapshots: 2, deals: 2, samples: 8}\n")
    assert main(["solve-table", str(config), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "1,024 deals" in out
    strat = load(tmp_path / "out" / "tiny.npz", research(4, 3), 3)
    assert strat.deals == 1024 and strat.seed == 2
    curve = json.loads((tmp_path / "out" / "tiny.curve.json").read_text())
    assert [p["deals"] for p in curve["curve"]] == [512, 1024]
    assert (tmp_path / "out" / "tiny.curve.png").stat().st_size > 0
    for bad, words in (("players: 13", "players"), ("rules: {preset: classic-ru}", "tactical"),
                       ("eps: 1.5", "eps"), ("deals: true", "deals"),
                       ("rules: {mode: tactical, deck: {ranks: 2, suits: 1}}", "too few for 3")):
        config.write_text(f"output: x.npz\ndeals: 8\nplayers: 3\n{bad}\n")
        assert main(["solve-table", str(config)]) != 0
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], err
