"""This node's part in a cluster: server processes sharing one PostgreSQL database, each table owned by one.

The pattern is Orleans' (one live owner per id, recorded in the database, taken over when the owner dies),
on PostgreSQL rather than a protocol of our own:

- **Membership.** A node registers in ``thousand.nodes`` with a new ``generation`` each time it starts, and
  heartbeats every quarter of its lease. It also holds a session advisory lock keyed by its row: PostgreSQL
  releases it the moment the node's connection dies, so a killed process is noticed within about a
  heartbeat (a lock gone and a heartbeat late) instead of a whole lease; a frozen one (its connection open)
  when its lease runs out. Either way a survivor marks it ``dead``. Neither rule fires within a lease of
  PostgreSQL itself (re)starting, when every node's lock is new or still to be taken again.
- **Ownership.** Every table row names its owner and an ``epoch``; claiming a table raises the epoch, and
  the store writes a table's records only at the epoch it holds (:mod:`server.store_pg`). A node that lost
  a table therefore cannot change it: its write fails, and it drops the table (streams ended with
  TABLE_MOVING, clock and bots stopped). A node that finds itself declared dead drops every table and joins
  again as a new generation; one whose id another process took over (a newer generation) stops serving.
- **Takeover.** Every survivor claims a fair share of the tables whose owner is not active (one
  transaction, ``FOR UPDATE SKIP LOCKED``: no table is claimed twice), loads their records, replays them and
  carries on: bots and turn clocks start again, idempotency keys answer with the stored results (the
  replay remembers them). A node stopping cleanly releases its tables, and the others claim them at once.
- **Placement.** A table is created on the node asked; with ``--placement least-loaded`` it is handed to the
  node with the fewest unfinished tables when that is fewer than this node's less one (the client, told the
  owner's endpoint, goes there). A hand-off is a claim for the target, which is woken by NOTIFY.

What any node answers about tables it does not hold is :mod:`server.directory`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import psycopg

from server.directory import LOCK_CLASS, ClusterDirectory
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError
from server.logs import get_logger
from server.membership import SUPERSEDED, Membership
from server.registry import Registry
from server.store_pg import SCHEMA, Holding, PostgresStore
from server.table import Table

DEFAULT_LEASE_SECONDS: Final = 5.0
CHANNEL: Final = "thousand_tables"
"""NOTIFY channel: "adopt:NODE:TABLE" (a table handed to NODE), "orphans" (a node released its tables)."""
RECONCILE_SECONDS: Final = 10.0
"""How often a node looks for tables the database says it owns but it does not hold (a lost NOTIFY)."""
PLACEMENTS: Final = ("local", "least-loaded")
log = get_logger("thousand.cluster")


@dataclass(frozen=True, slots=True)
class NodeSettings:
    node_id: str
    endpoint: str
    """The gRPC address clients reach this node at (``--advertise-address``)."""
    web_endpoint: str = ""
    """The web port's address, when the node serves one."""
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    placement: str = "local"
    finished_kept_seconds: float = 0.0
    """``--table-idle-seconds``: a finished table older than this is not taken over (0: every one is)."""

    @property
    def heartbeat_seconds(self) -> float:
        return self.lease_seconds / 4

    @property
    def tick_seconds(self) -> float:
        """How often the node looks for dead nodes and publishes its tables' summaries."""
        return min(0.25, self.lease_seconds / 8)


@dataclass(slots=True)
class Figures:
    """What the node did, for metrics and logs."""

    claimed: int = 0
    """Tables taken over (from dead or departed nodes, handed over, or its own on start)."""
    claims: dict[str, int] = field(default_factory=dict)
    """The same, by why: takeover, restart, rejoin, placed, resync, reconcile."""
    dropped: int = 0
    """Tables let go because another node holds them now."""
    nodes_declared_dead: int = 0
    replay_seconds: float = 0.0
    """Time spent loading and replaying claimed tables."""


def _claimable(kept_after: float) -> tuple[str, dict[str, object]]:
    """The SQL condition of a table another node may claim: not expired, not finished long ago, and whose
    owner is no active node."""
    return (
        "t.expire_time IS NULL"
        " AND NOT (t.finished AND t.finish_time IS NOT NULL AND t.finish_time < %(kept_after)s)"
        f" AND (t.owner IS NULL OR NOT EXISTS (SELECT 1 FROM {SCHEMA}.nodes n"
        " WHERE n.node_id = t.owner AND n.state = 'active'))",
        {"kept_after": kept_after},
    )


def _owned(kept_after: float) -> tuple[str, dict[str, object]]:
    """The SQL condition of a table the database says this node (``%(me)s``) should be serving."""
    return (
        "t.owner = %(me)s AND t.expire_time IS NULL"
        " AND NOT (t.finished AND t.finish_time IS NOT NULL AND t.finish_time < %(kept_after)s)",
        {"kept_after": kept_after},
    )


class Node:
    """This server as a member of the cluster whose database ``store`` writes to."""

    def __init__(self, settings: NodeSettings, registry: Registry, store: PostgresStore) -> None:
        self.settings = settings
        self.registry = registry
        self.store = store
        self.membership = Membership(
            store.url,
            settings.node_id,
            endpoint=settings.endpoint,
            web_endpoint=settings.web_endpoint,
            lease_seconds=settings.lease_seconds,
            on_lost=self._membership_lost,
        )
        self.figures = Figures()
        self.directory = ClusterDirectory(self)
        self.ended = asyncio.Event()
        """Set when the node must stop serving: another process took its id over."""
        self._db: psycopg.AsyncConnection[Any] | None = None
        """Claims, takeovers, summaries: only the node's own tasks use it."""
        self.reads: psycopg.AsyncConnection[Any] | None = None
        """The directory's queries (requests for tables held elsewhere)."""
        self._dirty: set[str] = set()
        self._tasks: list[asyncio.Task[Any]] = []
        self._using_db = asyncio.Lock()
        """Held while a task uses ``_db``: one statement or transaction at a time, never interleaved."""

    @property
    def node_id(self) -> str:
        return self.settings.node_id

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Join the cluster, take back the tables that still name this node, and start heartbeating."""
        self.reads = await self._connect()
        await asyncio.to_thread(self.membership.join)
        await self._claim(*_owned(self.kept_after()), "restart")
        loop = asyncio.get_running_loop()
        self.membership.start(loop)
        self._tasks = [loop.create_task(self._run()), loop.create_task(self._listen())]

    @property
    def generation(self) -> int:
        return self.membership.generation

    def _membership_lost(self, why: str) -> None:
        """The database stopped counting this generation in: declared dead (and joined again since: start
        over with the tables that still name this node) or superseded (stop serving)."""
        self.drop_all()
        if why == SUPERSEDED:
            self.ended.set()
            return
        task = asyncio.get_running_loop().create_task(self._claim(*_owned(self.kept_after()), "rejoin"))
        self._tasks.append(task)
        task.add_done_callback(self._tasks.remove)

    async def stop(self) -> None:
        """Leave: release every table (the others claim them at once) and mark this node gone. Called once
        the server has stopped serving and its store has written what was queued."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        try:
            held = list(self.store.holdings)
            async with self._using() as db, db.transaction():
                await db.execute(
                    f"UPDATE {SCHEMA}.tables SET owner = NULL, epoch = epoch + 1"
                    " WHERE owner = %s AND table_id = ANY(%s)",
                    (self.node_id, held),
                )
                await db.execute("SELECT pg_notify(%s, 'orphans')", (CHANNEL,))
            log.info("left the cluster", node_id=self.node_id, released=len(held))
        except psycopg.Error as error:
            log.warning("could not release tables on leaving", error=str(error))
        await asyncio.to_thread(self.membership.stop)
        self.store.holdings.clear()
        await close_quietly(self._db)
        await close_quietly(self.reads)

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(self.store.url, autocommit=True, connect_timeout=3)

    @contextlib.asynccontextmanager
    async def _using(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """The node's connection, for this task alone until the block ends."""
        async with self._using_db:
            yield await self._connection()

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        """The node's connection, connected again after it was lost."""
        if self._db is None or self._db.closed or self._db.broken:
            await close_quietly(self._db)
            self._db = await self._connect()
        return self._db

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        settings = self.settings
        next_reconcile = time.monotonic() + RECONCILE_SECONDS
        while not self.ended.is_set():
            now = time.monotonic()
            try:
                await self._publish_summaries()
                await self._take_over()
                if now >= next_reconcile:
                    await self._reconcile()
                    next_reconcile = now + RECONCILE_SECONDS
            except psycopg.Error as error:
                log.warning("cluster database unavailable", error=str(error))
                if self._db is not None and self._db.broken:
                    await close_quietly(self._db)  # connected again (and the lock taken again) next turn
            except Exception:  # one bad turn must not end the node's membership
                log.exception("cluster turn failed")
            await asyncio.sleep(settings.tick_seconds)

    async def _take_over(self) -> None:
        """Declare dead the nodes whose lock is gone or lease ran out, then claim a share of the orphans."""
        async with self._using() as db:
            declared = await db.execute(
                f"UPDATE {SCHEMA}.nodes n SET state = 'dead' WHERE n.state = 'active' AND n.node_id <> %s"
                " AND pg_postmaster_start_time() < now() - make_interval(secs => n.lease_seconds)"
                " AND (n.heartbeat < now() - make_interval(secs => n.lease_seconds)"
                " OR (n.heartbeat < now() - make_interval(secs => n.lease_seconds * 0.375)"
                " AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory'"
                " AND l.classid = %s AND l.objid = n.lock_key AND l.objsubid = 2 AND l.granted"
                " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))))"
                " RETURNING n.node_id",
                (self.node_id, LOCK_CLASS),
            )
            dead = await declared.fetchall()
        for (node_id,) in dead:
            self.figures.nodes_declared_dead += 1
            log.warning("node declared dead", node_id=node_id)
        await self.claim_orphans()

    async def claim_orphans(self) -> None:
        condition, params = _claimable(self.kept_after())
        async with self._using() as db:
            counted = await db.execute(
                f"SELECT (SELECT count(*) FROM {SCHEMA}.tables t WHERE {condition}),"
                f" (SELECT count(*) FROM {SCHEMA}.nodes WHERE state = 'active')",
                params,
            )
            row = await counted.fetchone()
        assert row is not None
        orphans, live = int(row[0]), max(1, int(row[1]))
        if orphans:
            await self._claim(condition, params, "takeover", limit=math.ceil(orphans / live))

    async def _reconcile(self) -> None:
        """Claim again the tables the database says this node owns but it does not hold (a hand-off whose
        NOTIFY was lost)."""
        condition, params = _owned(self.kept_after())
        async with self._using() as db:
            found = await db.execute(
                f"SELECT table_id FROM {SCHEMA}.tables t WHERE {condition}", {**params, "me": self.node_id}
            )
            rows = await found.fetchall()
        missing = [table_id for (table_id,) in rows if table_id not in self.store.holdings]
        if missing:
            await self._claim("t.table_id = ANY(%(ids)s) AND t.owner = %(me)s", {"ids": missing}, "reconcile")

    def kept_after(self) -> float:
        kept = self.settings.finished_kept_seconds
        return time.time() - kept if kept > 0 else -math.inf

    async def _listen(self) -> None:
        """Wake on hand-offs to this node and on released tables."""
        while True:
            try:
                async with await self._connect() as listener:
                    await listener.execute(f"LISTEN {CHANNEL}")
                    async for notice in listener.notifies():
                        kind, _, rest = notice.payload.partition(":")
                        if kind == "orphans":
                            await self.claim_orphans()
                        elif kind == "adopt":
                            target, _, table_id = rest.partition(":")
                            if target == self.node_id:
                                await self._claim(
                                    "t.table_id = %(id)s AND t.owner = %(me)s", {"id": table_id}, "placed"
                                )
            except psycopg.Error as error:
                log.warning("cluster notifications lost; listening again", error=str(error))
                await asyncio.sleep(self.settings.heartbeat_seconds)

    # ------------------------------------------------------------------ claiming and dropping

    async def _claim(
        self, condition: str, params: dict[str, object], reason: str, limit: int | None = None
    ) -> list[Table]:
        """Raise the epoch of (at most ``limit``) tables matching ``condition`` to this node's, record the
        claims, then load, replay and serve them."""
        async with self._using() as db:
            values = {**params, "me": self.node_id, "limit": limit}
            async with db.transaction():
                claimed = await (
                    await db.execute(
                        f"WITH chosen AS (SELECT t.table_id FROM {SCHEMA}.tables t WHERE {condition}"
                        " ORDER BY t.finished, t.serial LIMIT %(limit)s FOR UPDATE OF t SKIP LOCKED)"
                        f" UPDATE {SCHEMA}.tables t SET owner = %(me)s, epoch = t.epoch + 1 FROM chosen"
                        " WHERE t.table_id = chosen.table_id RETURNING t.table_id, t.epoch, t.next_number",
                        values,
                    )
                ).fetchall()
                if claimed:
                    async with db.cursor() as cursor:
                        await cursor.executemany(
                            f"INSERT INTO {SCHEMA}.claims (table_id, epoch, node_id, generation, reason)"
                            " VALUES (%s, %s, %s, %s, %s)",
                            [(t, e, self.node_id, self.generation, reason) for t, e, _ in claimed],
                        )
            return [await self._serve(t, int(e), int(n), reason) for t, e, n in claimed]

    async def _serve(self, table_id: str, epoch: int, next_number: int, reason: str) -> Table:
        started = time.perf_counter()
        self.registry.drop(table_id, _moving())  # a table held at an older epoch is stale
        stored = await asyncio.to_thread(self.store.get, table_id)
        if stored is None or len(stored.records) != next_number:  # the row lock held at the claim says not
            raise RuntimeError(f"table {table_id}: {next_number} records claimed, others read")
        self.store.holdings[table_id] = Holding(epoch, next_number)
        table = self.registry.adopt(stored)
        self.hold(table)
        table.ensure_bots_running()
        elapsed = time.perf_counter() - started
        self.figures.claimed += 1
        self.figures.claims[reason] = self.figures.claims.get(reason, 0) + 1
        self.figures.replay_seconds += elapsed
        log.info(
            "table claimed",
            table_id=table_id,
            epoch=epoch,
            reason=reason,
            records=next_number,
            replay_ms=round(elapsed * 1000, 2),
        )
        return table

    def hold(self, table: Table) -> None:
        """Serve a table this node owns: its endpoints, and the hooks that publish and drop it."""
        table_id = table.table_id
        table.endpoints = (self.settings.endpoint, self.settings.web_endpoint)
        table.on_change = lambda: self._dirty.add(table_id)
        table.on_lost = lambda: self._lost(table_id)
        self._dirty.add(table_id)

    def _lost(self, table_id: str) -> None:
        """A write of the table was refused: another node holds it now, or its records are not what this
        node knew (a commit whose outcome was lost). Drop it; if it is still this node's, claim it again."""
        self.drop(table_id)
        task = asyncio.get_running_loop().create_task(
            self._claim("t.table_id = %(id)s AND t.owner = %(me)s", {"id": table_id}, "resync")
        )
        self._tasks.append(task)
        task.add_done_callback(self._tasks.remove)

    def drop(self, table_id: str, *, lost: bool = True) -> None:
        """Stop serving a table: ``lost`` to another node (counted, logged), or handed to one."""
        if self.registry.drop(table_id, _moving()) is not None and lost:
            self.figures.dropped += 1
            log.warning("table dropped", table_id=table_id, node_id=self.node_id)
        self.store.holdings.pop(table_id, None)
        self._dirty.discard(table_id)

    def drop_all(self) -> None:
        for table in self.registry.all():
            self.drop(table.table_id)
        self.store.holdings.clear()

    async def hand_off(self, table: Table, target: str) -> bool:
        """Give a table this node just created to node ``target``; False when it stays here."""
        held = self.store.holdings.get(table.table_id)
        if held is None:
            return False
        async with self._using() as db, db.transaction():
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
            async with self._using() as db, db.cursor() as cursor:
                await cursor.executemany(
                    f"UPDATE {SCHEMA}.tables SET summary = %s, open_seats = %s"
                    " WHERE table_id = %s AND epoch = %s",
                    rows,
                )
        except BaseException:
            self._dirty |= pending  # published on a later turn
            raise

    @property
    def lease_age(self) -> float:
        """Seconds since the database last accepted this node's heartbeat."""
        return self.membership.lease_age


def _moving() -> ServiceError:
    return ServiceError(
        ErrorReason.TABLE_MOVING,
        "the table is moving to another node of the cluster; retry shortly",
        retry_delay=MOVING_RETRY_SECONDS,
    )


async def close_quietly(connection: psycopg.AsyncConnection[Any] | None) -> None:
    if connection is not None:
        with contextlib.suppress(psycopg.Error):
            await connection.close()
