"""Train a tactical hand-ordering policy with stable-baselines3: ``pyanitsa train CONFIG.yaml``.

One readable entry point, :func:`train`, in the CleanRL manner: a typed config (every field's
docstring is its documentation; ``pyanitsa train --help-config`` prints them), derived values in
one block, an explicit seeding block, then the loop that stable-baselines3 runs with three
callbacks:

* :class:`League`: every ``self_play.every`` steps it freezes the learner's weights to
  ``snapshots/step_N.pt`` and swaps the opponents of every env to a new :class:`OpponentPool`
  (the configured opponents plus the last ``self_play.keep`` snapshots) through the env setter,
  ``vec_env.env_method("set_opponents", pool)``. The pool pickles as spec strings and weights,
  so with ``vec_env: subproc`` each worker loads the frozen weights from the snapshot file
  itself (``ppo:PATH``); the learner's live network never crosses a process boundary.
* :class:`Evaluator`: every ``eval.every`` steps, duplicate matches (the same deals with the
  seats swapped, :mod:`pyanitsa.agents.duplicate`) of the current policy against each baseline;
  rows go to ``eval.csv`` and the curves to ``learning_curve.png``.
* :class:`Progress`: a tqdm bar over env steps with the ETA and the last evaluation.

The learner's seat is explicit: the env's ``seat`` kwarg (default ``random``, drawn at every
reset) and the env computes the mask and the reward for that seat (tests check seat 1).

The run folder (``out_dir``) gets ``config.yaml`` (the resolved config), ``run.json`` (seed,
package versions, wall time, steps/s), ``model.pt`` + ``model.json`` (the weights-only policy
that ``ppo:OUT_DIR`` loads), ``model.zip`` (the full stable-baselines3 save; loading it
unpickles code, so ``ppo:`` needs ``trust=True``), ``eval.csv``, ``learning_curve.png``,
``snapshots/`` and, when tensorboard is installed, ``tb/``.
"""

from __future__ import annotations

import json
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from pyanitsa.agents.train_callbacks import OpponentPool, make_callbacks
from pyanitsa.agents.train_config import (
    TrainConfig,
    TrainConfigError,
    config_help,
    load_config,
    parse_config,
)


def train(cfg: TrainConfig, *, log: Any = None) -> Path:
    """Train a policy as ``cfg`` says; returns the run folder (``model.pt`` is in it)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    import pyanitsa.envs  # noqa: F401  (registers the environments)
    from pyanitsa.agents.policy import package_versions, policy_meta, save_policy
    from pyanitsa.envs.tactical import TacticalEnv

    log = log or (lambda msg: print(msg, file=sys.stderr))
    # -- derived values --
    run = cfg.run_dir
    run.mkdir(parents=True, exist_ok=True)
    probe = TacticalEnv(**cfg.env.kwargs)
    rules, players = probe.rules, probe.players
    env_kwargs = {**cfg.env.kwargs, "opponents": OpponentPool(
        [(o.spec, o.weight) for o in cfg.opponents])}
    subproc = cfg.vec_env == "subproc"
    # workers start fresh: "module:id" makes gym.make import (and register) the envs there
    env_id = f"pyanitsa.envs:{cfg.env.id}" if subproc else cfg.env.id
    tb_dir = None
    if cfg.tensorboard is True or (cfg.tensorboard == "auto" and _has_tensorboard()):
        tb_dir = str(run / "tb")
    lr: Any = cfg.ppo.learning_rate
    if cfg.ppo.lr_schedule == "linear":
        lr = lambda progress: cfg.ppo.learning_rate * progress  # noqa: E731

    # -- seeding --
    torch.set_num_threads(cfg.torch_threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed % 2**32)
    torch.manual_seed(cfg.seed)
    set_random_seed(cfg.seed)

    (run / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(mode="json"),
                                                    sort_keys=False), encoding="utf-8")
    factories = [_env_factory(env_id, env_kwargs, cfg.seed + i) for i in range(cfg.n_envs)]
    venv = SubprocVecEnv(factories) if subproc else DummyVecEnv(factories)
    venv.seed(cfg.seed)
    try:
        if cfg.algorithm == "MaskablePPO":
            from sb3_contrib import MaskablePPO as Algo
        else:
            from stable_baselines3 import PPO as Algo
        p = cfg.ppo
        model = Algo("MlpPolicy", venv, learning_rate=lr, n_steps=p.n_steps,
                     batch_size=p.batch_size, n_epochs=p.n_epochs, gamma=p.gamma,
                     gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
                     vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=cfg.seed,
                     device="cpu", tensorboard_log=tb_dir, verbose=0,
                     policy_kwargs={"net_arch": {"pi": p.net_arch, "vf": p.net_arch},
                                    "activation_fn": getattr(torch.nn, p.activation)})
        provenance = {"name": cfg.name, "seed": cfg.seed,
                      "config": cfg.model_dump(mode="json")}

        def meta_fn() -> Any:
            return policy_meta(model.policy, cfg.algorithm, rules, players,
                               {**provenance, "steps": int(model.num_timesteps)})

        callbacks = make_callbacks(cfg, run, meta_fn, log)
        evaluator = callbacks[1]
        start = time.perf_counter()
        model.learn(total_timesteps=cfg.total_steps, callback=callbacks,
                    tb_log_name=cfg.name)
        learn_s = time.perf_counter() - start
        pt = save_policy(model.policy, meta_fn(), run / "model.pt")
        if cfg.save_zip:
            model.save(run / "model.zip")
        if cfg.export:
            exported = save_policy(model.policy, meta_fn(), cfg.export)
            log(f"exported the policy to {exported}")
        final = evaluator.evaluate(cfg.eval.final_deals or cfg.eval.deals, final=True) \
            if cfg.eval.baselines else []
    finally:
        venv.close()
    train_s = learn_s - evaluator.seconds
    info = {
        "name": cfg.name, "seed": cfg.seed, "algorithm": cfg.algorithm,
        "steps": int(model.num_timesteps), "wall_s": round(learn_s, 1),
        "eval_s": round(evaluator.seconds, 1),
        "steps_per_s": round(model.num_timesteps / max(train_s, 1e-9), 1),
        "n_envs": cfg.n_envs, "vec_env": cfg.vec_env, "torch_threads": cfg.torch_threads,
        "versions": package_versions(), "python": platform.python_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus", "command": sys.argv,
        "final_eval": [r.to_json() for r in final], "model": pt.name,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (run / "run.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    log(f"trained {info['steps']} steps in {learn_s:.0f} s ({info['steps_per_s']:.0f} steps/s "
        f"outside evaluation); policy: {pt}")
    return run


def _env_factory(env_id: str, kwargs: dict[str, Any], seed: int) -> Any:
    """A picklable env constructor (SubprocVecEnv sends it to a worker)."""
    def make() -> Any:
        import gymnasium as gym
        from stable_baselines3.common.monitor import Monitor

        env = gym.make(env_id, **kwargs)
        env.action_space.seed(seed)
        return Monitor(env)
    return make


def _has_tensorboard() -> bool:
    import importlib.util

    return importlib.util.find_spec("tensorboard") is not None


__all__ = ["OpponentPool", "TrainConfig", "TrainConfigError", "config_help", "load_config",
           "parse_config", "train"]
