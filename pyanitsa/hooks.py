"""Hooks the upper layers provide to the core through entry points (``pyanitsa.hooks``).

The core never imports ``pyanitsa.agents``; when a command needs agents it looks the hook up by
name, so the layers still point down and an installed plugin could replace it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from pyanitsa.errors import PyanitsaError


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
        raise PyanitsaError(f"--agents {text!r}: an empty agent spec")
    return out


def hook(name: str) -> Callable[..., Any]:
    """The callable registered under ``name`` in the ``pyanitsa.hooks`` group."""
    found = entry_points(group="pyanitsa.hooks", name=name)
    for ep in found:
        return ep.load()
    raise PyanitsaError(f"no {name!r} hook is installed (pyanitsa.agents provides it; "
                        "reinstall pyanitsa)")
