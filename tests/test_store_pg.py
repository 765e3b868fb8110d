"""The PostgreSQL store's own promises, on a real server: the schema is created once and versioned, a write
from a node that no longer holds the table's epoch (or whose records are not the database's) changes nothing,
record numbers are unique per table, and a lost connection fails one write with StoreError, not the store."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from server.store import Record, StoreError, TableConfig, TableFencedError
from server.store_pg import SCHEMA, PostgresStore
from server.store_pg_schema import MIGRATIONS
from tests.server_harness import run

CONFIG = TableConfig(rules=b"", seats=[(True, "greedy")] * 3, seed=1, first_dealer=0)


def scalar(url: str, query: str, *params: object) -> object:
    with psycopg.connect(url) as connection:
        row = connection.execute(query, params).fetchone()
        assert row is not None
        return row[0]


def test_the_schema_is_created_once_and_its_version_recorded(pg_url: str) -> None:
    first, second = PostgresStore(pg_url), PostgresStore(pg_url)  # the second finds it made
    assert first.schema == second.schema == len(MIGRATIONS)
    assert scalar(pg_url, f"SELECT value FROM {SCHEMA}.meta WHERE key = 'schema'") == str(len(MIGRATIONS))
    first.close()
    second.close()
    with psycopg.connect(pg_url, autocommit=True) as connection:
        connection.execute(f"UPDATE {SCHEMA}.meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(RuntimeError, match="schema 99"):
        PostgresStore(pg_url)


def test_serials_come_from_one_sequence_for_every_node(pg_url: str) -> None:
    a, b = PostgresStore(pg_url, node_id="a"), PostgresStore(pg_url, node_id="b")

    async def create() -> list[int]:
        return [await store.create_table(f"t{i}", 0, 0.0, CONFIG) for i, store in enumerate([a, b, a])]

    assert run(create()) == [1, 2, 3]
    assert scalar(pg_url, f"SELECT owner FROM {SCHEMA}.tables WHERE table_id = 't1'") == "b"
    a.close()
    b.close()


def test_a_write_at_a_lost_epoch_changes_nothing(pg_url: str) -> None:
    store = PostgresStore(pg_url, node_id="a")

    async def scenario() -> None:
        await store.create_table("t", 0, 0.0, CONFIG)
        await store.append("t", Record("action", 0, "r1", b"\x01"))
        with psycopg.connect(pg_url, autocommit=True) as other:  # another node claims the table
            other.execute(f"UPDATE {SCHEMA}.tables SET epoch = epoch + 1, owner = 'b' WHERE table_id = 't'")
        with pytest.raises(TableFencedError, match="epoch 2") as fenced:
            await store.append("t", Record("action", 1, "r2", b"\x02"), Record("bank", 1, "3.0"))
        assert fenced.value.table_id == "t"
        store.mark_finished("t", 1.0)  # a note of a lost table is not stored either

    run(scenario())
    store.close()
    assert scalar(pg_url, f"SELECT COUNT(*) FROM {SCHEMA}.records") == 1
    assert scalar(pg_url, f"SELECT finished FROM {SCHEMA}.tables") is False


def test_records_the_node_does_not_know_of_fence_its_next_write(pg_url: str) -> None:
    """A write whose commit the node never heard of (the connection lost after it committed) leaves the node
    one record behind: its next write is refused instead of numbering over the database's."""
    store = PostgresStore(pg_url, node_id="a")

    async def scenario() -> None:
        await store.create_table("t", 0, 0.0, CONFIG)
        await store.append("t", Record("join", 0, "ann", b"h"))
        store.holdings["t"].next_number -= 1  # as if that commit's outcome had been lost
        with pytest.raises(TableFencedError, match="with 1 records"):
            await store.append("t", Record("leave", 0))

    run(scenario())
    store.close()
    rows = scalar(pg_url, f"SELECT array_agg(number ORDER BY number) FROM {SCHEMA}.records")
    assert rows == [0]


def test_a_table_the_node_does_not_hold_is_not_written(pg_url: str) -> None:
    a, b = PostgresStore(pg_url, node_id="a"), PostgresStore(pg_url, node_id="b")

    async def scenario() -> None:
        await a.create_table("t", 0, 0.0, CONFIG)
        with pytest.raises(TableFencedError, match="not held"):
            await b.append("t", Record("leave", 0))

    run(scenario())
    a.close()
    b.close()


def test_a_lost_connection_fails_the_write_in_hand_and_the_next_connects_again(pg_url: str) -> None:
    store = PostgresStore(pg_url, node_id="a")

    async def scenario() -> None:
        await store.create_table("t", 0, 0.0, CONFIG)
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        await asyncio.sleep(0.1)
        with pytest.raises(StoreError):
            await store.append("t", Record("join", 0, "ann", b"h"))
        await store.append("t", Record("join", 0, "ann", b"h"))  # a new connection

    run(scenario())
    stored = store.get("t")
    store.close()
    assert stored is not None and [r.kind for r in stored.records] == ["join"]
