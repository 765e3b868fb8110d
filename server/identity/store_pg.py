"""The players' store in the cluster's PostgreSQL database: every node reads the same players and bans.

Its tables live in the server's schema (``thousand``) beside the tables', its version under ``meta`` key
``players_schema``; migrations run under the tables' store's advisory lock, so that nodes starting together
apply each once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import psycopg

from server.identity.store import SCHEMA_1, SCHEMA_2, SCHEMA_KEY, PlayerStore
from server.store_pg import MIGRATION_LOCK, SCHEMA, connect, redact

MIGRATIONS: Final[Sequence[str]] = (
    SCHEMA_1.format(
        t=f"{SCHEMA}.",
        real="DOUBLE PRECISION",
        blob="BYTEA",
        serial="BIGSERIAL",
        autoincrement="",
        bool="BOOLEAN",
    ),
    SCHEMA_2.format(t=f"{SCHEMA}."),
)


class PostgresPlayerStore(PlayerStore):
    """The players of the PostgreSQL database at ``url``."""

    prefix = f"{SCHEMA}."

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.name = redact(url)
        self._db: psycopg.Connection[Any] | None = None
        try:
            self._migrate(self._connection())
        except psycopg.Error as error:
            raise RuntimeError(f"{self.name}: {error}") from error

    def _connection(self) -> psycopg.Connection[Any]:
        if self._db is None or self._db.closed:
            self._db = connect(self.url)
        return self._db

    def _migrate(self, db: psycopg.Connection[Any]) -> None:
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            db.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            db.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.meta (key TEXT PRIMARY KEY, value TEXT)")
            row = db.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = %s", (SCHEMA_KEY,)).fetchone()
            version = 0 if row is None else int(row[0])
            if version > len(MIGRATIONS):
                raise RuntimeError(
                    f"players schema {version}, this server knows {len(MIGRATIONS)}: upgrade it"
                )
            for migration in MIGRATIONS[version:]:
                db.execute(migration)
            db.execute(
                f"INSERT INTO {SCHEMA}.meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = %s",
                (SCHEMA_KEY, str(len(MIGRATIONS)), str(len(MIGRATIONS))),
            )

    def _run(self, statements: Sequence[tuple[str, Sequence[object]]]) -> list[tuple[Any, ...]]:
        db = self._connection()
        try:
            with db.transaction():
                rows: list[tuple[Any, ...]] = []
                for sql, params in statements:
                    cursor = db.execute(sql.replace("?", "%s"), tuple(params))
                    rows = cursor.fetchall() if cursor.description is not None else []
        except psycopg.OperationalError:
            db.close()  # broken: the next call connects again
            raise
        return rows

    def close(self) -> None:
        with self._lock:  # not while a call runs in another thread
            if self._db is not None:
                self._db.close()
