"""Reading a training config (:class:`~pyanitsa.training.config.TrainConfig`): YAML plus
``--set`` overrides, the checks that need more than one field (they build the env and the
agents the config names), and the field help of ``pyanitsa train --help-config``. Every
failure is one :class:`~pyanitsa.training.config.TrainConfigError` line naming the field."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from pyanitsa.agents.specs import make_agent
from pyanitsa.config import first_error, read_mapping
from pyanitsa.errors import PyanitsaError
from pyanitsa.training.config import TrainConfig, TrainConfigError


def _check_spec(spec: str, where: str) -> None:
    try:
        make_agent(spec)
    except PyanitsaError as exc:
        raise TrainConfigError(f"{where}: {exc}") from None


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
        _check_spec(spec, f"eval.baselines.{i}")
    _check_league(cfg, env.players)
    if cfg.total_steps == 0 and cfg.distill is None:
        raise TrainConfigError("total_steps: 0 trains nothing (give at least 1, or distill:)")
    _check_distill(cfg, env)
    if cfg.distill is not None and cfg.distill.holdout >= cfg.distill.deals:
        raise TrainConfigError(f"distill.holdout: {cfg.distill.holdout} leaves no training "
                               f"deals of {cfg.distill.deals}")
    if cfg.distill is not None and cfg.distill.members > 1 and (
            cfg.total_steps or cfg.league.every or cfg.self_play.every):
        raise TrainConfigError(f"distill.members: {cfg.distill.members} networks are fitted "
                               "and saved as one policy; PPO, a league or self-play train one "
                               "network (set total_steps: 0, league.every: 0, "
                               "self_play.every: 0)")
    _check_features(cfg, env)
    if cfg.ppo.prior == "hand" and cfg.algorithm != "MaskablePPO":
        raise TrainConfigError("ppo.prior: hand needs algorithm: MaskablePPO (set ppo.prior: "
                               "none for PPO)")
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


def _check_distill(cfg: TrainConfig, env: Any) -> None:
    """A solved teacher is two-player; a stored one needs a strategy for the env's table."""
    if cfg.distill is None:
        return
    if env.rules.mode != "tactical":
        raise TrainConfigError(f"distill: the teacher plays tactical deals; env.kwargs give "
                               f"mode {env.rules.mode}")
    if cfg.distill.teacher == "solve" and env.players != 2:
        raise TrainConfigError(f"distill: the teacher solves two-player tactical deals; "
                               f"env.kwargs give {env.players} players (distill.teacher: "
                               "stored plays a stored strategy at 3+)")
    if cfg.distill.teacher == "stored":
        from pyanitsa.training.teacher import stored_file

        try:
            stored_file(env.rules, env.players)
        except PyanitsaError as exc:
            raise TrainConfigError(str(exc)) from None


def _check_features(cfg: TrainConfig, env: Any) -> None:
    """``features: model`` reads the opponent's hand from the unseen cards: two tactical seats
    and a scripted model only (:mod:`pyanitsa.policies.features`)."""
    if cfg.ppo.features != "model":
        return
    from pyanitsa.policies.meta import OPPONENT_MODELS, is_opponent_model

    if env.players != 2 or env.rules.mode != "tactical":
        raise TrainConfigError(f"ppo.features: model needs two-player tactical, not "
                               f"{env.players} players of {env.rules.mode}")
    if not is_opponent_model(cfg.ppo.opponent_model):
        raise TrainConfigError(f"ppo.opponent_model: {cfg.ppo.opponent_model!r} is not one of "
                               f"{', '.join(OPPONENT_MODELS)}")


def _check_league(cfg: TrainConfig, players: int) -> None:
    if not cfg.league.every:
        return
    if cfg.self_play.every:
        raise TrainConfigError("league.every: the league replaces self_play; set "
                               "self_play.every: 0 (or league.every: 0)")
    if players != 2:
        raise TrainConfigError(f"league.every: the league's meta-game is two-player; this env "
                               f"has {players} players")


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


__all__ = ["check_config", "config_help", "load_config", "parse_config"]
