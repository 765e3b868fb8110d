"""Which store a server's ``--db`` names: a PostgreSQL URL, or a SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from server.store import Store
from server.store_pg import PostgresStore
from server.store_sqlite import SqliteStore

POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")
"""A ``--db`` that starts with one of these is a PostgreSQL connection URL; anything else a SQLite file."""


def is_postgres(db: str) -> bool:
    return db.startswith(POSTGRES_SCHEMES)


def open_store(db: str | Path, *, node_id: str = "") -> Store:
    """The store ``db`` names: a PostgreSQL URL (``postgresql://user@host:port/database``; ``node_id``: the
    cluster node writing it) or a SQLite file (``":memory:"``: nothing kept)."""
    db = str(db)
    if is_postgres(db):
        return PostgresStore(db, node_id=node_id)
    return SqliteStore(db)
