"""``pyanitsa.tournaments.run(config, **options) -> Summary`` with each form of config, and the
five-line examples of README.md and docs/tournaments.md, run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pyanitsa.tournaments import Standing, Summary, TournamentConfig, run
from pyanitsa.tournaments.config import TournamentConfigError, TournamentError, parse_config
from pyanitsa.tournaments.store import Store

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


@pytest.fixture(autouse=True)
def test_agents(monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))


def fields(tmp_path, sub):
    return {"name": "api", "agents": ["descending", "random",
                                      {"name": "strong", "spec": "tournament_agents:Strong"}],
            "rules": {"preset": "tactical"}, "deals": 6, "seed": 5, "bootstrap": 20,
            "output": str(tmp_path / sub)}


def lines(summary):
    return [(s.name, s.elo, s.low, s.high, s.games, s.wins, s.draws, s.losses, s.score)
            for s in summary.standings]


def test_mapping_yaml_path_and_config_give_the_same_summary(tmp_path):
    data = fields(tmp_path, "m")
    from_mapping = run(data)
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(fields(tmp_path, "y")))
    from_path = run(path)
    from_str = run(str(path), output=str(tmp_path / "s"))
    from_config = run(parse_config(fields(tmp_path, "c")), reports=False)
    assert isinstance(from_mapping, Summary)
    assert all(isinstance(s, Standing) for s in from_mapping.standings)
    for other in (from_path, from_str, from_config):
        assert lines(other) == lines(from_mapping)
    s = from_mapping
    assert s.games == s.played == 3 * 6 * 2  # three pairings, six deals, both seatings
    assert s.forfeits == 0 and s.anchor is None
    assert s.output == tmp_path / "m" and (s.output / "report.md").is_file()
    assert not (tmp_path / "c" / "report.md").exists()  # reports=False: the database only
    elos = [x.elo for x in s.standings]
    assert elos == sorted(elos, reverse=True)
    assert s.standing("strong").games == 24
    assert sum(elos) == pytest.approx(0.0, abs=1e-6)
    assert s.statistics is not None and s.statistics.h2h.score[0][1] is not None
    assert {"standings", "games", "forfeits", "output", "anchor"} <= s.to_json().keys()


def test_keywords_override_fields_and_resume_continues(tmp_path):
    data = fields(tmp_path, "r")
    first = run(data, deals=3, anchor="random")
    assert first.games == 3 * 3 * 2 and first.anchor == "random"
    assert first.standing("random").elo == 0.0
    more = run(data, deals=5, resume=True)
    assert (more.played, more.games) == (3 * 2 * 2, 3 * 5 * 2)
    with Store.open(tmp_path / "r") as store:
        assert store.config().deals == 5
    with pytest.raises(TournamentError, match="already holds a tournament"):
        run(data)
    assert run(data, deals=2, overwrite=True).games == 3 * 2 * 2


def test_forfeits_are_counted(tmp_path):
    data = fields(tmp_path, "f") | {"agents": [
        "descending", {"name": "raising", "spec": "tournament_agents:Raising"}]}
    s = run(data, deals=4, reports=False)
    assert s.forfeits == 8 == s.standing("raising").forfeits
    assert s.standing("descending").wins == 8


def test_bad_configs_name_the_field(tmp_path):
    with pytest.raises(TournamentConfigError, match="deals: Input should be greater"):
        run(fields(tmp_path, "x"), deals=0)
    with pytest.raises(TournamentConfigError, match="colour: unknown field"):
        run(fields(tmp_path, "x"), colour="red")
    with pytest.raises(TypeError, match="config: a TournamentConfig, a mapping or a YAML path"):
        run(42)
    assert isinstance(parse_config(fields(tmp_path, "x")), TournamentConfig)


def five_line_example(path):
    """The python block under the heading that promises a tournament in five lines."""
    text = path.read_text(encoding="utf-8")
    found = re.search(r"^#+ .*[Ff]ive lines.*?\n```python\n(.*?)```", text, re.S | re.M)
    assert found, f"{path.name}: no five-line tournament example"
    return found.group(1)


@pytest.mark.parametrize("doc", ["README.md", "docs/tournaments.md"])
def test_the_five_line_example_runs_as_written(doc, tmp_path):
    code = five_line_example(REPO / doc)
    assert len([line for line in code.splitlines() if line.strip()]) <= 5
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "runs" / "tournaments" / "five" / "report.md").is_file()
    assert "tie_aware" in done.stdout
