"""Loading YAML configs: one mapping per file, ``--set a.b.2.c=VALUE`` overrides, and pydantic
validation errors told in one line that names the field.

The tournament and training configs are pydantic models in their own layers; this module is
the loading they share.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from pyanitsa.errors import PyanitsaError


class ConfigError(PyanitsaError):
    """A config file or override that cannot be read, or a field that fails validation."""


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """What a YAML error says, and where, in one line."""
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc)
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    if isinstance(exc, yaml.reader.ReaderError):
        where = f" (character {exc.position})"
    return " ".join(str(problem).split()) + where


def load_mapping(path: str | Path, *, error: type[PyanitsaError] = ConfigError
                 ) -> dict[str, Any]:
    """A YAML file's mapping (an empty file is an empty one); a file that is not UTF-8 or not
    YAML is ``error``, in one line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader
    except _HugeInteger as exc:
        line = exc.line
        key = text.splitlines()[line].split(":")[0].strip(" -\t") if line is not None else ""
        where = f", line {line + 1}" if line is not None else ""
        raise error(f"{path}{where}: {_shown(key) + ': ' if key else ''}{exc}") from None
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML: {_yaml_problem(exc)}") from None
    except RecursionError:
        raise error(f"{path}: not a config: nested too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{path}: must be a YAML mapping of fields")
    return data


def read_mapping(path: str | Path, overrides: Iterable[str] = (), *,
                 error: type[PyanitsaError] = ConfigError) -> dict[str, Any]:
    """A YAML file's mapping, with ``name`` defaulting to the file's stem, overrides applied."""
    data = load_mapping(path, error=error)
    data.setdefault("name", Path(path).stem)
    for item in overrides:
        apply_override(data, item, error=error)
    return data


def apply_override(data: dict[str, Any], item: str, *,
                   error: type[PyanitsaError] = ConfigError) -> None:
    """Set ``a.b.2.c=VALUE`` in nested mappings and lists; VALUE is read as YAML. Errors name
    the ``override`` (the command line's ``--set``).

    An index equal to a list's length appends; a missing mapping on the way is created.
    """
    key, sep, text = item.partition("=")
    if not sep or not key.strip():
        raise error(f"override {item!r}: use KEY=VALUE")
    try:
        value = yaml.load(text, Loader=_Loader) if text.strip() else ""  # noqa: S506
    except _HugeInteger as exc:
        raise error(f"override {_shown(key.strip())}: {exc}") from None
    except yaml.YAMLError:
        raise error(f"override {_shown(item)}: the value is not valid YAML") from None
    parts = key.strip().split(".")
    node: Any = data
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = ".".join(parts[:depth + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) > len(node):
                raise error(f"override {key}: {where} is not an index 0..{len(node)} of the list")
            index = int(part)
            if index == len(node):
                node.append(value if last else {})
            elif last:
                node[index] = value
            node = node[index]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                if node.get(part) is None:
                    node[part] = {}
                elif not isinstance(node[part], (dict, list)):
                    raise error(f"override {key}: {where} is not a mapping or a list")
                node = node[part]
        else:
            raise error(f"override {key}: {'.'.join(parts[:depth])} is not a mapping or a list")


class _HugeInteger(Exception):
    def __init__(self, line: int | None) -> None:
        super().__init__("an integer of more than 4,300 digits")
        self.line = line


class _Loader(yaml.SafeLoader):
    """SafeLoader, but an integer too long for ``int()`` (Python's 4,300-digit limit) is an
    error that says so, with its line, instead of a ValueError from deep inside PyYAML."""

    def construct_yaml_int(self, node: yaml.Node) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise _HugeInteger(node.start_mark.line if node.start_mark else None) from None


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:60] + "...")


def first_error(exc: Any) -> str:
    """A pydantic ``ValidationError`` as one line: ``field.path: what is wrong``."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = ".".join(str(p) for p in first["loc"])
    msg = first["msg"]
    for prefix in ("Value error, ", "Assertion failed, "):
        msg = msg.removeprefix(prefix)
    if first["type"] == "missing":
        msg = "missing"
    elif first["type"] == "extra_forbidden":
        msg = "unknown field"
    text = " ".join((f"{loc}: {msg}" if loc else msg).split())
    more = len(errors) - 1
    return text + (f" (and {more} more error{'s' * (more > 1)})" if more else "")
