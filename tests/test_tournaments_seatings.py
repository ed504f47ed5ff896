"""Tournaments at three or more seats: α-Rank against known values, the seating game of a
tournament, gauntlets with the candidate in every seat, ``exploit:`` at 3+ and bad configs."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from pyanitsa.cli import main
from pyanitsa.tournaments import run
from pyanitsa.tournaments.alpharank import alpha_rank, log_fixation, log_stationary
from pyanitsa.tournaments.config import TournamentConfigError, parse_config
from pyanitsa.tournaments.ratings import ELO_PER_NAT, RankingData
from pyanitsa.tournaments.schedule import Schedule
from pyanitsa.tournaments.seatings import Seating, rank
from pyanitsa.tournaments.store import Store, TournamentStoreError

# -- α-Rank: known values ---------------------------------------------------------------------------


def rps_points(table: tuple[int, ...]) -> dict[int, float]:
    """Rock (0), paper (1), scissors (2) at a table, scored as a tournament scores a game: the
    point is split among the seats nobody at the table beats (everybody, when all three throws
    or only one are there)."""
    throws = set(table)
    if len(throws) != 2:
        return {a: 1.0 / len(table) for a in throws}
    a, b = sorted(throws)
    win = a if (a - b) % 3 == 1 else b
    return {win: 1.0 / table.count(win), (b if win == a else a): 0.0}


def all_seatings(n: int, k: int, points) -> list[Seating]:
    return [Seating(t, 1, points(t), None)
            for t in itertools.combinations_with_replacement(range(n), k) if len(set(t)) > 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_alpha_rank_of_a_symmetric_rock_paper_scissors_table_is_uniform(players):
    p = rank(3, players, all_seatings(3, players, rps_points))
    assert p == pytest.approx([1 / 3] * 3, abs=1e-12)


def test_a_dominant_agent_gets_all_the_mass():
    def points(table):  # agent 2 wins whenever it sits at the table, else agent 0
        win = 2 if 2 in table else min(table)
        return {a: (1.0 / table.count(win) if a == win else 0.0) for a in set(table)}

    p = rank(4, 3, all_seatings(4, 3, points))
    assert p[2] == pytest.approx(1.0, abs=1e-12) and sum(p) == pytest.approx(1.0)


def test_two_player_constant_sum_fixation_matches_the_closed_form():
    """α-Rank's constant-sum case (Omidshafiei et al. 2019, and OpenSpiel):
    ρ = (1 - e^-u) / (1 - e^-mu), u = α m / (m - 1) (payoff(r, s) - 1/2)."""
    m, alpha = 50, 3.0
    for a in (0.7, 0.5 + 1e-3, 0.2):
        u = alpha * m / (m - 1) * (a - 0.5)
        closed = (1 - math.exp(-u)) / (1 - math.exp(-m * u))
        got = log_fixation([a, 0.5], [0.5, 1 - a], players=2, alpha=alpha, population=m)
        assert math.exp(got) == pytest.approx(closed, rel=1e-12)


def test_biased_rock_paper_scissors_matches_the_markov_chain_tree_theorem():
    """A cycle with unequal margins: the stationary distribution from the closed-form fixation
    probabilities and the three spanning trees into each state (Markov chain tree theorem)."""
    win = {(1, 0): 0.9, (2, 1): 0.6, (0, 2): 0.55}  # paper beats rock by most
    score = {**win, **{(b, a): 1 - v for (a, b), v in win.items()}}
    m, alpha = 50, 2.0

    def rho(r, s):  # r invades s
        u = alpha * m / (m - 1) * (score[r, s] - 0.5)
        return (1 - math.exp(-u)) / (1 - math.exp(-m * u))

    q = {(s, r): rho(r, s) / 2 for s in range(3) for r in range(3) if r != s}
    trees = [q[1, 0] * q[2, 0] + q[1, 2] * q[2, 0] + q[1, 0] * q[2, 1],
             q[0, 1] * q[2, 1] + q[0, 2] * q[2, 1] + q[0, 1] * q[2, 0],
             q[0, 2] * q[1, 2] + q[0, 1] * q[1, 2] + q[0, 2] * q[1, 0]]
    want = np.array(trees) / sum(trees)

    def payoff(r, s, count):
        return 0.5 if count == 2 else score[r, s]

    got = alpha_rank(3, 2, payoff, alpha=alpha, population=m)
    assert got == pytest.approx(want, rel=1e-10)
    assert not np.allclose(got, 1 / 3, atol=1e-2)  # the bias shows


def test_log_stationary_solves_the_chain_even_with_tiny_rates():
    rng = np.random.default_rng(5)
    R = rng.random((5, 5)) * 0.2
    np.fill_diagonal(R, 0.0)
    T = R + np.diag(1 - R.sum(axis=1))
    w, v = np.linalg.eig(T.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    assert np.exp(log_stationary(np.log(R + np.eye(5)))) == pytest.approx(pi / pi.sum(),
                                                                         abs=1e-14)
    # a two-state chain whose rates underflow as floats: pi_0 / pi_1 = q10 / q01 = e^-2000
    logs = np.array([[0.0, -1000.0], [-3000.0, 0.0]])
    got = log_stationary(logs)
    assert got[0] - got[1] == pytest.approx(-2000.0)


def test_alpha_rank_needs_every_table_of_two_agents():
    some = [s for s in all_seatings(3, 3, rps_points) if s.agents != (0, 0, 1)]
    assert rank(3, 3, some) is None


def test_plackett_luce_counts_an_agent_twice_at_a_table():
    """Seats (0, 1, 1), places 1, 2, 3: P = e^a / (e^a + 2 e^b) * 1/2 (either copy second)."""
    data = RankingData.build(2, [((0, 1, 1), (1, 2, 3))])
    a, b = 0.3, -0.2
    want = a - math.log(math.exp(a) + 2 * math.exp(b)) - math.log(2)
    assert data.log_likelihood(np.array([a, b]) * ELO_PER_NAT) == pytest.approx(want)


# -- schedules ----------------------------------------------------------------------------------------

BASE = {"rules": {"preset": "tactical"}, "seed": 1}


def test_copies_round_robin_plays_every_multiset_but_one_agent_alone():
    c = parse_config({**BASE, "agents": list("abcd"), "players": 3, "copies": True})
    tables = [p.entries for p in Schedule.from_config(c).pairings]
    assert len(tables) == math.comb(4 + 3 - 1, 3) - 4
    assert tables[:3] == [(0, 0, 1), (0, 0, 2), (0, 0, 3)] and (1, 1, 1) not in tables
    assert len(set(tables)) == len(tables)


def test_copies_gauntlet_puts_the_candidate_in_every_seat_of_every_deal(tmp_path):
    s = run({**BASE, "agents": ["tie_aware", "random", "descending"], "format": "gauntlet",
             "players": 3, "copies": True, "deals": 3, "bootstrap": 0,
             "output": str(tmp_path / "g")})
    with Store.open(tmp_path / "g") as store:
        rows = store.rows()
    assert len(rows) == s.games == 2 * 3 * 3  # opponents x deals x rotations
    blocks: dict[tuple[int, int], list] = {}
    for r in rows:
        blocks.setdefault((r.pairing, r.deal), []).append(r)
    assert sorted(blocks) == [(p, d) for p in range(2) for d in range(3)]
    for (pairing, _), games in blocks.items():
        assert sorted(r.rotation for r in games) == [0, 1, 2]
        assert len({r.seed for r in games}) == 1  # one deal, the same cards
        assert sorted(r.seats.index(0) for r in games) == [0, 1, 2]  # each seat once
        assert all(Counter(r.seats) == Counter({0: 1, pairing + 1: 2}) for r in games)
    game = s.statistics.seating
    assert game is not None and game.candidate == "tie_aware"
    assert [b.opponent for b in game.gauntlet] == sorted(
        ["random", "descending"], key=lambda o: -s.statistics.h2h.score[
            ["tie_aware", "random", "descending"].index(o)][0])
    report = (tmp_path / "g" / "report.md").read_text()
    assert "## The 3-seat meta-game" in report and "Gauntlet: " in report
    verdict = "beat(s) tie_aware at 95%" if game.beaten_by else \
        "no opponent beats tie_aware at 95% (2 opponent(s), 3 seats)"
    assert verdict in report


# -- a tournament end to end ----------------------------------------------------------------------------


def test_three_player_round_robin_reports_the_seating_game_and_exploitability(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({**BASE, "name": "t3", "agents": ["random", "descending"],
                                   "players": 3, "copies": True, "deals": 3, "bootstrap": 0,
                                   "exploit": {"deals": 1, "samples": 4, "fresh": 8},
                                   "output": str(tmp_path / "out")}))
    assert main(["tournament", str(cfg), "--quiet"]) == 0
    assert main(["report", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "3-seat meta-game: α-Rank " in out and "exploitability (cards a game" in out
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    game = data["seating_game"]
    assert [s["agents"] for s in game["seatings"]] == [["random", "random", "descending"],
                                                       ["random", "descending", "descending"]]
    for s in game["seatings"]:
        assert s["blocks"] == 3
        share = sum(s["points"][a] * s["agents"].count(a) for a in s["points"])
        assert share == pytest.approx(1.0)  # a game's point, over the seats
    assert sum(game["alpha_rank"].values()) == pytest.approx(1.0)
    ex = data["exploitability"]
    assert set(ex) == {"random", "descending"}
    assert all("NashConv / 3" in e["unit"] and e["method"] in ("exact", "lower_bound")
               for e in ex.values())
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| agent | α-Rank % |" in report and "| random ×2 + descending | 3 |" in report
    assert "## Exploitability on full deals" in report


def test_two_player_results_have_no_seating_game(tmp_path):
    s = run({**BASE, "agents": ["random", "descending"], "deals": 2, "bootstrap": 0,
             "output": str(tmp_path / "two")})
    assert s.statistics.seating is None
    data = json.loads((tmp_path / "two" / "results.json").read_text())
    assert "seating_game" not in data
    assert "-seat meta-game" not in (tmp_path / "two" / "report.md").read_text()


# -- bad configs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "message"), [
    ({"agents": ["a", "b"], "copies": True}, "copies: needs players: 3 or more"),
    ({"agents": ["a", "b"], "players": 3}, "players: 3 seats need at least 3 agents"),
    ({"agents": ["a", "b", "c"], "players": 3, "copies": "maybe"},
     "copies: Input should be a valid boolean"),
    ({"agents": ["a", "b", "c"], "players": 3, "rules": "classic-ru", "exploit": {}},
     "exploit: is measured on tactical deals"),
])
def test_bad_configs_at_three_seats_are_one_line(fields, message):
    with pytest.raises(TournamentConfigError) as info:
        parse_config({**BASE, **fields})
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_copies_gauntlet_needs_only_one_opponent_and_the_cli_says_why_not(tmp_path, capsys):
    ok = parse_config({**BASE, "agents": ["a", "b"], "players": 4, "format": "gauntlet",
                       "copies": True})
    assert [p.entries for p in Schedule.from_config(ok).pairings] == [(0, 1, 1, 1)]
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({"agents": ["random", "descending"], "copies": True}))
    assert main(["tournament", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "copies: needs players: 3 or more" in err


def test_the_docs_example_runs_as_written(capsys):
    docs = Path(__file__).resolve().parent.parent / "docs" / "tournaments.md"
    section = docs.read_text(encoding="utf-8").split("## Tables of three or more", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, str(docs), "exec"), {})
    want = [line.split("# ", 1)[1] for line in code.splitlines() if "print(" in line]
    assert capsys.readouterr().out.splitlines() == want


def test_copies_decides_the_games_so_a_resume_must_keep_it(tmp_path):
    fields = {**BASE, "agents": ["random", "descending", "tie_aware"], "players": 3,
              "copies": True, "deals": 1, "bootstrap": 0, "output": str(tmp_path / "r")}
    run(fields, reports=False)
    with pytest.raises(TournamentStoreError, match=r"resume=True: copies differs .*\(true there, "
                                                   r"null now\)"):
        run({**fields, "copies": False}, resume=True, reports=False)
