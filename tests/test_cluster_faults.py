"""The cluster under faults it must ride out without moving a table: PostgreSQL coming back slowly after a
crash (refusing connections for longer than a lease), and a node woken from a freeze past its lease, which
must not answer as the owner of tables it no longer holds (docs/operations.md, "Faults")."""

from __future__ import annotations

import asyncio
from pathlib import Path

from scripts.postgres import Postgres
from tests.cluster_harness import LEASE_SECONDS, Cluster, cluster
from tests.server_harness import run, thousand_table
from tests.test_cluster import stub

REFUSED_SECONDS = 1.5 * LEASE_SECONDS
"""How long PostgreSQL refuses connections once it has started again: longer than a lease."""


def test_postgresql_slow_to_accept_after_a_crash_declares_no_node_dead_and_moves_no_table(
    tmp_path: Path,
) -> None:
    """Issue #32's first finding: a crash restart whose recovery outlasts a lease (here PostgreSQL refusing
    TCP for 1.5 leases after it started, then reloaded) made every node declare the others dead."""
    database = Postgres(fsync=False)
    try:
        database.start()
        url = database.create_database("slow")
        with cluster(tmp_path, url, ["a", "b", "c"]) as nodes:
            run(slow_restart(nodes, database))
        for name in ("a", "b", "c"):
            log = (tmp_path / f"node-{name}.log").read_text()
            assert "node declared dead" not in log, name
            assert "declared dead by the cluster" not in log, name
    finally:
        database.remove()


async def slow_restart(nodes: Cluster, database: Postgres) -> None:
    tables = []
    for name in ("a", "b", "c"):
        for _ in range(2):  # a seat left open: the bots wait for it, and the table stays live
            tables.append(
                (await stub(nodes.address(name)).CreateTable(thousand_table(bots=2))).table.table_id
            )
    owners = nodes.owners()
    claims = nodes.rows("SELECT count(*) FROM {S}.claims")[0][0]
    database.refuse_connections(True)
    database.crash()
    database.start(wait=False)
    await asyncio.sleep(REFUSED_SECONDS)
    database.refuse_connections(False)
    await asyncio.to_thread(database.wait_accepting)
    await asyncio.sleep(3 * LEASE_SECONDS)  # every node's heartbeat, and any declaration, long since
    assert nodes.owners() == owners
    assert nodes.rows("SELECT count(*) FROM {S}.claims")[0][0] == claims
    states = dict(nodes.rows("SELECT node_id, state FROM {S}.nodes"))
    assert states == {"a": "active", "b": "active", "c": "active"}
    for name in ("a", "b", "c"):
        assert nodes.metric(name, "thousand_cluster_nodes_declared_dead_total") == 0
        assert nodes.metric(name, "thousand_cluster_tables_owned") == 2
