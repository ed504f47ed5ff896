"""Every example of README.md and docs/*.md runs as written.

Each document is one session, the way a reader follows it top to bottom: in a fresh folder
that holds links to the repo's ``configs/`` and ``examples/`` (and ``../shared``), its
```` ```sh ````/```` ```bash ```` blocks run in bash (``set -e``, the venv's ``pyanitsa`` first
on ``PATH``), its ```` ```console ```` blocks run each ``$ COMMAND`` and compare the lines
after it with what the command prints, and its ```` ```python ```` blocks (and ``>>>``
sessions) run in a fresh interpreter. A Python block that shows its output, as the comment of
a ``print(...)`` line or as ``# ...`` lines, must print exactly that. A block preceded by
``<!-- file: NAME -->`` is written to ``NAME`` before the session starts (the configs the
commands name); one preceded by ``<!-- no-run: REASON -->`` is skipped, visibly, for the
REASON (only for what cannot run here).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_KINDS = ("sh", "bash", "console", "python", "pycon")
TIMEOUT = 600.0
"""A guard against a hang, never a speed test: examples are kept short by what they ask for
(the whole test takes a minute or two on an idle two-core machine)."""

FENCE = re.compile(r"^```(\w*)\s*$")
MARKER = re.compile(r"^<!--\s*(no-run|file):\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Example:
    """One fenced block of a document."""

    doc: str
    line: int
    """The line of the opening fence (1-based)."""
    lang: str
    text: str
    marker: tuple[str, str] | None = None
    """``("no-run", reason)`` or ``("file", name)`` from the HTML comment before the block."""

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def extract(text: str, doc: str) -> list[Example]:
    """The fenced blocks of a markdown text, with the marker comment before each."""
    out: list[Example] = []
    lines = text.splitlines()
    marker: tuple[str, str] | None = None
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m:
            marker = (m.group(1), m.group(2))
        elif (f := FENCE.match(lines[i])):
            start, body = i, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            lang = f.group(1)
            if lang == "python" and body and body[0].startswith(">>> "):
                lang = "pycon"
            out.append(Example(doc, start + 1, lang, "\n".join(body) + "\n", marker))
            marker = None
        elif lines[i].strip():
            marker = None  # a marker belongs to the block right after it
        i += 1
    return out


def shown_output(code: str) -> list[str]:
    """What a Python block says it prints: its prints' comments, then the ``# ...`` lines
    that end it."""
    lines = code.rstrip("\n").splitlines()
    tail = len(lines)
    while tail and lines[tail - 1].startswith("# "):
        tail -= 1
    said = [ln.split("  # ", 1)[1].strip() for ln in lines[:tail]
            if ln.lstrip().startswith("print(") and "  # " in ln]
    return said + [ln[2:] for ln in lines[tail:]]


def matches(shown: list[str], got: list[str]) -> bool:
    """Whether printed lines are those shown, where ``...`` in a line stands for any text and
    a line of just ``...`` for any number of lines (doctest's ELLIPSIS)."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if ln.strip() == "..." else
                      ".*?".join(map(re.escape, ln.split("..."))) + r"\n" for ln in shown)
    return re.fullmatch(pattern, "".join(g + "\n" for g in got)) is not None


def pycon_code(text: str) -> tuple[str, list[str]]:
    """The code of a ``>>>`` session and the output lines it shows."""
    code, shown = [], []
    for ln in text.splitlines():
        if ln.startswith((">>> ", "... ")) or ln in (">>>", "..."):
            code.append(ln[4:])
        elif ln.strip():
            shown.append(ln)
    return "\n".join(code) + "\n", shown


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """The ``$ COMMAND`` lines of a console block, each with the output shown after it."""
    steps: list[tuple[str, list[str]]] = []
    for ln in text.splitlines():
        if ln.startswith("$ "):
            steps.append((ln[2:], []))
        elif steps:
            steps[-1][1].append(ln)
    return steps


def session_dir(tmp: Path) -> Path:
    """A folder laid out like the repo for the examples' relative paths."""
    work = tmp / "work"
    work.mkdir()
    for name in ("configs", "examples"):
        (work / name).symlink_to(ROOT / name)
    shared = ROOT.parent / "shared"
    if shared.exists():
        (tmp / "shared").symlink_to(shared.resolve())
    return work


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["MPLBACKEND"] = "Agg"
    env["PYTHONPATH"] = ""
    return env


def run(args: list[str], cwd: Path, *, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=environment(), input=stdin, text=True,
                          capture_output=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL if stdin is None else None)


def check(ex: Example, cwd: Path) -> str | None:
    """Run one example; ``None`` if it did what it shows, else what went wrong."""
    if ex.lang in ("sh", "bash"):
        p = run(["bash", "-e", "-u", "-o", "pipefail", "-x", "-c", ex.text], cwd)
        if p.returncode:
            return f"exit {p.returncode}\n{p.stderr[-3000:]}"
        return None
    if ex.lang == "console":
        for cmd, shown in console_steps(ex.text):
            p = run(["bash", "-o", "pipefail", "-c", cmd], cwd)
            # an error is read on stderr; a success's stderr holds only progress bars
            got = (p.stdout + p.stderr if p.returncode else p.stdout).splitlines()
            if not matches(shown, got):
                return f"$ {cmd}\nshows {shown}\nprints {got}"
        return None
    code, shown = pycon_code(ex.text) if ex.lang == "pycon" else (ex.text, shown_output(ex.text))
    if ex.lang == "pycon":
        code = "\n".join(f"print(repr(_)) if (_ := ({ln})) is not None else None"
                         if _is_expression(ln) else ln for ln in code.splitlines()) + "\n"
    p = run([sys.executable, "-c", code], cwd)
    if p.returncode:
        return f"exit {p.returncode}\n{p.stderr[-3000:]}"
    if shown and not matches(shown, p.stdout.splitlines()):
        return f"shows {shown}\nprints {p.stdout.splitlines()}"
    return None


def _is_expression(line: str) -> bool:
    if not line or line[0].isspace():
        return False
    try:
        compile(line, "<doc>", "eval")
    except SyntaxError:
        return False
    return True


def examples(path: Path) -> list[Example]:
    return extract(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))


def run_session(exs: list[Example], tmp: Path) -> tuple[list[str], list[str]]:
    """Run a document's examples in order; the failures and the skipped ones."""
    cwd = session_dir(tmp)
    for ex in exs:
        if ex.marker and ex.marker[0] == "file":
            (cwd / ex.marker[1]).write_text(ex.text, encoding="utf-8")
    failures, skipped = [], []
    for ex in exs:
        if ex.lang not in RUN_KINDS or (ex.marker and ex.marker[0] == "file"):
            continue
        if ex.marker:
            skipped.append(f"{ex.where}: {ex.marker[1]}")
            continue
        t0 = time.perf_counter()
        try:
            problem = check(ex, cwd)
        except subprocess.TimeoutExpired:
            problem = f"still running after {TIMEOUT:.0f} s: a hang, or show a shorter version"
        took = time.perf_counter() - t0
        print(f"{ex.where}: {took:.1f} s")  # shown with -s, or on a failure
        if problem:
            failures.append(f"{ex.where} ({took:.1f} s): {problem}")
    return failures, skipped


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_every_example_runs_as_written(path: Path, tmp_path: Path) -> None:
    exs = examples(path)
    failures, skipped = run_session(exs, tmp_path)
    for reason in skipped:
        print(f"not run: {reason}")
    assert not failures, "\n\n".join(failures)


def test_no_run_markers_give_a_reason_and_stay_few() -> None:
    marked = [ex for p in DOCS for ex in examples(p) if ex.marker and ex.marker[0] == "no-run"]
    assert all(ex.marker and ex.marker[1] for ex in marked)
    assert len(marked) <= 4, [ex.where for ex in marked]


def test_a_broken_example_fails(tmp_path: Path) -> None:
    """The runner catches a failing command, a wrong shown output and a Python error."""
    text = ("```sh\npyanitsa play --preset no-such-preset\n```\n\n"
            "```console\n$ echo hi\nhello\n```\n\n"
            "```python\nprint(1 + 1)  # 3\n```\n\n"
            "```python\nraise SystemExit(3)\n```\n\n"
            "```python\n>>> 1 + 1\n3\n```\n\n"
            "<!-- no-run: a test of the marker -->\n```sh\nfalse\n```\n\n"
            "```sh\npyanitsa replay --help > /dev/null\n```\n")
    failures, skipped = run_session(extract(text, "fake.md"), tmp_path)
    assert [f.split(" ", 1)[0] for f in failures] == [
        "fake.md:1", "fake.md:5", "fake.md:10", "fake.md:14", "fake.md:18"]
    assert skipped == ["fake.md:24: a test of the marker"]
