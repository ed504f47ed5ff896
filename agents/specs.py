"""Agent spec strings: ``descending``, ``mc_search(samples=400, budget_ms=50)``,
``my_package.my_module:MyAgent(depth=2)`` and ``scheme:argument`` (say, ``ppo:runs/x/model``).

Built-in agents register a name with :func:`register`; other packages add a ``scheme:`` with
:func:`register_scheme`, or declare it in their metadata: an entry point of the group
``pyanitsa.agent_specs`` named for the scheme, imported only when a spec uses it
(docs/plugins.md). :func:`make_agent` is that group's ``builtin`` entry, the resolver the core's
``agent_from_spec`` (what the envs call) finds. Parameters are Python literals; an unknown
agent or parameter, or a value of the wrong type, raises :class:`AgentSpecError` naming it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

from pyanitsa.agents.guard import AgentRaised, call_agent, exception_text
from pyanitsa.errors import PyanitsaError, did_you_mean
from pyanitsa.protocol import SPEC_GROUP, SPEC_RESOLVER, Agent, BaseAgent


class AgentSpecError(PyanitsaError):
    """A spec string that does not name an agent, or bad parameters for it."""


@dataclass(frozen=True)
class AgentInfo:
    """A registered built-in agent."""

    name: str
    factory: Callable[..., Agent]
    decisions: tuple[str, ...]
    """``hand`` (tactical), ``pickup`` (classic), or both."""

    @property
    def idea(self) -> str:
        doc = inspect.getdoc(self.factory) or ""
        return doc.strip().split("\n\n")[0].replace("\n", " ")

    def parameters(self) -> list[tuple[str, Any]]:
        """``(name, default)`` of each keyword parameter."""
        sig = inspect.signature(self.factory)
        return [(p.name, p.default) for p in sig.parameters.values()
                if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


REGISTRY: dict[str, AgentInfo] = {}
SCHEMES: dict[str, Callable[..., Agent]] = {}
PLUGINS: dict[str, EntryPoint] = {}
"""Schemes other distributions declare in :data:`SPEC_GROUP`, not imported yet (a spec that
uses one moves it to :data:`SCHEMES`)."""
CLASHES: dict[str, str] = {}
"""Schemes declared twice (by a distribution and pyanitsa, or by two distributions), with who
declares them: a spec with one is an error rather than a quiet choice between the two."""

A = TypeVar("A", bound=type)

_SPEC = re.compile(r"^\s*(?P<head>[A-Za-z_][\w.]*(?::[A-Za-z_][\w.]*)?)\s*"
                   r"(?:\((?P<args>.*)\))?\s*$", re.DOTALL)


def register(name: str, *, decisions: tuple[str, ...] = ("hand",)) -> Callable[[A], A]:
    """Class decorator: make an agent buildable as ``name`` or ``name(k=v, ...)``."""
    def wrap(cls: A) -> A:
        REGISTRY[name] = AgentInfo(name, cls, decisions)
        return cls
    return wrap


def register_scheme(scheme: str, loader: Callable[..., Agent]) -> None:
    """Make ``scheme:ARG`` (plus optional ``(k=v)``) build ``loader(ARG, **params)``."""
    SCHEMES[scheme] = loader


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a spec into its head and its keyword parameters."""
    for scheme in (*SCHEMES, *PLUGINS):
        if spec.startswith(scheme + ":"):
            rest = spec[len(scheme) + 1:]
            params: dict[str, Any] = {}
            if rest.endswith(")") and "(" in rest:
                rest, _, args = rest.partition("(")
                params = _parse_args(args[:-1], spec)
            return f"{scheme}:{rest.strip()}", params
    match = _SPEC.match(spec)
    if not match:
        raise AgentSpecError(f"agent spec {spec!r}: write NAME, NAME(key=value, ...) or "
                             "package.module:Class")
    return match["head"], _parse_args(match["args"] or "", spec)


def _parse_args(text: str, spec: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        raise AgentSpecError(f"agent spec {spec!r}: cannot read the parameters "
                             f"({text})") from None
    # ``f(a=1)(b=2)`` and ``f(a=1) + (2)`` parse too, as calls of calls or as sums
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "f"):
        raise AgentSpecError(f"agent spec {spec!r}: write NAME(key=value, ...)")
    if call.args:
        raise AgentSpecError(f"agent spec {spec!r}: parameters are key=value")
    out = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise AgentSpecError(f"agent spec {spec!r}: parameters are key=value")
        if kw.arg in out:  # the parser takes a repeated keyword; a call would refuse it
            raise AgentSpecError(f"agent spec {spec!r}: parameter {kw.arg!r} is given twice")
        try:
            out[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            # A bare word is a string: ``mc_search(opponent=descending)``.
            if isinstance(kw.value, ast.Name):
                out[kw.arg] = kw.value.id
            else:
                raise AgentSpecError(f"agent spec {spec!r}: parameter {kw.arg!r} is not a "
                                     "literal") from None
    return out


def make_agent(spec: str | Agent) -> Agent:
    """Build the agent a spec names (an agent object passes through unchanged)."""
    if not isinstance(spec, str):
        if not isinstance(spec, Agent):
            raise AgentSpecError(f"{spec!r} is neither a spec string nor an agent")
        return spec
    _load_builtins()
    head, params = parse_spec(spec)
    scheme, sep, rest = head.partition(":")
    if sep and (scheme in PLUGINS or scheme in CLASHES):
        _load_plugin(scheme, spec)
    if sep and scheme in SCHEMES:
        factory: Callable[..., Agent] = lambda **kw: SCHEMES[scheme](rest, **kw)  # noqa: E731
        label = head
    elif sep:
        factory = _import_factory(scheme, rest, spec)
        label = head
    elif head in REGISTRY:
        factory = REGISTRY[head].factory
        label = head
    else:
        known = ", ".join(sorted(REGISTRY))
        raise AgentSpecError(f"unknown agent {head!r}{did_you_mean(head, REGISTRY)} "
                             f"(built-in: {known}; or "
                             "package.module:Class)")
    _check_params(factory, params, label)
    try:
        agent = call_agent(factory, **params)
    except AgentRaised as exc:  # any BaseException, sys.exit() included: a spec that fails
        bad_value = isinstance(exc.exc, (TypeError, ValueError))  # a parameter it refused
        detail = exception_text(exc.exc) if bad_value else f"raised {exc}"
        raise AgentSpecError(f"agent {spec!r}: {detail}") from None
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"agent {spec!r}: {type(agent).__name__} has no order_hand and "
                             "order_pickup methods")
    with contextlib.suppress(AttributeError):  # a user agent with __slots__ keeps no spec
        agent.spec = spec.strip()  # type: ignore[attr-defined]
    return agent


def _import_factory(module: str, attr: str, spec: str) -> Callable[..., Agent]:
    """The agent class (or registered factory) ``module:attr`` names, checked before any call.

    Importing the module runs its code, as any import does; nothing else is called here, and
    only a :class:`BaseAgent` subclass or a factory given to :func:`register` is returned, so
    ``os:system`` or ``subprocess:Popen`` is refused rather than run.
    """
    try:
        mod = _import(module)
    except ImportError as exc:
        raise AgentSpecError(f"agent spec {spec!r}: cannot import {module!r} ({exc})") from None
    obj: Any = mod
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise AgentSpecError(f"agent spec {spec!r}: {module!r} has no {attr!r}")
    registered = any(obj is info.factory for info in REGISTRY.values())
    if not registered and not (isinstance(obj, type) and issubclass(obj, BaseAgent)):
        raise AgentSpecError(f"agent spec {spec!r}: {module}:{attr} is not an agent class "
                             "(a subclass of pyanitsa.agents.BaseAgent) or a factory "
                             "registered with pyanitsa.agents.register")
    return obj


def _check_params(factory: Callable[..., Any], params: dict[str, Any], label: str) -> None:
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return
    for key, value in params.items():
        p = sig.parameters.get(key)
        if p is None or p.kind not in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
            takes = [n for n, q in sig.parameters.items()
                     if q.kind in (q.KEYWORD_ONLY, q.POSITIONAL_OR_KEYWORD)]
            raise AgentSpecError(f"agent {label!r} has no parameter {key!r}"
                                 f"{did_you_mean(key, takes)}"
                                 + (f" (it takes {', '.join(takes)})" if takes else ""))
        default = p.default
        if default is not inspect.Parameter.empty and default is not None:
            ok = isinstance(value, type(default)) or (isinstance(default, float)
                                                      and isinstance(value, int))
            if not ok or (isinstance(value, bool) and not isinstance(default, bool)):
                raise AgentSpecError(f"agent {label!r}: {key}={value!r} should be "
                                     f"{type(default).__name__}")


_LOADED = False


def _load_builtins() -> None:
    """Import the modules whose classes register themselves, and list the schemes other
    distributions declare without importing them (once, lazily)."""
    global _LOADED
    if _LOADED:
        return
    modules = (*BUILTIN_MODULES, *wing_modules())
    _LOADED = True
    for name in modules:
        importlib.import_module(name)
    for entry in entry_points(group=SPEC_GROUP):
        name = entry.name
        if name == SPEC_RESOLVER:
            continue
        if name in SCHEMES:
            CLASHES[name] = f"a built-in scheme, and the {_where(entry)} declares it too"
        elif name in PLUGINS:
            CLASHES[name] = f"declared by the {_where(PLUGINS.pop(name))} and the {_where(entry)}"
        elif name not in CLASHES:
            PLUGINS[name] = entry


def _where(entry: EntryPoint) -> str:
    dist = entry.dist.name if entry.dist else "an installed package"
    return f"entry point {entry.name} = {entry.value!r} of {dist}"


def _load_plugin(scheme: str, spec: str) -> None:
    """Import the loader of a declared scheme and register it (its module's code runs now)."""
    if scheme in CLASHES:
        raise AgentSpecError(f"agent spec {spec!r}: scheme {scheme!r} is {CLASHES[scheme]}; a "
                             "plugin must take a name of its own")
    entry = PLUGINS[scheme]
    try:
        loader = entry.load()
    except (ImportError, AttributeError) as exc:
        raise AgentSpecError(f"agent spec {spec!r}: the {_where(entry)} does not load "
                             f"({exc})") from None
    if not callable(loader):
        raise AgentSpecError(f"agent spec {spec!r}: the {_where(entry)} is not callable")
    register_scheme(scheme, loader)
    del PLUGINS[scheme]


def declared_schemes() -> dict[str, EntryPoint]:
    """The schemes other distributions declare and no spec has used yet."""
    _load_builtins()
    return dict(PLUGINS)


def _import(module: str) -> Any:
    """Import ``module``; one not found anywhere on ``sys.path`` is looked for in the current
    folder too, as ``python`` itself and ``module:attr`` tools like uvicorn do (a bot written
    as ``mybot.py`` here is ``mybot:Class``). The folder goes at the end of ``sys.path``, so it
    never shadows an installed module, and stays there, so that forked workers find it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name != module.split(".")[0] or here in sys.path or "" in sys.path:
            raise
        sys.path.append(here)
        try:
            return importlib.import_module(module)
        except ImportError:
            sys.path.remove(here)
            raise


BUILTIN_MODULES: tuple[str, ...] = (
    "pyanitsa.agents.scripted",
    "pyanitsa.agents.pickup",
    "pyanitsa.agents.human",
    "pyanitsa.agents.search",
    "pyanitsa.agents.cmd",  # the cmd: scheme (out-of-process bots)
)
"""Modules of this wing whose agent classes register themselves with :func:`register` when
imported."""

WING_GROUP = "pyanitsa.agent_modules"
"""The entry-point group naming the modules of the wings above this one whose agents register
themselves (``nash`` in ``pyanitsa.solvers``, the ``ppo:`` scheme in ``pyanitsa.policies``):
pyproject.toml lists them, so the registry names no module above its own wing. Only pyanitsa's
own entries are read: another distribution adds a ``scheme:`` in :data:`SPEC_GROUP` instead."""


def wing_modules() -> list[str]:
    """The modules :data:`WING_GROUP` names, from pyanitsa's own metadata, in a fixed order."""
    found = [e for e in entry_points(group=WING_GROUP)
             if e.dist is None or e.dist.name == "pyanitsa"]
    if not found:
        raise AgentSpecError(f"no entry points in group {WING_GROUP!r} are installed, so the "
                             "solvers' and policies' agents are unknown (reinstall pyanitsa: "
                             "pip install -e .)")
    return sorted({e.module for e in found})


def builtin_agents() -> list[AgentInfo]:
    _load_builtins()
    return [REGISTRY[k] for k in sorted(REGISTRY)]



def split_specs(text: str, *, allow_empty: bool = False) -> list[str]:
    """Split ``a,b(x=1, y=2),c`` at commas outside parentheses (empty parts are an error
    unless ``allow_empty``)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    if not allow_empty and any(not s for s in out):
        raise PyanitsaError(f"agents={text!r}: an empty agent spec")
    return out
