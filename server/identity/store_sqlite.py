"""The players' store in the server's SQLite file (beside the tables, with its own schema version)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from server.identity.store import SCHEMA_KEY, PlayerStore

MIGRATIONS: Final[Sequence[str]] = (
    # 1: players, their bans and seats, the audit log, private tables.
    """
    CREATE TABLE players (
        player_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        display_name TEXT NOT NULL,
        locale TEXT NOT NULL,
        create_time REAL NOT NULL,
        issuer TEXT NOT NULL,
        subject TEXT NOT NULL,
        token_hash BLOB UNIQUE,
        UNIQUE (issuer, subject)
    );
    CREATE TABLE bans (
        player_id TEXT PRIMARY KEY REFERENCES players (player_id),
        reason TEXT NOT NULL,
        operator TEXT NOT NULL,
        create_time REAL NOT NULL,
        expire_time REAL
    );
    CREATE TABLE audit_log (
        entry_id INTEGER PRIMARY KEY AUTOINCREMENT,
        create_time REAL NOT NULL,
        operator TEXT NOT NULL,
        action TEXT NOT NULL,
        table_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        reason TEXT NOT NULL
    );
    CREATE TABLE player_seats (
        player_id TEXT NOT NULL REFERENCES players (player_id),
        table_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        token_hash BLOB NOT NULL,
        join_time REAL NOT NULL,
        game TEXT NOT NULL,
        outcome TEXT,
        score INTEGER NOT NULL,
        place INTEGER NOT NULL,
        PRIMARY KEY (table_id, token_hash)
    );
    CREATE INDEX player_seats_by_player ON player_seats (player_id, join_time DESC, table_id DESC, seat DESC);
    CREATE TABLE private_tables (
        table_id TEXT PRIMARY KEY,
        unlisted INTEGER NOT NULL,
        invite_hash BLOB NOT NULL,
        reservations TEXT NOT NULL,
        creator TEXT NOT NULL
    );
    """,
)


class SqlitePlayerStore(PlayerStore):
    """The players of the SQLite database at ``path`` (``":memory:"``: one of its own, kept nowhere)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # A connection of its own beside the tables' store's: a write waits (timeout) for the other's.
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._migrate()

    def _migrate(self) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = db.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
            version = 0 if row is None else int(row[0])
            if version > len(MIGRATIONS):
                raise RuntimeError(
                    f"{self.path}: players schema {version}, this server knows {len(MIGRATIONS)}: upgrade it"
                )
            for migration in MIGRATIONS[version:]:
                for statement in filter(str.strip, migration.split(";")):
                    db.execute(statement)
            db.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (SCHEMA_KEY, str(len(MIGRATIONS))),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _run(self, statements: Sequence[tuple[str, Sequence[object]]]) -> list[tuple[Any, ...]]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            rows: list[tuple[Any, ...]] = []
            for sql, params in statements:
                rows = db.execute(sql, tuple(params)).fetchall()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return rows

    def close(self) -> None:
        self._db.close()
