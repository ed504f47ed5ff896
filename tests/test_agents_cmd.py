"""Out-of-process bots (issue 12): ``cmd:COMMAND ARGS`` runs a bot as its own process speaking
JSON lines (docs/bots.md).

The example bot (examples/bots/random_bot.py, stdlib only) plays games and a tournament with no
forfeit; hostile bots (tests/bots/: dies at start, prints garbage, hangs, exits mid-game,
answers an illegal order) forfeit only their own games, and every game between well-behaved
agents is the game of a clean run.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from pyanitsa.agents import AgentFailure, AgentSpecError, make_agent, play_game
from pyanitsa.agents.specs import split_specs
from pyanitsa.records import replay
from pyanitsa.rules import preset

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "bots"
RANDOM_BOT = ROOT / "examples" / "bots" / "random_bot.py"
TACTICAL = preset("tactical")
PICKUPS = preset("classic-ru").replace(pickup_order="agent")


def cmd(script: Path, *args: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(script), *args])


def bot(name: str) -> str:
    return cmd(BOTS / f"{name}.py")


@pytest.fixture
def agents():
    """Agents built by a test, closed (their processes killed) at its end."""
    made = []

    def build(spec):
        made.append(make_agent(spec))
        return made[-1]

    yield build
    for agent in made:
        close = getattr(agent, "close", None)
        if close:
            close()


def test_the_example_bot_imports_nothing_of_pyanitsa():
    text = RANDOM_BOT.read_text()
    assert "pyanitsa" not in "".join(line for line in text.splitlines()
                                     if line.startswith(("import", "from")))


def test_the_example_bot_plays_tactical_and_classic_games(agents):
    bot_agent = agents(cmd(RANDOM_BOT))
    for rules, other in ((TACTICAL, "descending"), (PICKUPS, "pickup_high_first")):
        first = play_game(rules, [bot_agent, agents(other)], 5, time_limit=2.0)
        again = play_game(rules, [agents(cmd(RANDOM_BOT)), agents(other)], 5, time_limit=2.0)
        assert first.record == again.record  # its order is drawn from the request's seed
    assert bot_agent.bot_name == "random_bot" and bot_agent.decisions == ("hand", "pickup")


def test_specs_with_spaces_colons_and_quotes_parse(agents, tmp_path):
    weird = tmp_path / "a dir: with colon"
    weird.mkdir()
    script = weird / "bot.py"
    script.write_text(RANDOM_BOT.read_text())
    spec = cmd(script, "--flag=a:b")
    agent = agents(spec)
    assert agent.argv == [sys.executable, str(script), "--flag=a:b"]
    assert split_specs(f"{spec},descending") == [spec, "descending"]  # as in --agents
    agent_t = agents(cmd(script) + "(timeout=5.0)")
    assert agent_t.timeout == 5.0
    play_game(TACTICAL, [agent, agent_t], 1, time_limit=2.0)
    for bad in ("cmd:", "cmd:'unclosed", "cmd:no-such-program-xyz --x"):
        with pytest.raises(AgentSpecError, match="cmd"):
            make_agent(bad)


def test_a_tournament_config_takes_a_cmd_bot_from_yaml(tmp_path):
    from pyanitsa.tournaments.config import load_config

    path = tmp_path / "t.yaml"
    path.write_text(f"""\
name: y
rules: {{preset: tactical}}
deals: 1
output: {tmp_path / 'out'}
agents:
  - {{name: bot, spec: "{cmd(RANDOM_BOT)}"}}
  - descending
""")
    config = load_config(path)
    assert config.agents[0].spec == cmd(RANDOM_BOT)


def _failure(rules, spec, agents, seed=1, time_limit=0.5):
    other = "descending" if rules.mode == "tactical" else "pickup_high_first"
    with pytest.raises(AgentFailure) as info:
        play_game(rules, [agents(spec), agents(other)], seed, time_limit=time_limit)
    assert info.value.seat == 0
    return info.value


@pytest.mark.parametrize(("name", "kind", "says"), [
    ("dies_at_start", "error", "failed to start"),
    ("garbage", "error", "not a JSON line"),
    ("hangs", "timeout", "time limit"),
    ("illegal", "illegal", "each index"),
])
def test_a_hostile_bot_forfeits_with_the_right_kind(agents, name, kind, says):
    start = time.monotonic()
    failure = _failure(TACTICAL, bot(name), agents)
    assert failure.kind == kind and says in str(failure), str(failure)
    assert time.monotonic() - start < 3


def test_a_bot_that_exits_mid_game_forfeits_and_is_restarted(agents):
    exits = agents(bot("exits_mid_game"))
    failure = _failure(PICKUPS, exits, agents)
    assert failure.kind == "error" and "exited" in str(failure)
    # a fresh process for the next game: it answers once more before exiting again
    tactical = play_game(TACTICAL, [exits, agents("descending")], 1, time_limit=0.5)
    assert replay(tactical.record) == tactical.result  # played to the end, no forfeit


def test_a_hung_bot_is_killed_and_the_next_game_gets_a_fresh_one(agents):
    hangs = agents(bot("hangs"))
    with pytest.raises(AgentFailure):
        play_game(TACTICAL, [hangs, agents("descending")], 1, time_limit=0.2)
    assert hangs._proc is None  # killed
    hangs.warm_up()
    assert hangs._proc.poll() is None  # restarted


def test_start_up_is_not_counted_against_the_time_limit(agents):
    slow = agents(cmd(BOTS / "slow_start.py"))
    outcome = play_game(TACTICAL, [slow, agents("descending")], 1, time_limit=0.2)
    assert replay(outcome.record) == outcome.result  # played to the end, no forfeit


def _tournament(tmp_path, agents, **fields):
    from pyanitsa.tournaments.config import parse_config

    return parse_config({"name": "c", "rules": {"preset": "tactical"}, "deals": 1, "seed": 4,
                         "bootstrap": 0, "workers": 2, "output": str(tmp_path / "out"),
                         "agents": agents, **fields})


GOOD = [{"name": "random_bot", "spec": cmd(RANDOM_BOT)}, {"name": "desc", "spec": "descending"},
        {"name": "tie", "spec": "tie_aware"}]
HOSTILE = {"dies": ("dies_at_start", {"error"}), "garbage": ("garbage", {"error"}),
           "hangs": ("hangs", {"timeout"}), "exits": ("exits_mid_game", {"error"}),
           "illegal": ("illegal", {"illegal"})}


def _games(config):
    from pyanitsa.tournaments.store import Store

    names = [a.name for a in config.agents]
    with Store.open(config.output_dir) as store:
        rows = store.rows()
    return rows, names, {(tuple(names[s] for s in r.seats), r.deal, r.rotation):
                         (r.seed, r.outcome, r.points, r.result, r.record) for r in rows}


def test_the_example_bot_plays_a_tournament_without_forfeits(tmp_path):
    from pyanitsa.tournaments.runner import run_tournament

    config = _tournament(tmp_path, GOOD, time_limit=2.0)
    result = run_tournament(config)
    rows, _, _ = _games(config)
    assert result.games == len(rows) == 6 and all(r.forfeit_kind is None for r in rows)


def test_hostile_bots_forfeit_only_their_own_games(tmp_path):
    from pyanitsa.tournaments.runner import run_tournament

    # the clean run: the same tournament, a well-behaved agent in each hostile bot's place
    stand_ins = [{"name": n, "spec": "descending"} for n in HOSTILE]
    clean = _tournament(tmp_path / "clean", GOOD + stand_ins, time_limit=0.3)
    run_tournament(clean)
    _, _, clean_games = _games(clean)
    hostile = [{"name": n, "spec": bot(script)} for n, (script, _) in HOSTILE.items()]
    config = _tournament(tmp_path / "hostile", GOOD + hostile, time_limit=0.3)
    run_tournament(config)
    rows, names, games = _games(config)
    assert len(rows) == 2 * 8 * 7 // 2
    forfeited = {n: set() for n in HOSTILE}
    for r in rows:
        if r.forfeit_seat is not None:
            who = names[r.seats[r.forfeit_seat]]
            assert who in HOSTILE, r.forfeit_reason  # a well-behaved agent never forfeits
            forfeited[who].add(r.forfeit_kind)
    for n, (_, kinds) in HOSTILE.items():
        assert forfeited[n] == kinds, (n, forfeited[n])
    good = {a["name"] for a in GOOD}
    def between_good(played):
        return {k: v for k, v in played.items() if set(k[0]) <= good}

    assert len(between_good(games)) == 2 * 3
    assert between_good(games) == between_good(clean_games)  # as if no bot had misbehaved
