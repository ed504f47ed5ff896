"""The tournament database: SQLite in WAL mode, one row per game, written once.

Only the parent process writes. A batch of finished games goes in one transaction with
``INSERT OR IGNORE`` on the key ``(pairing, deal, rotation)``, so a retried or duplicated write
never counts twice and a kill at any moment leaves whole games only. ``meta`` holds the
configuration the games were played with (resuming checks it) and the tournament's secret agent
key (:mod:`pyanitsa.agents.seeding`): made once with the database (one-way from the seed, or
random with ``agent_key: random``), read again by every resume, so that agents' generators are
the same on resume and say nothing of the deal. Reports never show it.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pyanitsa import store as sql
from pyanitsa.agents.seeding import AgentKey, check_key, key_from_seed, new_key
from pyanitsa.config import first_error
from pyanitsa.errors import CorruptFileError
from pyanitsa.folder_lock import FolderLock
from pyanitsa.records import Record
from pyanitsa.results import result_from_json
from pyanitsa.tournaments.config import RESULT_FIELDS, TournamentConfig, TournamentError
from pyanitsa.workers.games import COLUMNS, GameRow
from pyanitsa.workers.schedule import GameKey

DB_NAME = "tournament.db"
LOCK_NAME = "tournament.lock"
WHAT = "a tournament database"
"""What the file is, for the message of a file that is not one."""
_NOT_OURS_HINT = "move it away, or start again with overwrite=True"
SCHEMA_VERSION = "2"
"""2: the agent key in ``meta`` (1 had none: its agents' generators were readable)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    pairing INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed TEXT NOT NULL,
    seats TEXT NOT NULL,
    outcome TEXT NOT NULL,
    points TEXT NOT NULL,
    places TEXT NOT NULL,
    scores TEXT,
    rounds INTEGER,
    showdowns INTEGER,
    forfeit_seat INTEGER,
    forfeit_kind TEXT,
    forfeit_reason TEXT,
    result TEXT,
    record TEXT,
    seconds REAL NOT NULL,
    PRIMARY KEY (pairing, deal, rotation)
) WITHOUT ROWID;
"""


class TournamentStoreError(TournamentError):
    """A database that cannot be used: missing, another tournament's, or not resumable."""


def hold_folder(folder: Path) -> FolderLock:
    """The lock of a tournament's output folder, held (see :mod:`pyanitsa.folder_lock`)."""
    return FolderLock.acquire(folder, LOCK_NAME)


class Store:
    """An open tournament database."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    # -- opening --------------------------------------------------------------------------------

    @classmethod
    def create(cls, folder: Path, config: TournamentConfig, *, resume: bool,
               overwrite: bool = False, key: AgentKey | None = None) -> Store:
        """Open the database of ``folder`` for ``config``: new, or resumed if ``resume``.

        A new database keeps ``key`` as its agent key, or else the config's (``agent_key``:
        derived from its seed, or fresh and random); a resumed one keeps its own (``key``, if
        given, must be it). A config without a seed gets one: drawn for a new database, the
        database's own on resume; :meth:`config` gives the config as stored."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / DB_NAME
        _check_file(path)  # before overwriting: a directory of that name is not ours to delete
        if overwrite:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        store = cls(path, _connect(path))
        meta = store.meta()
        if "config" not in meta:  # new (or killed before its first commit)
            if config.seed is None:
                config = config.model_copy(update={"seed": secrets.randbits(64)})
            store._init(config, check_key(key) if key is not None else _new_key(config))
            return store
        if not resume:
            store.close()
            raise TournamentStoreError(f"{folder} already holds a tournament ({path.name}); "
                                       "pass resume=True to continue it, overwrite=True to "
                                       "start again, or choose another output folder")
        if "agent_key" not in meta:
            store.close()
            raise TournamentStoreError(
                f"resume=True: {path} was made by an older pyanitsa whose agent generators were "
                "derived from the seeds alone (an agent could read the deal from its own); "
                "its games cannot be continued exactly: start again with overwrite=True")
        if key is not None and bytes.fromhex(meta["agent_key"]) != key:
            store.close()
            raise TournamentStoreError(f"resume=True: {path} holds another agent key")
        old = json.loads(meta["result_fields"])
        if config.seed is None:  # the seed drawn when the database was made
            config = config.model_copy(update={"seed": old.get("seed")})
        new = config.result_fields()
        for name in RESULT_FIELDS:
            if old.get(name) != new.get(name):
                store.close()
                raise TournamentStoreError(
                    f"resume=True: {name} differs from the tournament in {path} "
                    f"({json.dumps(old.get(name))} there, {json.dumps(new.get(name))} now); "
                    "the games played would not match")
        with sql.transaction(store.conn):
            store.conn.execute("INSERT OR REPLACE INTO meta VALUES ('config', ?)",
                               (config.model_dump_json(),))
        return store

    @classmethod
    def open(cls, folder: Path) -> Store:
        """Open an existing database read-mostly (for reports)."""
        path = Path(folder) / DB_NAME
        _check_file(path)
        if not path.exists():
            raise TournamentStoreError(f"{folder}: no {DB_NAME} (not a tournament output "
                                       "folder)")
        store = cls(path, _connect(path))
        if "config" not in store.meta():
            store.close()
            raise TournamentStoreError(f"{path}: holds no tournament configuration")
        return store

    def _init(self, config: TournamentConfig, key: AgentKey) -> None:
        with sql.transaction(self.conn):
            self.conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("schema", SCHEMA_VERSION),
                ("config", config.model_dump_json()),
                ("result_fields", json.dumps(config.result_fields(), sort_keys=True)),
                ("agent_key", key.hex()),
            ])

    # -- reading and writing --------------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        try:  # an SQLite file with a table of that name, or without one
            return sql.read_meta(self.conn, self.path, WHAT, hint=_NOT_OURS_HINT)
        except CorruptFileError:
            self.close()
            raise

    def config(self) -> TournamentConfig:
        try:
            return TournamentConfig.model_validate_json(self.meta()["config"])
        except ValidationError as exc:  # written by something else, or by hand
            raise CorruptFileError(f"{self.path}: its stored configuration does not "
                                   f"validate ({first_error(exc)})") from None

    def agent_key(self) -> AgentKey:
        """The key of the agents' generators (secret: for the workers, never for reports)."""
        text = self.meta().get("agent_key")
        if text is None:
            raise TournamentStoreError(f"{self.path}: holds no agent key (an older database)")
        return bytes.fromhex(text)

    def keys(self) -> set[GameKey]:
        return {GameKey(*k) for k in
                self.conn.execute("SELECT pairing, deal, rotation FROM games")}

    def add(self, rows: Iterable[GameRow]) -> int:
        """Write finished games in one transaction; games already present are left alone.
        Returns how many were new."""
        with sql.transaction(self.conn):
            before = self.conn.total_changes
            self.conn.executemany(_INSERT, [_to_sql(r) for r in rows])
            return self.conn.total_changes - before

    def rows(self) -> list[GameRow]:
        """Every game, ordered by key."""
        return list(self.iter_rows())

    def iter_rows(self) -> Iterator[GameRow]:
        """Every game, ordered by key, read as it is asked for (records can be large)."""
        cur = self.conn.execute(f"SELECT {', '.join(COLUMNS)} FROM games "
                                "ORDER BY pairing, deal, rotation")
        return (_from_sql(r) for r in cur)

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _to_sql(row: GameRow) -> tuple[Any, ...]:
    """A game row in database form: lists and the result as compact JSON, the record as
    :meth:`Record.dumps` writes it."""
    return (row.pairing, row.deal, row.rotation, str(row.seed), _dumps(row.seats),
            row.outcome, _dumps(row.points), _dumps(row.places),
            None if row.scores is None else _dumps(row.scores), row.rounds, row.showdowns,
            row.forfeit_seat, row.forfeit_kind, row.forfeit_reason,
            None if row.result is None else json.dumps(row.result.to_json(),
                                                       separators=(",", ":")),
            None if row.record is None else row.record.dumps(), row.seconds)


def _from_sql(values: Iterable[Any]) -> GameRow:
    (pairing, deal, rotation, seed, seats, outcome, points, places, scores, rounds,
     showdowns, f_seat, f_kind, f_reason, result, record, seconds) = values
    return GameRow(pairing, deal, rotation, int(seed), tuple(json.loads(seats)), outcome,
                   tuple(json.loads(points)), tuple(json.loads(places)),
                   None if scores is None else tuple(json.loads(scores)), rounds, showdowns,
                   f_seat, f_kind, f_reason,
                   None if result is None else result_from_json(json.loads(result)),
                   None if record is None else Record.from_json(record), seconds)


def _dumps(value: Iterable[Any]) -> str:
    return json.dumps(list(value), separators=(",", ":"))


_INSERT = (f"INSERT OR IGNORE INTO games ({', '.join(COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(COLUMNS))})")


def _check_file(path: Path) -> None:
    if path.exists() and not path.is_file():
        raise TournamentStoreError(f"{path}: is not a file (a tournament database is one "
                                   "SQLite file); move it away or choose another output")


def _connect(path: Path) -> sqlite3.Connection:
    # WAL + NORMAL: a killed process never loses a committed transaction (only a power cut
    # can lose the last ones, and even then the database stays consistent).
    conn = sql.connect(path, WHAT, synchronous="NORMAL", hint=_NOT_OURS_HINT)
    try:
        conn.executescript(_SCHEMA)
    except sqlite3.DatabaseError as exc:  # garbage bytes, or another program's database
        conn.close()
        raise sql.not_a_store(path, WHAT, exc, _NOT_OURS_HINT) from None
    return conn


def _new_key(config: TournamentConfig) -> AgentKey:
    """A new database's agent key: by default one-way from the seed, so the same config plays
    the same games in any process; ``agent_key: random`` for a key no one can derive."""
    return new_key() if config.agent_key == "random" else key_from_seed(config.seed)
