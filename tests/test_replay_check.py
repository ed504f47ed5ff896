"""`pyanitsa replay --check` ends with a summary line: records checked, results that differ."""

from __future__ import annotations

import json
from pathlib import Path

from pyanitsa.cli import main

LINE = {"record": {"mode": "tactical", "deck": {"ranks": 4, "suits": 2}, "rules": {},
                   "hands": [[4, 3, 2, 1], [1, 2, 3, 4]]},
        "expected": {"outcome": "draw", "winners": [0, 1], "scores": [4, 4], "removed": 0,
                     "rounds": 4, "showdowns": 4}}


def check(tmp_path: Path, capsys, lines: list[dict]) -> tuple[int, str, str]:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code = main(["replay", "--check", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_clean_check_says_how_many_records_matched(tmp_path, capsys, vectors_path):
    code = main(["replay", "--check", str(vectors_path)])
    out = capsys.readouterr()
    n = len(vectors_path.read_text().splitlines())
    assert code == 0
    assert len(out.out.splitlines()) == n  # standard output stays one result a line
    assert out.err == f"checked {n} records: all match\n"


def test_mismatches_are_counted_in_the_summary(tmp_path, capsys):
    wrong = {**LINE, "expected": {**LINE["expected"], "rounds": 5}}
    code, out, err = check(tmp_path, capsys, [LINE, wrong, LINE, wrong, wrong])
    assert code == 1
    assert len(out.splitlines()) == 5
    lines = err.splitlines()
    assert lines[:3] == [f"line {i}: expected {json.dumps(wrong['expected'])}" for i in (2, 4, 5)]
    assert lines[3:] == ["checked 5 records: 3 result(s) differ"]


def test_one_record_is_singular(tmp_path, capsys):
    code, _, err = check(tmp_path, capsys, [LINE])
    assert (code, err) == (0, "checked 1 record: all match\n")


def test_without_check_there_is_no_summary(tmp_path, capsys):
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(LINE) + "\n")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().err == ""
