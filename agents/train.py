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

import csv
import json
import os
import platform
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from pyanitsa.agents.policy_meta import MAX_LAYERS, MAX_UNITS
from pyanitsa.agents.protocol import Agent, BaseAgent, HandView
from pyanitsa.agents.specs import make_agent
from pyanitsa.cards import Card
from pyanitsa.config import ConfigError, first_error, read_mapping
from pyanitsa.errors import PyanitsaError

# -- the config ---------------------------------------------------------------------------------


class TrainConfigError(ConfigError):
    """A training config that does not validate; the message names the field."""


class _Model(BaseModel):
    # allow_inf_nan: pydantic takes .nan and .inf for a float field (clip_range: .inf)
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True,
                              allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # pydantic reads true as 1 for an int field: `total_steps: true` would train 1 step
        if isinstance(value, bool) and info.field_name is not None:
            annotation = cls.model_fields[info.field_name].annotation
            if annotation in (int, float, int | None, float | None):
                raise ValueError("must be a number, not true or false")
        return value


class OpponentEntry(_Model):
    """One member of the opponent pool."""

    spec: str = Field(min_length=1)
    """An agent spec: ``random``, ``descending``, ``mc_search(samples=32)``, ``ppo:PATH``."""
    weight: float = Field(1.0, gt=0)
    """Relative probability of facing it in an episode."""

    @field_validator("spec")
    @classmethod
    def _buildable(cls, v: str) -> str:
        try:
            make_agent(v)
        except PyanitsaError as exc:
            raise ValueError(str(exc)) from None
        return v


class EnvConfig(_Model):
    """The training environment."""

    id: Literal["pyanitsa/Tactical-v0"] = "pyanitsa/Tactical-v0"
    """The Gymnasium id (ordering policies: the tactical env)."""
    kwargs: dict[str, Any] = Field(default_factory=dict)
    """Constructor kwargs: ``rules``, ``players``, ``seat``, ``reward``, ``engine``
    (``opponents`` come from the pool)."""

    @field_validator("kwargs")
    @classmethod
    def _no_opponents(cls, v: dict[str, Any]) -> dict[str, Any]:
        if "opponents" in v:
            raise ValueError("opponents come from the top-level 'opponents' pool, not kwargs")
        return v


class SelfPlayConfig(_Model):
    """When frozen copies of the learner join the opponent pool."""

    every: int = Field(0, ge=0)
    """Freeze a snapshot every this many env steps (0: no self-play)."""
    start: int = Field(0, ge=0)
    """No snapshot before this many steps."""
    keep: int = Field(4, ge=1)
    """The most recent snapshots kept in the pool."""
    weight: float = Field(1.0, gt=0)
    """Pool weight shared by all snapshots (the configured opponents keep theirs)."""
    deterministic: bool = False
    """Whether snapshots play their most probable order (False: they sample, for variety)."""


class EvalConfig(_Model):
    """Periodic duplicate evaluation against named baselines."""

    every: int = Field(0, ge=0)
    """Evaluate every this many env steps (0: only at the end)."""
    deals: int = Field(200, ge=1)
    """Deals per baseline (each played twice, seats swapped)."""
    final_deals: int | None = Field(None, ge=1)
    """Deals of the final evaluation (default: ``deals``)."""
    baselines: list[str] = Field(default_factory=lambda: ["random"])
    """Agent specs to evaluate against."""
    seed: int = Field(1_000_003, ge=0)
    """Seed of the evaluation deals (the same deals at every evaluation)."""


class PPOConfig(_Model):
    """Hyperparameters handed to stable-baselines3."""

    learning_rate: float = Field(3e-4, gt=0)
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear`` decays the learning rate to zero over the run."""
    n_steps: int = Field(256, ge=1)
    """Steps per env per rollout."""
    batch_size: int = Field(512, ge=2)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(1.0, gt=0, le=1)
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[Annotated[int, Field(ge=1, le=MAX_UNITS)]] = Field(
        default_factory=lambda: [128, 128], max_length=MAX_LAYERS)
    """Hidden layers of both the policy and the value network."""
    activation: Literal["Tanh", "ReLU"] = "Tanh"


class TrainConfig(_Model):
    """A training run (``pyanitsa train CONFIG.yaml --set key=value``)."""

    name: str = Field("run", min_length=1)
    """The run's name (defaults to the config file's stem)."""
    algorithm: Literal["MaskablePPO", "PPO"] = "MaskablePPO"
    """``MaskablePPO`` (sb3-contrib; illegal ranks masked) or ``PPO`` (the env replaces an
    illegal rank by the lowest legal one)."""
    env: EnvConfig = Field(default_factory=EnvConfig)
    opponents: list[OpponentEntry] = Field(default_factory=lambda: [OpponentEntry(spec="random")],
                                           min_length=1)
    """The opponent pool: each episode draws one member per opponent seat by weight."""
    self_play: SelfPlayConfig = Field(default_factory=SelfPlayConfig)
    total_steps: int = Field(ge=1)
    """Env steps to train (one step places one card)."""
    n_envs: int = Field(8, ge=1, le=256)
    vec_env: Literal["dummy", "subproc"] = "dummy"
    """``dummy`` (all envs in this process: best on two cores) or ``subproc``."""
    seed: int = Field(0, ge=0, le=2**32 - 1)
    torch_threads: int = Field(1, ge=1)
    """torch threads; 1 is fastest on a shared two-core machine."""
    eval: EvalConfig = Field(default_factory=EvalConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    out_dir: str = Field("runs/{name}", min_length=1)
    """The run folder (``{name}`` is replaced by the run's name)."""
    export: str | None = Field(None, min_length=1)
    """Also copy ``model.pt`` and ``model.json`` to this path stem (the shipped policy:
    ``agents/policies/tactical-2p``)."""
    save_zip: bool = True
    """Also write the full stable-baselines3 ``model.zip`` (loading it needs trust)."""
    tensorboard: bool | Literal["auto"] = "auto"
    """TensorBoard logs in ``tb/``: ``auto`` when tensorboard is installed."""
    progress: bool = True
    """Show the tqdm progress bar."""

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir.replace("{name}", self.name))


def _check_spec(spec: str, where: str) -> None:
    try:
        make_agent(spec)
    except PyanitsaError as exc:
        raise ValueError(f"{where}: {exc}") from None


def check_config(cfg: TrainConfig) -> None:
    """The checks that need more than one field (run before any training)."""
    from pyanitsa.envs.tactical import TacticalEnv

    try:
        env = TacticalEnv(**cfg.env.kwargs)
    except (TypeError, ValueError) as exc:
        raise TrainConfigError(f"env.kwargs: {' '.join(str(exc).split())}") from None
    if env.players != 2 and cfg.eval.baselines:
        raise TrainConfigError("eval.baselines: duplicate evaluation plays two-player games; "
                               "use players: 2 or an empty list")
    for i, spec in enumerate(cfg.eval.baselines):
        try:
            _check_spec(spec, f"eval.baselines.{i}")
        except ValueError as exc:
            raise TrainConfigError(str(exc)) from None
    rollout = cfg.ppo.n_steps * cfg.n_envs
    if cfg.ppo.batch_size > rollout:
        raise TrainConfigError(f"ppo.batch_size: {cfg.ppo.batch_size} is larger than a rollout "
                               f"(ppo.n_steps x n_envs = {rollout})")
    if cfg.algorithm == "MaskablePPO":
        try:
            import sb3_contrib  # noqa: F401
        except ImportError:
            raise TrainConfigError("algorithm: MaskablePPO needs sb3-contrib "
                                   "(pip install 'pyanitsa[rl]')") from None


def parse_config(data: dict[str, Any], source: str = "config") -> TrainConfig:
    try:
        cfg = TrainConfig.model_validate(data)
    except ValidationError as exc:
        raise TrainConfigError(f"{source}: {first_error(exc)}") from None
    check_config(cfg)
    return cfg


def load_config(path: str | os.PathLike[str], overrides: Sequence[str] = ()) -> TrainConfig:
    """Read a YAML config and apply ``KEY=VALUE`` overrides (dotted paths, YAML values)."""
    data = read_mapping(path, overrides, error=TrainConfigError)
    return parse_config(data, source=str(path))


def config_help() -> str:
    """Every field with its type, default and docstring (``pyanitsa train --help-config``)."""
    lines: list[str] = []

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, f in model.model_fields.items():
            ann = f.annotation
            sub = ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None
            if sub is not None:
                walk(sub, f"{prefix}{name}.")
                continue
            default = "required" if f.is_required() else repr(
                f.default_factory() if f.default_factory else f.default)  # type: ignore[call-arg]
            doc = " ".join((f.description or "").split())
            lines.append(f"  {prefix}{name} (default {default})" + (f": {doc}" if doc else ""))

    walk(TrainConfig, "")
    return "\n".join(lines)


# -- the opponent pool --------------------------------------------------------------------------


class OpponentPool(BaseAgent):
    """An agent that orders each hand as one pool member drawn by weight (with the game's rng).

    Pickles as its specs and weights only; members are built on first use in each process (a
    ``ppo:`` snapshot loads its frozen weights there).
    """

    def __init__(self, entries: Sequence[tuple[str, float]]) -> None:
        if not entries:
            raise ValueError("an opponent pool needs at least one member")
        self.entries = [(str(s), float(w)) for s, w in entries]
        total = sum(w for _, w in self.entries)
        self.probs = np.array([w / total for _, w in self.entries])
        self._agents: list[Agent] | None = None
        self.spec = "pool(" + ", ".join(f"{s}:{w:g}" for s, w in self.entries) + ")"

    def __getstate__(self) -> dict[str, Any]:
        return {"entries": self.entries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["entries"])  # type: ignore[misc]

    @property
    def agents(self) -> list[Agent]:
        if self._agents is None:
            self._agents = [make_agent(s) for s, _ in self.entries]
        return self._agents

    def order_hand(self, view: HandView, rng: np.random.Generator) -> Sequence[Card]:
        i = int(rng.choice(len(self.entries), p=self.probs)) if len(self.entries) > 1 else 0
        return self.agents[i].order_hand(view, rng)


# -- callbacks ----------------------------------------------------------------------------------


def _callbacks_base() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    return BaseCallback


def make_callbacks(cfg: TrainConfig, run: Path, meta_fn: Any, log: Any) -> list[Any]:
    """The league, evaluation and progress callbacks (classes built lazily: SB3 is heavy)."""
    from pyanitsa.agents.duplicate import duplicate_match
    from pyanitsa.agents.policy import PolicyAgent, save_policy

    base = _callbacks_base()
    rules = meta_fn().make_rules()

    class League(base):  # type: ignore[misc, valid-type]
        """Freezes snapshots and swaps the envs' opponents."""

        def __init__(self) -> None:
            super().__init__()
            self.next = max(cfg.self_play.start, cfg.self_play.every)
            self.snapshots: list[str] = []

        def _on_step(self) -> bool:
            sp = cfg.self_play
            if sp.every and self.num_timesteps >= self.next:
                self.next += sp.every
                path = save_policy(self.model.policy, meta_fn(),
                                   run / "snapshots" / f"step_{self.num_timesteps}.pt")
                flag = "" if sp.deterministic else "(deterministic=False)"
                self.snapshots = (self.snapshots + [f"ppo:{path.resolve()}{flag}"])[-sp.keep:]
                entries = [(o.spec, o.weight) for o in cfg.opponents]
                share = sp.weight / len(self.snapshots)
                entries += [(s, share) for s in self.snapshots]
                self.training_env.env_method("set_opponents", OpponentPool(entries))
                log(f"step {self.num_timesteps}: snapshot {path.name}; pool of "
                    f"{len(entries)}")
            return True

    class Evaluator(base):  # type: ignore[misc, valid-type]
        """Duplicate matches against the baselines; eval.csv and learning_curve.png."""

        def __init__(self) -> None:
            super().__init__()
            self.next = cfg.eval.every or cfg.total_steps + 1
            self.rows: list[dict[str, Any]] = []
            self.latest = ""
            self.seconds = 0.0
            self.baselines = [make_agent(s) for s in cfg.eval.baselines]

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                self.next += cfg.eval.every
                if self.num_timesteps < cfg.total_steps:  # the final evaluation follows
                    self.evaluate(cfg.eval.deals)
            return True

        def evaluate(self, deals: int, final: bool = False) -> list[Any]:
            start = time.perf_counter()
            me = PolicyAgent(self.model.policy, meta_fn(), deterministic=True)
            out = []
            for spec, opp in zip(cfg.eval.baselines, self.baselines, strict=True):
                res = duplicate_match(rules, me, opp, deals, cfg.eval.seed, label=spec)
                out.append(res)
                row = {"step": self.num_timesteps, "baseline": spec, "deals": res.deals,
                       "score": round(res.score, 5), "low": round(res.low, 5),
                       "high": round(res.high, 5), "margin": round(res.margin, 4),
                       "final": int(final)}
                self.rows.append(row)
                if self.logger is not None:
                    self.logger.record(f"eval/{spec}", res.score)
            self.seconds += time.perf_counter() - start
            self.latest = " ".join(f"{r.opponent.split('(')[0]}={r.score:.3f}" for r in out)
            log(f"step {self.num_timesteps}: eval {self.latest}")
            write_eval(run, self.rows)
            return out

    class Progress(base):  # type: ignore[misc, valid-type]
        """A tqdm bar over env steps with the ETA and the last evaluation."""

        def __init__(self, evaluator: Any) -> None:
            super().__init__()
            self.bar: Any = None
            self.evaluator = evaluator

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            self.bar = tqdm(total=cfg.total_steps, unit="step", unit_scale=True,
                            dynamic_ncols=True, desc=cfg.name, disable=not cfg.progress,
                            file=sys.stderr)

        def _on_step(self) -> bool:
            self.bar.update(self.num_timesteps - self.bar.n)
            if self.evaluator.latest:
                self.bar.set_postfix_str(self.evaluator.latest, refresh=False)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    evaluator = Evaluator()
    return [League(), evaluator, Progress(evaluator)]


def write_eval(run: Path, rows: list[dict[str, Any]]) -> None:
    """``eval.csv`` and ``learning_curve.png`` from every evaluation so far."""
    if not rows:
        return
    with open(run / "eval.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for spec in dict.fromkeys(r["baseline"] for r in rows):
        pts = [r for r in rows if r["baseline"] == spec and not r["final"]]
        if not pts:
            pts = [r for r in rows if r["baseline"] == spec]
        xs = [r["step"] for r in pts]
        ax.plot(xs, [r["score"] for r in pts], marker=".", label=spec)
        ax.fill_between(xs, [r["low"] for r in pts], [r["high"] for r in pts], alpha=0.15)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("env steps")
    ax.set_ylabel("duplicate pair score (95% CI)")
    ax.set_title(f"{run.name}: evaluation against baselines")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(run / "learning_curve.png", dpi=100)
    plt.close(fig)


# -- the entry point ----------------------------------------------------------------------------


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
           "train"]
