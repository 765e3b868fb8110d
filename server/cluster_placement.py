"""Where a cluster node's tables go and what the others read of them: a table just created placed here or on
the least loaded node, a table handed to another node (placement, rebalancing), and the summaries of the
tables this node holds, written for any node to describe them (GetTable, ListTables). Part of
:class:`server.cluster.Node`, apart so that each module stays one size to read."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Final

from server.cluster_db import ClusterDatabase
from server.cluster_flags import NodeSettings
from server.directory import ClusterDirectory
from server.logs import get_logger
from server.registry import Registry
from server.store_pg import SCHEMA, PostgresStore
from server.table import Table
from thousand.v1 import table_service_pb2 as pb

CHANNEL: Final = "thousand_tables"
"""NOTIFY channel: "adopt:NODE:TABLE" (a table handed to NODE), "orphans" (a node released its tables),
"claimed:TABLE" (seats of a table claimed on another node: its owner writes the claims into its log)."""
log = get_logger("thousand.cluster")


class Placement(ABC):
    """The node's placement, hand-offs and summaries (mixed into :class:`server.cluster.Node`)."""

    settings: NodeSettings
    registry: Registry
    store: PostgresStore
    database: ClusterDatabase
    directory: ClusterDirectory
    _dirty: set[str]

    @property
    def node_id(self) -> str:
        return self.settings.node_id

    @abstractmethod
    def hold(self, table: Table) -> None:
        """Serve a table this node owns (the node's)."""

    @abstractmethod
    def drop(self, table_id: str, *, lost: bool = True) -> None:
        """Stop serving a table (the node's)."""

    async def place(self, table: Table) -> pb.Table:
        """Serve a table just created here, or hand it to the least loaded node (``--placement``)."""
        self.hold(table)
        target = await self.directory.least_loaded() if self.settings.placement == "least-loaded" else None
        if target is not None:
            node_id, endpoint, web_endpoint, load, own = target
            if await self.hand_off(table, node_id):
                log.info(
                    "table placed",
                    table_id=table.table_id,
                    node_id=node_id,
                    why=f"least loaded: {load} unfinished tables against {own} here",
                )
                described = table.describe()
                described.endpoint, described.web_endpoint = endpoint, web_endpoint
                return described
        log.info("table placed", table_id=table.table_id, node_id=self.node_id, why="the node asked")
        table.ensure_bots_running()
        return table.describe()

    async def hand_off(self, table: Table, target: str) -> bool:
        """Give a table to node ``target`` (just created here, or to spread the load, under its lock);
        False when it stays here."""
        held = self.store.holdings.get(table.table_id)
        if held is None:
            return False
        async with self.database.using() as db, db.transaction():
            row = await (
                await db.execute(
                    f"UPDATE {SCHEMA}.tables SET owner = %s, epoch = epoch + 1"
                    " WHERE table_id = %s AND owner = %s AND epoch = %s RETURNING epoch",
                    (target, table.table_id, self.node_id, held.epoch),
                )
            ).fetchone()
            if row is None:
                return False
            await db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"adopt:{target}:{table.table_id}"))
        self.drop(table.table_id, lost=False)
        return True

    # ------------------------------------------------------------------ summaries

    async def _publish_summaries(self) -> None:
        """Write the tables changed since the last turn as any node describes them (GetTable, ListTables)."""
        if not self._dirty:
            return
        pending, self._dirty = self._dirty, set()
        rows: list[Sequence[object]] = []
        for table_id in pending:
            table = self.registry.find(table_id)
            held = self.store.holdings.get(table_id)
            if table is None or held is None:
                continue
            rows.append((table.describe().SerializeToString(), table.open_seats(), table_id, held.epoch))
        rows.sort(key=lambda row: str(row[2]))  # one transaction: rows locked in table order, like the store
        try:
            async with self.database.using() as db, db.cursor() as cursor:
                await cursor.executemany(
                    f"UPDATE {SCHEMA}.tables SET summary = %s, open_seats = %s"
                    " WHERE table_id = %s AND epoch = %s",
                    rows,
                )
        except BaseException:
            self._dirty |= pending  # published on a later turn
            raise
