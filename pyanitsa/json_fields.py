"""Reading the fields of a core value's JSON object, for its ``from_json``: one check per kind
of field, so every value refuses bad input alike, with its own error naming the key."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from pyanitsa.errors import PyanitsaError

Error = type[PyanitsaError]


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def fields(obj: object, what: str, keys: Iterable[str], error: Error, *,
           optional: Collection[str] = ()) -> dict[str, Any]:
    """``obj`` as a dict holding every one of ``keys`` (and maybe some of ``optional``), and
    nothing else."""
    if not isinstance(obj, dict):
        raise error(f"{what}: a JSON object, not {type(obj).__name__}")
    keys = tuple(keys)
    for key in obj:
        if key not in keys and key not in optional:
            raise error(f"unknown key {_shown(key)} in {what}")
    for key in keys:
        if key not in obj:
            raise error(f"{key}: missing in {what}")
    return obj


def integer(obj: dict[str, Any], key: str, error: Error, *, low: int = 0) -> int:
    """``obj[key]``, an integer ``>= low`` (not a bool)."""
    value = obj.get(key)
    if type(value) is not int or value < low:
        raise error(f"{key}: {_shown(value)} is not an integer >= {low}")
    return value


def maybe_integer(obj: dict[str, Any], key: str, error: Error, *, low: int = 0) -> int | None:
    """``obj[key]``: null (or left out) or an integer ``>= low``."""
    if obj.get(key) is None:
        return None
    return integer(obj, key, error, low=low)


def integers(obj: dict[str, Any], key: str, error: Error, *, low: int = 0) -> tuple[int, ...]:
    """``obj[key]``, a list of integers ``>= low``."""
    value = obj.get(key)
    if not isinstance(value, list) or any(type(v) is not int or v < low for v in value):
        raise error(f"{key}: {_shown(value)} is not a list of integers >= {low}")
    return tuple(value)


def choice(obj: dict[str, Any], key: str, choices: Collection[object], error: Error) -> Any:
    """``obj[key]``, one of ``choices``."""
    value = obj.get(key)
    if type(value) not in (str, type(None)) or value not in choices:
        raise error(f"{key}: {_shown(value)} is not one of "
                    f"{', '.join(str(c) for c in choices)}")
    return value


def flag(obj: dict[str, Any], key: str, error: Error) -> bool:
    """``obj[key]``, true or false."""
    value = obj.get(key)
    if not isinstance(value, bool):
        raise error(f"{key}: {_shown(value)} is not true or false")
    return value


def items(obj: dict[str, Any], key: str, error: Error) -> list[Any]:
    """``obj[key]``, a list (of objects its value reads one by one)."""
    value = obj.get(key)
    if not isinstance(value, list):
        raise error(f"{key}: {_shown(value)} is not a list")
    return value
