"""Every table of a cluster as any node answers for it: where it is, what it looks like, where a new one goes.

A node holds its own tables in memory and describes them live. For the others it reads the database: each
owner publishes its tables' summaries (the ``Table`` message, a few hundred bytes) a moment after they change
(:meth:`server.cluster.Node._publish_summaries`), so GetTable and ListTables on any node see every table, at
most a fraction of a second behind its owner. Requests that change a table, or stream it, are for its owner:
elsewhere they get TABLE_ELSEWHERE with the owner's endpoint, or TABLE_MOVING while it has no live owner
(its node died, froze or left, and no survivor has claimed it yet). A table this node holds is answered
for from memory only while its lease vouches that no other node can have taken it
(:meth:`server.membership.Membership.vouches`); past that, as any other node would answer.

The directory gets what it needs as arguments: the node's database access
(:class:`~server.cluster_db.ClusterDatabase`), the registry of the tables held here, and the node's own
answers (its fence, which finished tables it keeps, where a new table goes).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Final

import psycopg

from server.cluster_db import LIVE_OWNER, PAUSED, REBALANCING_KEY, ClusterDatabase
from server.creations import check_same_request
from server.description import from_config
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError
from server.games import AnyAdapter, adapter_for_name
from server.logs import get_logger
from server.quotas import Holding
from server.registry import Registry
from server.store import TableConfig
from server.store_pg import SCHEMA
from server.table import Table
from thousand.v1 import table_service_pb2 as pb

log = get_logger("thousand.cluster")
REMEMBERED_OWNERS: Final = 10_000
"""How many tables' last seen live owners a node remembers, to send clients on while the database is away."""

_ROW: Final = (
    "SELECT t.table_id, t.serial, t.summary, t.config, t.create_time, t.open_seats, t.owner,"
    f" COALESCE({LIVE_OWNER}, FALSE), n.endpoint, n.web_endpoint, t.expire_time IS NOT NULL, t.finished"
    f" FROM {SCHEMA}.tables t LEFT JOIN {SCHEMA}.nodes n ON n.node_id = t.owner"
)


class ClusterDirectory:
    """The :class:`~server.registry.Directory` of the cluster node ``node_id``."""

    def __init__(
        self,
        database: ClusterDatabase,
        node_id: str,
        registry: Registry,
        *,
        vouches: Callable[[], bool],
        kept_after: Callable[[], float],
        place: Callable[[Table], Awaitable[pb.Table]],
        orphan_asked: Callable[[str], None],
    ) -> None:
        self.database = database
        self.node_id = node_id
        self.registry = registry
        self._vouches = vouches
        self.kept_after = kept_after
        """The Unix time before which a finished table is no longer served (``--table-idle-seconds``)."""
        self._place = place
        self.orphan_asked = orphan_asked
        """Called with a finished table nobody serves that a client asked to stream (claimed on demand:
        takeovers leave finished tables alone)."""
        self._owners: OrderedDict[str, tuple[str, str, str]] = OrderedDict()
        """table id -> (node id, endpoint, web endpoint) of its live owner when last read, newest last."""
        self.claimed_elsewhere: Callable[[str], Awaitable[None]] | None = None
        """Tells a table's owner that seats of it were claimed on this node (the node's NOTIFY)."""

    def vouches(self) -> bool:
        return self._vouches()

    async def _rows(self, query: str, params: dict[str, object]) -> list[tuple[Any, ...]]:
        """Rows of a query on the node's reading connection; STORE_UNAVAILABLE when the database cannot
        answer."""
        try:
            return await self.database.rows(query, params)
        except psycopg.Error as error:
            log.warning("cluster directory unavailable", error=str(error))
            raise ServiceError(
                ErrorReason.STORE_UNAVAILABLE, "the cluster's database cannot be reached; retry later"
            ) from None

    async def refusal(self, table_id: str) -> ServiceError:
        if self.registry.find(table_id) is not None:  # held, but its lease no longer vouches for it
            return _moving(table_id)
        try:
            rows = await self._rows(_ROW + " WHERE t.table_id = %(id)s", {"id": table_id})
        except ServiceError:
            seen = self._owners.get(table_id)
            if seen is None or seen[0] == self.node_id:
                raise
            return _elsewhere(table_id, *seen)  # the owner serves its tables from memory meanwhile
        if not rows:
            return ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        _, _, _, _, _, _, owner, live, endpoint, web_endpoint, expired, finished = rows[0]
        if expired:
            return ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        self._remember(table_id, owner, live, endpoint, web_endpoint)
        if live and owner != self.node_id:
            return _elsewhere(table_id, owner, endpoint, web_endpoint)
        if finished:  # nobody serves it: no live owner, or this node, which left it in the database
            self.orphan_asked(table_id)
        return _moving(table_id)

    def _remember(
        self, table_id: str, owner: str | None, live: bool, endpoint: str, web_endpoint: str
    ) -> None:
        """Note where a table was just read to be served (or that it has no live owner)."""
        if not live or owner is None:
            self._owners.pop(table_id, None)
            return
        self._owners[table_id] = (owner, endpoint, web_endpoint or "")
        self._owners.move_to_end(table_id)
        if len(self._owners) > REMEMBERED_OWNERS:
            self._owners.popitem(last=False)

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
                "kept_after": self.kept_after(),
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
        table_id, _, summary, config, create_time, open_seats, _, live, endpoint, web_endpoint, _, _ = row
        self._remember(table_id, row[6], live, endpoint, web_endpoint)
        held = self.registry.find(table_id)
        if held is not None and self.vouches():
            return held.describe()
        if summary is not None:
            table = pb.Table.FromString(bytes(summary))
        else:  # created a moment ago: its owner has not published it yet
            stored = TableConfig.from_json(config)
            adapter = adapter_for_name(stored.game)
            table = from_config(table_id, adapter, stored, open_seats, float(create_time))
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
        rows = await self._rows(
            f"SELECT t.table_id, t.bots_only FROM {SCHEMA}.tables t"
            " WHERE t.creator = %(client)s AND NOT t.finished AND t.expire_time IS NULL",
            {"client": client},
        )
        find = self.registry.find
        return [Holding(client, bool(bots_only)) for table_id, bots_only in rows if find(table_id) is None]

    async def tell_owner_claimed(self, table_id: str) -> None:
        """Tell the table's owner that seats of it were claimed here (ClaimSeats): it writes them into the
        table's log. Nothing when the cluster cannot be told (the claim stands in the players' store)."""
        if self.claimed_elsewhere is not None:
            await self.claimed_elsewhere(table_id)

    async def place(self, table: Table) -> pb.Table:
        """Serve a table just created here, or hand it to another node (the node's ``--placement``)."""
        return await self._place(table)

    async def loads(self) -> dict[str, int]:
        """Every live node's unfinished tables, by node id."""
        rows = await self._rows(
            f"SELECT n.node_id, count(t.table_id) FROM {SCHEMA}.nodes n"
            f" LEFT JOIN {SCHEMA}.tables t ON t.owner = n.node_id"
            " AND NOT t.finished AND t.expire_time IS NULL"
            f" WHERE {LIVE_OWNER} GROUP BY n.node_id",
            {},
        )
        return {str(node_id): int(count) for node_id, count in rows}

    async def rebalancing_paused(self) -> bool:
        """Whether an operator paused rebalancing in the whole cluster (:data:`server.cluster_db.PAUSED`)."""
        rows = await self._rows(
            f"SELECT value = %(paused)s FROM {SCHEMA}.meta WHERE key = %(key)s",
            {"paused": PAUSED, "key": REBALANCING_KEY},
        )
        return bool(rows and rows[0][0])

    async def least_loaded(self) -> tuple[str, str, str, int, int] | None:
        """The live node with the fewest unfinished tables, when placing a table there beats keeping it here
        (its load plus that table below this node's, the table counted): (node id, endpoint, web endpoint,
        its load, this node's); None: keep it."""
        rows = await self._rows(
            f"SELECT n.node_id, n.endpoint, n.web_endpoint, count(t.table_id) FROM {SCHEMA}.nodes n"
            f" LEFT JOIN {SCHEMA}.tables t ON t.owner = n.node_id"
            " AND NOT t.finished AND t.expire_time IS NULL"
            f" WHERE {LIVE_OWNER} GROUP BY n.node_id ORDER BY count(t.table_id), n.node_id",
            {},
        )
        own = next((int(row[3]) for row in rows if row[0] == self.node_id), 0)
        if not rows:
            return None
        node_id, endpoint, web_endpoint, load = rows[0]
        if node_id == self.node_id or int(load) + 1 >= own:
            return None
        return str(node_id), str(endpoint), str(web_endpoint or ""), int(load), own


def _elsewhere(table_id: str, owner: str, endpoint: str, web_endpoint: str) -> ServiceError:
    message = f"table {table_id} is served by node {owner} at {endpoint}"
    if web_endpoint:
        return ServiceError(
            ErrorReason.TABLE_ELSEWHERE, message, endpoint=endpoint, web_endpoint=web_endpoint
        )
    return ServiceError(ErrorReason.TABLE_ELSEWHERE, message, endpoint=endpoint)


def _moving(table_id: str) -> ServiceError:
    return ServiceError(
        ErrorReason.TABLE_MOVING,
        f"table {table_id} is moving to another node of the cluster; retry shortly",
        retry_delay=MOVING_RETRY_SECONDS,
    )
