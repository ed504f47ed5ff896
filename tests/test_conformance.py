"""Conformance vectors (../shared/conformance/vectors.jsonl): every record replays to its result.

Each line is ``{"record": ..., "expected": ...}``; one test per vector, ids like ``v017-classic``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyanitsa import Record

VECTORS = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "vectors.jsonl"


def _load() -> list[dict]:
    lines = VECTORS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


_VECTORS = _load()
_IDS = [f"v{i:03d}-{v['record']['mode']}" for i, v in enumerate(_VECTORS)]


def test_vectors_file_is_not_empty() -> None:
    assert len(_VECTORS) > 0
    modes = {v["record"]["mode"] for v in _VECTORS}
    assert modes == {"classic", "tactical"}


@pytest.mark.parametrize("vector", _VECTORS, ids=_IDS)
def test_vector(vector: dict) -> None:
    rec = Record.from_json(vector["record"])
    assert rec.play().to_json() == vector["expected"]


@pytest.mark.parametrize("vector", _VECTORS, ids=_IDS)
def test_vector_record_round_trip(vector: dict) -> None:
    rec = Record.from_json(vector["record"])
    text = json.dumps(rec.to_json())
    again = Record.from_json(text)
    assert again == rec
    assert again.play().to_json() == vector["expected"]
