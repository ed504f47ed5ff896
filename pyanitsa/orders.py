"""Checking an agent's answer at the boundary: an order is integers forming an exact permutation.

Nothing is coerced. ``int()`` would let ``"3"``, ``2.7``, a numpy float or a dict (its keys)
through as cards, so only Python ints and numpy integer scalars count (never bools), in a list,
a tuple or a one-dimensional integer array. The check calls no method of the agent's objects
(no ``__iter__``, ``__int__`` or ``__repr__`` of its own): the types are exact, and a refused
value is described by its type and, for plain built-in values only, a clipped repr.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pyanitsa.cards import Card
from pyanitsa.errors import IllegalActionError
from pyanitsa.rules import Rules

_NUMPY_INTS = frozenset(np.dtype(code).type for code in "bBhHiIlLqQpP")
"""numpy's integer scalar types (``np.int8`` .. ``np.uint64``; ``np.bool_`` is not one)."""
_SHOWN = frozenset({int, float, str, bytes, complex, bool, type(None)})
"""Types whose built-in repr is safe to show in a message."""
_MAX_SHOWN = 60
"""Cards of a refused order shown in its message."""


def check_order(chosen: object, given: Sequence[Card], what: str, rules: Rules) -> list[Card]:
    """``chosen`` as a list of ints if it is a permutation of ``given``; else
    :class:`IllegalActionError` with a one-line message starting with ``what``."""
    out = _integers(chosen, what)
    if len(out) != len(given) or sorted(out) != sorted(given):
        deck = rules.deck
        shown = " ".join(deck.card_name(c) if 0 <= c < deck.size else "<not a card>"
                         for c in out[:_MAX_SHOWN])
        more = f" ... ({len(out)} in all)" if len(out) > _MAX_SHOWN else ""
        raise IllegalActionError(f"{what}: [{shown}{more}] is not a permutation of "
                                 f"[{deck.format_cards(sorted(given))}]")
    return out


def _integers(chosen: object, what: str) -> list[int]:
    kind = type(chosen)
    if kind is np.ndarray:
        assert isinstance(chosen, np.ndarray)
        if chosen.ndim != 1 or chosen.dtype.kind not in "iu":
            raise IllegalActionError(f"{what}: a {chosen.ndim}-d array of {chosen.dtype} is not "
                                     "a list of cards (integers)")
        return chosen.tolist()
    if kind is not list and kind is not tuple:
        raise IllegalActionError(f"{what}: {describe(chosen)} is not a list of cards (a list, "
                                 "tuple or integer array)")
    assert isinstance(chosen, (list, tuple))
    out = []
    for i, card in enumerate(chosen):
        t = type(card)
        if t is int:
            out.append(card)
        elif t in _NUMPY_INTS:
            out.append(int(card))
        else:
            raise IllegalActionError(f"{what}: item {i} is {describe(card)}, not a card "
                                     "(an integer)")
    return out


def describe(value: object) -> str:
    """A short, safe description of an agent's value: type, and a clipped repr of a plain
    built-in value (an int too long to print is described by its size)."""
    t = type(value)
    name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    if t is int and value.bit_length() > 64:  # type: ignore[attr-defined]
        return f"an int of {value.bit_length()} bits"  # type: ignore[attr-defined]
    if t in _SHOWN:
        text = repr(value)
        return f"{name} {text[:40]}{'...' if len(text) > 40 else ''}"
    return f"a {name}"
