"""Issue 12, finding 6, beyond ``replay``: :meth:`Record.from_json` and the ``tournament``
config loader on mutated input (bytes flipped, inserted or deleted) either succeed or raise a
:class:`~pyanitsa.errors.PyanitsaError` of one line, never another exception type.

Each has a fast variant (300 examples) and a slow one (10,000, ``pytest -m slow``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyanitsa.errors import PyanitsaError
from pyanitsa.records import Record
from pyanitsa.tournaments.config import TournamentError, load_config

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT.parent / "shared" / "conformance" / "vectors.jsonl"
RECORDS = ([json.dumps(json.loads(line)["record"]).encode()
            for line in VECTORS.read_bytes().splitlines()] if VECTORS.is_file() else [])
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


# -- Record.from_json --------------------------------------------------------------------------

needs_vectors = pytest.mark.skipif(not RECORDS, reason=f"no conformance vectors at {VECTORS}")


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
