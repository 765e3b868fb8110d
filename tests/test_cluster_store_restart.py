"""PostgreSQL restarted under live tables (issue #32): tables of server bots on two nodes are playing when
PostgreSQL stops (a fast shutdown, every connection ended) and starts again seconds later. Every table must
play on within moments of PostgreSQL accepting again, where it was, with no record lost or repeated, and no
node declared dead (docs/operations.md, "Faults").

Before, a bot's move the store could not commit was tried again after a pause that doubled on every failure
(1, 2, 4, 8 ... s): a table whose database was away eight seconds waited up to seven more after it came
back. Now the waiting moves share one probe of the database and go on once it answers."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from scripts.postgres import Postgres
from tests.cluster_harness import Cluster, cluster_on_own_database
from tests.server_harness import run, thousand_table
from tests.test_cluster import stub, until

TABLES_PER_NODE = 3
BOT_PACE = ("--bot-move-delay", "0.05")
"""About twenty moves a second per table: games that outlast the test, records that show each table moving."""
DOWN_SECONDS = 8.0
"""How long PostgreSQL stays stopped: past four of a bot's doubling pauses."""
RESUME_SECONDS = 3.0
"""Bound on the time from PostgreSQL accepting again to every table's next stored record (a probe every
half second, and a loaded machine's scheduling)."""


def test_live_tables_play_on_within_moments_of_a_postgresql_restart(tmp_path: Path) -> None:
    with cluster_on_own_database(tmp_path, ["a", "b"], flags=BOT_PACE) as (nodes, database):
        run(restart_under_live_tables(nodes, database))
    for name in ("a", "b"):
        log = (tmp_path / f"node-{name}.log").read_text()
        assert "node declared dead" not in log, name
        assert "declared dead by the cluster" not in log, name
        assert "Traceback" not in log, name


def _records(nodes: Cluster) -> dict[str, int]:
    """Table id -> records stored."""
    return {t: int(n) for t, n in nodes.rows("SELECT table_id, count(*) FROM {S}.records GROUP BY table_id")}


async def restart_under_live_tables(nodes: Cluster, database: Postgres) -> None:
    tables = [
        (await stub(nodes.address(name)).CreateTable(thousand_table(bots=3))).table.table_id
        for name in ("a", "b")
        for _ in range(TABLES_PER_NODE)
    ]
    await until(lambda: _playing(nodes, tables, 10), timeout=60)
    owners = nodes.owners()
    claims = nodes.rows("SELECT count(*) FROM {S}.claims")[0][0]
    await asyncio.to_thread(database.stop)
    await asyncio.sleep(DOWN_SECONDS)
    await asyncio.to_thread(database.start)
    back = time.monotonic()
    before = _records(nodes)
    resumed: dict[str, float] = {}

    async def all_resumed() -> bool:
        now = _records(nodes)
        for table_id in tables:
            if now[table_id] > before[table_id]:
                resumed.setdefault(table_id, time.monotonic() - back)
        return len(resumed) == len(tables)

    try:
        await until(all_resumed, timeout=RESUME_SECONDS)
    finally:
        print("resumed after PostgreSQL accepted again (s):", sorted(round(s, 2) for s in resumed.values()))
    assert nodes.owners() == owners
    assert nodes.rows("SELECT count(*) FROM {S}.claims")[0][0] == claims
    assert dict(nodes.rows("SELECT node_id, state FROM {S}.nodes")) == {"a": "active", "b": "active"}
    holes = nodes.rows(
        "SELECT table_id FROM {S}.records GROUP BY table_id HAVING count(*) <> max(number) - min(number) + 1"
    )
    assert holes == []


async def _playing(nodes: Cluster, tables: list[str], records: int) -> bool:
    counts = _records(nodes)
    return all(counts.get(table_id, 0) >= records for table_id in tables)
