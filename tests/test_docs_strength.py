"""docs/strength.md runs as written: its Python blocks print what their comments say, and its
shell commands succeed (the quoted figures are checked where the text states them)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from pyanitsa.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs" / "strength.md"
TEXT = DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize("code", re.findall(r"```python\n(.*?)```", TEXT, re.S))
def test_python_blocks_print_what_they_say(code: str, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    exec(compile(code, str(DOCS), "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    said = [ln.split("# ", 1)[1] for ln in code.splitlines() if ln.startswith("# ")]
    said += [ln.split("# ", 1)[1].strip() for ln in code.splitlines()
             if "print(" in ln and "# " in ln]
    assert printed == said


def commands() -> list[str]:
    out = []
    for block in re.findall(r"```sh\n(.*?)```", TEXT, re.S):
        for line in block.splitlines():
            cmd = line.split("  #", 1)[0].strip()
            if cmd.startswith("pyanitsa "):
                out.append(cmd)
    return out


@pytest.mark.parametrize("cmd", commands())
def test_shell_commands_run(cmd: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = shlex.split(cmd)[1:]
    if argv[0] == "exploit":
        argv.append("--no-progress")
    assert main(argv) == 0
    out = capsys.readouterr().out
    if "--json" in argv:
        assert {"exploitability", "ci95", "deals", "method"} <= json.loads(out).keys()
    for figure in ("24.75", "0.565"):
        if f"exact: {figure}" in TEXT.split(cmd, 1)[1].splitlines()[0]:
            assert f"exploitability {figure}" in out
