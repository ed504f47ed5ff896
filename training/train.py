"""Train a tactical hand-ordering policy with stable-baselines3: ``pyanitsa train CONFIG.yaml``.

One readable entry point, :func:`train`, in the CleanRL manner: a typed config (every field's
docstring is its documentation; ``pyanitsa train --help-config`` prints them), derived values in
one block, an explicit seeding block, then the loop that stable-baselines3 runs with six
callbacks (:mod:`pyanitsa.training.callbacks`):

* :class:`League`: every ``self_play.every`` steps it freezes the learner's weights to
  ``snapshots/step_N.pt`` and swaps the opponents of every env to a new :class:`OpponentPool`
  (the configured opponents plus the last ``self_play.keep`` snapshots) through the env setter,
  ``vec_env.env_method("set_opponents", pool)``. The pool pickles as spec strings and weights,
  so with ``vec_env: subproc`` each worker loads the frozen weights from the snapshot file
  itself (``ppo:PATH``); the learner's live network never crosses a process boundary.
  With ``league.every`` the league of :mod:`pyanitsa.training.league` takes its place:
  snapshots ``gen_K`` and best responses to them, weighted by the meta-game's Nash equilibrium.
* :class:`EntropySchedule`: ``model.ent_coef`` from ``ppo.ent_coef``'s schedule at every
  rollout start; :class:`PinThreads`: torch back on ``torch_threads`` threads after numba's
  parallel kernels moved it.
* :class:`Evaluator`: every ``eval.every`` steps, duplicate matches (the same deals with the
  seats swapped, :mod:`pyanitsa.solvers.duplicate`) of the current policy against each baseline;
  rows go to ``eval.csv`` and the curves to ``learning_curve.png``.
* :class:`Checkpointer`: a checkpoint every ``checkpoint_every`` steps, and on SIGINT/SIGTERM.
* :class:`Progress`: a tqdm bar over env steps with the ETA and the last evaluation (log lines
  go through ``tqdm.write``, above the bar).

The learner's seat is explicit: the env's ``seat`` kwarg (default ``random``, drawn at every
reset) and the env computes the mask and the reward for that seat (tests check seat 1).

The run folder (``out_dir``) gets ``config.yaml`` (the resolved config), ``run.json`` (seed,
package versions, wall time, steps/s), ``model.pt`` + ``model.json`` (the weights-only policy
that ``ppo:OUT_DIR`` loads), ``model.zip`` (the full stable-baselines3 save; loading it
unpickles code, so ``ppo:`` needs ``trust=True``), ``eval.csv``, ``learning_curve.png``,
``snapshots/``, with a league ``league.csv`` and ``league.npz``, when tensorboard is installed,
``tb/``, and while the run is unfinished
``checkpoint.pkl`` (:mod:`pyanitsa.training.checkpoint`): ``--resume`` continues from it.
"""

from __future__ import annotations

import json
import os
import platform
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from pyanitsa.training.config import TrainConfig, TrainConfigError
from pyanitsa.training.config_load import config_help, load_config, parse_config
from pyanitsa.training.pool import OpponentPool


def train(cfg: TrainConfig, *, log: Any = None, resume: bool = False,
          force: bool = False) -> Path:
    """Train a policy as ``cfg`` says; returns the run folder (``model.pt`` is in it).

    ``resume``: continue from the run folder's checkpoint. ``force``: overwrite an existing
    ``export`` policy, and start over a run folder that holds an unfinished run's checkpoint.
    A SIGINT or SIGTERM saves a checkpoint and raises :class:`TrainingStopped`.
    """
    from stable_baselines3.common.logger import Logger

    import pyanitsa.envs  # noqa: F401  (registers the environments)
    from pyanitsa.envs.tactical import TacticalEnv
    from pyanitsa.training import callbacks as cb
    from pyanitsa.training import checkpoint as ck

    log = log or _write_line
    run = cfg.run_dir
    ckpt = _start_state(cfg, run, resume=resume, force=force)
    probe = TacticalEnv(**cfg.env.kwargs)
    rules, players = probe.rules, probe.players
    config = cfg.model_dump(mode="json")
    run.mkdir(parents=True, exist_ok=True)
    (run / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    venv = _seeded_envs(cfg)
    try:
        model = _build_model(cfg, venv, ckpt)
        extra: list[Any] = []  # distill.members > 1: the networks beside model.policy
        meta_fn, league, evaluator = _watchers(cfg, run, model, (rules, players), config, log,
                                               extra)
        seconds = dict(ckpt["seconds"]) if ckpt else {"learn": 0.0, "sessions": 0}
        seconds["sessions"] += 1
        start = time.perf_counter()

        distilled = {"done": cfg.distill is None or bool(ckpt and ckpt["callbacks"].get(
            "distilled"))}

        def save() -> Path:
            spent = {**seconds, "learn": seconds["learn"] + time.perf_counter() - start}
            return ck.save_checkpoint(run, model, config, {
                "league": league.state(), "evaluator": evaluator.state(),
                "checkpointer": checkpointer.state(), "distilled": distilled["done"]}, spent)

        with ck.stop_signals() as stop:
            checkpointer = cb.Checkpointer(cfg.checkpoint_every, save, stop, log)
            if ckpt:
                _restore(ckpt, venv, league, evaluator, checkpointer)
            # an ensemble's other members live in their fit files, so a resumed run reloads
            # them (a finished fit only loads)
            if not distilled["done"] or (cfg.distill is not None and cfg.distill.members > 1):
                extra[:] = _distill(cfg, run, model, (rules, players), stop, log, save)
                distilled["done"] = True
            if model.tensorboard_log is None:  # else SB3 makes an empty SB3-<time> temp folder
                model.set_logger(Logger(folder=None, output_formats=[]))
            model.learn(total_timesteps=cfg.total_steps - model.num_timesteps,
                        callback=[cb.EntropySchedule(cfg), league, evaluator, checkpointer,
                                  cb.PinThreads(cfg.torch_threads), cb.Progress(cfg, evaluator)],
                        tb_log_name=cfg.name, reset_num_timesteps=ckpt is None)
            if stop["signum"]:
                _stopped(stop["signum"], checkpointer, save, model)
        learn_s = seconds["learn"] + time.perf_counter() - start
        # the final evaluation can be long: a Ctrl-C in it resumes from here, not from the
        # last periodic checkpoint
        path = save()
        final_start = time.perf_counter()
        try:
            final = _finish(cfg, run, [model.policy, *extra], meta_fn, evaluator, model,
                            force=force, log=log)
        except KeyboardInterrupt:
            raise ck.TrainingStopped(signal.SIGINT, int(model.num_timesteps), path) from None
        # wall_s holds every evaluation eval_s holds, the final one included, so their
        # difference is the training time steps/s is measured on
        learn_s += time.perf_counter() - final_start
    finally:
        venv.close()
    info = _write_run_json(cfg, run, model, learn_s, evaluator, final, league,
                           seconds["sessions"])
    (run / ck.CHECKPOINT).unlink(missing_ok=True)  # finished: model.zip holds the rest
    log(f"trained {info['steps']} steps in {learn_s:.0f} s ({info['steps_per_s']:.0f} steps/s "
        f"outside evaluation); policy: {run / 'model.pt'}")
    return run


def _watchers(cfg: TrainConfig, run: Path, model: Any, game: tuple[Any, int],
              config: dict[str, Any], log: Any, extra: list[Any]) -> tuple[Any, Any, Any]:
    """What watches the learning: the sidecar of the policy as it stands (``meta_fn``), the
    league (or self-play) callback and the evaluator (``extra``: an ensemble's other
    members, filled in by the distillation)."""
    from pyanitsa.policies.meta import policy_meta
    from pyanitsa.training import callbacks as cb
    from pyanitsa.training.league import league_callback

    rules, players = game
    provenance = {"name": cfg.name, "seed": cfg.seed, "config": config}

    def meta_fn() -> Any:
        return policy_meta(model.policy, cfg.algorithm, rules, players,
                           {**provenance, "steps": int(model.num_timesteps)}, 1 + len(extra))

    evaluator = cb.Evaluator(cfg, run, meta_fn, log)
    evaluator.extra = extra
    return meta_fn, league_callback(cfg, run, meta_fn, log), evaluator


def _stopped(signum: int, checkpointer: Any, save: Any, model: Any) -> None:
    """Raise TrainingStopped for a signal; one in the last rollout had no rollout start after
    it to save at, so the checkpoint is saved here."""
    from pyanitsa.training import checkpoint as ck

    if not checkpointer.stopped:
        checkpointer.saved, checkpointer.saved_step = save(), model.num_timesteps
    raise ck.TrainingStopped(signum, checkpointer.saved_step, checkpointer.saved)


def _seeded_envs(cfg: TrainConfig) -> Any:
    """Every generator seeded from ``cfg.seed`` (a resumed run then takes their states from
    its checkpoint), and the vectorised envs started."""
    import torch
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    torch.set_num_threads(cfg.torch_threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed % 2**32)
    torch.manual_seed(cfg.seed)
    set_random_seed(cfg.seed)
    env_kwargs = {**cfg.env.kwargs, "opponents": OpponentPool(
        [(o.spec, o.weight) for o in cfg.opponents])}
    subproc = cfg.vec_env == "subproc"
    # workers start fresh: "module:id" makes gym.make import (and register) the envs there
    env_id = f"pyanitsa.envs:{cfg.env.id}" if subproc else cfg.env.id
    factories = [_env_factory(env_id, env_kwargs, cfg.seed + i) for i in range(cfg.n_envs)]
    venv = SubprocVecEnv(factories) if subproc else DummyVecEnv(factories)
    venv.seed(cfg.seed)
    return venv


def _start_state(cfg: TrainConfig, run: Path, *, resume: bool, force: bool) -> Any:
    """The checkpoint to resume from (``None``: a fresh start), after the checks that must pass
    before any training: an export that would overwrite, a checkpoint a fresh start would."""
    from pyanitsa.training import checkpoint as ck

    if cfg.export and not force:
        _refuse_overwrite(cfg.export)
    if force and not resume:
        (run / ck.CHECKPOINT).unlink(missing_ok=True)  # starting over: never resume the old one
    found = ck.read_checkpoint(run) if resume or not force else None
    if resume:
        if found is None:
            raise ck.CheckpointError(f"resume=True: no checkpoint in {run} (a run that "
                                     "finished removes it; start a new run instead)")
        ck.check_same_config(found["config"], cfg.model_dump(mode="json"), run / ck.CHECKPOINT)
        return found
    if found is not None:
        raise ck.CheckpointError(f"{run} holds the checkpoint of an unfinished run (step "
                                 f"{found['step']}): resume=True to continue it, force=True "
                                 "to start over")
    return None


def _refuse_overwrite(stem: str) -> None:
    existing = [p for p in (Path(stem).with_suffix(".pt"), Path(stem).with_suffix(".json"))
                if p.exists()]
    if existing:
        raise TrainConfigError(f"export: {existing[0]} exists; give force=True to overwrite "
                               "it, or set export to another path")


def _build_model(cfg: TrainConfig, venv: Any, ckpt: dict[str, Any] | None) -> Any:
    """A new MaskablePPO/PPO, or the checkpoint's (optimiser state and counters included)."""
    import io

    import torch

    if cfg.algorithm == "MaskablePPO":
        from sb3_contrib import MaskablePPO as Algo
    else:
        from stable_baselines3 import PPO as Algo
    lr: Any = cfg.ppo.learning_rate
    if cfg.ppo.lr_schedule == "linear":
        lr = lambda progress: cfg.ppo.learning_rate * progress  # noqa: E731
    if ckpt is not None:
        # force_reset=False: the next rollout starts from the saved observations, as the
        # interrupted run's did, instead of resetting every env
        model = Algo.load(io.BytesIO(ckpt["model"]), env=venv, device="cpu",
                          force_reset=False, custom_objects={"learning_rate": lr})
        if model.tensorboard_log is not None:  # the run folder may have moved
            model.tensorboard_log = str(cfg.run_dir / "tb")
        return model
    tb_dir = None
    if cfg.tensorboard is True or (cfg.tensorboard == "auto" and _has_tensorboard()):
        tb_dir = str(cfg.run_dir / "tb")
    p = cfg.ppo
    policy: Any = "MlpPolicy"
    policy_kwargs: dict[str, Any] = {"net_arch": {"pi": p.net_arch, "vf": p.net_arch},
                                     "activation_fn": getattr(torch.nn, p.activation)}
    if p.features != "obs" or p.prior == "hand":
        from pyanitsa.observation import TacticalLayout
        from pyanitsa.policies.prior import LastPlayed, OpponentModel, PriorPolicy

        probe = venv.envs[0].unwrapped if hasattr(venv, "envs") else None
        layout = TacticalLayout(*((probe.rules, probe.players) if probe is not None
                                  else _env_game(cfg)))
        if p.features == "last":
            policy_kwargs.update(LastPlayed.kwargs_for(layout))
        elif p.features == "model":
            policy_kwargs.update(OpponentModel.kwargs_for(layout, p.opponent_model))
        if p.prior == "hand":
            policy = PriorPolicy
            policy_kwargs.update(PriorPolicy.kwargs_for(layout))
    return Algo(policy, venv, learning_rate=lr, n_steps=p.n_steps,
                batch_size=p.batch_size, n_epochs=p.n_epochs, gamma=p.gamma,
                gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_at(0.0),
                vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=cfg.seed,
                device="cpu", tensorboard_log=tb_dir, verbose=0,
                policy_kwargs=policy_kwargs)


def _distill(cfg: TrainConfig, run: Path, model: Any, game: tuple[Any, int], stop: Any,
             log: Any, save: Any) -> list[Any]:
    """The ``distill:`` phase (returns an ensemble's members past ``model.policy``); a stop in
    it saves a checkpoint (the teacher data and the fits' last epochs are on disk), and
    ``--resume`` continues it."""
    from pyanitsa.training import checkpoint as ck
    from pyanitsa.training.distill import DistillStopped, distill

    try:
        return distill(model.policy, *game, cfg.distill.model_dump(), run, stop,
                       cfg.progress, log, cfg.algorithm)
    except DistillStopped:
        raise ck.TrainingStopped(stop["signum"], 0, save()) from None


def _env_game(cfg: TrainConfig) -> tuple[Any, int]:
    from pyanitsa.envs.tactical import TacticalEnv

    probe = TacticalEnv(**cfg.env.kwargs)
    return probe.rules, probe.players


def _restore(ckpt: dict[str, Any], venv: Any, league: Any, evaluator: Any,
             checkpointer: Any) -> None:
    from pyanitsa.training import checkpoint as ck

    for i, blob in enumerate(ckpt["envs"]):
        venv.env_method("set_state", blob, indices=[i])
    league.restore(ckpt["callbacks"]["league"])
    evaluator.restore(ckpt["callbacks"]["evaluator"])
    checkpointer.restore(ckpt["callbacks"]["checkpointer"])
    # last: building the model and the callbacks drew from the global generators
    ck.set_rng_states(ckpt["rng"])


def _finish(cfg: TrainConfig, run: Path, nets: list[Any], meta_fn: Any, evaluator: Any,
            model: Any, *, force: bool, log: Any) -> list[Any]:
    """Save the policy (``nets``: its members; and export it), then the final evaluation."""
    from pyanitsa.policies.files import save_policy

    policy = nets if len(nets) > 1 else nets[0]
    save_policy(policy, meta_fn(), run / "model.pt")
    if cfg.save_zip and len(nets) == 1:  # an SB3 save holds one network: not an ensemble
        model.save(run / "model.zip")
    if cfg.export:
        if not force:  # checked before training too; another run may have exported since
            _refuse_overwrite(cfg.export)
        exported = save_policy(policy, meta_fn(), cfg.export)
        log(f"exported the policy to {exported}")
    return evaluator.evaluate(cfg.eval.final_deals or cfg.eval.deals, final=True) \
        if cfg.eval.baselines else []


def _write_run_json(cfg: TrainConfig, run: Path, model: Any, learn_s: float, evaluator: Any,
                    final: list[Any], league: Any, sessions: int) -> dict[str, Any]:
    from pyanitsa.policies.ppo import package_versions

    train_s = learn_s - evaluator.seconds
    info = {
        "name": cfg.name, "seed": cfg.seed, "algorithm": cfg.algorithm,
        "steps": int(model.num_timesteps), "wall_s": round(learn_s, 1),
        "eval_s": round(evaluator.seconds, 1),
        "steps_per_s": round(model.num_timesteps / max(train_s, 1e-9), 1),
        "sessions": sessions, "league": league.snapshots,
        "league_weights": getattr(league, "weights", None),
        "n_envs": cfg.n_envs, "vec_env": cfg.vec_env, "torch_threads": cfg.torch_threads,
        "versions": package_versions(), "python": platform.python_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus", "command": sys.argv,
        "final_eval": [r.to_json() for r in final], "model": "model.pt",
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (run / "run.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return info


def _write_line(msg: str) -> None:
    from tqdm import tqdm

    # tqdm.write clears the progress bar, prints the line, and redraws the bar below it
    tqdm.write(msg, file=sys.stderr)


def _env_factory(env_id: str, kwargs: dict[str, Any], seed: int) -> Any:
    """A picklable env constructor (SubprocVecEnv sends it to a worker)."""
    def make() -> Any:
        import gymnasium as gym
        from stable_baselines3.common.monitor import Monitor

        from pyanitsa.training.checkpoint import ResumableEnv, ignore_sigint_in_workers

        ignore_sigint_in_workers()
        env = gym.make(env_id, **kwargs)
        env.action_space.seed(seed)
        return ResumableEnv(Monitor(env))
    return make


def _has_tensorboard() -> bool:
    import importlib.util

    return importlib.util.find_spec("tensorboard") is not None


__all__ = ["OpponentPool", "TrainConfig", "TrainConfigError", "config_help", "load_config",
           "parse_config", "train"]
