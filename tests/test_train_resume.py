"""``pyanitsa train``: runs that survive a stop (SIGINT, SIGTERM, kill -9, a kill during the
checkpoint's write) resume to the same run as an uninterrupted one; a resume of another config
or of nothing is one line; export never overwrites without --force; log lines do not land on
the progress bar; the learning curve shows the final evaluation."""

from __future__ import annotations

import csv
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pyanitsa.agents import make_agent
from pyanitsa.cli import main
from pyanitsa.training.train import load_config

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "configs" / "train" / "smoke.yaml"
SHIPPED = REPO / "configs" / "train" / "tactical_ppo.yaml"
# 8 rollouts of 256 steps: a checkpoint and a snapshot at each, evaluations every 512 steps
RUN = ["--set", "total_steps=2048", "--set", "checkpoint_every=256", "--set", "eval.every=512",
       "--quiet"]


def train_args(out: Path, *extra: str) -> list[str]:
    return ["train", str(SMOKE), *RUN, "--set", f"out_dir={out}", *extra]


def start(out: Path, *, python: str | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-c", python] if python else [sys.executable, "-m", "pyanitsa"]
    return subprocess.Popen(cmd + ([] if python else train_args(out)), cwd=REPO,
                            stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, f"the run ended first: {proc.stderr.read()}"
        assert time.monotonic() < deadline, f"no {path} after {timeout} s"
        time.sleep(0.05)


def outcome(run: Path) -> dict:
    """What an uninterrupted and a resumed run must share."""
    info = json.loads((run / "run.json").read_text())
    return {"steps": info["steps"],
            "league": [Path(s.split(":", 1)[1].split("(")[0]).name for s in info["league"]],
            "eval": list(csv.DictReader((run / "eval.csv").open())),
            "weights": (run / "model.pt").read_bytes()}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("ref") / "run"
    assert main(train_args(out)) == 0
    assert not (out / "checkpoint.pkl").exists()  # a finished run removes it
    return outcome(out)


def check_same(run: Path, ref: dict) -> None:
    got = outcome(run)
    assert got["steps"] == ref["steps"] == 2048
    assert got["league"] == ref["league"] == ["step_1792.pt", "step_2048.pt"]
    assert [(r["step"], r["baseline"], r["final"]) for r in got["eval"]] == \
        [(r["step"], r["baseline"], r["final"]) for r in ref["eval"]]
    # every generator restored: the same numbers, the same weights, bit for bit
    assert got["eval"] == ref["eval"]
    assert got["weights"] == ref["weights"]


@pytest.mark.parametrize("sig, code", [
    (signal.SIGINT, 130),
    # SIGTERM takes the very handler SIGINT does (checkpoint.stop_signals installs one for both);
    # the SIGINT case covers it in `make test`
    pytest.param(signal.SIGTERM, 143, marks=pytest.mark.slow),
    (signal.SIGKILL, -9)])
def test_a_stopped_run_resumes_to_the_uninterrupted_run(tmp_path, uninterrupted, sig, code):
    out = tmp_path / "run"
    proc = start(out)
    wait_for(out / "checkpoint.pkl", proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    if sig == signal.SIGKILL:
        resume = train_args(out, "--resume")
    else:
        line = err.strip().splitlines()[-1]
        assert line.startswith(f"pyanitsa train: stopped by {sig.name} at step "), line
        assert f"checkpoint {out / 'checkpoint.pkl'}" in line
        resume = shlex.split(line.split("resume with: ", 1)[1])
        assert resume[:2] == ["pyanitsa", "train"] and resume[-1] == "--resume"
        resume = resume[1:]
    assert not (out / "model.pt").exists()
    assert main(resume) == 0
    check_same(out, uninterrupted)
    assert json.loads((out / "run.json").read_text())["sessions"] == 2


def test_ctrl_c_at_a_terminal_with_subproc_workers_resumes_too(tmp_path):
    # a terminal's Ctrl-C goes to the whole process group, the env workers included
    ref, out = tmp_path / "ref", tmp_path / "run"
    sub = ["--set", "vec_env=subproc", "--set", "total_steps=1024"]
    assert main(train_args(ref, *sub)) == 0
    proc = subprocess.Popen([sys.executable, "-m", "pyanitsa", *train_args(out, *sub)],
                            cwd=REPO, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    wait_for(out / "checkpoint.pkl", proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert main(train_args(out, *sub, "--resume")) == 0
    assert (out / "eval.csv").read_text() == (ref / "eval.csv").read_text()
    assert (out / "model.pt").read_bytes() == (ref / "model.pt").read_bytes()


# The checkpoint's write is killed after its bytes are in the temp file, before the rename.
KILL_IN_SECOND_WRITE = """
import os, signal, sys
real_fsync, writes = os.fsync, []
def fsync(fd):
    name = os.readlink(f"/proc/self/fd/{fd}")
    if name.endswith("checkpoint.pkl.tmp"):
        writes.append(name)
        if len(writes) == 2:
            os.ftruncate(fd, os.fstat(fd).st_size // 2)  # and half of it, for good measure
            os.kill(os.getpid(), signal.SIGKILL)
    real_fsync(fd)
os.fsync = fsync
from pyanitsa.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_kill_during_the_checkpoint_write_leaves_the_previous_one(tmp_path, uninterrupted):
    from pyanitsa.training.checkpoint import read_checkpoint

    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-c", KILL_IN_SECOND_WRITE, *train_args(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    assert (out / "checkpoint.pkl.tmp").exists()  # the half-written one, never renamed
    assert read_checkpoint(out)["step"] == 256  # the first checkpoint, whole
    assert main(train_args(out, "--resume")) == 0
    check_same(out, uninterrupted)


def stop_a_run(out: Path) -> Path:
    proc = start(out)
    wait_for(out / "checkpoint.pkl", proc)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    assert proc.returncode == 130
    return out


# A Ctrl-C during the final evaluation (after the last training step).
SIGINT_IN_FINAL_EVAL = """
import os, signal, sys
from pyanitsa.training.callbacks import Evaluator
real = Evaluator.evaluate
def evaluate(self, deals, final=False):
    if final:
        os.kill(os.getpid(), signal.SIGINT)
    return real(self, deals, final)
Evaluator.evaluate = evaluate
from pyanitsa.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_ctrl_c_in_the_final_evaluation_resumes_after_the_last_step(tmp_path, uninterrupted):
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-c", SIGINT_IN_FINAL_EVAL, *train_args(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert "stopped by SIGINT at step 2048" in proc.stderr.strip().splitlines()[-1]
    assert main(train_args(out, "--resume")) == 0
    check_same(out, uninterrupted)


@pytest.fixture(scope="module")
def stopped(tmp_path_factory) -> Path:
    """A run stopped by SIGINT, its checkpoint on disk (copy it before use)."""
    return stop_a_run(tmp_path_factory.mktemp("stopped") / "run")


def one_line_error(capsys, *words: str) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("pyanitsa train: error: "), err
    for w in words:
        assert w in err, err
    return err


def test_resume_refuses_another_config(tmp_path, capsys):
    out = stop_a_run(tmp_path / "run")
    assert main(train_args(out, "--set", "seed=5", "--resume")) == 2
    one_line_error(capsys, "--resume: seed differs")
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    shutil.rmtree(out / "snapshots")  # the league's snapshots are found in the moved folder
    assert main(train_args(moved, "--resume")) == 0
    shutil.copytree(moved / "snapshots", out / "snapshots")
    # the progress bar and the checkpoint interval change nothing trained: accepted
    assert main(train_args(out, "--set", "checkpoint_every=512", "--set", "progress=true",
                           "--resume")) == 0


def test_a_fresh_start_does_not_overwrite_an_unfinished_run(tmp_path, stopped, capsys):
    out = tmp_path / "run"
    shutil.copytree(stopped, out)
    assert main(train_args(out)) == 2
    one_line_error(capsys, str(out), "--resume", "--force")
    assert (out / "checkpoint.pkl").exists()
    assert main(train_args(out, "--force")) == 0
    assert not (out / "checkpoint.pkl").exists()


def test_resume_without_a_usable_checkpoint_is_one_line(tmp_path, stopped, capsys):
    assert main(train_args(tmp_path / "none", "--resume")) == 2
    one_line_error(capsys, "--resume: no checkpoint in")
    out = tmp_path / "run"
    shutil.copytree(stopped, out)
    blob = (out / "checkpoint.pkl").read_bytes()
    (out / "checkpoint.pkl").write_bytes(blob[: len(blob) // 2])
    assert main(train_args(out, "--resume")) == 2
    one_line_error(capsys, "checkpoint.pkl is unreadable")


def test_a_checkpoint_taken_before_training_left_agents_resumes(monkeypatch):
    """Checkpoints written before issue 15 moved training out of agents/ name the opponent pool
    ``pyanitsa.agents.train_pool.OpponentPool``; the envs of such a run still resume."""
    import types

    from pyanitsa.envs.tactical import TacticalEnv
    from pyanitsa.training.checkpoint import ResumableEnv
    from pyanitsa.training.pool import OpponentPool

    old = ResumableEnv(TacticalEnv("tactical", opponents="random"))
    old.reset(seed=1)
    old.unwrapped.opponents = [OpponentPool([("random", 1.0), ("descending", 3.0)])]
    with monkeypatch.context() as m:  # the pool pickled as the old module had it
        m.setitem(sys.modules, "pyanitsa.agents.train_pool",
                  types.SimpleNamespace(OpponentPool=OpponentPool))
        m.setattr(OpponentPool, "__module__", "pyanitsa.agents.train_pool")
        blob = old.get_state()
    assert b"pyanitsa.agents.train_pool" in blob and b"pyanitsa.training" not in blob
    assert "pyanitsa.agents.train_pool" not in sys.modules
    env = ResumableEnv(TacticalEnv("tactical", opponents="ascending"))
    env.reset(seed=2)
    env.set_state(blob)
    (pool,) = env.unwrapped.opponents
    assert isinstance(pool, OpponentPool)
    assert pool.entries == [("random", 1.0), ("descending", 3.0)]
    assert env.unwrapped.seat == old.unwrapped.seat


def test_export_never_overwrites_without_force(tmp_path, capsys):
    stem = tmp_path / "policies" / "mine"
    stem.parent.mkdir()
    stem.with_suffix(".pt").write_bytes(b"the shipped weights")
    out = tmp_path / "run"
    assert main(train_args(out, "--set", f"export={stem}")) == 2
    one_line_error(capsys, f"export: {stem.with_suffix('.pt')} exists", "--force")
    assert stem.with_suffix(".pt").read_bytes() == b"the shipped weights"
    assert not (out / "eval.csv").exists()  # refused before any training
    assert main(train_args(out, "--set", f"export={stem}", "--set", "total_steps=256",
                           "--force")) == 0
    assert json.loads(stem.with_suffix(".json").read_text())["players"] == 2
    assert type(make_agent(f"ppo:{stem}")).__name__ == "PolicyAgent"


def test_the_shipped_config_leaves_the_shipped_policy_alone():
    cfg = load_config(SHIPPED)
    shipped = (REPO / "policies" / "shipped" / "tactical-2p.pt").resolve()
    assert shipped.is_file()
    assert cfg.export is None or (REPO / cfg.export).with_suffix(".pt").resolve() != shipped


def test_log_lines_never_print_onto_the_progress_bar(tmp_path, capsys):
    out = tmp_path / "run"
    args = [a for a in train_args(out) if a != "--quiet"]
    assert main([*args, "--set", "total_steps=1024", "--set", "progress=true"]) == 0
    err = capsys.readouterr().err
    logs = [line for line in err.split("\n") if "step 512: eval" in line or "snapshot" in line]
    assert len(logs) >= 4, err
    for line in logs:
        # tqdm.write clears the bar's line (a carriage return) before the message; a plain
        # print would append it to the bar: "run:  25%|██▌  | 256/1024 [...]step 256: ..."
        assert line.split("\r")[-1].startswith("step "), repr(line)


def test_the_learning_curve_includes_the_final_evaluation(tmp_path, monkeypatch):
    import matplotlib.figure

    from pyanitsa.training.callbacks import write_eval

    figures = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda fig, *a, **k: figures.append(fig))
    rows = [{"step": s, "baseline": b, "deals": 20, "score": 0.5, "low": 0.4, "high": 0.6,
             "margin": 0.0, "final": int(s == 3000)}
            for s in (1000, 2000, 3000) for b in ("random", "descending")]
    write_eval(tmp_path, rows)
    (ax,) = figures[0].axes
    for label in ("random", "descending"):
        (curve,) = [ln for ln in ax.lines if ln.get_label() == label]
        assert list(curve.get_xdata()) == [1000, 2000, 3000]
