"""Every table of a cluster as any node answers for it: where it is, what it looks like, where a new one goes.

A node holds its own tables in memory and describes them live. For the others it reads the database: each
owner publishes its tables' summaries (the ``Table`` message, a few hundred bytes) a moment after they change
(:meth:`server.cluster.Node._publish_summaries`), so GetTable and ListTables on any node see every table, at
most a fraction of a second behind its owner. Requests that change a table, or stream it, are for its owner:
elsewhere they get TABLE_ELSEWHERE with the owner's endpoint, or TABLE_MOVING while it has no live owner
(its node died, froze or left, and no survivor has claimed it yet).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

import psycopg
from google.protobuf.timestamp_pb2 import Timestamp

from server.creations import check_same_request
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError
from server.games import AnyAdapter, adapter_for_name
from server.logs import get_logger
from server.quotas import Holding
from server.store import TableConfig
from server.store_pg import SCHEMA
from server.table import Table
from thousand.v1 import table_service_pb2 as pb

if TYPE_CHECKING:
    from server.cluster import Node

log = get_logger("thousand.cluster")

LOCK_CLASS: Final = 0x5448
"""The first key of every node's advisory lock (the second is the node's ``lock_key``)."""
LIVE_OWNER: Final = (
    "n.state = 'active' AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory'"
    " AND l.classid = %(lock_class)s AND l.objid = n.lock_key AND l.objsubid = 2 AND l.granted"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
)
"""SQL: the owner ``n`` is serving (active, and its connection, which holds its lock, alive)."""
_ROW: Final = (
    "SELECT t.table_id, t.serial, t.summary, t.config, t.create_time, t.open_seats, t.owner,"
    f" COALESCE({LIVE_OWNER}, FALSE), n.endpoint, n.web_endpoint, t.expire_time IS NOT NULL"
    f" FROM {SCHEMA}.tables t LEFT JOIN {SCHEMA}.nodes n ON n.node_id = t.owner"
)


class ClusterDirectory:
    """The :class:`~server.registry.Directory` of a cluster node."""

    def __init__(self, node: Node) -> None:
        self.node = node

    async def _rows(self, query: str, params: dict[str, object]) -> list[tuple[Any, ...]]:
        """Rows of a query on the node's reading connection (connected again when it was lost);
        STORE_UNAVAILABLE when the database cannot answer."""
        node = self.node
        try:
            if node.reads is None or node.reads.closed:
                node.reads = await psycopg.AsyncConnection.connect(
                    node.store.url, autocommit=True, connect_timeout=3
                )
            cursor = await node.reads.execute(query, {**params, "lock_class": LOCK_CLASS})
            return await cursor.fetchall()
        except psycopg.Error as error:
            log.warning("cluster directory unavailable", error=str(error))
            raise ServiceError(
                ErrorReason.STORE_UNAVAILABLE, "the cluster's database cannot be reached; retry later"
            ) from None

    async def refusal(self, table_id: str) -> ServiceError:
        rows = await self._rows(_ROW + " WHERE t.table_id = %(id)s", {"id": table_id})
        if not rows:
            return ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        _, _, _, _, _, _, owner, live, endpoint, web_endpoint, expired = rows[0]
        if expired:
            return ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        if live and owner != self.node.node_id:
            where = {"endpoint": endpoint} | ({"web_endpoint": web_endpoint} if web_endpoint else {})
            return ServiceError(
                ErrorReason.TABLE_ELSEWHERE,
                f"table {table_id} is served by node {owner} at {endpoint}",
                **where,
            )
        return ServiceError(
            ErrorReason.TABLE_MOVING,
            f"table {table_id} is moving to another node of the cluster; retry shortly",
            retry_delay=MOVING_RETRY_SECONDS,
        )

    async def describe(self, table_id: str) -> pb.Table:
        rows = await self._rows(
            _ROW + " WHERE t.table_id = %(id)s AND t.expire_time IS NULL", {"id": table_id}
        )
        if not rows:
            raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        return self._described(rows[0])

    async def page(
        self, only_open: bool, page_size: int, before: int | None, game: AnyAdapter | None
    ) -> tuple[list[pb.Table], int | None]:
        rows = await self._rows(
            _ROW + " WHERE t.expire_time IS NULL"
            " AND NOT (t.finished AND t.finish_time IS NOT NULL AND t.finish_time < %(kept_after)s)"
            " AND (%(before)s::bigint IS NULL OR t.serial < %(before)s::bigint)"
            " AND (%(game)s = '' OR t.game = %(game)s)"
            " AND (NOT %(open)s OR (t.open_seats > 0 AND NOT t.finished))"
            " ORDER BY t.serial DESC LIMIT %(size)s",
            {
                "kept_after": self.node.kept_after(),
                "before": before,
                "game": "" if game is None else game.name,
                "open": only_open,
                "size": page_size + 1,
            },
        )
        more = len(rows) > page_size
        rows = rows[:page_size]
        described = [self._described(row) for row in rows]
        if only_open:
            described = [t for t in described if t.open_seats > 0 and t.status != pb.TABLE_STATUS_FINISHED]
        return described, int(rows[-1][1]) if more and rows else None

    def _described(self, row: tuple[Any, ...]) -> pb.Table:
        """A table as this node holds it, else as its owner last published it, with the owner's endpoints
        (none while it has no live owner)."""
        table_id, _, summary, config, create_time, open_seats, _, live, endpoint, web_endpoint, _ = row
        held = self.node.registry.find(table_id)
        if held is not None:
            return held.describe()
        if summary is not None:
            table = pb.Table.FromString(bytes(summary))
        else:  # created a moment ago: its owner has not published it yet
            created = Timestamp()
            created.FromNanoseconds(int(float(create_time) * 1e9))
            table = pb.Table(
                table_id=table_id,
                game=adapter_for_name(TableConfig.from_json(config).game).kind,
                status=pb.TABLE_STATUS_WAITING if open_seats else pb.TABLE_STATUS_PLAYING,
                open_seats=open_seats,
                create_time=created,
            )
        table.endpoint = endpoint if live else ""
        table.web_endpoint = web_endpoint if live and web_endpoint else ""
        return table

    async def created(self, request_id: str, digest: str, window: float) -> pb.Table | None:
        rows = await self._rows(
            _ROW + " WHERE t.request_id = %(request_id)s AND t.create_time > %(since)s"
            " ORDER BY t.serial DESC LIMIT 1",
            {"request_id": request_id, "since": time.time() - window},
        )
        if not rows:
            return None
        check_same_request(request_id, TableConfig.from_json(rows[0][3]).request_digest, digest)
        return self._described(rows[0])

    async def held_elsewhere(self, client: str) -> list[Holding]:
        held = set(self.node.store.holdings)
        rows = await self._rows(
            f"SELECT t.table_id, t.bots_only FROM {SCHEMA}.tables t"
            " WHERE t.creator = %(client)s AND NOT t.finished AND t.expire_time IS NULL",
            {"client": client},
        )
        return [Holding(client, bool(bots_only)) for table_id, bots_only in rows if table_id not in held]

    async def place(self, table: Table) -> pb.Table:
        """Serve a table just created here, or hand it to the least loaded node (``--placement``)."""
        node = self.node
        node.hold(table)
        target = await self._least_loaded() if node.settings.placement == "least-loaded" else None
        if target is not None:
            node_id, endpoint, web_endpoint, load, own = target
            if await node.hand_off(table, node_id):
                log.info(
                    "table placed",
                    table_id=table.table_id,
                    node_id=node_id,
                    why=f"least loaded: {load} unfinished tables against {own} here",
                )
                described = table.describe()
                described.endpoint, described.web_endpoint = endpoint, web_endpoint
                return described
        log.info("table placed", table_id=table.table_id, node_id=node.node_id, why="the node asked")
        table.ensure_bots_running()
        return table.describe()

    async def _least_loaded(self) -> tuple[str, str, str, int, int] | None:
        """The live node with the fewest unfinished tables, when placing there beats keeping the table here
        (its load plus this table below this node's); None: keep it."""
        rows = await self._rows(
            f"SELECT n.node_id, n.endpoint, n.web_endpoint, count(t.table_id) FROM {SCHEMA}.nodes n"
            f" LEFT JOIN {SCHEMA}.tables t ON t.owner = n.node_id"
            " AND NOT t.finished AND t.expire_time IS NULL"
            f" WHERE {LIVE_OWNER} GROUP BY n.node_id ORDER BY count(t.table_id), n.node_id",
            {},
        )
        own = next((int(row[3]) for row in rows if row[0] == self.node.node_id), 0)  # this table included
        if not rows:
            return None
        node_id, endpoint, web_endpoint, load = rows[0]
        if node_id == self.node.node_id or int(load) + 1 >= own:
            return None
        return str(node_id), str(endpoint), str(web_endpoint or ""), int(load), own
