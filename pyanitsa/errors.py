"""The two branches of pyanitsa's errors, as python-chess has ``IllegalMoveError(ValueError)``
and ``EngineError(RuntimeError)``.

:class:`PyanitsaError` (a ``ValueError``): bad input, a value the caller can fix (a card, a
deck, a rule option, a record, a config field). :class:`PyanitsaRuntimeError` (a
``RuntimeError``): a failure while running that no argument caused (a bot that died or broke
its protocol, a folder held by another run, a damaged store or checkpoint, workers that crash).
Messages name values and parameters (``resume=True``), never command-line flags: the command
line words them as its flags.
"""

from __future__ import annotations

from collections.abc import Iterable


class PyanitsaError(ValueError):
    """Base class of every error pyanitsa raises for bad input."""


class InvalidCardError(PyanitsaError):
    """A card name that is not in the deck, or a card given more often than the deck holds it."""


class InvalidDeckError(PyanitsaError):
    """A deck name or research-deck parameters that do not describe a deck."""


class InvalidRulesError(PyanitsaError):
    """An unknown option, a bad value, or an impossible combination of options."""


class InvalidRecordError(PyanitsaError):
    """A game record that cannot be played (bad JSON, unknown key, bad seat or card)."""


class InvalidPositionError(PyanitsaError):
    """A game position that cannot occur (a card held twice, a leader that is not a seat)."""


class IllegalActionError(PyanitsaError):
    """An agent's decision that the rules do not allow (say, an order that is not a permutation)."""


class PyanitsaRuntimeError(RuntimeError):
    """Base class of every failure pyanitsa raises that is not bad input."""


class CorruptFileError(PyanitsaRuntimeError):
    """A file pyanitsa writes (a store, a checkpoint) that cannot be read back: damaged,
    truncated, or another program's file of that name."""


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the choice closest to a misspelled ``word``, else ``""``.

    The one place every command's "unknown preset / agent / option" message gets its hint.
    """
    import difflib

    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word.lower(), list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
