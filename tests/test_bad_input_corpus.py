"""Issue 12, goal "0 tracebacks and 0 hangs over a bad-input corpus of several hundred cases":
a corpus built as tables of (input channel x bad value) across every subcommand.

Every case runs in-process as ``pyanitsa --debug ...`` (see tests/test_bad_inputs.py): the
top-level guard then lets an unexpected exception through, so only an input refused at its cause
passes. A case must end with its exit code (2 unless stated) and exactly one line on stderr,
within a per-case time bound, so a hang fails its case instead of stalling the suite.

The files the cases name are written once into a module-scoped folder (``{tmp}`` in an
argument); a case whose value has a ``{tmp}`` is given that folder's path.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

import pytest

from pyanitsa.cli import main

_spec = importlib.util.spec_from_file_location(
    "bad_input_corpus", Path(__file__).with_name("data") / "bad_input_corpus.py")
data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(data)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("corpus")
    data.write_files(tmp)
    return tmp


def run_case(tmp: Path, argv: list[str]) -> tuple[int, str]:
    argv = [a.replace("{tmp}", str(tmp)) for a in argv]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(["--debug", *argv])
        except SystemExit as exc:  # argparse refusing an argument
            code = exc.code
    return code, err.getvalue()


CASES = data.corpus()
MORE = [c for c in data.corpus(full=True) if c not in CASES]


def check(files: Path, argv: list[str], expected: int) -> None:
    code, err = run_case(files, argv)
    assert code == expected, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    assert len(err) < 1000, "the message echoes the whole value"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name,argv,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line(files, monkeypatch, name, argv, expected):
    monkeypatch.chdir(files)
    check(files, argv, expected)


@pytest.mark.slow
@pytest.mark.timeout(60)
@pytest.mark.parametrize("name,argv,expected", MORE, ids=[c[0] for c in MORE])
def test_bad_input_is_one_line_slow(files, monkeypatch, name, argv, expected):
    monkeypatch.chdir(files)
    check(files, argv, expected)


def test_the_corpus_is_large_and_covers_every_command():
    names = [c[0] for c in CASES]
    assert len(set(names)) == len(names) >= 400
    assert {argv[0] for _, argv, _ in CASES} >= {
        "play", "simulate", "replay", "enumerate", "tournament", "report", "agents", "solve",
        "exploit", "train", "demo"}
