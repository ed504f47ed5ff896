"""Tournaments at three or more seats: α-Rank against known values, the seating game of a
tournament, gauntlets with the candidate in every seat, ``exploit:`` at 3+ and bad configs."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from pyanitsa.cli import main
from pyanitsa.solvers.alpharank import seating_alpha_rank
from pyanitsa.tournaments import run
from pyanitsa.tournaments.config import TournamentConfigError, parse_config
from pyanitsa.tournaments.schedule import schedule_of
from pyanitsa.tournaments.seatings import Seating, rank
from pyanitsa.tournaments.store import Store, TournamentStoreError

# -- α-Rank of the seatings (the maths: tests/test_alpharank.py) ------------------------------------


def test_rank_is_the_alpha_rank_of_the_seatings_mean_points_rounded():
    points = {(0, 0, 1): {0: 0.5, 1: 0.0}, (0, 1, 1): {0: 1.0, 1: 0.0}}  # 0 dominates
    found = [Seating(t, 2, p, None) for t, p in points.items()]
    want = seating_alpha_rank(2, 3, points)
    assert rank(2, 3, found) == [round(float(x), 12) for x in want]
    assert rank(2, 3, found)[0] == pytest.approx(1.0)
    assert rank(2, 3, found[:1]) is None  # the table of one 0 and two 1s is missing


# -- schedules ----------------------------------------------------------------------------------------

BASE = {"rules": {"preset": "tactical"}, "seed": 1}


def test_copies_round_robin_plays_every_multiset_but_one_agent_alone():
    c = parse_config({**BASE, "agents": list("abcd"), "players": 3, "copies": True})
    tables = [p.entries for p in schedule_of(c).pairings]
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
    assert [p.entries for p in schedule_of(ok).pairings] == [(0, 1, 1, 1)]
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
