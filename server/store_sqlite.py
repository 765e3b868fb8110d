"""The embedded store: one SQLite file (WAL, ``synchronous=FULL``), the default of a single server.

``":memory:"`` has no disk to wait for, so it commits on the spot, on the caller's thread (no group commit),
and keeps nothing across restarts (for tests).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from server.ratings.schema import ratings_schema
from server.snapshots import TableState, rebuilds_clock
from server.snapshots import load as load_snapshot
from server.store import Record, Sql, Store, StoredTable, StoreError, TableConfig, Work, Write

SCHEMA_VERSION: Final = 1

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    serial INTEGER NOT NULL,
    create_time REAL NOT NULL,
    config TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    finish_time REAL,
    expire_time REAL
);
CREATE TABLE IF NOT EXISTS records (
    table_id TEXT NOT NULL REFERENCES tables(table_id),
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER NOT NULL,
    text TEXT NOT NULL,
    data BLOB,
    PRIMARY KEY (table_id, number)
);
CREATE TABLE IF NOT EXISTS snapshots (
    table_id TEXT PRIMARY KEY REFERENCES tables(table_id),
    records INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    checksum BLOB NOT NULL,
    data BLOB NOT NULL
);
"""
"""Snapshots (:mod:`server.snapshots`) came within schema 1: an older server ignores their table."""


class SqliteStore(Store):
    """One SQLite database of tables. ``group_commit`` (by default: for a file, not for ``":memory:"``)."""

    def __init__(self, path: str | Path, *, group_commit: bool | None = None) -> None:
        self.path = str(path)
        super().__init__(
            self.path, group_commit=self.path != ":memory:" if group_commit is None else group_commit
        )
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        self._db.executescript(ratings_schema(prefix="", real="REAL"))
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise RuntimeError(f"{self.path}: schema {row[0]}, this server reads {SCHEMA_VERSION}")
        columns = {column[1] for column in self._db.execute("PRAGMA table_info(tables)")}
        for column in ("finish_time", "expire_time"):
            if column not in columns:
                # Added within schema 1: older servers name their columns and ignore them.
                self._db.execute(f"ALTER TABLE tables ADD COLUMN {column} REAL")

    def connection(self) -> tuple[sqlite3.Connection, threading.Lock]:
        """The connection and the lock that guards it, for another part's tables in this same database
        (the quick-play queue's and the ladder's, when ``":memory:"`` allows no second connection to it)."""
        return self._db, self._lock

    # ------------------------------------------------------------------ writing

    def _write_batch(self, writes: Sequence[Write]) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        for write in writes:
            self._execute(write)
        self._db.execute("COMMIT")

    def _abort(self) -> None:
        try:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # a failed rollback leaves the transaction to SQLite, which rolls it back itself

    def _committed(self) -> None:
        pass  # nothing kept per commit

    def _close_connection(self) -> None:
        self._db.close()

    def _execute(self, write: Write) -> None:
        for statement in _statements(write):
            self._db.execute(*statement)

    def transact(self, table_id: str, work: Work) -> None:
        def run(sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
            return self._db.execute(sql.format(t=""), tuple(params)).fetchall()

        with self._lock:  # BEGIN IMMEDIATE: the database's write lock, so no other writer interleaves
            try:
                self._db.execute("BEGIN IMMEDIATE")
                records = work(Sql(run, ""))
                self._execute(Write(table_id, records=records))
                self._db.execute("COMMIT")
            except Exception as error:
                self.failures += 1
                self._abort()
                raise StoreError(f"{self.name}: {error}") from error
            self.commits += 1
            self.writes += 1

    def read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql.format(t=""), tuple(params)).fetchall()
            except sqlite3.Error as error:
                raise StoreError(f"{self.name}: {error}") from error

    # ------------------------------------------------------------------ reading

    def count(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM tables").fetchone()
        return int(row[0])

    def max_serial(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(serial), 0) FROM tables").fetchone()
        return int(row[0])

    def tables(
        self, *, finished_before: float | None = None, snapshots: bool = False
    ) -> Iterator[StoredTable]:
        query = "SELECT table_id, serial, create_time, config, finish_time FROM tables"
        if finished_before is not None:
            query += (
                " WHERE NOT (finished = 1 AND finish_time IS NOT NULL AND finish_time < ?)"
                " AND expire_time IS NULL"
            )
        with self._lock:
            rows = self._db.execute(
                query + " ORDER BY serial", () if finished_before is None else (finished_before,)
            ).fetchall()
        for table_id, serial, create_time, config, finish_time in rows:
            config_read = TableConfig.from_json(config)
            yield self._load(
                table_id, int(serial), float(create_time), config_read, finish_time, snapshots=snapshots
            )

    def _load(
        self,
        table_id: str,
        serial: int,
        create_time: float,
        config: TableConfig,
        finish_time: float | None = None,
        *,
        snapshots: bool = False,
    ) -> StoredTable:
        state = self._snapshot(table_id) if snapshots else None
        records = self._records(table_id, 0 if state is None else state.records)
        if state is not None and not rebuilds_clock(records):
            state, records = None, self._records(table_id, 0)
        finished = None if finish_time is None else float(finish_time)
        return StoredTable(table_id, serial, create_time, config, records, finished, state)

    def _records(self, table_id: str, first: int) -> list[Record]:
        with self._lock:
            return [
                Record(kind, int(seat), text, bytes(data or b""))
                for kind, seat, text, data in self._db.execute(
                    "SELECT kind, seat, text, data FROM records WHERE table_id = ? AND number >= ?"
                    " ORDER BY number",
                    (table_id, first),
                )
            ]

    def _snapshot(self, table_id: str) -> TableState | None:
        with self._lock:
            row = self._db.execute(
                "SELECT records, fingerprint, checksum, data FROM snapshots WHERE table_id = ?", (table_id,)
            ).fetchone()
        if row is None:
            return None
        records, made_by, checksum, data = row
        return load_snapshot(bytes(data), bytes(checksum), str(made_by), int(records))

    def finish_times(self, table_ids: Sequence[str]) -> dict[str, float | None]:
        ids = sorted(set(table_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        with self._lock:
            rows = self._db.execute(
                f"SELECT table_id, finish_time FROM tables WHERE table_id IN ({marks})", ids
            ).fetchall()
        return {str(table_id): None if finished is None else float(finished) for table_id, finished in rows}

    def get(self, table_id: str, *, snapshots: bool = False) -> StoredTable | None:
        with self._lock:
            row = self._db.execute(
                "SELECT serial, create_time, config, finish_time FROM tables WHERE table_id = ?", (table_id,)
            ).fetchone()
        if row is None:
            return None
        config = TableConfig.from_json(row[2])
        return self._load(table_id, int(row[0]), float(row[1]), config, row[3], snapshots=snapshots)


def _statements(write: Write) -> Iterator[tuple[str, tuple[object, ...]]]:
    """The SQL statements of one write, with their parameters."""
    if write.create is not None:
        serial, create_time, config = write.create
        yield (
            "INSERT INTO tables (table_id, serial, create_time, config) VALUES (?, ?, ?, ?)",
            (write.table_id, serial, create_time, config.to_json()),
        )
    if write.snapshot is not None:  # the state after the records stored so far: counted here
        snapshot = write.snapshot
        yield (
            "INSERT INTO snapshots (table_id, records, fingerprint, checksum, data)"
            " SELECT ?, COUNT(*), ?, ?, ? FROM records WHERE table_id = ?"
            " ON CONFLICT (table_id) DO UPDATE SET records = excluded.records,"
            " fingerprint = excluded.fingerprint, checksum = excluded.checksum, data = excluded.data",
            (write.table_id, snapshot.fingerprint, snapshot.checksum, snapshot.data, write.table_id),
        )
    for record in write.records:
        # The record's number is the table's next, taken in the transaction itself: nothing to keep (or to
        # give back when it fails) per table in memory.
        yield (
            "INSERT INTO records SELECT ?, COALESCE(MAX(number) + 1, 0), ?, ?, ?, ?"
            " FROM records WHERE table_id = ?",
            (write.table_id, record.kind, record.seat, record.text, record.data, write.table_id),
        )
    if write.finish_time is not None:
        yield (
            "UPDATE tables SET finished = 1, finish_time = ? WHERE table_id = ?",
            (write.finish_time, write.table_id),
        )
    if write.expire_time is not None:
        yield "UPDATE tables SET expire_time = ? WHERE table_id = ?", (write.expire_time, write.table_id)
