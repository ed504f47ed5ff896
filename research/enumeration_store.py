"""A range store: an enumeration's ranges of the deal ranking, committed to SQLite as they finish.

The arrangements of the deck's ranks, in lexicographic order (the deal ranking of
:mod:`pyanitsa.research.enumeration`), are cut into ranges of ``range_size`` consecutive ranks. A finished
range is committed in one transaction with its totals, its longest game and its cycles, so a run
killed at any moment leaves whole ranges only: a range being played when the run died is simply
not there, and ``--resume`` plays it again. The report merges the committed ranges in range order,
which gives the figures of an uninterrupted run exactly, whatever order the ranges finished in.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyanitsa.errors import PyanitsaError
from pyanitsa.research.enumeration import DealStats, Longest, arrangements, deal_at
from pyanitsa.rules import Rules

FORMAT = 1
"""The store's schema version."""
DB_NAME = "enumeration.sqlite"
LOCK_NAME = "enumeration.lock"
DEFAULT_RANGE_SIZE = 1 << 20
"""Arrangements per range: about a second of one core on 16 cards."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ranges (
    idx INTEGER PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL,
    deals INTEGER NOT NULL, cycles INTEGER NOT NULL, capped INTEGER NOT NULL,
    draws INTEGER NOT NULL, win0 INTEGER NOT NULL, win1 INTEGER NOT NULL,
    finished INTEGER NOT NULL, rounds_sum INTEGER NOT NULL, showdowns_sum INTEGER NOT NULL,
    longest_rank INTEGER, longest_rounds INTEGER, longest_showdowns INTEGER, longest_deal TEXT,
    seconds REAL NOT NULL, cpu_seconds REAL NOT NULL, backend TEXT NOT NULL
);
CREATE TABLE cycles (
    rank INTEGER PRIMARY KEY, range INTEGER NOT NULL, start INTEGER NOT NULL,
    period INTEGER NOT NULL, deal TEXT NOT NULL
);
"""


class StoreError(PyanitsaError, ValueError):
    """A range store that cannot serve this run (another deck or rules, a bad range, a lock)."""


def rules_key(rules: Rules) -> str:
    """The rules as canonical JSON: equal for rules that play every deal alike."""
    options = rules.to_json()  # the stores on disk nest the options under their own key
    return json.dumps({"mode": options.pop("mode"), "deck": options.pop("deck"),
                       "options": options}, sort_keys=True)


def rules_from_key(key: str) -> Rules:
    obj = json.loads(key)
    return Rules.from_json({**obj["options"], "mode": obj["mode"], "deck": obj["deck"]})


@dataclass(frozen=True)
class RangePlan:
    """How the deal ranking is cut: ``count`` ranges of ``size`` arrangements (the last shorter)."""

    total: int
    """Arrangements of the deck's ranks."""
    size: int

    @property
    def count(self) -> int:
        return -(-self.total // self.size)

    def bounds(self, idx: int) -> tuple[int, int]:
        """The arrangement ranks of range ``idx``: first, and one past the last."""
        return idx * self.size, min(self.total, (idx + 1) * self.size)


def parse_ranges(text: str, count: int) -> list[int]:
    """``A:B[,C:D...]`` (B excluded; either side may be empty) as sorted range indices, checked
    against ``count`` ranges. A list hands a cluster's machines, or a sample, their pieces."""
    chosen: set[int] = set()
    for part in text.split(","):
        a, sep, b = part.partition(":")
        try:
            if not sep:
                raise ValueError
            lo = int(a) if a.strip() else 0
            hi = int(b) if b.strip() else count
        except ValueError:
            raise StoreError(f"--ranges: {part!r} is not A:B (range numbers, B excluded)"
                             ) from None
        if not 0 <= lo < hi <= count:
            raise StoreError(f"--ranges: {part} is out of bounds: this deal space has {count} "
                             f"ranges (0:{count})")
        chosen.update(range(lo, hi))
    return sorted(chosen)


def open_locked(folder: Path, path: Path, lock_name: str, command: str) -> tuple[Any, Any]:
    """The folder's lock file, held (another ``command`` on the same folder is refused in one
    line), and its SQLite file opened for durable commits (WAL, synchronous)."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = open(folder / lock_name, "a")  # noqa: SIM115 - held until the store closes
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise StoreError(f"--output: {folder} is in use by another {command}") from None
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    return lock, db


class RangeStore:
    """The SQLite file of one enumeration in a folder, locked for the life of the store."""

    def __init__(self, folder: str | os.PathLike[str], rules: Rules, *, resume: bool,
                 range_size: int = DEFAULT_RANGE_SIZE) -> None:
        self.folder = Path(folder)
        path = self.folder / DB_NAME
        if resume and not path.exists():
            raise StoreError(f"--resume: {self.folder} holds no enumeration ({DB_NAME})")
        if not resume and path.exists():
            raise StoreError(f"--output: {self.folder} already holds an enumeration; add "
                             "--resume to continue it")
        if range_size < 1:
            raise StoreError(f"--range-size: {range_size} must be at least 1")
        self._lock, self.db = open_locked(self.folder, path, LOCK_NAME, "enumerate")
        if resume:
            self.plan = self._check(rules)
        else:
            self.plan = RangePlan(arrangements(rules.deck), range_size)
            self._create(rules)
        self.rules = rules

    def _create(self, rules: Rules) -> None:
        meta = {"format": str(FORMAT), "deck": str(rules.deck), "rules": rules_key(rules),
                "arrangements": str(self.plan.total), "range_size": str(self.plan.size)}
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())

    def _check(self, rules: Rules) -> RangePlan:
        try:
            meta = dict(self.db.execute("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"--resume: {self.folder / DB_NAME} is not a range store ({exc})"
                             ) from None
        if meta.get("format") != str(FORMAT):
            raise StoreError(f"--resume: {self.folder} has store format {meta.get('format')}, "
                             f"not {FORMAT}")
        if meta["deck"] != str(rules.deck):
            raise StoreError(f"--resume: {self.folder} enumerates deck {meta['deck']}, not "
                             f"{rules.deck}")
        if meta["rules"] != rules_key(rules):
            theirs = json.loads(meta["rules"])["options"]
            ours = rules.to_options()
            diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            shown = ", ".join(f"{k}={theirs.get(k, 'default')}" for k in diff)
            raise StoreError(f"--resume: {self.folder} was run with other rules ({shown})")
        return RangePlan(int(meta["arrangements"]), int(meta["range_size"]))

    def _transaction(self) -> Any:
        return _Transaction(self.db)

    def done(self) -> set[int]:
        """The indices of the committed ranges."""
        return {idx for (idx,) in self.db.execute("SELECT idx FROM ranges")}

    def deals_done(self) -> int:
        """Deals in the committed ranges."""
        return self.db.execute("SELECT COALESCE(SUM(deals), 0) FROM ranges").fetchone()[0]

    def commit(self, idx: int, result: Any, *, seconds: float, cpu_seconds: float,
               backend: str) -> None:
        """Store range ``idx``'s :class:`~pyanitsa.research.enumeration_batch.RangeResult` atomically, with
        the wall time and the CPU time (all threads) that played it."""
        st: DealStats = result.stats
        lg = st.longest
        row = (idx, result.lo, result.hi, st.deals, st.cycles, st.capped, st.draws, st.wins[0],
               st.wins[1], st.finished, st.rounds_sum, st.showdowns_sum, result.longest_rank,
               None if lg is None else lg.rounds, None if lg is None else lg.showdowns,
               None if lg is None else json.dumps([list(s) for s in lg.deal]), seconds,
               cpu_seconds, backend)
        cycles = [(rank, idx, start, period,
                   json.dumps([list(s) for s in deal_at(self.rules.deck, rank)]))
                  for rank, start, period in result.cycles]
        with self._transaction():
            self.db.execute(f"INSERT INTO ranges VALUES ({', '.join('?' * len(row))})", row)
            self.db.executemany("INSERT INTO cycles VALUES (?, ?, ?, ?, ?)", cycles)

    def merged(self, indices: Iterable[int] | None = None) -> DealStats:
        """The committed ranges' figures merged in range order (``indices``: only those)."""
        wanted = None if indices is None else set(indices)
        stats = DealStats()
        for row in self.db.execute("SELECT * FROM ranges ORDER BY idx"):
            if wanted is not None and row[0] not in wanted:
                continue
            part = DealStats(deals=row[3], cycles=row[4], capped=row[5], draws=row[6],
                             wins=[row[7], row[8]], finished=row[9], rounds_sum=row[10],
                             showdowns_sum=row[11])
            if row[12] is not None:
                part.longest = Longest(row[13], row[14],
                                       tuple(tuple(s) for s in json.loads(row[15])))
            stats.merge(part)
        return stats

    def summary(self) -> dict[str, Any]:
        """What the store holds: ranges committed of all, and the time they took."""
        n, seconds, cpu = self.db.execute("SELECT COUNT(*), COALESCE(SUM(seconds), 0), "
                                          "COALESCE(SUM(cpu_seconds), 0) FROM ranges").fetchone()
        return {"folder": str(self.folder), "ranges_done": n, "ranges": self.plan.count,
                "range_size": self.plan.size, "range_seconds": round(seconds, 3),
                "range_cpu_seconds": round(cpu, 3)}

    def close(self) -> None:
        self.db.close()
        self._lock.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an exception: all of a range or none of it."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
