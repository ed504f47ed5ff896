"""Checkpoints of ``pyanitsa train``: a run stopped by Ctrl-C, SIGTERM or ``kill -9`` resumes
from its last checkpoint (``--resume``) and then follows the schedule of an uninterrupted run.

A checkpoint is taken at the start of a rollout, between two PPO updates, so no half-collected
rollout is lost or has to be stored. It holds:

* the algorithm as stable-baselines3 saves it (``model.save``: the weights, the optimiser's
  state, ``num_timesteps``, the update count, and the observations the next rollout starts
  from);
* every env's episode in progress (the learner's hand so far, the opponents' orders, the seat)
  and its generator, read through :class:`ResumableEnv` (also across ``subproc`` workers);
* the global generators of Python, numpy (PPO's minibatch order) and torch (its sampling);
* the callbacks' counters: the league's snapshots and next snapshot step, the evaluations'
  rows and next step, the next checkpoint step, and the seconds spent so far.

It is written to ``checkpoint.pkl.tmp``, flushed to disk, then renamed onto ``checkpoint.pkl``
(``os.replace`` is atomic): a kill at any moment leaves the previous checkpoint or the new one,
never a half-written file under the name ``--resume`` reads. It is a pickle, like SB3's
``model.zip``: resume only your own runs.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from pyanitsa.errors import CorruptFileError, PyanitsaError

CHECKPOINT = "checkpoint.pkl"
"""The checkpoint's file name in the run folder."""
FORMAT = 1
"""Bumped when the contents change; an older checkpoint is refused by name."""
_EPISODE_FIELDS = ("seat", "_orders", "_me", "result", "opponents", "_labels")
"""What a :class:`~pyanitsa.envs.tactical.TacticalEnv` changes during an episode (and
``set_opponents``); the rest is fixed at construction."""
_WRAPPER_FIELDS = ("rewards", "needs_reset", "total_steps", "_has_reset", "_elapsed_steps",
                   "checked_reset", "checked_step", "checked_data_reuse", "_previous_data")
"""What the wrappers change during an episode: SB3's ``Monitor`` (the episode's rewards so far),
gymnasium's order enforcing (``step`` before ``reset`` is an error), time limit and passive
checker (its first-step checks compare with the reset's data, which a resumed run never saw)."""
_MOVED = {"pyanitsa.agents.train": "pyanitsa.training.train"} | {
    f"pyanitsa.agents.train_{name}": f"pyanitsa.training.{name}"
    for name in ("callbacks", "checkpoint", "cli", "config", "league", "pool")} | {
    "pyanitsa.agents.best_response": "pyanitsa.solvers.best_response",
    "pyanitsa.agents.duplicate": "pyanitsa.solvers.duplicate",
    "pyanitsa.agents.equilibrium": "pyanitsa.solvers.exact",
    "pyanitsa.agents.exploit": "pyanitsa.solvers.exploitability",
    "pyanitsa.agents.model_features": "pyanitsa.policies.features",
    "pyanitsa.agents.nash": "pyanitsa.solvers.cfr",
    "pyanitsa.agents.nash_kernels": "pyanitsa.solvers.cfr_kernels",
    "pyanitsa.agents.numpy_policy": "pyanitsa.policies.numpy_actor",
    "pyanitsa.agents.policy": "pyanitsa.policies.ppo",
    "pyanitsa.agents.policy_files": "pyanitsa.policies.files",
    "pyanitsa.agents.policy_meta": "pyanitsa.policies.meta",
    "pyanitsa.agents.policy_prior": "pyanitsa.policies.prior",
    "pyanitsa.agents.response_kernels": "pyanitsa.solvers.best_response_kernels",
    "pyanitsa.agents.zero_sum": "pyanitsa.solvers.lp",
}
"""Where the modules of training went when they left ``agents/`` (issue 15), and where the
solvers and policies went when they left it for wings of their own (issue 36): a run
checkpointed before names its opponent pool ``pyanitsa.agents.train_pool.OpponentPool`` or its
network ``pyanitsa.agents.policy_prior.PriorPolicy`` and still resumes."""


class CheckpointError(PyanitsaError):
    """A run that cannot start as asked: no checkpoint to resume, one a fresh start would lose,
    or one of another version or config. (An unreadable checkpoint is a
    :class:`~pyanitsa.errors.CorruptFileError`: a failure, not bad input.)"""


class TrainingStopped(Exception):  # noqa: N818 - a stop the user asked for, not an error
    """Training stopped by a signal after saving a checkpoint."""

    def __init__(self, signum: int, step: int, path: Path) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name} at step {step}")
        self.signum, self.step, self.path = signum, step, path


class ResumableEnv(gym.Wrapper):
    """Reads and restores the episode in progress (``vec_env.env_method("get_state")``)."""

    def get_state(self) -> bytes:
        env = self.env.unwrapped
        state = {
            "env": {k: getattr(env, k) for k in _EPISODE_FIELDS},
            "rng": env.np_random.bit_generator.state,
            "action_rng": env.action_space.np_random.bit_generator.state,
            "wrappers": [{k: v for k, v in vars(w).items() if k in _WRAPPER_FIELDS}
                         for w in _wrappers(self.env)],
        }
        return pickle.dumps(state)

    def set_state(self, blob: bytes) -> None:
        state = _loads(blob)
        env = self.env.unwrapped
        for k, v in state["env"].items():
            setattr(env, k, v)
        env.np_random.bit_generator.state = state["rng"]
        env.action_space.np_random.bit_generator.state = state["action_rng"]
        for w, fields in zip(_wrappers(self.env), state["wrappers"], strict=True):
            for k, v in fields.items():
                setattr(w, k, v)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(_MOVED.get(module, module), name)


def _loads(blob: bytes) -> Any:
    return _Unpickler(io.BytesIO(blob)).load()


def _wrappers(env: gym.Env) -> list[gym.Env]:
    out = []
    while isinstance(env, gym.Wrapper):
        out.append(env)
        env = env.env
    return out


def rng_states() -> dict[str, Any]:
    import torch

    return {"python": random.getstate(), "numpy": np.random.get_state(),
            "torch": torch.get_rng_state()}


def set_rng_states(states: dict[str, Any]) -> None:
    import torch

    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])


def save_checkpoint(run: Path, model: Any, config: dict[str, Any],
                    callbacks: dict[str, Any], seconds: dict[str, float]) -> Path:
    """Write the checkpoint of ``model`` and its envs atomically; returns its path."""
    buf = io.BytesIO()
    model.save(buf)
    state = {"format": FORMAT, "step": int(model.num_timesteps), "config": config,
             "model": buf.getvalue(), "envs": model.get_env().env_method("get_state"),
             "rng": rng_states(), "callbacks": callbacks, "seconds": seconds}
    path = run / CHECKPOINT
    write_atomic(path, pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
    return path


def write_atomic(path: Path, blob: bytes) -> None:
    """``path`` holds its old bytes or ``blob``, whenever the process dies."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(blob)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_checkpoint(run: Path) -> dict[str, Any] | None:
    """The run's checkpoint, ``None`` if it has none; :class:`~pyanitsa.errors.CorruptFileError`
    if unreadable (a failure, not bad input), :class:`CheckpointError` if of another version."""
    path = run / CHECKPOINT
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        state = _loads(blob)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means the same to the user
        raise CorruptFileError(f"{path} is unreadable ({type(exc).__name__}); start over "
                               "(force=True, not resuming)") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a checkpoint of this version of pyanitsa")
    return state


def check_same_config(saved: dict[str, Any], now: dict[str, Any], path: Path) -> None:
    """A resumed run must be the same run: the first field that differs is an error."""
    # these do not change what is trained (out_dir: a moved run folder resumes; its league
    # names snapshot files relative to it)
    free = {"progress", "export", "checkpoint_every", "tensorboard", "out_dir"}

    def walk(a: Any, b: Any, where: str) -> str | None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in dict.fromkeys([*a, *b]):
                if where == "" and k in free:
                    continue
                found = walk(a.get(k), b.get(k), f"{where}{k}.")
                if found:
                    return found
            return None
        return None if a == b else where.rstrip(".")

    field = walk(saved, now, "")
    if field:
        raise CheckpointError(f"resume=True: {field} differs from the checkpoint's config "
                              f"({path}); resume with the same config and overrides")


@contextlib.contextmanager
def stop_signals() -> Iterator[dict[str, int]]:
    """While inside: the first SIGINT or SIGTERM is noted in the yielded ``{"signum": N}`` (the
    loop saves a checkpoint and stops); a second one interrupts at once."""
    stop = {"signum": 0}

    def handler(signum: int, frame: Any) -> None:
        if stop["signum"]:
            raise KeyboardInterrupt
        stop["signum"] = signum

    try:
        old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: signals cannot reach this loop anyway
        yield stop
        return
    try:
        yield stop
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def ignore_sigint_in_workers() -> None:
    """A ``subproc`` worker leaves Ctrl-C to the parent (its terminal sends SIGINT to the whole
    process group; SB3's worker would exit on it and the parent could not save)."""
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


__all__ = ["CHECKPOINT", "CheckpointError", "ResumableEnv", "TrainingStopped",
           "check_same_config", "read_checkpoint", "save_checkpoint", "set_rng_states",
           "stop_signals", "write_atomic"]
