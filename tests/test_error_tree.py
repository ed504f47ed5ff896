"""Two branches of errors (issue 36): bad input is a ``PyanitsaError`` (``ValueError``), a
failure that no input caused is a ``PyanitsaRuntimeError`` (``RuntimeError``); the command
line prints either in one line, in the words of its flags, while the layers below name values.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pyanitsa.errors as errors
from pyanitsa.agents.cmd import BotError
from pyanitsa.agents.game import AgentFailure
from pyanitsa.agents.guard import AgentRaised
from pyanitsa.agents.human import OrderError
from pyanitsa.agents.sandbox import SandboxError
from pyanitsa.agents.seeding import AgentKeyError
from pyanitsa.agents.specs import AgentSpecError
from pyanitsa.cli.enumerate import EnumerateError
from pyanitsa.cli.errors import CliError, in_flags
from pyanitsa.cli.hunt import HuntError
from pyanitsa.cli.solve_table import SolveConfigError
from pyanitsa.config import ConfigError
from pyanitsa.errors import CorruptFileError, PyanitsaError, PyanitsaRuntimeError
from pyanitsa.events import InvalidEventError
from pyanitsa.folder_lock import FolderLock, FolderLockedError
from pyanitsa.protocol import UnsupportedDecisionError
from pyanitsa.research.enumeration_store import StoreError
from pyanitsa.research.hunt import HuntMismatch
from pyanitsa.research.hunt_store import LOCK_NAME, HuntStore
from pyanitsa.results import InvalidResultError
from pyanitsa.rules import Rules
from pyanitsa.solvers.exact import GameTooLargeError
from pyanitsa.solvers.mccfr import StrategyFileError
from pyanitsa.tournaments.config import TournamentConfigError, TournamentError
from pyanitsa.tournaments.store import TournamentStoreError
from pyanitsa.workers.worker import WorkerError

ROOT = Path(__file__).resolve().parent.parent
WINGS = ("pyanitsa", "research", "envs", "agents", "ratings", "solvers", "workers", "policies",
         "tournaments", "training", "cli")

INPUT = {
    errors.InvalidCardError, errors.InvalidDeckError, errors.InvalidRulesError,
    errors.InvalidRecordError, errors.InvalidPositionError, errors.IllegalActionError,
    ConfigError, TournamentError, TournamentConfigError, TournamentStoreError, StoreError,
    AgentKeyError, AgentSpecError, OrderError, UnsupportedDecisionError, GameTooLargeError,
    CliError, HuntError, EnumerateError, InvalidEventError, InvalidResultError,
    StrategyFileError, SolveConfigError, SandboxError,
}
"""Values a caller can fix: a card, a rule option, a config field, a spec, a flag."""
BY_NAME_INPUT = {"TrainConfigError", "CheckpointError", "PolicyLoadError", "NoStoredStrategyError"}
"""Input errors of the torch wings, checked by their source (importing them needs torch)."""
RUNTIME = {CorruptFileError, FolderLockedError, AgentRaised, AgentFailure, BotError,
           HuntMismatch, WorkerError}
"""Failures: a damaged file, a held folder, an agent or bot that failed, workers that died,
two engines that disagree."""


@pytest.mark.parametrize("cls", sorted(INPUT, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_bad_input_is_a_value_error(cls):
    assert issubclass(cls, PyanitsaError) and issubclass(cls, ValueError)
    assert not issubclass(cls, RuntimeError)


@pytest.mark.parametrize("cls", sorted(RUNTIME, key=lambda c: c.__name__),
                         ids=lambda c: c.__name__)
def test_a_failure_is_a_runtime_error_and_not_bad_input(cls):
    assert issubclass(cls, PyanitsaRuntimeError) and issubclass(cls, RuntimeError)
    assert not issubclass(cls, ValueError)


def _error_classes() -> dict[str, tuple[str, list[str]]]:
    """Every class of the wings whose name ends in Error (or that subclasses one): its file
    and the names of its bases."""
    found: dict[str, tuple[str, list[str]]] = {}
    for wing in WINGS:
        for path in sorted((ROOT / wing).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                    found[node.name] = (str(path.relative_to(ROOT)), bases)
    known = {"PyanitsaError", "PyanitsaRuntimeError"}
    grown = True
    while grown:  # the classes that derive from the two bases, through any depth
        more = {n for n, (_, bases) in found.items() if known & set(bases)} - known
        grown = bool(more)
        known |= more
    return {n: found[n] for n in known if n in found}


def test_every_error_class_is_in_a_branch_on_purpose():
    """A new error class must be sorted into one branch here, so no failure is a ValueError
    by accident, and CliError lives in cli/ alone."""
    classes = _error_classes()
    sorted_ = ({c.__name__ for c in INPUT | RUNTIME} | BY_NAME_INPUT
               | {"PyanitsaError", "PyanitsaRuntimeError"})
    assert set(classes) == sorted_
    assert classes["CliError"][0] == "cli/errors.py"
    assert not hasattr(errors, "CliError")
    for name in BY_NAME_INPUT:  # no torch needed: their bases are input errors
        assert set(classes[name][1]) <= {"PyanitsaError", "ConfigError"}, name


def test_layers_below_the_cli_name_values_and_the_cli_names_flags(tmp_path):
    rules = Rules.from_options({"pickup_order": "natural"}, deck="ranks=4,suits=4")
    with pytest.raises(StoreError) as info:
        HuntStore(tmp_path / "none", rules, {"seed": 0}, resume=True)
    assert str(info.value).startswith("resume=True: ") and "--" not in str(info.value)
    assert in_flags(str(info.value)).startswith("--resume: ")
    assert in_flags("range_size=0 must be at least 1") == "--range-size 0 must be at least 1"
    assert in_flags("override 'x': use KEY=VALUE; same config and overrides") == \
        "--set 'x': use KEY=VALUE; same config and overrides"


ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
HUNT = [sys.executable, "-m", "pyanitsa", "hunt", "--no-progress", "--deck", "ranks=4,suits=4",
        "--set", "pickup_order=natural", "--set", "dispute_exhausted=discard"]


def _one_line(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr


def test_a_held_folder_is_one_line_and_a_nonzero_exit(tmp_path):
    """A runtime failure, end to end: another run holds the hunt's folder."""
    out = tmp_path / "h"
    with FolderLock.acquire(out, LOCK_NAME):
        err = _one_line([*HUNT, "--deals", "256", "--output", str(out)])
    assert err.startswith("pyanitsa hunt: error: ") and f"{out} is in use by another hunt" in err
    assert f"(pid {os.getpid()})" in err


def test_a_damaged_store_is_one_line_and_the_flag_the_user_typed(tmp_path):
    """A damaged store is a failure (CorruptFileError), in one line; the message of a store
    that does not exist names the --resume flag the user typed."""
    out = tmp_path / "h"
    out.mkdir()
    (out / "hunt.sqlite").write_bytes(b"\x00\xffnot a database at all\n" * 64)
    err = _one_line([*HUNT[:5], "--output", str(out), "--resume"])
    assert f"{out / 'hunt.sqlite'}: not a hunt store" in err
    err = _one_line([*HUNT, "--output", str(tmp_path / "none"), "--resume"])
    assert "--resume: " in err and "resume=True" not in err and "holds no hunt" in err
