"""Issue 21's limits in a cluster (issue 17): a client's table quotas count its tables on every node, also
after a takeover, and a table of bots only taken over by another node plays under that node's bot pacer,
which stops it at the same move limit as if it had never moved."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc

from tests.cluster_harness import Cluster, cluster
from tests.server_harness import expect_error, run, thousand_table
from tests.test_cluster import stub, until
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TOO_MANY = grpc.StatusCode.RESOURCE_EXHAUSTED


def test_a_client_s_quotas_count_its_tables_on_every_node(tmp_path: Path, pg_url: str) -> None:
    """Before: each node counted only the tables it held, so a client had a share on every node, and a
    table a node took over counted for nobody (tables rebuilt from the store had no creator)."""
    flags = ("--max-tables-per-client", "3", "--max-bot-tables-per-client", "2", "--bot-move-delay", "0.5")
    with cluster(tmp_path, pg_url, ["a", "b"], flags=flags) as nodes:

        async def scenario() -> None:
            a, b = stub(nodes.address("a")), stub(nodes.address("b"))
            await a.CreateTable(thousand_table(bots=3))  # bots only, paced slowly: unfinished throughout
            await b.CreateTable(thousand_table(bots=3))
            info = await expect_error(a.CreateTable(thousand_table(bots=3)), "TOO_MANY_TABLES", TOO_MANY)
            assert info.metadata["limit"] == "bot_tables_per_client" and info.metadata["max"] == "2"
            await b.CreateTable(thousand_table())  # open seats: the third table of three
            info = await expect_error(a.CreateTable(thousand_table()), "TOO_MANY_TABLES", TOO_MANY)
            assert info.metadata["limit"] == "tables_per_client"
            # b dies: a takes its tables over, and they still count as the client's.
            nodes.nodes["b"].kill()
            await until(lambda: _all_owned_by(nodes.address("a"), a), timeout=20)
            info = await expect_error(a.CreateTable(thousand_table()), "TOO_MANY_TABLES", TOO_MANY)
            assert info.metadata["limit"] == "tables_per_client"

        run(scenario())


async def _all_owned_by(endpoint: str, node: pb_grpc.TableServiceAsyncStub) -> bool:
    tables = (await node.ListTables(pb.ListTablesRequest())).tables
    return len(tables) == 3 and all(t.endpoint == endpoint for t in tables)


def test_a_table_of_bots_taken_over_stops_at_the_move_limit(tmp_path: Path, pg_url: str) -> None:
    """The node that takes a table of bots over counts its moves from the replay: the table stops at the
    pacer's limit exactly, not that many moves after the takeover."""
    limit = 90
    flags = ("--bot-table-max-moves", str(limit), "--bot-move-delay", "0.03")
    with cluster(tmp_path, pg_url, ["a", "b"], flags=flags) as nodes:

        async def scenario() -> None:
            a, b = stub(nodes.address("a")), stub(nodes.address("b"))
            table_id = (await a.CreateTable(thousand_table(bots=3))).table.table_id

            async def under_way() -> bool:
                return _actions(nodes, table_id) >= limit // 4

            await until(under_way, timeout=30)
            nodes.nodes["a"].kill()
            killed_at = _actions(nodes, table_id)
            assert killed_at < limit

            async def stopped() -> bool:
                table = (await b.GetTable(pb.GetTableRequest(table_id=table_id))).table
                return table.status == pb.TABLE_STATUS_FINISHED

            await until(stopped, timeout=60)
            table = (await b.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert table.stop_reason == pb.STOP_REASON_MOVE_LIMIT
            assert table.endpoint == nodes.address("b")
            assert _actions(nodes, table_id) == limit
            records = "SELECT kind FROM {S}.records WHERE table_id = %s ORDER BY number"
            kinds = [kind for (kind,) in nodes.rows(records, table_id)]
            assert kinds[-1] == "stop" and kinds.count("stop") == 1
            claims = nodes.rows("SELECT node_id, reason FROM {S}.claims WHERE table_id = %s", table_id)
            assert ("b", "takeover") in claims
            await asyncio.sleep(0.3)  # nothing more is played
            assert _actions(nodes, table_id) == limit

        run(scenario())


def _actions(nodes: Cluster, table_id: str) -> int:
    found = nodes.rows("SELECT count(*) FROM {S}.records WHERE table_id = %s AND kind = 'action'", table_id)
    return int(found[0][0])
