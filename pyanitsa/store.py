"""The SQLite files of every store (an enumeration's ranges, a hunt's finds, a tournament's
games): one way to open them, to write them all or nothing, and to read their ``meta`` table.

Every store is one SQLite file in a folder held by a :class:`~pyanitsa.folder_lock.FolderLock`,
so one process writes it. The file is in WAL mode and in autocommit mode: a write is a
:func:`transaction` (``BEGIN IMMEDIATE`` ... ``COMMIT``), so a process killed at any moment,
``kill -9`` included, leaves whole transactions only and a retried one is the store's business
(``INSERT OR IGNORE`` keys, or a commit that carries its own state). ``synchronous`` is the
store's choice: ``FULL`` survives a power cut too; ``NORMAL`` only loses the last commits to one.

A file that SQLite cannot read, or without the store's ``meta`` table, is a
:class:`~pyanitsa.errors.CorruptFileError`: damaged, or another program's file of that name.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Literal

from pyanitsa.errors import CorruptFileError
from pyanitsa.folder_lock import FolderLock

Synchronous = Literal["FULL", "NORMAL"]

BUSY_TIMEOUT = 30.0
"""Seconds a reader (a report of a running tournament) waits for the writer's lock."""


def connect(path: str | os.PathLike[str], what: str, *, synchronous: Synchronous = "FULL",
            hint: str = "") -> sqlite3.Connection:
    """``path`` opened (created if missing) for durable commits: WAL, autocommit, the
    ``synchronous`` level. ``what`` (``"a hunt store"``) and ``hint`` (what to do about a file
    that is not one) word the :class:`~pyanitsa.errors.CorruptFileError` of a file SQLite
    cannot read."""
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    except sqlite3.Error as exc:
        raise not_a_store(path, what, exc, hint) from None
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={synchronous}")
    except sqlite3.DatabaseError as exc:  # garbage bytes, or another program's database
        db.close()
        raise not_a_store(path, what, exc, hint) from None
    return db


def connect_read_only(path: str | os.PathLike[str], what: str) -> sqlite3.Connection:
    """``path`` opened read-only (for exports): no write, no WAL switch, nothing created."""
    try:
        return sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True, timeout=BUSY_TIMEOUT)
    except sqlite3.Error as exc:
        raise not_a_store(path, what, exc) from None


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on any exception (Ctrl-C too): all of
    a write or none of it."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def create(db: sqlite3.Connection, schema: str, meta: Mapping[str, str]) -> None:
    """Make the tables of ``schema`` (``meta (key, value)`` among them) and fill ``meta``, in
    one transaction: a store killed while it was made holds no tables at all."""
    with transaction(db):
        for statement in schema.split(";"):
            if statement.strip():
                db.execute(statement)
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())


def read_meta(db: sqlite3.Connection, path: str | os.PathLike[str], what: str, *,
              hint: str = "") -> dict[str, str]:
    """The store's ``meta`` table as a dict; :class:`~pyanitsa.errors.CorruptFileError` if the
    file has none (see :func:`connect` for ``what`` and ``hint``)."""
    try:
        return dict(db.execute("SELECT key, value FROM meta"))
    except sqlite3.DatabaseError as exc:
        raise not_a_store(path, what, exc, hint) from None


def not_a_store(path: str | os.PathLike[str], what: str, exc: Exception,
                hint: str = "") -> CorruptFileError:
    """The error for a file at ``path`` that is not ``what``: SQLite's reason, and ``hint``."""
    return CorruptFileError(f"{path}: not {what} ({exc}){'; ' + hint if hint else ''}")


def open_locked(folder: str | os.PathLike[str], name: str, lock_name: str, what: str, *,
                user: str, synchronous: Synchronous = "FULL"
                ) -> tuple[FolderLock, sqlite3.Connection]:
    """The store file ``name`` in ``folder`` (created if missing), with the folder's lock
    ``lock_name`` held first (``user``: what holds such a folder, for the message of a second
    one); see :func:`connect` for ``what`` and ``synchronous``."""
    lock = FolderLock.acquire(folder, lock_name, user=user)
    try:
        return lock, connect(Path(folder) / name, what, synchronous=synchronous)
    except BaseException:
        lock.release()
        raise
