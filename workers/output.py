"""Workers' stdout and stderr, kept off the console and capped: at most
:data:`WORKER_LOG_LIMIT` bytes a run go to ``OUTPUT/workers.log``, then one line saying the
rest was dropped, so an agent flooding its output cannot fill the disk.

A worker points its descriptors 1 and 2 (Python's streams, C libraries and raw writes alike)
at a pipe that a thread empties into a sink. Forked local workers share one pipe that a thread
of the parent reads into the capped log, so even what a worker wrote just before it died gets
there; spawned ones (macOS, Windows) read their own pipe into the log, their cap shared; Ray
actors (which may run on other machines) read theirs into a buffer the parent collects.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

WORKER_LOG_LIMIT = 4 << 20
"""Bytes of worker output one run writes to ``workers.log`` (4 MiB)."""


def truncated_line(limit: int) -> bytes:
    return (f"[pyanitsa: the workers wrote over {limit} bytes in this run; the rest of their "
            "output was dropped]\n").encode()


class CappedLog:
    """Appends to a log file, at most ``limit`` bytes over every process that shares ``used``
    (a ``multiprocessing.Value``: the local workers, forked from the parent), then the
    truncation line once. Writes are whole under the lock, so workers' lines never mix."""

    def __init__(self, path: str | Path, limit: int = WORKER_LOG_LIMIT,
                 used: Any = None) -> None:
        self.path = str(path)
        self.limit = limit
        self.used = used if used is not None else multiprocessing.Value("q", 0)

    def write(self, data: bytes) -> None:
        with self.used.get_lock():
            room = self.limit - self.used.value
            if room < 0:  # over already: the line is written
                return
            out = data[:room]
            if len(data) > room:
                out += (b"" if out.endswith(b"\n") or not out else b"\n") \
                    + truncated_line(self.limit)
                self.used.value = self.limit + 1
            else:
                self.used.value += len(data)
            if out:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                try:
                    while out:
                        out = out[os.write(fd, out):]
                finally:
                    os.close(fd)

    def overflow(self) -> None:
        """Output was dropped before it reached here: write the truncation line (once)."""
        with self.used.get_lock():
            if self.used.value > self.limit:
                return
            self.used.value = self.limit + 1
            with open(self.path, "ab") as log:
                log.write(b"\n" + truncated_line(self.limit))


class Buffer:
    """Output held for the parent to collect, at most ``limit`` bytes; the rest is counted."""

    def __init__(self, limit: int = WORKER_LOG_LIMIT) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self.lock:
            room = max(0, self.limit - len(self.data))
            self.data += data[:room]
            self.dropped += max(0, len(data) - room)

    def take(self) -> tuple[bytes, int]:
        """The output so far and how many bytes were dropped; both reset."""
        with self.lock:
            out = (bytes(self.data), self.dropped)
            self.data.clear()
            self.dropped = 0
            return out


def redirect(fd: int) -> None:
    """Point this process's descriptors 1 and 2, and Python's streams, at ``fd``."""
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    # new streams on the descriptors: the inherited ones may not write to them (under pytest,
    # for one); the parent flushed its buffers before forking, so nothing is written twice
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace",  # noqa: SIM115
                      buffering=1, closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace",  # noqa: SIM115
                      buffering=1, closefd=False)


def pump(read: int, sink: Callable[[bytes], None]) -> None:
    """Read a pipe into ``sink`` until every writer has closed it."""
    while True:
        try:
            data = os.read(read, 65536)
        except OSError:
            return
        if not data:
            os.close(read)
            return
        with contextlib.suppress(Exception):  # a full disk must not stop the reading
            sink(data)


def start_pump(sink: Callable[[bytes], None]) -> tuple[int, threading.Thread]:
    """A pipe emptied into ``sink`` by a thread: its write end, and the thread."""
    read, write = os.pipe()
    thread = threading.Thread(target=pump, args=(read, sink), daemon=True,
                              name="pyanitsa-output")
    thread.start()
    return write, thread


class OutputTap:
    """This process's descriptors 1 and 2 into a pipe, emptied by a thread of its own into
    ``sink`` (what a process writes just before it dies may be lost: see ``close``)."""

    def __init__(self, sink: Callable[[bytes], None]) -> None:
        write, self.thread = start_pump(sink)
        redirect(write)
        os.close(write)

    def close(self, timeout: float = 2.0) -> None:
        """Flush, point 1 and 2 at /dev/null (closing the pipe), and let the thread finish
        (a process the worker started may still hold the pipe: not for long)."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)
        self.thread.join(timeout)
