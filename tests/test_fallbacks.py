"""Agents that cannot play a table fall back out loud: the reason is known before a game is
dealt, said once on stderr when a tournament starts and written in its report."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from pyanitsa import Rules, preset
from pyanitsa.agents import make_agent
from pyanitsa.agents.search import extreme_hands
from pyanitsa.agents.warm import fallback_notice
from pyanitsa.ranks import rank_table

TINY = {"preset": "tactical", "deck": "ranks=3,suits=2"}


def hands(counts, size):
    """Every rank-count vector of a hand of ``size`` cards from a deck of ``counts``."""
    for h in itertools.product(*(range(c + 1) for c in counts)):
        if sum(h) == size:
            yield h


def orders(h):
    return math.factorial(sum(h)) // math.prod(math.factorial(c) for c in h)


@pytest.mark.parametrize(("options", "players"), [
    (TINY, 2), (TINY, 3), ({"preset": "tactical"}, 2), ({"preset": "tactical"}, 3),
    ({"preset": "tactical", "deck": "ranks=5,suits=3"}, 2),
])
def test_the_extreme_hands_have_the_fewest_and_most_orders_and_sub_multisets(options, players):
    rules = Rules.from_options(options)
    counts = rank_table(rules).counts
    size = rules.deck.size // players
    every = list(hands(counts, size))
    packed, even = extreme_hands(rules, players)
    assert tuple(packed) in every and tuple(even) in every
    subsets = [math.prod(c + 1 for c in h) for h in every]
    assert math.prod(int(c) + 1 for c in packed) == min(subsets)
    assert math.prod(int(c) + 1 for c in even) == max(subsets)
    assert orders(packed) == min(orders(h) for h in every)
    assert orders(even) == max(orders(h) for h in every)


def test_equilibrium_says_why_it_plays_another_agent_at_each_table():
    eq = make_agent("equilibrium")
    assert fallback_notice(eq, Rules.from_options(TINY), 2) is None
    assert fallback_notice(eq, Rules.from_options(TINY), 3) == \
        "plays mc_search instead: 3 players: the exact game is two-player only"
    full = fallback_notice(eq, preset("tactical"), 2)
    assert full is not None and full.startswith(
        "plays mc_search instead: every hand has over max_orders=5,040 distinct rank orders")
    some = fallback_notice(make_agent("equilibrium(max_orders=20)"),
                           Rules.from_options({"preset": "tactical", "deck": "ranks=4,suits=2"}),
                           2)
    assert some == ("plays mc_search instead: hands with over max_orders=20 distinct rank "
                    "orders (up to 24 in this deck)")
    assert fallback_notice(make_agent("random"), preset("tactical"), 3) is None


def test_a_tournament_says_the_fallback_once_on_stderr_and_in_its_report(tmp_path, capfd):
    from pyanitsa.tournaments import run

    out = tmp_path / "t"
    run({"agents": ["equilibrium(fallback='descending')", "random", "ascending"],
                   "players": 3, "rules": TINY, "deals": 2, "seed": 1, "bootstrap": 0,
                   "workers": 1, "output": str(out)})
    err = capfd.readouterr().err
    line = ("pyanitsa: equilibrium(fallback='descending') plays descending instead: 3 players: "
            "the exact game is two-player only")
    assert err.count(line) == 1, err
    report = (out / "report.md").read_text()
    assert "## Agents that play another agent here" in report
    assert ("| equilibrium(fallback='descending') | plays descending instead: 3 players: the "
            "exact game is two-player only |") in report
    data = json.loads((out / "results.json").read_text())
    assert data["fallbacks"] == {"equilibrium(fallback='descending')": line[len("pyanitsa: "):]
                                 .split(" ", 1)[1]}


def test_exploit_names_the_agent_it_measured_instead(capsys):
    from pyanitsa.cli import main

    args = ["exploit", "equilibrium", "--players", "3", "--deck", "ranks=3,suits=2", "--deals",
            "1", "--samples", "4", "--fresh", "4", "--no-progress"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fallback"] == "plays mc_search instead: 3 players: the exact game is two-player only"
    assert main(args) == 0
    assert "note: equilibrium plays mc_search instead" in capsys.readouterr().out
    assert main([*args[:2], "--deck", "ranks=3,suits=2", "--deals", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fallback"] is None


def test_nash_says_where_it_plays_random():
    nash = make_agent("nash")
    assert fallback_notice(nash, preset("tactical"), 2) is None
    assert fallback_notice(nash, preset("tactical"), 3) is None  # the stored strategy
    assert fallback_notice(nash, preset("tactical"), 5) == (
        "plays random instead: 5 players: no stored strategy for these rules and player count "
        "(pyanitsa solve-table makes one)")
    assert fallback_notice(nash, preset("tactical-52"), 2) == (
        "plays random instead: hands with over max_states=60,000 sub-multisets (up to 1,594,323 "
        "in this deck)")  # 3 ** 13: two cards of each of 13 ranks
