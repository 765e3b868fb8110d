"""The players' store in the cluster's PostgreSQL database: every node reads the same players and bans.

Its tables live in the server's schema (``thousand``) beside the tables', its version under ``meta`` key
``players_schema``; migrations run under the tables' store's advisory lock, so that nodes starting together
apply each once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import psycopg

from server.identity.store import SCHEMA_KEY, PlayerStore
from server.store_pg import MIGRATION_LOCK, SCHEMA, connect, redact

MIGRATIONS: Final[Sequence[str]] = (
    # 1: players, their bans and seats, the audit log, private tables.
    """
    CREATE TABLE thousand.players (
        player_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        display_name TEXT NOT NULL,
        locale TEXT NOT NULL,
        create_time DOUBLE PRECISION NOT NULL,
        issuer TEXT NOT NULL,
        subject TEXT NOT NULL,
        token_hash BYTEA UNIQUE,
        UNIQUE (issuer, subject)
    );
    CREATE TABLE thousand.bans (
        player_id TEXT PRIMARY KEY REFERENCES thousand.players (player_id),
        reason TEXT NOT NULL,
        operator TEXT NOT NULL,
        create_time DOUBLE PRECISION NOT NULL,
        expire_time DOUBLE PRECISION
    );
    CREATE TABLE thousand.audit_log (
        entry_id BIGSERIAL PRIMARY KEY,
        create_time DOUBLE PRECISION NOT NULL,
        operator TEXT NOT NULL,
        action TEXT NOT NULL,
        table_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        reason TEXT NOT NULL
    );
    CREATE TABLE thousand.player_seats (
        player_id TEXT NOT NULL REFERENCES thousand.players (player_id),
        table_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        token_hash BYTEA NOT NULL,
        join_time DOUBLE PRECISION NOT NULL,
        game TEXT NOT NULL,
        outcome TEXT,
        score INTEGER NOT NULL,
        place INTEGER NOT NULL,
        PRIMARY KEY (table_id, token_hash)
    );
    CREATE INDEX player_seats_by_player
        ON thousand.player_seats (player_id, join_time DESC, table_id DESC, seat DESC);
    CREATE TABLE thousand.private_tables (
        table_id TEXT PRIMARY KEY,
        unlisted BOOLEAN NOT NULL,
        invite_hash BYTEA NOT NULL,
        reservations TEXT NOT NULL,
        creator TEXT NOT NULL
    );
    """,
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
        if self._db is not None:
            self._db.close()
