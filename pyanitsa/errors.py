"""Errors raised for bad input. All subclass ``ValueError`` so callers can catch one type."""

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


class CliError(PyanitsaError):
    """Bad command-line input (a missing file, a malformed ``--set``)."""


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the choice closest to a misspelled ``word``, else ``""``.

    The one place every command's "unknown preset / agent / option" message gets its hint.
    """
    import difflib

    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word.lower(), list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
