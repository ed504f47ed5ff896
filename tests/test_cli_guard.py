"""Issue 12: an unexpected error in any command is one line and exit code 2; ``--debug``
shows the traceback."""

from __future__ import annotations

import pytest

import pyanitsa.cli.replay
from pyanitsa.cli import main


@pytest.mark.parametrize("exc", [RuntimeError("kaput\nsecond line"), MemoryError(),
                                 RecursionError("maximum recursion depth exceeded")])
def test_an_unexpected_error_is_one_line_and_exit_2(monkeypatch, capsys, exc):
    def boom(args):
        raise exc
    monkeypatch.setattr(pyanitsa.cli.replay, "run", boom)
    assert main(["replay", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    name = type(exc).__name__
    assert err.startswith(f"pyanitsa replay: error: {name}")
    assert err.endswith("(run with --debug for the traceback)\n")
    if type(exc) is RuntimeError:
        assert "RuntimeError: kaput second line (run" in err


def test_debug_lets_the_traceback_through(monkeypatch):
    def boom(args):
        raise RuntimeError("kaput")
    monkeypatch.setattr(pyanitsa.cli.replay, "run", boom)
    with pytest.raises(RuntimeError, match="kaput"):
        main(["--debug", "replay", "-"])


def test_debug_in_a_real_process_prints_the_traceback(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "x.json"
    bad.write_text("{}")
    code = ("import sys, pyanitsa.cli as c, pyanitsa.cli.replay as r\n"
            "def boom(a): raise RuntimeError('kaput')\n"
            "r.run = boom\n"
            "sys.exit(c.main(sys.argv[1:]))\n")
    for argv, traceback in ((["replay", str(bad)], False), (["--debug", "replay", str(bad)], True)):
        out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                             text=True, timeout=60)
        assert ("Traceback" in out.stderr) is traceback
        if not traceback:
            assert out.returncode == 2 and len(out.stderr.splitlines()) == 1
