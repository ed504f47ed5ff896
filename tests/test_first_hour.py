"""Issue 13, "the first hour": what a new user meets, from the README's commands to a first
bot. Each test is one thing that got in the way."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyanitsa import Record, preset
from pyanitsa.agents import make_agent, play_game
from pyanitsa.agents.human import Human, OrderError, parse_order
from pyanitsa.errors import did_you_mean

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyanitsa", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


# -- records, play_game, configs, envs ------------------------------------------------------------


def test_record_from_json_reads_what_play_json_writes(tmp_path: Path) -> None:
    played = run("play", "--deck", "52", "--set", "dispute=down_up", "--set", "stakes=2",
                 "--seed", "1", "--json")
    assert played.returncode == 0, played.stderr
    wrapped = json.loads(played.stdout)
    record = Record.from_json(played.stdout)
    assert record.play().to_json() == wrapped["result"]
    assert Record.from_json(wrapped) == Record.from_json(wrapped["record"])
    for bad, why in (({**wrapped, "extra": 1}, "'extra' next to 'record'"),
                     ({"record": wrapped}, "not another wrapper")):
        with pytest.raises(ValueError, match=why):
            Record.from_json(bad)


def test_play_game_takes_preset_names_and_spec_strings() -> None:
    by_name = play_game("tactical", ["descending", "tie_aware"], seed=7)
    by_objects = play_game(preset("tactical"), [make_agent("descending"),
                                                make_agent("tie_aware")], seed=7)
    assert by_name.result == by_objects.result and by_name.record == by_objects.record
    assert play_game({"preset": "tactical"}, ["descending", "tie_aware"], seed=7).result \
        == by_name.result
    for rules, agents, why in ((3, ["random", "random"], "rules: a Rules, a preset name"),
                               ("tactical", "random", "agents: a list"),
                               ("tactical", ["random", 4], r"agents\[1\]: an agent or a spec")):
        with pytest.raises(TypeError, match=why):
            play_game(rules, agents, seed=1)  # type: ignore[arg-type]


def test_set_agent_spec_reaches_a_plain_string_entry() -> None:
    from pyanitsa.tournaments.config import load_config

    config = load_config(ROOT / "configs/tournaments/demo.yaml",
                         ["agents.0.spec=mc_search(samples=32)", "agents.1=nash"])
    assert (config.agents[0].name, config.agents[0].spec) == ("random", "mc_search(samples=32)")
    assert (config.agents[1].name, config.agents[1].spec) == ("nash", "nash")
    assert config.agents[2].spec == "descending"


def test_action_masks_through_gymnasium_make() -> None:
    gym = pytest.importorskip("gymnasium")
    import pyanitsa.envs

    for env_id in pyanitsa.envs.ENV_IDS:
        env = gym.make(env_id)
        env.reset(seed=1)
        assert np.array_equal(env.action_masks(), env.unwrapped.action_masks())
        assert env.action_masks().any()
        again = gym.make(env.spec)  # the spec, wrappers included, round-trips
        again.reset(seed=1)
        assert np.array_equal(again.action_masks(), env.action_masks())


# -- did you mean ---------------------------------------------------------------------------------


def test_did_you_mean_names_the_closest_choice_or_nothing() -> None:
    assert did_you_mean("clasic-ru", ["classic-ru", "tactical"]) == "; did you mean 'classic-ru'?"
    assert did_you_mean("zzz", ["classic-ru", "tactical"]) == ""
    assert did_you_mean(3, ["classic-ru"]) == ""


@pytest.mark.parametrize(("args", "hint"), [
    (["play", "--preset", "clasic-ru"], "did you mean 'classic-ru'?"),
    (["play", "--set", "dispte=down_up"], "did you mean 'dispute'?"),
    (["play", "--set", "dispute=downup"], "did you mean 'down_up'?"),
    (["play", "--preset", "tactical", "--agents", "tie_awar,random"], "did you mean 'tie_aware'?"),
    (["play", "--preset", "tactical", "--agents", "mc_search(sample=4),random"],
     "did you mean 'samples'?"),
    (["simulate", "--preset", "tacticl", "--games", "2"], "did you mean 'tactical'?"),
    (["exploit", "descnding", "--deals", "1"], "did you mean 'descending'?"),
])
def test_every_command_suggests_the_name_meant(args: list[str], hint: str) -> None:
    p = run(*args)
    assert p.returncode == 2
    assert p.stdout == "" and len(p.stderr.splitlines()) == 1, p.stderr
    assert hint in p.stderr


# -- play -----------------------------------------------------------------------------------------


def test_play_without_a_seed_deals_a_random_game_and_prints_its_seed() -> None:
    first, second = run("play", "--preset", "tactical"), run("play", "--preset", "tactical")
    seeds = []
    for p in (first, second):
        assert p.returncode == 0, p.stderr
        m = re.search(r"seed (\d+) \(random; --seed \1 replays this game\)", p.stdout)
        assert m, p.stdout.splitlines()[0]
        seeds.append(m.group(1))
    assert seeds[0] != seeds[1]
    again = run("play", "--preset", "tactical", "--seed", seeds[0])
    assert again.stdout.splitlines()[1:] == first.stdout.splitlines()[1:]
    assert "random" not in again.stdout.splitlines()[0]


def test_a_long_log_is_summarised_unless_full() -> None:
    args = ("play", "--preset", "classic-ru", "--players", "3", "--seed", "7")
    short, full = run(*args), run(*args, "--full")
    rounds = [ln for ln in full.stdout.splitlines() if ln.startswith("round")]
    assert len(rounds) == 10000
    lines = short.stdout.splitlines()
    assert len(lines) < 40
    assert "... 9,980 more rounds (--full prints every round) ..." in lines
    assert lines[-1] == full.stdout.splitlines()[-1].strip() == \
        "result: capped at 10000 rounds, 10142 showdowns (out in order: P2)"
    kept = [ln for ln in lines if ln.startswith("round")]
    assert kept == rounds[:10] + rounds[-10:]


def test_a_short_log_is_printed_whole() -> None:
    p = run("play", "--preset", "classic-ru", "--players", "3", "--seed", "27")
    assert sum(ln.startswith("round") for ln in p.stdout.splitlines()) == 53
    assert "more rounds" not in p.stdout


# -- the human ------------------------------------------------------------------------------------


def test_the_human_is_told_the_result_as_you() -> None:
    won = run("play", "--preset", "tactical", "--agents", "human,random", "--seed", "3",
              stdin="desc\n")
    assert won.returncode == 0, won.stderr
    assert won.stdout.splitlines()[-1] == "you won"
    lost = run("play", "--preset", "tactical", "--agents", "descending,human", "--seed", "3",
               stdin="asc\n")
    assert lost.stdout.splitlines()[-2].startswith("result: P0 wins")
    assert lost.stdout.splitlines()[-1] == "you lost"


def test_the_human_can_order_every_pickup_always_the_same_way() -> None:
    rules = preset("classic-ru", pickup_order="agent")
    out = io.StringIO()
    agent = Human(stdin=io.StringIO("always sideways\nalways desc\n"), stdout=out)
    play_game(rules, [agent, make_agent("random")], seed=27)  # two lines answer every pickup
    text = out.getvalue()
    assert "always what?" in text and agent.always == "desc"
    asked = text.count("P0: you won round")
    assert asked > 5 and text.count("(you chose 'always desc')") == asked - 1


def test_the_human_is_told_what_is_missing_in_plain_words() -> None:
    rules = preset("tactical")
    hand = [c for c in range(36) if rules.deck.card_name(c)[0] != "A"][:18]
    with pytest.raises(OrderError, match=r"^no card of rank A left to place"):
        parse_order("A asc", hand, rules, np.random.default_rng(0))
    assert "1 seat;" in run("play", "--agents", "human").stderr
    assert "1 agent for 3 seats" in run("play", "--agents", "random", "--players", "3").stderr
