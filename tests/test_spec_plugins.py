"""Spec strings through the entry-point group ``pyanitsa.agent_specs``: the core finds the
resolver in the installed metadata (it names no package of ours), and another distribution adds
a ``scheme:`` with an entry of its own, imported only when a spec uses it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pyanitsa import protocol
from pyanitsa.errors import PyanitsaError

REPO_ROOT = Path(__file__).resolve().parents[1]

BOT_MODULE = '''
from pyanitsa.agents import BaseAgent


class Strongest(BaseAgent):
    def order_hand(self, view, rng):
        return sorted(view.hand, key=lambda card: -view.ranks.rank_of[card])


def make(name, *, depth=1):
    """testbots:NAME: the bot NAME."""
    if name != "strongest":
        raise ValueError(f"testbots has no bot {name!r}")
    agent = Strongest()
    agent.depth = depth
    return agent
'''


def fake_distribution(folder: Path, entries: dict[str, str], name: str = "testbots") -> Path:
    """What ``pip install`` of a package declaring ``entries`` leaves on ``sys.path``: the
    module and a ``.dist-info`` folder with its metadata."""
    folder.mkdir(exist_ok=True)
    (folder / "testbots.py").write_text(BOT_MODULE, encoding="utf-8")
    info = folder / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n",
                                   encoding="utf-8")
    lines = "".join(f"{k} = {v}\n" for k, v in entries.items())
    (info / "entry_points.txt").write_text(f"[pyanitsa.agent_specs]\n{lines}", encoding="utf-8")
    return folder


def run_python(code: str, cwd: Path, *extra_path: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter outside the repo, with ``extra_path`` on ``sys.path``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join(map(str, extra_path))
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_pyproject_declares_the_resolver() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    group = config["project"]["entry-points"][protocol.SPEC_GROUP]
    assert group == {protocol.SPEC_RESOLVER: "pyanitsa.agents.specs:make_agent"}


def test_an_env_takes_a_spec_string_in_a_fresh_process(tmp_path: Path) -> None:
    """Only the envs imported: the spec reaches the agents through the metadata."""
    code = """
import json, sys
import gymnasium as gym
import pyanitsa.envs
before = "pyanitsa.agents" in sys.modules
env = gym.make("pyanitsa/Tactical-v0", opponents="descending")
env.reset(seed=1)
print(json.dumps([before, type(env.unwrapped.opponents[0]).__name__]))
"""
    done = run_python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [False, "Descending"]


def test_an_unknown_spec_in_a_fresh_process_is_one_line_naming_it(tmp_path: Path) -> None:
    code = """
import gymnasium as gym
import pyanitsa.envs
from pyanitsa.errors import PyanitsaError
try:
    gym.make("pyanitsa/Tactical-v0", opponents="desending")
except PyanitsaError as exc:
    print(exc)
"""
    done = run_python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    assert "'desending'" in done.stdout and "did you mean 'descending'" in done.stdout


def test_no_installed_resolver_is_one_line_naming_the_group(monkeypatch) -> None:
    """A stale editable install (the entry point not written yet) says what to do."""
    monkeypatch.setattr(protocol, "_resolver", None)
    monkeypatch.setattr(protocol, "entry_points", lambda **kw: [])
    with pytest.raises(PyanitsaError, match="no entry point 'builtin' in group "
                       "'pyanitsa.agent_specs' is installed .*pip install -e") as err:
        protocol.agent_from_spec("descending")
    assert "\n" not in str(err.value)


def test_a_second_distribution_may_not_declare_the_resolver(tmp_path: Path) -> None:
    site = fake_distribution(tmp_path / "site", {"builtin": "testbots:make"})
    code = """
from pyanitsa.errors import PyanitsaError
from pyanitsa.protocol import agent_from_spec
try:
    agent_from_spec("descending")
except PyanitsaError as exc:
    print(exc)
"""
    done = run_python(code, tmp_path, site)
    assert done.returncode == 0, done.stderr
    assert "2 distributions declare an entry point 'builtin'" in done.stdout
    assert "pyanitsa" in done.stdout and "testbots" in done.stdout


def test_a_package_adds_a_scheme_by_entry_point(tmp_path: Path) -> None:
    """``testbots:NAME(k=v)`` goes to the declared loader, whose module is imported only when
    a spec names the scheme; the envs, the CLI's listing and ``make_agent`` all see it."""
    site = fake_distribution(tmp_path / "site", {"testbots": "testbots:make"})
    code = """
import json, sys
import gymnasium as gym
import pyanitsa.envs
from pyanitsa.agents import make_agent
make_agent("descending")
imported_early = "testbots" in sys.modules
agent = make_agent("testbots:strongest(depth=3)")
env = gym.make("pyanitsa/Tactical-v0", opponents="testbots:strongest")
print(json.dumps([imported_early, type(agent).__name__, agent.depth, agent.spec,
                  type(env.unwrapped.opponents[0]).__name__]))
"""
    done = run_python(code, tmp_path, site)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [False, "Strongest", 3, "testbots:strongest(depth=3)",
                                       "Strongest"]
    listed = run_python("from pyanitsa.cli import main; main(['agents'])", tmp_path, site)
    assert "testbots:ARG  [declared by testbots 0.1]" in listed.stdout, listed.stderr
    refused = run_python("from pyanitsa.agents import make_agent\n"
                         "make_agent('testbots:nosuch')", tmp_path, site)
    assert refused.returncode != 0
    assert refused.stderr.strip().splitlines()[-1].endswith(
        "agent 'testbots:nosuch': testbots has no bot 'nosuch'")


def test_a_package_may_not_take_a_built_in_scheme(tmp_path: Path) -> None:
    site = fake_distribution(tmp_path / "site", {"cmd": "testbots:make"})
    code = """
from pyanitsa.agents import AgentSpecError, make_agent
try:
    make_agent("cmd:python bot.py")
except AgentSpecError as exc:
    print(exc)
"""
    done = run_python(code, tmp_path, site)
    assert done.returncode == 0, done.stderr
    assert "'cmd' is a built-in scheme" in done.stdout and "testbots" in done.stdout
    assert done.stdout.count("\n") == 1


def test_two_packages_may_not_declare_one_scheme(tmp_path: Path) -> None:
    first = fake_distribution(tmp_path / "a", {"testbots": "testbots:make"})
    second = fake_distribution(tmp_path / "b", {"testbots": "testbots:make"}, name="otherbots")
    code = """
from pyanitsa.agents import AgentSpecError, make_agent
try:
    make_agent("testbots:strongest")
except AgentSpecError as exc:
    print(exc)
"""
    done = run_python(code, tmp_path, first, second)
    assert done.returncode == 0, done.stderr
    assert "scheme 'testbots' is declared by the entry point" in done.stdout
    assert "of testbots and the entry point" in done.stdout and "of otherbots" in done.stdout


def test_a_scheme_whose_module_does_not_import_is_one_line(tmp_path: Path) -> None:
    site = fake_distribution(tmp_path / "site", {"testbots": "no_such_module:make"})
    code = """
from pyanitsa.agents import AgentSpecError, make_agent
try:
    make_agent("testbots:strongest")
except AgentSpecError as exc:
    print(exc)
"""
    done = run_python(code, tmp_path, site)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    assert "'no_such_module:make' of testbots does not load" in done.stdout
