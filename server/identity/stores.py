"""Which players' store a server's ``--db`` names: the one beside its tables."""

from __future__ import annotations

from server.identity.store import PlayerStore
from server.identity.store_pg import PostgresPlayerStore
from server.identity.store_sqlite import SqlitePlayerStore
from server.store_select import is_postgres


def open_player_store(db: str) -> PlayerStore:
    """The players' store beside the tables of ``--db`` (a PostgreSQL URL, or a SQLite file)."""
    return PostgresPlayerStore(db) if is_postgres(db) else SqlitePlayerStore(db)
