"""A hunt store: a record and cycle hunt's finds and its search state, in SQLite.

Each checkpoint commits, in one transaction, the finds since the last one (new longest games,
cycles, capped games, each with its replayable record) and the search state that follows them
(the generator's state and the chains). A hunt killed at any moment leaves a consistent store:
resuming (``resume=True``) continues from the last checkpoint with the same random stream and finds the lost
generations' games again, so a resumed hunt ends exactly where an uninterrupted one does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pyanitsa import store as sql
from pyanitsa.research.enumeration_store import (
    StoreError,
    check_format,
    check_new_or_resumed,
    rules_key,
)
from pyanitsa.rules import Rules

FORMAT = 1
"""The store's schema version."""
DB_NAME = "hunt.sqlite"
LOCK_NAME = "hunt.lock"
WHAT = "a hunt store"
"""What the file is, for the message of a file that is not one."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE state (id INTEGER PRIMARY KEY CHECK (id = 0), value TEXT NOT NULL);
CREATE TABLE finds (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, rounds INTEGER NOT NULL,
    showdowns INTEGER NOT NULL, period INTEGER, start INTEGER, at_deal INTEGER NOT NULL,
    record TEXT NOT NULL, result TEXT NOT NULL
);
"""


class HuntStore:
    """The SQLite file of one hunt in a folder, locked for the life of the store.

    ``config`` (the rules, seed, target and search settings) is written by a new hunt and must
    match on resuming: another configuration would be another random stream.
    """

    def __init__(self, folder: str | os.PathLike[str], rules: Rules, config: dict[str, Any], *,
                 resume: bool) -> None:
        self.folder = Path(folder)
        check_new_or_resumed(self.folder, DB_NAME, "hunt", resume=resume)
        self._lock, self.db = sql.open_locked(self.folder, DB_NAME, LOCK_NAME, WHAT, user="hunt")
        meta = {"format": str(FORMAT), "rules": rules_key(rules),
                "config": json.dumps(config, sort_keys=True)}
        try:
            if resume:
                self._check(meta)
            else:
                sql.create(self.db, _SCHEMA, meta)
        except BaseException:  # a store refused frees its folder at once
            self.close()
            raise

    def _check(self, meta: dict[str, str]) -> None:
        theirs = sql.read_meta(self.db, self.folder / DB_NAME, WHAT)
        check_format(self.folder, theirs, FORMAT)
        if theirs.get("rules") != meta["rules"]:
            raise StoreError(f"resume=True: {self.folder} hunted with other rules or another "
                             "deck")
        old, new = json.loads(theirs["config"]), json.loads(meta["config"])
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                raise StoreError(f"resume=True: {self.folder} was started with {key}="
                                 f"{old.get(key)}, not {new.get(key)}")

    def state(self) -> dict[str, Any] | None:
        """The last checkpoint's search state, None before the first."""
        row = self.db.execute("SELECT value FROM state WHERE id = 0").fetchone()
        return None if row is None else json.loads(row[0])

    def checkpoint(self, state: dict[str, Any], finds: Iterable[tuple[Any, ...]]) -> None:
        """Commit ``finds`` (rows: kind, rounds, showdowns, period, start, at_deal, record JSON,
        result JSON) and the state after them, all or nothing."""
        with sql.transaction(self.db):
            self.db.executemany("INSERT INTO finds (kind, rounds, showdowns, period, start, "
                                "at_deal, record, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                list(finds))
            self.db.execute("INSERT OR REPLACE INTO state VALUES (0, ?)", (json.dumps(state),))

    def finds(self) -> list[dict[str, Any]]:
        """Every stored find, in the order found."""
        rows = self.db.execute("SELECT kind, rounds, showdowns, period, start, at_deal, record, "
                               "result FROM finds ORDER BY id")
        return [{"kind": k, "rounds": r, "showdowns": s, "period": p, "start": st,
                 "at_deal": a, "record": json.loads(rec), "result": json.loads(res)}
                for k, r, s, p, st, a, rec, res in rows]

    def close(self) -> None:
        self.db.close()
        self._lock.release()
