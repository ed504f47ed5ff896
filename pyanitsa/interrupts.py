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
            or current is not signal.default_int_handler):
        yield _never
        return
    held = _Held()
    signal.signal(signal.SIGINT, held)
    try:
        yield held.check
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    held.check()
