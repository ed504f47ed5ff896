"""``pyanitsa agents``: the built-in agents, their idea and their parameters."""

from __future__ import annotations

import argparse

from pyanitsa.agents.specs import builtin_agents


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agents", help="list the built-in agents and their parameters",
                       description="Built-in agents with a one-line idea and their parameters."
                                   " Name one with a spec: NAME or NAME(key=value, ...); user "
                                   "agents as package.module:Class.")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    for info in builtin_agents():
        params = ", ".join(f"{k}={v!r}" for k, v in info.parameters())
        head = f"{info.name}({params})" if params else info.name
        print(f"{head}  [{'/'.join(info.decisions)}]")
        print(f"    {info.idea}")
    return 0
