"""The sandbox level of a run's ``cmd:`` bots, checked and said out loud when it starts: the
config's ``sandbox`` and any level a ``cmd:`` spec names must be one this machine gives."""

from __future__ import annotations

import sys

from pyanitsa.agents import cmd  # noqa: F401 - registers the cmd: scheme parse_spec reads
from pyanitsa.agents.sandbox import (
    LEVELS,
    Policy,
    SandboxError,
    policy_from,
    probe,
    require,
)
from pyanitsa.agents.specs import AgentSpecError, parse_spec
from pyanitsa.tournaments.config import TournamentConfig, TournamentConfigError


def bot_policies(config: TournamentConfig) -> dict[str, Policy]:
    """``{field: policy}`` of the config's ``cmd:`` agents: ``sandbox`` for those that name no
    sandbox of their own, ``agents.I.spec`` for those that do. Empty with no ``cmd:`` agent."""
    out: dict[str, Policy] = {}
    for i, entry in enumerate(config.agents):
        try:
            head, params = parse_spec(entry.spec)
        except AgentSpecError:
            continue  # said by the agents' check, with its field
        if not head.startswith("cmd:"):
            continue
        if "sandbox" in params:
            try:
                out[f"agents.{i}.spec"] = policy_from(params["sandbox"])
            except SandboxError as exc:
                raise TournamentConfigError(f"agents.{i}.spec: {exc}") from None
        else:
            out["sandbox"] = policy_from(config.sandbox)
    return out


def bot_levels(config: TournamentConfig) -> dict[str, str]:
    """``{field: level}`` of :func:`bot_policies`."""
    return {key: policy.level for key, policy in bot_policies(config).items()}


def used_level(config: TournamentConfig) -> str | None:
    """The weakest level any of the run's ``cmd:`` bots runs at (None: no ``cmd:`` bot), for
    results and reports: one unconfined bot makes the run unconfined."""
    return _weakest(bot_policies(config))


def _weakest(policies: dict[str, Policy]) -> str | None:
    levels = [p.level for p in policies.values()]
    return max(levels, key=LEVELS.index) if levels else None  # LEVELS: best first


def say_sandbox(config: TournamentConfig) -> str | None:
    """Refuse a level this machine cannot give (one line naming the field); otherwise print
    the level of the run's ``cmd:`` bots on stderr and return it (None: no ``cmd:`` bot)."""
    policies = bot_policies(config)
    for key, policy in policies.items():
        try:
            require(policy.level, key=key)
        except SandboxError as exc:
            raise TournamentConfigError(str(exc)) from None
    used = _weakest(policies)
    if used is None:
        return None
    network = any(p.network for p in policies.values() if p.level == "strict")
    text = probe().describe(used, network=network)  # type: ignore[arg-type]
    print(f"pyanitsa: cmd: bots in sandbox {text}", file=sys.stderr, flush=True)
    return used
