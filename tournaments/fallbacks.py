"""Agents that play another agent at this table, said out loud: once on stderr when a run
starts and in its report (an agent never turns into another silently).

Only built-in agents are asked (:meth:`pyanitsa.agents.warm.FallingBack.table_fallback`), in
the parent process and before any game: a user's or a ``cmd:`` agent is built only where it
plays. Hand-by-hand fallbacks are said once by the agent itself in the process that plays.
"""

from __future__ import annotations

import sys

from pyanitsa.agents.specs import builtin_agents, make_agent, parse_spec
from pyanitsa.agents.warm import fallback_notice
from pyanitsa.tournaments.config import TournamentConfig
from pyanitsa.tournaments.meta import _md_table  # escapes the config's names


def fallback_notices(config: TournamentConfig) -> dict[str, str]:
    """``{agent name: "plays X instead: why"}`` for the agents of ``config`` that do."""
    builtin = {info.name for info in builtin_agents()}
    rules = config.build_rules()
    out: dict[str, str] = {}
    for entry in config.agents:
        if parse_spec(entry.spec)[0] not in builtin:
            continue
        notice = fallback_notice(make_agent(entry.spec), rules, config.players)
        if notice is not None:
            out[entry.name] = notice
    return out


def say_fallbacks(config: TournamentConfig) -> dict[str, str]:
    """:func:`fallback_notices`, each on one stderr line."""
    notices = fallback_notices(config)
    for name, notice in notices.items():
        print(f"pyanitsa: {name} {notice}", file=sys.stderr, flush=True)
    return notices


def markdown_section(notices: dict[str, str]) -> list[str]:
    if not notices:
        return []
    return ["## Agents that play another agent here", "",
            "Their rows are the other agent's play at this table, under their own name:", "",
            _md_table(["agent", "plays instead"], list(notices.items()), [False, False]), ""]
