"""A cluster node's access to the database it shares with the others, in one place: its connections, the
key of its advisory lock, and what it has seen of the database's outages.

Three parts use it, each given it as an argument: the membership's heartbeat thread (a blocking connection
of its own, which holds the lock), the node's loop (claims, takeovers, summaries: one connection, one task
at a time) and the directory (the requests about tables held elsewhere, on a reading connection). Every
failure any of them meets, up to the next connection made after it, is an *outage* here: the node
declares no other node dead until a whole lease has passed since the last one (:attr:`steady_seconds`).
That is the grace after a PostgreSQL restart, a failover or a network cut measured from when this node can
see the cluster again, not from when PostgreSQL started: the others' heartbeats, stale while nobody could
write them, have had a lease to be written again (:mod:`server.cluster`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import psycopg

from server.logs import get_logger
from server.store_pg import CONNECT_TIMEOUT_SECONDS, SCHEMA, connect

LOCK_CLASS: Final = 0x5448
"""The first key of every node's advisory lock (the second is the node's ``lock_key``)."""
LOCK_HELD: Final = (
    "EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory'"
    " AND l.classid = %(lock_class)s AND l.objid = n.lock_key AND l.objsubid = 2 AND l.granted"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
)
"""SQL: the node ``n``'s connection, which holds its lock, is alive (``lock_class`` is bound by
:meth:`ClusterDatabase.rows` and :meth:`ClusterDatabase.using`'s callers)."""
LIVE_OWNER: Final = f"n.state = 'active' AND {LOCK_HELD}"
"""SQL: the owner ``n`` is serving (active, and its connection alive)."""
REBALANCING_KEY: Final = "rebalancing"
"""The row of ``thousand.meta`` an operator sets to PAUSED to stop every node rebalancing (``thousand-cluster
rebalancing pause``), and to anything else, or deletes, to let them go on: a switch for the whole cluster at
once, without the restart a flag would take (which itself moves tables)."""
PAUSED: Final = "paused"
log = get_logger("thousand.cluster")


def claimable(kept_after: float, *, finished: bool = False) -> tuple[str, dict[str, object]]:
    """The SQL condition of a table another node may claim: not expired, unfinished (``finished``: or not
    finished long ago), and whose owner is no active node."""
    return (
        "t.expire_time IS NULL"
        + (
            " AND NOT (t.finished AND t.finish_time IS NOT NULL AND t.finish_time < %(kept_after)s)"
            if finished
            else " AND NOT t.finished"
        )
        + f" AND (t.owner IS NULL OR NOT EXISTS (SELECT 1 FROM {SCHEMA}.nodes n"
        " WHERE n.node_id = t.owner AND n.state = 'active'))",
        {"kept_after": kept_after},
    )


def owned() -> tuple[str, dict[str, object]]:
    """The SQL condition of a table the database says this node (``%(me)s``) should be serving: unfinished
    (a finished one is claimed when a client asks for it, :meth:`server.cluster.Node._orphan_asked`)."""
    return "t.owner = %(me)s AND t.expire_time IS NULL AND NOT t.finished", {}


def claim_statement(condition: str) -> str:
    """SQL: claim for node ``%(me)s`` (at most ``%(limit)s`` of) the tables matching ``condition``, raising
    their epochs; each with its claimed epoch and record count, whether bots only play it, when its owner was
    last seen alive if it died (its last heartbeat; else ``%(last_seen)s``, given for this node's previous
    process) and the database's clock (Unix times: the turn clocks go on from them)."""
    return (
        "WITH chosen AS (SELECT t.table_id, COALESCE((SELECT extract(epoch FROM n.heartbeat)"
        f" FROM {SCHEMA}.nodes n WHERE n.node_id = t.owner AND n.state <> 'active'),"
        f" %(last_seen)s)::float8 AS last_seen FROM {SCHEMA}.tables t WHERE {condition}"
        " ORDER BY t.finished, t.serial LIMIT %(limit)s FOR UPDATE OF t SKIP LOCKED)"
        f" UPDATE {SCHEMA}.tables t SET owner = %(me)s, epoch = t.epoch + 1 FROM chosen"
        " WHERE t.table_id = chosen.table_id RETURNING t.table_id, t.epoch, t.next_number,"
        " t.bots_only, chosen.last_seen, extract(epoch FROM clock_timestamp())::float8"
    )


class ClusterDatabase:
    """The connections of one node to the database at ``url``, and its outages."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.last_outage = time.monotonic()
        """time.monotonic() of the last failure or reconnection of any of the node's connections (its
        start counts as one: a node just started has not seen the others heartbeat yet)."""
        self._failed = False
        """A connection failed since one was last made."""
        self._db: psycopg.AsyncConnection[Any] | None = None
        self._reads: psycopg.AsyncConnection[Any] | None = None
        self._using = asyncio.Lock()
        """Held while a task uses ``_db``: one statement or transaction at a time, never interleaved."""

    # ------------------------------------------------------------------ outages

    def outage(self) -> None:
        """A connection failed (from any thread)."""
        self.last_outage = time.monotonic()
        self._failed = True

    def _connected(self) -> None:
        """A connection was made: the end of an outage when one failed since the last (a first connection
        of a part, the reading one at its first request, is none)."""
        if self._failed:
            self._failed = False
            self.last_outage = time.monotonic()

    @property
    def steady_seconds(self) -> float:
        """Seconds since the node last met a failure or connected again."""
        return time.monotonic() - self.last_outage

    # ------------------------------------------------------------------ connections

    def connect_blocking(self) -> psycopg.Connection[Any]:
        """A blocking connection of its own (the heartbeat thread's)."""
        try:
            made = connect(self.url)
        except psycopg.Error:
            self.outage()
            raise
        self._connected()
        return made

    async def connect(self) -> psycopg.AsyncConnection[Any]:
        """An asynchronous connection of its own (the listener's)."""
        try:
            made = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_SECONDS
            )
        except psycopg.Error:
            self.outage()
            raise
        self._connected()
        return made

    @contextlib.asynccontextmanager
    async def using(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """The node's connection, for this task alone until the block ends; connected again after it was
        lost, and closed when a statement in the block broke it (an outage)."""
        async with self._using:
            if self._db is None or self._db.closed or self._db.broken:
                await close_quietly(self._db)
                self._db = None
                self._db = await self.connect()
            try:
                yield self._db
            except psycopg.Error as error:
                if isinstance(error, psycopg.OperationalError) or self._db.broken:
                    self.outage()  # not a statement's own error: the database's
                if self._db.broken:
                    await close_quietly(self._db)
                raise

    async def rows(self, query: str, params: dict[str, object]) -> list[tuple[Any, ...]]:
        """Rows of a query on the reading connection (connected again when it was lost); psycopg.Error
        when the database cannot answer."""
        try:
            if self._reads is None or self._reads.closed or self._reads.broken:
                await close_quietly(self._reads)
                self._reads = None
                self._reads = await self.connect()
            cursor = await self._reads.execute(query, {**params, "lock_class": LOCK_CLASS})
            return await cursor.fetchall()
        except psycopg.Error as error:
            broken = self._reads is not None and self._reads.broken
            if isinstance(error, psycopg.OperationalError) or broken:
                self.outage()
            raise

    async def close(self) -> None:
        await close_quietly(self._db)
        await close_quietly(self._reads)


async def close_quietly(connection: psycopg.AsyncConnection[Any] | None) -> None:
    if connection is not None:
        with contextlib.suppress(psycopg.Error):
            await connection.close()
