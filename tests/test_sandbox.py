"""The sandbox of ``cmd:`` bots (issue 37): real attacks by tests/bots/attacker.py, each failing
under the sandbox and, where cheap, shown to work with ``sandbox="none"``.

The strict tests need bubblewrap with user namespaces (``make test`` installs it); where this
machine lacks them they skip and say what is missing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pyanitsa.agents import AgentFailure, AgentSpecError, make_agent, play_game
from pyanitsa.agents.cmd import CmdAgent
from pyanitsa.agents.sandbox import (
    Policy,
    SandboxError,
    launch,
    policy_from,
    probe,
    require,
    with_hidden,
)
from pyanitsa.rules import preset

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "bots"
TACTICAL = preset("tactical")
strict = pytest.mark.skipif(probe().level != "strict",
                            reason=f"no strict sandbox here: needs {probe().missing}")


def attacker(tmp_path: Path, *args: str, sandbox: str | dict = "strict") -> tuple[CmdAgent, dict]:
    """Start the attacker, return the agent (closed by the caller) and its report."""
    log = tmp_path / f"attacker-{len(list(tmp_path.glob('attacker-*')))}.log"
    command = shlex.join([sys.executable, str(BOTS / "attacker.py"), *args])
    agent = CmdAgent(command, stderr=str(log), sandbox=sandbox)
    agent.warm_up()
    return agent, json.loads(log.read_text().splitlines()[0])


@pytest.fixture
def run(tmp_path):
    made: list[CmdAgent] = []

    def start(*args: str, sandbox: str | dict = "strict") -> dict:
        agent, report = attacker(tmp_path, *args, sandbox=sandbox)
        made.append(agent)
        return report

    yield start
    for agent in made:
        agent.close()


@strict
def test_it_cannot_read_the_database_by_its_path(run, tmp_path):
    db = tmp_path / "run" / "tournament.db"
    db.parent.mkdir()
    db.write_text("seed 0 agent key 1234")
    assert run("read", str(db), sandbox="none") == {"ok": True, "value": db.read_text()}
    got = run("read", str(db))
    assert got["ok"] is False and "FileNotFoundError" in got["error"]
    home = run("read", str(ROOT / "pyproject.toml"))  # the repository is not there either
    assert home["ok"] is False


@strict
def test_it_sees_only_its_own_processes_in_proc(run):
    # this process's command line (pytest's, or a pytest-xdist worker's): what a bot read
    mine = Path("/proc/self/cmdline").read_bytes().decode().split("\0")[0]
    open_report = run("proc", sandbox="none")
    assert open_report["ppid"] == os.getpid() and open_report["cmdline"]["ok"]
    assert mine in open_report["cmdline"]["value"]
    got = run("proc")
    assert got["pids"] <= 3  # bubblewrap's init and the bot itself
    assert got["ppid"] != os.getpid()
    for key in ("cmdline", "environ"):
        assert mine not in json.dumps(got[key])


@strict
def test_it_cannot_connect_to_a_local_listener(run):
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(5)
        port = str(server.getsockname()[1])
        assert run("connect", port, sandbox="none")["ok"] is True
        conn, _ = server.accept()
        conn.close()
        got = run("connect", port)
        assert got["ok"] is False
        server.settimeout(0.2)
        with pytest.raises(TimeoutError):
            server.accept()
        server.settimeout(5)
        assert run("connect", port, sandbox={"level": "strict", "network": True})["ok"] is True
        server.accept()[0].close()  # the network, when a config gives it


@strict
def test_a_run_folder_inside_the_bots_own_folder_is_hidden(tmp_path):
    """A bot kept beside the run's output (``cmd:python bot.py`` where the run writes
    ``runs/``): its folder is readable, the output folder in it is empty."""
    folder = tmp_path / "mybot"
    (folder / "runs" / "t").mkdir(parents=True)
    (folder / "runs" / "t" / "tournament.db").write_text("the seed")
    (folder / "book.txt").write_text("an opening book")
    shutil.copy(BOTS / "attacker.py", folder / "attacker.py")
    for target, readable in (("book.txt", True), ("runs/t/tournament.db", False)):
        command = shlex.join([sys.executable, str(folder / "attacker.py"), "read",
                              str(folder / target)])
        log = tmp_path / f"{readable}.log"
        agent = CmdAgent(command, stderr=str(log),
                         sandbox=with_hidden(Policy(), folder / "runs"))
        try:
            agent.warm_up()
        finally:
            agent.close()
        assert json.loads(log.read_text())["ok"] is readable


@strict
@pytest.mark.parametrize("own", [None, "strict", {"level": "strict", "network": True}])
def test_a_symlink_or_a_specs_own_sandbox_does_not_uncover_the_run_folder(tmp_path, own):
    """The run's output folder stays covered when the bot is reached through a symlinked
    folder, and when its spec names a sandbox of its own (the run's cover is kept)."""
    from pyanitsa.agents.sandbox import using

    real = tmp_path / "real"
    (real / "runs" / "t").mkdir(parents=True)
    (real / "runs" / "t" / "tournament.db").write_text("the seed")
    shutil.copy(BOTS / "attacker.py", real / "attacker.py")
    link = tmp_path / "link"
    link.symlink_to(real)
    command = shlex.join([sys.executable, str(link / "attacker.py"), "read",
                          str(link / "runs" / "t" / "tournament.db")])
    log = tmp_path / "read.log"
    with using(with_hidden(Policy(), real / "runs")):
        agent = CmdAgent(command, stderr=str(log), sandbox=own)
    try:
        agent.warm_up()
    finally:
        agent.close()
    got = json.loads(log.read_text())
    assert got["ok"] is False and "FileNotFoundError" in got["error"]


def test_a_program_in_a_plain_bin_folder_binds_that_folder_not_the_one_above(tmp_path):
    """``~/bin/mybot`` must not bind the home folder; a venv's ``bin/`` binds the venv."""
    plain = tmp_path / "home" / "bin" / "mybot"
    plain.parent.mkdir(parents=True)
    plain.write_text("#!/bin/sh\n")
    venv = tmp_path / "venv" / "bin" / "python"
    venv.parent.mkdir(parents=True)
    venv.write_text("")
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for program, want, never in ((plain, plain.parent, tmp_path / "home"),
                                 (venv, tmp_path / "venv", tmp_path)):
        started = launch(Policy(), [str(program)])
        binds = [started.argv[i + 1] for i, a in enumerate(started.argv) if a == "--ro-bind"]
        assert str(want) in binds and str(never) not in binds


@strict
def test_it_cannot_signal_a_sibling_or_find_its_parent(run):
    sibling = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        got = run("kill", str(sibling.pid))
        assert got["ok"] is False and "ProcessLookupError" in got["error"]
        assert sibling.poll() is None
        assert run("parent")["ppid"] != os.getpid()
        got = run("kill", str(os.getpid()))  # this process, the bot's worker here
        assert got["ok"] is False and "ProcessLookupError" in got["error"]
        assert run("kill", str(sibling.pid), sandbox="none")["ok"] is True
        assert sibling.wait(timeout=5) == -9
    finally:
        sibling.kill()
        sibling.wait()


def _marked(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def _gone(marker: str, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while _marked(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _marked(marker)


@pytest.mark.parametrize("level", [pytest.param("strict", marks=strict), "none"])
def test_a_double_forked_daemon_dies_with_the_sandboxed_bot(tmp_path, level):
    marker = f"pyanitsa-daemon-{os.getpid()}-{level}"
    agent, got = attacker(tmp_path, "daemon", marker, sandbox=level)
    try:
        assert got["ok"] is True and _marked(marker)
    finally:
        agent.close()
    try:
        # unsandboxed it outlives the bot (half a second shows it; strict gets the full wait)
        assert _gone(marker, 5.0 if level == "strict" else 0.5) is (level == "strict")
    finally:
        for pid in _marked(marker):
            os.kill(pid, 9)


@pytest.mark.parametrize("level", [pytest.param("strict", marks=strict), "basic"])
def test_allocating_past_the_memory_limit_is_the_bots_own_forfeit(tmp_path, level):
    command = shlex.join([sys.executable, str(BOTS / "attacker.py"), "memory", "512"])
    agent = CmdAgent(command, sandbox={"level": level, "memory_mb": 256})
    try:
        with pytest.raises(AgentFailure) as caught:
            play_game(TACTICAL, [agent, "descending"], seed=1, time_limit=5)
        assert caught.value.seat == 0 and caught.value.kind == "error"
        assert "exited" in str(caught.value)
    finally:
        agent.close()


@strict
def test_writes_land_in_its_scratch_only(run, tmp_path):
    target = tmp_path / "outside.txt"
    got = run("write", str(target))
    assert got["ok"] is False and not target.exists()
    for path in ("/owned.txt", str(BOTS / "owned.txt")):  # the root, its own (read-only) folder
        got = run("write", path)
        assert got["ok"] is False and "Read-only" in got["error"]
        assert not Path(path).exists()
    got = run("write", "in-scratch.txt")
    assert got["ok"] is True and got["scratch"] == {"ok": True, "value": "mine\n"}


@pytest.mark.parametrize("level", [pytest.param("strict", marks=strict), "basic"])
def test_the_scratch_folder_goes_with_the_bot(tmp_path, monkeypatch, level):
    """basic: a host folder, removed when the bot is closed; strict: a tmpfs in the sandbox,
    nothing on the host to leave behind even when the worker is killed."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    agent, got = attacker(tmp_path, "write", "in-scratch.txt", sandbox=level)
    try:
        assert got["ok"] is True and got["scratch"] == {"ok": True, "value": "mine\n"}
        made = list(tmp_path.glob("pyanitsa-bot-*"))
        assert len(made) == (level == "basic")
    finally:
        agent.close()
    assert list(tmp_path.glob("pyanitsa-bot-*")) == []


@pytest.mark.parametrize("level", [pytest.param("strict", marks=strict), "basic"])
def test_well_behaved_bots_play_the_same_games_in_the_sandbox(level):
    def records(sandbox: str) -> list[str]:
        made = [make_agent(f"cmd:{shlex.join([sys.executable, str(BOTS / 'immortal.py')])}"
                           f"(sandbox={sandbox!r})"),
                make_agent(f"cmd:{shlex.join([sys.executable, str(ROOT / 'examples/bots/random_bot.py')])}"
                           f"(sandbox={sandbox!r})")]
        try:
            return [json.dumps(play_game(TACTICAL, made, seed=s).record.to_json())
                    for s in range(3)]
        finally:
            for agent in made:
                agent.close()

    assert records(level) == records("none")


@pytest.mark.parametrize(("value", "says"), [
    ("'lax'", "sandbox: 'lax' is not a level"),
    ("{'level': 'basic', 'memory_mb': -1}", "memory_mb=-1"),
    ("{'cpu': 3}", "unknown key 'cpu'"),
    ("{'paths': ['relative/dir']}", "'relative/dir' is not an absolute path"),
])
def test_bad_sandbox_values_are_one_line(value, says):
    with pytest.raises((SandboxError, AgentSpecError)) as caught:
        make_agent(f"cmd:{sys.executable} x.py(sandbox={value})")
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_level_above_the_machines_is_refused(monkeypatch):
    monkeypatch.setattr("pyanitsa.agents.sandbox.shutil.which",
                        lambda name, path=None: None if name == "bwrap" else "/usr/bin/" + name)
    probe.cache_clear()
    try:
        with pytest.raises(SandboxError, match=r"^sandbox: 'strict' needs bubblewrap"):
            require("strict")
        assert require("basic").level == "basic"
    finally:
        probe.cache_clear()


def test_none_is_an_explicit_choice_with_a_warning(capfd):
    from pyanitsa.agents.sandbox import _warn_none

    _warn_none.cache_clear()
    assert policy_from(None).level == "strict"
    require("none")
    assert "warning: sandbox none" in capfd.readouterr().err


def test_strict_binds_no_host_folder_but_its_own(tmp_path):
    script = tmp_path / "bots" / "b.py"
    script.parent.mkdir()
    script.write_text("")
    started = launch(Policy(paths=("/opt",), hide=(str(tmp_path / "bots" / "run"),)),
                     [sys.executable, str(script)])
    binds = [started.argv[i + 1] for i, a in enumerate(started.argv) if a == "--ro-bind"]
    assert str(script.parent) in binds and "/opt" in binds
    assert not any(b in ("/", "/work", "/tmp", str(tmp_path)) for b in binds)
    assert "--bind" not in started.argv  # nothing of the host is writable
    assert started.env is not None and set(started.env) == {"PATH", "LANG", "HOME", "TMPDIR"}
    assert started.scratch is None  # a tmpfs in the sandbox, nothing on the host


def _bots_config(tmp_path: Path, **fields):
    from pyanitsa.tournaments.config import parse_config

    bot = f"cmd:{shlex.join([sys.executable, str(ROOT / 'examples/bots/random_bot.py')])}"
    return parse_config({"name": "s", "rules": {"preset": "tactical"}, "deals": 2, "seed": 1,
                         "bootstrap": 0, "output": str(tmp_path / "out"),
                         "agents": [{"name": "bot", "spec": bot}, "descending"]} | fields)


@strict
def test_a_tournament_says_and_stores_its_level(tmp_path, capfd):
    from pyanitsa.tournaments.api import run

    run(_bots_config(tmp_path), progress=False)
    assert "pyanitsa: cmd: bots in sandbox strict" in capfd.readouterr().err
    out = tmp_path / "out"
    assert "Sandbox of the `cmd:` bots: strict (`sandbox`)." in (out / "report.md").read_text()
    assert json.loads((out / "results.json").read_text())["config"]["sandbox"] == "strict"


def test_the_level_a_run_records_is_its_weakest_bots():
    """One unconfined bot makes the run unconfined, whatever the config's field says."""
    from pyanitsa.tournaments.sandboxing import used_level

    bot = f"cmd:{shlex.join([sys.executable, str(ROOT / 'examples/bots/random_bot.py')])}"
    for specs, want in (([bot], "strict"), ([bot, f"{bot}(sandbox='basic')"], "basic"),
                        ([bot, f"{bot}(sandbox='none')"], "none"), (["random"], None)):
        config = _bots_config(Path("/nonexistent"), agents=[
            {"name": f"a{i}", "spec": spec} for i, spec in enumerate(specs)] + ["descending"])
        assert used_level(config) == want, specs


@pytest.mark.parametrize(("value", "says"), [
    ("lax", "sandbox: 'lax' is not a level"),
    ({"level": "strict", "memory_mb": 0}, "sandbox: memory_mb=0 is not a positive integer"),
])
def test_a_bad_sandbox_field_is_one_line(tmp_path, value, says):
    from pyanitsa.tournaments.config import TournamentConfigError

    with pytest.raises(TournamentConfigError) as caught:
        _bots_config(tmp_path, sandbox=value)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_the_command_line_refuses_a_level_this_machine_lacks(tmp_path):
    """With no bwrap on PATH the machine gives basic: strict is refused in one line, exit 2;
    basic plays."""
    config = _bots_config(tmp_path)
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(config.model_dump(mode="json")))
    env = {"PATH": str(Path(sys.executable).parent), "HOME": str(tmp_path)}
    argv = [sys.executable, "-m", "pyanitsa", "tournament", str(path), "--quiet"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "sandbox: 'strict' needs bubblewrap" in done.stderr
    done = subprocess.run([*argv, "--set", "sandbox=basic"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "sandbox basic" in done.stderr


def test_a_bots_words_reach_the_report_as_text_not_markdown(tmp_path):
    """A bot whose first line is a Markdown image and HTML fails its handshake and forfeits;
    report.md's reason quotes the bot (its command line) escaped: no image, no link, no tag."""
    from pyanitsa.tournaments.api import run

    line = "![x](http://example.invalid/a.png) <img src=x onerror=alert(1)> [y](http://z)"
    bot = f"cmd:{shlex.join([sys.executable, '-c', f'print({line!r})'])}"
    config = _bots_config(tmp_path, agents=[{"name": "loud", "spec": bot}, "descending"],
                          sandbox=probe().level)
    run(config, progress=False)
    report = (tmp_path / "out" / "report.md").read_text()
    forfeits = report.split("## Forfeits", 1)[1].split("\n## ", 1)[0]  # (plots follow)
    assert "| loud | error |" in forfeits
    for markup in (r"!\[", r"<img", r"\]\("):  # unless escaped by a backslash
        assert re.search(r"(?<!\\)" + markup, forfeits) is None, markup
    assert r"\!\[x\]\(http://example\.invalid/a\.png\)" in forfeits


@strict
def test_the_console_says_when_a_strict_bot_has_the_host_network(tmp_path, capfd):
    from pyanitsa.tournaments.sandboxing import say_sandbox

    say_sandbox(_bots_config(tmp_path))
    assert "network, UTS namespaces" in capfd.readouterr().err
    say_sandbox(_bots_config(tmp_path, sandbox={"level": "strict", "network": True}))
    assert "the host's network for the bots given it" in capfd.readouterr().err
