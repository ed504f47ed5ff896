"""A range store: an enumeration's ranges of the deal ranking, committed to SQLite as they finish.

The arrangements of the deck's ranks, in lexicographic order (the deal ranking of
:mod:`pyanitsa.research.enumeration`), are cut into ranges of ``range_size`` consecutive ranks. A finished
range is committed in one transaction with its totals, its longest game and its cycles, so a run
killed at any moment leaves whole ranges only: a range being played when the run died is simply
not there, and resuming (``resume=True``) plays it again. The report merges the committed ranges in range order,
which gives the figures of an uninterrupted run exactly, whatever order the ranges finished in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyanitsa import store as sql
from pyanitsa.errors import PyanitsaError
from pyanitsa.research.enumeration import DealStats, Longest, arrangements, deal_at
from pyanitsa.rules import Rules

FORMAT = 1
"""The store's schema version."""
DB_NAME = "enumeration.sqlite"
LOCK_NAME = "enumeration.lock"
WHAT = "a range store"
"""What the file is, for the message of a file that is not one."""
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


class StoreError(PyanitsaError):
    """A store that cannot serve this run: none to resume, one already there, another deck,
    rules or settings, a bad range. (A folder held by another run is a
    :class:`~pyanitsa.folder_lock.FolderLockedError`, a damaged file a
    :class:`~pyanitsa.errors.CorruptFileError`: failures, not bad input.)"""


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
            raise StoreError(f"ranges={part!r} is not A:B (range numbers, B excluded)"
                             ) from None
        if not 0 <= lo < hi <= count:
            raise StoreError(f"ranges={part!r} is out of bounds: this deal space has {count} "
                             f"ranges (0:{count})")
        chosen.update(range(lo, hi))
    return sorted(chosen)


def check_new_or_resumed(folder: Path, name: str, noun: str, *, resume: bool) -> None:
    """Refuse to resume a ``noun`` that ``folder`` does not hold (no file ``name``), or to start
    one over the one it holds."""
    if resume and not (folder / name).exists():
        raise StoreError(f"resume=True: {folder} holds no {noun} ({name})")
    if not resume and (folder / name).exists():
        article = "an" if noun[0] in "aeiou" else "a"
        raise StoreError(f"{folder} already holds {article} {noun}; add resume=True to "
                         "continue it")


def check_format(folder: Path, meta: dict[str, str], version: int) -> None:
    """Refuse to resume a store of another schema version than ``version``."""
    if meta.get("format") != str(version):
        raise StoreError(f"resume=True: {folder} has store format {meta.get('format')}, not "
                         f"{version}")


class RangeStore:
    """The SQLite file of one enumeration in a folder, locked for the life of the store."""

    def __init__(self, folder: str | os.PathLike[str], rules: Rules, *, resume: bool,
                 range_size: int = DEFAULT_RANGE_SIZE) -> None:
        self.folder = Path(folder)
        check_new_or_resumed(self.folder, DB_NAME, "enumeration", resume=resume)
        if range_size < 1:
            raise StoreError(f"range_size={range_size} must be at least 1")
        self._lock, self.db = sql.open_locked(self.folder, DB_NAME, LOCK_NAME, WHAT,
                                              user="enumeration")
        try:
            if resume:
                self.plan = self._check(rules)
            else:
                self.plan = RangePlan(arrangements(rules.deck), range_size)
                self._create(rules)
        except BaseException:  # a store refused frees its folder at once
            self.close()
            raise
        self.rules = rules

    def _create(self, rules: Rules) -> None:
        meta = {"format": str(FORMAT), "deck": str(rules.deck), "rules": rules_key(rules),
                "arrangements": str(self.plan.total), "range_size": str(self.plan.size)}
        sql.create(self.db, _SCHEMA, meta)

    def _check(self, rules: Rules) -> RangePlan:
        meta = sql.read_meta(self.db, self.folder / DB_NAME, WHAT)
        check_format(self.folder, meta, FORMAT)
        if meta["deck"] != str(rules.deck):
            raise StoreError(f"resume=True: {self.folder} enumerates deck {meta['deck']}, not "
                             f"{rules.deck}")
        if meta["rules"] != rules_key(rules):
            theirs = json.loads(meta["rules"])["options"]
            ours = rules.to_options()
            diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            shown = ", ".join(f"{k}={theirs.get(k, 'default')}" for k in diff)
            raise StoreError(f"resume=True: {self.folder} was run with other rules ({shown})")
        return RangePlan(int(meta["arrangements"]), int(meta["range_size"]))

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
        with sql.transaction(self.db):
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
        self._lock.release()

