"""Ctrl-C around compiled calls: held until the call returns, then raised as usual.

A ``KeyboardInterrupt`` that Python raises while numba's compiled code runs does not come out
as itself: the dispatcher returns with the exception set and Python reports a ``SystemError``
("... returned a result with an exception set"), which the command line would print as an
error instead of its stop message. The batch core's callers (``pyanitsa simulate``, the
enumeration) wrap their compiled calls in :func:`ctrl_c_between_calls`, which only notes the
signal and raises it between calls. It lives in the core, with no numba import, so the batch
core and the command line share it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl-C (128 + SIGINT), whatever it saved first."""


class _Held:
    """The SIGINT handler while a block runs: it only counts the signals."""

    def __init__(self) -> None:
        self.hits = 0

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.hits += 1

    def check(self) -> None:
        if self.hits:
            raise KeyboardInterrupt


def _never() -> None:
    return None


class _Noting:
    """Python's own SIGINT handler that also notes the Ctrl-C: one that lands inside an import
    can be swallowed there and surface later as an unrelated error (an ``ImportError`` of a
    half-imported module), which the command line then reports as interrupted."""

    seen = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        _Noting.seen = True
        signal.default_int_handler(signum, frame)


@contextlib.contextmanager
def noting_ctrl_c() -> Iterator[None]:
    """Run the block under :class:`_Noting` (the command line's commands do; main thread
    only), with :func:`ctrl_c_seen` false at its start; the handler before it comes back."""
    _Noting.seen = False
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, _Noting())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def pythons_own(handler: object) -> bool:
    """Whether ``handler`` raises Python's KeyboardInterrupt on SIGINT and nothing else
    (``signal.default_int_handler``, or the command line's noting one): code that installs
    a handler of its own for a while may replace it, and puts it back after."""
    return handler is signal.default_int_handler or isinstance(handler, _Noting)


def ctrl_c_seen() -> bool:
    """Whether a Ctrl-C arrived in the :func:`noting_ctrl_c` block."""
    return _Noting.seen


@contextlib.contextmanager
def ctrl_c_between_calls() -> Iterator[Callable[[], None]]:
    """Hold a Ctrl-C that arrives inside the block; ``check()`` raises it as
    ``KeyboardInterrupt`` (call it between compiled calls), and so does the block's end, so
    none is lost. Blocks nest (an inner one shares the outer's count). A no-op outside the
    main thread or under someone else's SIGINT handler, whose Ctrl-C is theirs to handle."""
    current = signal.getsignal(signal.SIGINT)
    if isinstance(current, _Held):
        yield current.check
        current.check()
        return
    if (threading.current_thread() is not threading.main_thread()
            or not pythons_own(current)):
        yield _never
        return
    held = _Held()
    signal.signal(signal.SIGINT, held)
    try:
        yield held.check
    finally:
        signal.signal(signal.SIGINT, current)
    held.check()
