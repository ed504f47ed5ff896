"""Issue 12, finding 8: a spec names an agent, never an arbitrary callable; sidecars are
checked before anything is allocated."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from pyanitsa.agents import AgentSpecError, make_agent
from pyanitsa.cli import main


@pytest.fixture
def helper(tmp_path, monkeypatch):
    """A module ``spec_helper`` with a function and a class that would create files."""
    (tmp_path / "spec_helper.py").write_text(textwrap.dedent("""
        from pathlib import Path
        from pyanitsa.agents import BaseAgent, register

        def touch(path="made-by-touch"):
            Path(path).write_text("ran")

        class NotAnAgent:
            def __init__(self, path="made-by-class"):
                Path(path).write_text("ran")
            def order_hand(self, view, rng):
                return list(view.hand)
            def order_pickup(self, view, rng):
                return list(view.cards)

        class Fine(BaseAgent):
            def order_hand(self, view, rng):
                return list(view.hand)

        @register("spec_helper_made")
        def made(depth=1):
            return Fine()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("spec_helper", None)


def test_os_system_is_refused_and_runs_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "pwned"
    spec = f"os:system(command='touch {target}')"
    with pytest.raises(AgentSpecError, match="not an agent class") as info:
        make_agent(spec)
    assert "\n" not in str(info.value)
    code = main(["play", "--agents", f"{spec},descending", "--seed", "1"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an agent class" in err
    assert not target.exists()


@pytest.mark.parametrize("spec, made", [
    ("spec_helper:touch(path='x1')", "x1"),
    ("spec_helper:NotAnAgent(path='x2')", "x2"),
    ("subprocess:Popen(args='touch x3', shell=True)", "x3"),
])
def test_callables_that_are_not_agents_are_never_called(helper, spec, made):
    with pytest.raises(AgentSpecError, match="not an agent class"):
        make_agent(spec)
    assert not (helper / made).exists()


def test_agent_classes_and_registered_factories_still_build(helper):
    assert type(make_agent("spec_helper:Fine")).__name__ == "Fine"
    assert type(make_agent("spec_helper:made(depth=2)")).__name__ == "Fine"
    assert type(make_agent("pyanitsa.agents.scripted:Ascending")).__name__ == "Ascending"


# -- policy sidecars ------------------------------------------------------------------------------

torch = pytest.importorskip("torch")


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A copy of the shipped policy whose sidecar a test rewrites; building a network fails."""
    from pyanitsa.policies import files as policy_files

    src = policy_files.POLICIES_DIR / "tactical-2p.pt"
    pt = tmp_path / "p.pt"
    pt.write_bytes(src.read_bytes())
    side = json.loads(src.with_suffix(".json").read_text())

    def write(**changes):
        text = json.dumps({**side, **changes}).replace('"HUGE"', "9" * 5000)
        pt.with_suffix(".json").write_text(text)
        return pt

    def no_build(meta):
        raise AssertionError(f"a network was built for {meta.net_arch}")

    monkeypatch.setattr(policy_files, "build_policy", no_build)  # what load_policy calls
    return write


@pytest.mark.parametrize("changes, key", [
    ({"net_arch": {"pi": [60000, 60000], "vf": [60000, 60000]}}, "net_arch.pi.0"),
    ({"net_arch": {"pi": [64] * 9, "vf": [64]}}, "net_arch.pi"),
    ({"net_arch": [60000, 60000]}, "net_arch"),
    ({"net_arch": {"pi": [64, True], "vf": [64]}}, "net_arch.pi.1"),
    ({"net_arch": {"pi": [64, "HUGE"], "vf": [64]}}, "p.json"),  # over 4,300 digits
    ({"obs_size": 10**9}, "obs_size"),
    ({"actions": -1}, "actions"),
    ({"players": "2"}, "players"),
    ({"net_arch": {"pi": [4096] * 8, "vf": [4096] * 8}}, "net_arch asks for"),
])
def test_a_sidecar_is_checked_before_anything_is_allocated(shipped, changes, key):
    from pyanitsa.policies.ppo import PolicyLoadError, load_policy

    with pytest.raises(PolicyLoadError) as info:
        load_policy(shipped(**changes))
    assert key in str(info.value) and "\n" not in str(info.value)


def test_a_module_in_the_current_folder_is_found_last(tmp_path, monkeypatch):
    """``mybot:Greedy`` finds ./mybot.py as ``python`` would (the tutorial's first bot), after
    everything installed: a ./json.py does not shadow the standard library's."""
    import json
    import sys

    from pyanitsa.agents import AgentSpecError, make_agent

    (tmp_path / "mybot_cwd.py").write_text(
        "from pyanitsa.agents import BaseAgent\n\n\nclass Greedy(BaseAgent):\n"
        "    def order_hand(self, view, rng):\n        return list(view.hand)\n")
    (tmp_path / "json.py").write_text("raise SystemExit('shadowed')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert type(make_agent("mybot_cwd:Greedy")).__name__ == "Greedy"
    assert sys.path[-1] == str(tmp_path) and sys.modules["json"] is json
    with pytest.raises(AgentSpecError, match="cannot import 'no_such_bot_here'"):
        make_agent("no_such_bot_here:Bot")
    sys.modules.pop("mybot_cwd", None)
