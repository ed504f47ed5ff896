"""``pyanitsa agents``: the built-in agents, their idea and their parameters."""

from __future__ import annotations

import argparse
import inspect

from pyanitsa.agents.specs import SCHEMES, builtin_agents, declared_schemes


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
    for scheme, loader in sorted(SCHEMES.items()):
        params = [(p.name, p.default) for p in inspect.signature(loader).parameters.values()
                  if p.default is not inspect.Parameter.empty]
        extra = "(" + ", ".join(f"{k}={v!r}" for k, v in params) + ")" if params else ""
        doc = " ".join((inspect.getdoc(loader) or "").split("\n\n")[0].split())
        print(f"{scheme}:ARG{extra}  [hand]")
        print(f"    {doc}")
    for scheme, entry in sorted(declared_schemes().items()):  # listed, not imported
        dist = f"{entry.dist.name} {entry.dist.version}" if entry.dist else "an installed package"
        print(f"{scheme}:ARG  [declared by {dist}]")
        print(f"    entry point {entry.value}, imported when a spec names it")
    print("user agents: package.module:Class or package.module:Class(key=value, ...)")
    return 0
