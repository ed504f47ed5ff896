"""Issue 12, finding 6: ``pyanitsa replay`` on mutated records (the conformance vectors with
bytes flipped, inserted or deleted, and hand-made hostile shapes) exits 0 or 2, says at most one
line on stderr, never a traceback, and finishes.

The command runs in process with ``--debug``, so any exception the command does not turn into
its own one-line message fails the test with its traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyanitsa.cli import main

VECTORS = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "vectors.jsonl"
LINES = VECTORS.read_bytes().splitlines() if VECTORS.is_file() else []
pytestmark = pytest.mark.skipif(not LINES, reason=f"no conformance vectors at {VECTORS}")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "record.json"


def replay(path: Path, data: bytes) -> tuple[int, str]:
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--debug", "replay", str(path)])
    return code, err.getvalue()


def check(path: Path, data: bytes) -> None:
    code, err = replay(path, data)
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err
    if code:
        assert err.count("\n") == 1 and err.startswith("pyanitsa replay: error: "), err
        assert "--debug" not in err  # an error met at its cause, not by the guard


EDIT = st.tuples(st.sampled_from(["flip", "insert", "delete"]), st.integers(0, 10**6),
                 st.integers(0, 255))


def mutate(data: bytes, edits) -> bytes:
    """``data`` with each edit applied: a byte flipped, inserted or deleted."""
    out = bytearray(data)
    for op, at, byte in edits:
        at %= len(out) + 1
        if op == "insert":
            out[at:at] = bytes([byte])
        elif at < len(out):
            if op == "flip":
                out[at] = byte
            else:
                del out[at]
    return bytes(out)


def mutated_vectors(scratch, line, edits, lines):
    data = b"\n".join(LINES[(line + k) % len(LINES)] for k in range(lines))
    check(scratch, mutate(data, edits))


GIVEN = given(line=st.integers(0, 10**6), edits=st.lists(EDIT, min_size=1, max_size=6),
              lines=st.integers(1, 3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@GIVEN
def test_mutated_vectors_are_one_line_or_a_result(scratch, line, edits, lines):
    mutated_vectors(scratch, line, edits, lines)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@GIVEN
def test_10000_mutated_vectors_are_one_line_or_a_result(scratch, line, edits, lines):
    """The issue's goal: 0 tracebacks over a fuzz of 10,000 mutated records."""
    mutated_vectors(scratch, line, edits, lines)


def _with(change) -> bytes:
    obj = json.loads(LINES[0])
    change(obj["record"])
    return json.dumps(obj).encode()


HOSTILE = {
    "undecodable": b"\xff\xfe" + LINES[0] if LINES else b"",
    "undecodable inside": LINES[0].replace(b'"deck"', b'"d\xe9ck"') if LINES else b"",
    "nested 100,000 deep": b'{"record": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "nested objects": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "a huge integer": (LINES[0].replace(b'"dealer": 0', b'"dealer": ' + b"9" * 5000)
                       if LINES else b""),
    "preset a list": _with(lambda r: r.setdefault("rules", {}).update(preset=["classic"])),
    "preset a mapping": _with(lambda r: r.setdefault("rules", {}).update(preset={"a": 1})),
    "max_rounds 2**63": _with(lambda r: r.setdefault("rules", {}).update(max_rounds=2**63)),
    "max_rounds 2**64": _with(lambda r: r.setdefault("rules", {}).update(max_rounds=2**64)),
    "deck 2**63 ranks": _with(lambda r: r.update(deck={"ranks": 2**63, "suits": 1})),
    "cards as objects": _with(lambda r: r.update(stacks=[[{"a": 1}], [None]])),
    "a JSON array": b"[" + LINES[0] + b"]" if LINES else b"",
    "empty": b"",
} if LINES else {}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_records_are_one_line_or_a_result(scratch, name):
    check(scratch, HOSTILE[name])


def test_deep_nesting_in_a_real_process(tmp_path):
    bad = tmp_path / "deep.json"
    bad.write_bytes(HOSTILE["nested 100,000 deep"])
    out = subprocess.run([sys.executable, "-m", "pyanitsa", "replay", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "nested too deeply" in out.stderr
