"""A run's hold on its output folder: an exclusive lock on a lock file in it.

One run at a time may write a folder: a second tournament resumed in it would play every game
again, one started over would delete the database under the first run, which then writes on
into the unlinked file, and two enumerations or hunts would commit the same ranges or finds
twice. Every store (:mod:`pyanitsa.store`) takes the lock of its folder before anything in
the folder is read or deleted and holds it until the run (and its reports) are done.

Why ``fcntl.flock`` and not the ``filelock`` package: ``filelock`` is not one of our
dependencies (only torch and ray pull it in), it cannot say who holds a lock, and on POSIX it
is a thin wrapper of the same ``flock`` call. Why ``flock`` and not ``lockf``: a ``flock`` lock
belongs to the open file, so two runs in one process conflict too, whereas ``lockf`` locks
belong to the process and vanish when any descriptor of the file is closed. Either way the
kernel drops the lock when its holder dies, ``kill -9`` included, so a stale lock never needs
cleaning up and the lock file is never deleted (deleting it would let two runs lock two
different files of the same name).

A forked worker inherits the open file, and with it the lock; workers close their copy at
fork (closing, not unlocking: unlocking would free the parent's lock too), so the lock dies
with the run and not with its slowest orphaned worker.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from pathlib import Path

from pyanitsa.errors import PyanitsaRuntimeError

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

_HELD: set[int] = set()
"""Descriptors of the locks this process holds (closed in forked children)."""


class FolderLockedError(PyanitsaRuntimeError):
    """The folder is held by another run (a failure to wait out, not bad input)."""


class FolderLock:
    """An output folder held by this process; :meth:`release` (or the process's end) frees it."""

    def __init__(self, folder: Path, fd: int | None) -> None:
        self.folder = folder
        self.fd = fd

    @classmethod
    def acquire(cls, folder: str | os.PathLike[str], name: str, *, user: str = "run"
                ) -> FolderLock:
        """Hold ``folder`` (created if missing) by its lock file ``name``, or raise
        :class:`FolderLockedError` (``user``: what holds such a folder, for the message)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        if fcntl is None:
            warnings.warn(f"{folder}: this platform has no flock; nothing stops a second run "
                          "from writing the same output folder", stacklevel=2)
            return cls(folder, None)
        fd = os.open(folder / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            by = f" (pid {holder})" if holder else ""
            raise FolderLockedError(
                f"{folder} is in use by another {user}{by}; wait for it to end or stop it, or "
                "choose another output folder") from None
        except BaseException:
            os.close(fd)
            raise
        # the pid is only for the message of a run that finds the folder taken
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _HELD.add(fd)
        return cls(folder, fd)

    def release(self) -> None:
        if self.fd is not None:
            _HELD.discard(self.fd)
            os.close(self.fd)  # closing the last descriptor of the file frees the lock
            self.fd = None

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(fd: int) -> int | None:
    """The pid the holder wrote, if it has written it yet."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _close_in_child() -> None:
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)
