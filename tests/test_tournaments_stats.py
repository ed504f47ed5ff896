"""Tournament building blocks without playing: config, schedule, counting blocks, statistics
(the maths itself: tests/test_ratings.py; a game's places and points:
tests/test_workers_games.py)."""

from __future__ import annotations

import math

import pytest

from pyanitsa.config import apply_override as _apply_override
from pyanitsa.rules import preset
from pyanitsa.tournaments.config import TournamentConfigError, parse_config
from pyanitsa.tournaments.schedule import schedule_of
from pyanitsa.tournaments.stats import count_blocks, head_to_head, summarize
from pyanitsa.tournaments.store import Store
from pyanitsa.workers.games import GameRow, points_from_places
from pyanitsa.workers.schedule import GameKey

BASE = {"agents": ["a", "b"], "rules": {"preset": "tactical"}}


def config(**fields):
    return parse_config({**BASE, **fields})


# -- configuration -------------------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "message"), [
    ({"agents": ["a", {"name": "x", "spec": 3}]}, "tournament: agents.1.spec: Input should be"),
    ({"agents": ["a", {"name": "b"}]}, "tournament: agents.1.spec: missing"),
    ({"agents": ["a"]}, "tournament: agents: List should have at least 2 items"),
    ({"agents": ["a", "a"]}, "agents.1.name: 'a' is used twice"),
    ({"rules": {"preset": "nope"}}, "tournament: rules: preset: unknown preset 'nope'"),
    ({"rules": {"preset": "tactical", "pickup_order": "natural"}},
     "rules: pickup_order: is a classic-mode option"),
    ({"players": 3}, "players: 3 seats need at least 3 agents"),
    ({"players": 9}, "players: Input should be less than or equal to 8"),
    ({"format": "swiss"}, "format: Input should be 'round_robin' or 'gauntlet'"),
    ({"format": "gauntlet", "candidate": "z"}, "candidate: 'z' is not one of the agents"),
    ({"candidate": "a"}, "candidate: only a gauntlet has a candidate"),
    ({"deals": 0}, "deals: Input should be greater than or equal to 1"),
    ({"sprt": {"elo0": 5, "elo1": 0}}, "sprt: elo1 (0) must be above elo0 (5)"),
    ({"sprt": {"alpha": 0.7}}, "sprt.alpha: Input should be less than 0.5"),
    ({"agents": ["a", "b", "c"], "sprt": {}}, "sprt: is for gauntlets and head-to-head"),
    ({"time_limit": 0}, "time_limit: Input should be greater than 0"),
    ({"colour": "red"}, "colour: unknown field"),
])
def test_config_errors_name_the_field(fields, message):
    with pytest.raises(TournamentConfigError) as info:
        config(**fields)
    assert str(info.value).startswith(message) or message in str(info.value), str(info.value)
    assert "\n" not in str(info.value)


def test_config_defaults_and_plain_agent_strings():
    c = config(rules="tactical")
    assert [(a.name, a.spec) for a in c.agents] == [("a", "a"), ("b", "b")]
    assert c.build_rules() == preset("tactical")
    assert c.players == 2 and c.duplicate and c.format == "round_robin"
    assert c.kill_after is None
    assert config(time_limit=2).kill_after == 9
    assert str(config(name="x").output_dir) == "runs/tournaments/x"
    named = config(agents=[{"spec": "mc_search(samples=8)"}, {"name": "d", "spec": "descending"}])
    assert named.names == ["mc_search(samples=8)", "d"]


def apply_override(data: dict, item: str) -> None:
    _apply_override(data, item, error=TournamentConfigError)


def test_set_overrides_reach_into_mappings_and_lists():
    data = {"agents": ["a", {"name": "b", "spec": "b"}], "rules": {"preset": "tactical"}}
    apply_override(data, "agents.1.spec=mc_search(samples=8)")
    apply_override(data, "agents.2=c")
    apply_override(data, "rules.preset=tactical-52")
    apply_override(data, "sprt.elo1=15")
    apply_override(data, "deals=7")
    assert data == {"agents": ["a", {"name": "b", "spec": "mc_search(samples=8)"}, "c"],
                    "rules": {"preset": "tactical-52"}, "sprt": {"elo1": 15}, "deals": 7}
    for bad in ("deals", "agents.9=x", "deals.x=1"):
        with pytest.raises(TournamentConfigError, match="override"):
            apply_override(data, bad)


# -- schedule ------------------------------------------------------------------------------------


def test_round_robin_and_gauntlet_pairings():
    rr = schedule_of(config(agents=list("abcde"), players=3, deals=4))
    assert len(rr.pairings) == math.comb(5, 3)
    assert rr.pairings[0].entries == (0, 1, 2)
    assert rr.total_games == 10 * 4 * 3
    g = schedule_of(config(agents=list("abcde"), players=3, format="gauntlet",
                           candidate="c"))
    assert [p.entries for p in g.pairings] == [(2, 0, 1), (2, 0, 3), (2, 0, 4), (2, 1, 3),
                                               (2, 1, 4), (2, 3, 4)]


def test_rotations_share_the_deal_and_move_the_agents():
    s = schedule_of(config(agents=list("abc"), players=3, deals=2, seed=9))
    keys = s.block(4 % len(s.pairings), 1)
    assert [k.rotation for k in keys] == [0, 1, 2]
    assert len({s.seed_of(k) for k in keys}) == 1
    assert [s.seats(k) for k in keys] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert s.seed_of(GameKey(0, 0, 0)) != s.seed_of(GameKey(0, 1, 0))
    single = schedule_of(config(agents=list("ab"), duplicate=False, deals=3))
    assert [single.rotations(d) for d in range(3)] == [(0,), (1,), (0,)]
    assert list(schedule_of(config(agents=list("abc"), deals=2)).blocks()) == \
        [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]


# -- head to head, counting ---------------------------------------------------------------------------


def row(pairing, deal, rotation, seats, places):
    return GameRow(pairing, deal, rotation, 1, tuple(seats), "win",
                   points_from_places(places), tuple(places), None, 10, 10, None, None, None,
                   None, None, 0.0)


def test_head_to_head_counts_blocks_not_games():
    rows = [row(0, 0, 0, (0, 1), (1, 2)), row(0, 0, 1, (1, 0), (1, 2)),   # split: 0.5
            row(0, 1, 0, (0, 1), (1, 2)), row(0, 1, 1, (1, 0), (2, 1))]   # both to 0: 1.0
    blocks = {(0, 0): rows[:2], (0, 1): rows[2:]}
    h = head_to_head(2, blocks)
    assert h.score[0][1] == pytest.approx(0.75) and h.score[1][0] == pytest.approx(0.25)
    assert h.blocks[0][1] == 2 and h.games[0][1] == 4


def test_count_blocks_drops_incomplete_blocks_and_deals_past_the_end():
    c = config(deals=2)
    s = schedule_of(c)
    rows = [row(0, 0, 0, (0, 1), (1, 2)), row(0, 0, 1, (1, 0), (1, 2)),
            row(0, 1, 0, (0, 1), (1, 2)),                                   # incomplete
            row(0, 2, 0, (0, 1), (1, 2)), row(0, 2, 1, (1, 0), (1, 2))]     # deal 2 >= deals
    blocks, sprts, dropped = count_blocks(c, s, rows)
    assert list(blocks) == [(0, 0)] and dropped == 3 and sprts == []


def test_count_blocks_stops_at_the_sprt_decision():
    c = config(deals=300, sprt={"elo0": 0, "elo1": 100})
    s = schedule_of(c)
    rows = []
    for deal in range(300):  # agent 0 wins every game: H1 quickly
        rows += [row(0, deal, 0, (0, 1), (1, 2)), row(0, deal, 1, (1, 0), (2, 1))]
    blocks, sprts, dropped = count_blocks(c, s, rows)
    (result,) = sprts
    assert result.decision == "H1" and result.blocks == len(blocks) < 20
    assert dropped == 2 * (300 - len(blocks))
    assert "at least 100 Elo stronger" in result.verdict


def test_summary_from_a_store(tmp_path):
    c = config(output=str(tmp_path), agents=list("abc"), deals=1, bootstrap=20)
    store = Store.create(tmp_path, c, resume=False)
    rows = [row(0, 0, 0, (0, 1), (1, 2)), row(0, 0, 1, (1, 0), (1, 2)),
            row(1, 0, 0, (0, 2), (1, 2)), row(1, 0, 1, (2, 0), (2, 1)),
            row(2, 0, 0, (1, 2), (1, 1)), row(2, 0, 1, (2, 1), (1, 1))]
    assert store.add(rows) == 6
    assert store.add(rows[:3]) == 0  # written once, whatever the retries
    summary = summarize(store.config(), store.rows())
    store.close()
    a, b, cc = summary.agents
    assert (a.games, a.wins, a.losses, a.points) == (4, 3, 1, 3.0)
    assert (cc.draws, cc.losses, cc.points) == (2, 2, 1.0)
    assert summary.counted == 6 and summary.ratings is not None
    assert summary.ratings.los is not None and summary.ratings.los[0][1] >= 0.5
