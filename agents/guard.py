"""Running agent code: anything it raises is the agent's, except the user's own Ctrl-C.

An agent may raise any ``BaseException``: ``SystemExit`` (``sys.exit()``), a
``KeyboardInterrupt`` of its own, or a class of its own deriving from ``BaseException``. Each of
these is the agent's failure (:class:`AgentRaised`), so that a tool can score a forfeit, and
never stops the caller. A ``KeyboardInterrupt`` can also be the *user's*: a Ctrl-C, which a
terminal delivers as SIGINT and Python turns into ``KeyboardInterrupt`` in the main thread. The
two are told apart by watching the signal, not the exception:

* while agent code runs in the main thread under Python's default SIGINT handler, a handler of
  ours takes its place; it counts each SIGINT and raises ``KeyboardInterrupt`` as the default
  one does. An exception raised while the count moved is the user's and goes on as
  ``KeyboardInterrupt``; so does a count that moved during a call that returned normally (an
  agent that caught the user's Ctrl-C does not get to keep the run going);
* where SIGINT is ignored (tournament workers: Ctrl-C is the parent's) or the code runs in
  another thread (signals reach the main thread only), no ``KeyboardInterrupt`` can be the
  user's, so every one is the agent's;
* under a SIGINT handler of someone else's, a ``KeyboardInterrupt`` may be either; it goes on
  as the user's, so Ctrl-C keeps working (any other exception is still the agent's).

:func:`watching_interrupts` installs the counting handler once around many calls (a whole
run of games); :func:`call_agent` installs it for one call when no watch is on.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from pyanitsa.errors import PyanitsaRuntimeError
from pyanitsa.interrupts import pythons_own

T = TypeVar("T")

_sigints = 0
"""SIGINTs received by our handler since import."""
_MAX_MESSAGE = 300
"""Characters of an agent's exception message kept (a forfeit reason is one short line)."""


class AgentRaised(PyanitsaRuntimeError):
    """Agent code raised ``exc`` (any ``BaseException`` but the user's Ctrl-C)."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(describe_exception(exc))
        self.exc = exc


class DecisionTimeout(Exception):  # noqa: N818 - read as "the agent's decision timed out"
    """Raised by an agent that gave up waiting for its answer at the end of its time budget (an
    out-of-process bot that did not answer in time): the referee scores a ``timeout``."""


class IllegalAnswer(Exception):  # noqa: N818
    """Raised by an agent whose answer it could not turn into an order (an out-of-process
    bot's wrong answer): the referee scores it ``illegal``."""


time_budget: ContextVar[float | None] = ContextVar("time_budget", default=None)
"""Seconds the referee allows the decision being made (None: no limit), for agents that must
enforce it themselves: an out-of-process bot's agent waits no longer than this."""


def _on_sigint(signum: int, frame: Any) -> None:
    global _sigints
    _sigints += 1
    raise KeyboardInterrupt  # what signal.default_int_handler does


_watching = False
"""Whether the main thread is inside :func:`watching_interrupts` with our handler installed or
SIGINT ignored: either way, every KeyboardInterrupt our handler did not count is an agent's."""


def _can_watch() -> bool:
    return (threading.current_thread() is threading.main_thread()
            and pythons_own(signal.getsignal(signal.SIGINT)))


@contextlib.contextmanager
def watching_interrupts() -> Iterator[None]:
    """Count SIGINTs with our handler for the duration, where SIGINT raises Python's
    KeyboardInterrupt; where it is ignored (tournament workers), just note that no interrupt
    can be the user's. A no-op when already watching, outside the main thread, or under a
    handler of someone else's."""
    global _watching
    if _watching or threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.getsignal(signal.SIGINT)
    install = pythons_own(handler)
    if not install and handler is not signal.SIG_IGN:
        yield
        return
    if install:
        signal.signal(signal.SIGINT, _on_sigint)
    _watching = True
    try:
        yield
    finally:
        _watching = False
        if install:
            signal.signal(signal.SIGINT, handler)


def call_agent(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``; a ``BaseException`` it raises comes out as
    :class:`AgentRaised`, the user's Ctrl-C as ``KeyboardInterrupt``."""
    if not _watching and _can_watch():  # no watch around us: one for this call (~5 µs)
        with watching_interrupts():
            return call_agent(fn, *args, **kwargs)
    seen = _sigints
    try:
        out = fn(*args, **kwargs)
    except BaseException as exc:
        if _sigints != seen:
            raise KeyboardInterrupt from None
        if isinstance(exc, KeyboardInterrupt) and _maybe_the_users():
            raise
        raise AgentRaised(exc) from exc
    if _sigints != seen:  # the agent caught the user's Ctrl-C and answered anyway
        raise KeyboardInterrupt
    return out


def _maybe_the_users() -> bool:
    """Whether a KeyboardInterrupt that our handler did not count may still be a Ctrl-C: in
    the main thread, outside a watch, under a handler that is not ``SIG_IGN`` or
    ``SIG_DFL``."""
    if _watching or threading.current_thread() is not threading.main_thread():
        return False
    return callable(signal.getsignal(signal.SIGINT))


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` of an agent's exception, on one line."""
    text = exception_text(exc)
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def exception_text(exc: BaseException) -> str:
    """The message of an agent's exception, on one line and clipped; ``<unprintable>`` when
    its ``__str__`` raises (it is the agent's code too)."""
    try:
        text = " ".join(call_agent(str, exc).split())
    except AgentRaised:
        return "<unprintable>"
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "..."
