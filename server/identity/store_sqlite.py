"""The players' store in the server's SQLite file (beside the tables, with its own schema version)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from server.identity.store import SCHEMA_1, SCHEMA_2, SCHEMA_KEY, PlayerStore

MIGRATIONS: Final[Sequence[str]] = (
    SCHEMA_1.format(
        t="", real="REAL", blob="BLOB", serial="INTEGER", autoincrement=" AUTOINCREMENT", bool="INTEGER"
    ),
    SCHEMA_2.format(t=""),
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
        with self._lock:  # not while a call runs in another thread (closing under it crashes sqlite3)
            self._db.close()
