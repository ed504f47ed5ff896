"""Issue 12, finding 6: mutated input (bytes flipped, inserted or deleted, and hand-made
hostile shapes) never gets past its one-line error.

* ``pyanitsa replay`` on mutated records exits 0 or 2, says at most one line on stderr, never a
  traceback, and finishes. It runs in process with ``--debug``, so any exception the command
  does not turn into its own one-line message fails the test with its traceback.
* :meth:`Record.from_json` and the ``tournament`` config loader either succeed or raise a
  :class:`~pyanitsa.errors.PyanitsaError` of one line, never another exception type.

Each fuzz has a fast variant (300 examples) and a slow one (10,000, ``pytest -m slow``).
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
from pyanitsa.errors import PyanitsaError
from pyanitsa.records import Record
from pyanitsa.tournaments.config import TournamentError, load_config

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT.parent / "shared" / "conformance" / "vectors.jsonl"
LINES = VECTORS.read_bytes().splitlines() if VECTORS.is_file() else []
RECORDS = [json.dumps(json.loads(line)["record"]).encode() for line in LINES]
DEMO = (ROOT / "configs" / "tournaments" / "demo.yaml").read_bytes()

EDIT = st.tuples(st.sampled_from(["flip", "insert", "delete"]), st.integers(0, 10**6),
                 st.integers(0, 255))
EDITS = st.lists(EDIT, min_size=1, max_size=6)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=10_000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


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


def one_line(exc: BaseException) -> None:
    text = str(exc)
    assert text and "\n" not in text.strip(), repr(text)


needs_vectors = pytest.mark.skipif(not LINES, reason=f"no conformance vectors at {VECTORS}")


# -- pyanitsa replay ------------------------------------------------------------------------------


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


def mutated_vectors(scratch, line, edits, lines):
    data = b"\n".join(LINES[(line + k) % len(LINES)] for k in range(lines))
    check(scratch, mutate(data, edits))


GIVEN = given(line=st.integers(0, 10**6), edits=EDITS, lines=st.integers(1, 3))


@needs_vectors
@FAST
@GIVEN
def test_mutated_vectors_are_one_line_or_a_result(scratch, line, edits, lines):
    mutated_vectors(scratch, line, edits, lines)


@needs_vectors
@pytest.mark.slow
@SLOW
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


@needs_vectors
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_records_are_one_line_or_a_result(scratch, name):
    check(scratch, HOSTILE[name])


@needs_vectors
def test_deep_nesting_in_a_real_process(tmp_path):
    bad = tmp_path / "deep.json"
    bad.write_bytes(HOSTILE["nested 100,000 deep"])
    out = subprocess.run([sys.executable, "-m", "pyanitsa", "replay", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "nested too deeply" in out.stderr


# -- Record.from_json --------------------------------------------------------------------------


def record_case(which: int, edits) -> None:
    data = mutate(RECORDS[which % len(RECORDS)], edits)
    try:
        Record.from_json(data)
    except PyanitsaError as exc:
        one_line(exc)


@needs_vectors
@FAST
@given(which=st.integers(0, 10**6), edits=EDITS)
def test_mutated_records_parse_or_fail_in_one_line(which, edits):
    record_case(which, edits)


@needs_vectors
@pytest.mark.slow
@SLOW
@given(which=st.integers(0, 10**6), edits=EDITS)
def test_10000_mutated_records_parse_or_fail_in_one_line(which, edits):
    record_case(which, edits)


# -- the tournament config loader --------------------------------------------------------------


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "demo.yaml"


def config_case(path: Path, edits) -> None:
    path.write_bytes(mutate(DEMO, edits))
    try:
        config = load_config(path)
        config.build_rules()
    except PyanitsaError as exc:
        assert isinstance(exc, TournamentError), type(exc)
        one_line(exc)


@FAST
@given(edits=EDITS)
def test_mutated_tournament_configs_load_or_fail_in_one_line(config_path, edits):
    config_case(config_path, edits)


@pytest.mark.slow
@SLOW
@given(edits=EDITS)
def test_10000_mutated_tournament_configs_load_or_fail_in_one_line(config_path, edits):
    config_case(config_path, edits)


@pytest.mark.parametrize("data", [b"\xff\xfe name: x", b"agents: [a, b\n", b"a: *b\n",
                                  b"\tname: x\n", b"[1, 2]\n", b"name: !!python/object x\n"],
                         ids=["undecodable", "unclosed", "alias", "tab", "list", "tag"])
def test_unreadable_tournament_configs_are_one_line(config_path, data):
    config_path.write_bytes(data)
    with pytest.raises(TournamentError) as info:
        load_config(config_path)
    one_line(info.value)
