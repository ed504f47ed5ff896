"""Issue 12's goal "a bot reading its generator does no better than tie_aware", scored.

``hostile_agents:Cheater`` tries everything its generator and a guessable seed give away (the
old derivation run backwards; the key of ``agent_key: seed`` from a guessed seed; a deal of a
guessed seed that gives it its hand) and plays the exact best response to what it learns, else
exactly ``tie_aware``. Against ``random``:

* with a seed it can guess and ``agent_key: seed`` it wins every game: what that mode exposes,
  and the proof that the cheater works;
* with no seed in the config (one is drawn) or with ``agent_key: random`` (a secret key that
  keys the deals too), it learns nothing: its games are tie_aware's, game for game.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pyanitsa.agents import make_agent
from pyanitsa.agents.game import play_games
from pyanitsa.agents.sandbox import probe
from pyanitsa.agents.seeding import new_key
from pyanitsa.rules import Rules
from pyanitsa.tournaments.config import parse_config
from pyanitsa.tournaments.runner import run_tournament
from pyanitsa.tournaments.schedule import schedule_of
from pyanitsa.tournaments.stats import summarize
from pyanitsa.tournaments.store import Store
from pyanitsa.workers.schedule import GameKey

TESTS = Path(__file__).resolve().parent
DEALS = 40
CHEATER = {"name": "cheater", "spec": "hostile_agents:Cheater"}


@pytest.fixture(autouse=True)
def hostile(monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))


def _config(out: Path, first, **fields):
    return parse_config({"name": "c", "agents": [first, "random"], "rules": {"preset": "tactical"},
                         "deals": DEALS, "bootstrap": 0, "workers": 1, "output": str(out)}
                        | fields)


def _played(config, key=None):
    """The stored config (with its seed), its games in key order and the first agent's score."""
    run_tournament(config, key=key, progress=False)
    with Store.open(config.output_dir) as store:
        stored, rows = store.config(), store.rows()
    score = summarize(stored, rows).h2h.score[0][1]
    return stored, sorted(r.deterministic() for r in rows), score


def test_with_a_seed_it_can_guess_the_cheater_wins_everything(tmp_path):
    _, _, cheat = _played(_config(tmp_path / "a", CHEATER, seed=0))
    _, _, honest = _played(_config(tmp_path / "b", "tie_aware", seed=0))
    assert cheat == 1.0
    assert honest < 0.75


def test_a_seedless_tournament_draws_its_seed_and_the_cheater_learns_nothing(tmp_path):
    stored, cheat_rows, cheat = _played(_config(tmp_path / "a", CHEATER))
    assert stored.seed is not None and stored.seed >= 1 << 32  # drawn (2^-32 to fail by luck)
    # the same seed written down: the same deals and generators, with tie_aware in its place
    _, honest_rows, honest = _played(_config(tmp_path / "b", "tie_aware", seed=stored.seed))
    assert cheat_rows == honest_rows
    assert cheat == honest


def test_a_seedless_tournament_resumes_with_its_drawn_seed(tmp_path):
    mover = {"name": "r2", "spec": "random"}
    first, rows, _ = _played(_config(tmp_path / "a", mover, deals=3))
    more = _config(tmp_path / "a", mover, deals=5)
    run_tournament(more, resume=True, progress=False)
    with Store.open(more.output_dir) as store:
        assert store.config().seed == first.seed
        resumed = sorted(r.deterministic() for r in store.rows())
    assert len(resumed) == 5 * 2 and all(r in resumed for r in rows)
    _, whole, _ = _played(_config(tmp_path / "b", mover, seed=first.seed, deals=5))
    assert resumed == whole


def test_with_a_secret_key_the_cheater_learns_nothing_though_it_knows_the_seed(tmp_path):
    key = new_key()
    _, cheat_rows, cheat = _played(_config(tmp_path / "a", CHEATER, seed=0, agent_key="random"),
                                   key)
    _, honest_rows, honest = _played(_config(tmp_path / "b", "tie_aware", seed=0,
                                             agent_key="random"), key)
    assert cheat_rows == honest_rows
    assert cheat == honest


def _found(config, key):
    """The cheater's attacks that worked, over the first pairing's deals, played in-process."""
    import hostile_agents

    hostile_agents.Cheater.found.update(inverted=0, keyed=0, hand=0)
    schedule = schedule_of(config, key)
    seeds = [schedule.seed_of(GameKey(0, d, 0)) for d in range(DEALS)]
    cheater, rnd = make_agent(CHEATER["spec"]), make_agent("random")
    play_games(Rules.from_options(config.rules), [[cheater, rnd]] * DEALS, seeds, key=key)
    return dict(hostile_agents.Cheater.found)


def test_a_secret_key_keys_the_deals_too(tmp_path):
    """With the deals from the seed alone (as ``agent_key: random`` dealt before), a bot that
    knows the seed finds its own hand among them, so it knows the other; keyed, it does not."""
    key = new_key()
    secret = _config(tmp_path, CHEATER, seed=0, agent_key="random")
    public = _config(tmp_path, CHEATER, seed=0)
    assert _found(secret, key) == {"inverted": 0, "keyed": 0, "hand": 0}
    assert _found(public, key) == {"inverted": 0, "keyed": 0, "hand": DEALS}
    other = schedule_of(secret, new_key())
    assert other.seed_of(GameKey(0, 0, 0)) != schedule_of(secret, key).seed_of(
        GameKey(0, 0, 0))


def _bot(*args: str) -> dict[str, str]:
    return {"name": "bot", "spec": f"cmd:{sys.executable} {TESTS / 'bots' / 'cheater.py'} "
                                   + " ".join(args)}


def test_a_cmd_bot_cheating_with_its_seed_wins_only_when_the_seed_is_guessable(tmp_path):
    """The same attack from a `cmd:` bot, through the `seed` it is sent: with seed 0 it wins
    every game; with a drawn seed it plays exactly as it does with ``--honest``. (The cheater
    imports pyanitsa to save code, so its sandbox lets it read the repository: the attack
    goes through the `seed` it is sent, which no sandbox hides.)"""
    deals = {"deals": 12, "sandbox": {"level": probe().level, "paths": [str(TESTS.parent)]}}
    _, _, cheat = _played(_config(tmp_path / "a", _bot(), seed=0, **deals))
    assert cheat == 1.0
    stored, cheat_rows, _ = _played(_config(tmp_path / "b", _bot(), **deals))
    _, honest_rows, _ = _played(_config(tmp_path / "c", _bot("--honest"), seed=stored.seed,
                                        **deals))
    assert cheat_rows == honest_rows
