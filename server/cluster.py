"""This node's part in a cluster: server processes sharing one PostgreSQL database, each table owned by one.

The pattern is Orleans' (one live owner per id, recorded in the database, taken over when the owner dies),
on PostgreSQL rather than a protocol of our own:

- **Membership.** A node registers in ``thousand.nodes`` with a new ``generation`` each time it starts, and
  heartbeats every quarter of its lease. It also holds a session advisory lock keyed by its row: PostgreSQL
  releases it the moment the node's connection dies, so a killed process is noticed within about a
  heartbeat (a lock gone and a heartbeat late) instead of a whole lease; a frozen one (its connection open)
  when its lease runs out. Either way a survivor marks it ``dead``. A node declares nobody dead until a
  whole lease after its own last outage (a connection failed or made again, :mod:`server.cluster_db`) and
  only while its own heartbeat is fresh: after PostgreSQL restarts, fails over or is cut off, however long
  it took to come back, every node has a lease from when it sees the cluster again to heartbeat.
- **Ownership.** Every table row names its owner and an ``epoch``; claiming a table raises the epoch, and
  the store writes a table's records only at the epoch it holds (:mod:`server.store_pg`). A node that lost
  a table therefore cannot change it: its write fails, and it drops the table (streams ended with
  TABLE_MOVING, clock and bots stopped). A node that finds itself declared dead drops every table and joins
  again as a new generation; one whose id another process took over (a newer generation) stops serving.
- **Takeover.** Every survivor claims a fair share of the unfinished tables whose owner is not active, all at
  once (one transaction, ``FOR UPDATE SKIP LOCKED``: no table is claimed twice), then reads and replays them,
  people's tables and short ones first, a batch read while the one before replays
  (:mod:`server.cluster_replay`), and carries on: bots and turn clocks start again, idempotency keys answer
  with the stored results (the replay remembers them). A finished table is claimed only when a client asks to
  stream it. A node stopping cleanly releases its tables, and the others claim them at once.
- **Placement.** A table is created on the node asked; with ``--placement least-loaded`` it is handed to the
  node with the fewest unfinished tables when that is fewer than this node's less one (the client, told the
  owner's endpoint, goes there). A hand-off is a claim for the target, which is woken by NOTIFY.
- **Rebalancing.** A node two or more unfinished tables above the least loaded live one hands it a table,
  one per ``--rebalance-seconds``, between two actions; one where a person is on turn right after their
  move (:mod:`server.rebalancing`).

What any node answers about tables it does not hold is :mod:`server.directory`'s.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import psycopg

from server.cluster_db import LOCK_CLASS, LOCK_HELD, ClusterDatabase, claim_statement, claimable, owned
from server.cluster_flags import NodeSettings
from server.cluster_placement import CHANNEL, Placement
from server.cluster_replay import Claimed, replay_claimed, resume_clock
from server.directory import ClusterDirectory
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError
from server.logs import get_logger
from server.membership import DEAD, LOCK_GONE_FRACTION, REJOINED, SUPERSEDED, Membership
from server.rebalancing import Rebalancer
from server.registry import Registry
from server.store import StoredTable
from server.store_pg import SCHEMA, Holding, PostgresStore
from server.table import Table

RECONCILE_SECONDS: Final = 10.0
"""How often a node looks for tables the database says it owns but it does not hold (a lost NOTIFY)."""
log = get_logger("thousand.cluster")


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
    rebalanced: int = 0
    """Tables given to a less loaded node to spread the load."""
    replay_seconds: float = 0.0
    """Time spent loading and replaying claimed tables."""


class Node(Placement):
    """This server as a member of the cluster whose database ``store`` writes to."""

    def __init__(self, settings: NodeSettings, registry: Registry, store: PostgresStore) -> None:
        self.settings = settings
        self.registry = registry
        self.store = store
        self.database = ClusterDatabase(store.url)
        self.membership = Membership(
            self.database,
            settings.node_id,
            endpoint=settings.endpoint,
            web_endpoint=settings.web_endpoint,
            lease_seconds=settings.lease_seconds,
            on_lost=self._membership_lost,
        )
        self.figures = Figures()
        self.directory = ClusterDirectory(
            self.database,
            settings.node_id,
            registry,
            vouches=self.membership.vouches,
            kept_after=self.kept_after,
            place=self.place,
            orphan_asked=self._orphan_asked,
        )
        self.rebalancer = Rebalancer(
            settings.node_id, registry, self.directory, hand_off=self.hand_off, on_moved=self._rebalanced
        )
        self.ended = asyncio.Event()
        """Set when the node must stop serving: another process took its id over."""
        self._dirty: set[str] = set()
        self._tasks: list[asyncio.Task[Any]] = []
        self._asked: set[str] = set()
        """Finished tables being claimed because a client asked for them."""
        self.on_claimed: Callable[[str], Awaitable[None]] | None = None
        """Writes the seats of a table held here that were claimed on another node into its log."""
        self.directory.claimed_elsewhere = self._tell_claimed

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Join the cluster, take back the tables that still name this node, and start heartbeating."""
        await asyncio.to_thread(self.membership.join)
        await self._claim(*owned(), "restart", last_seen=self.membership.previous_heartbeat)
        loop = asyncio.get_running_loop()
        self.membership.start(loop)
        self._tasks = [loop.create_task(self._run()), loop.create_task(self._listen())]

    @property
    def generation(self) -> int:
        return self.membership.generation

    def _membership_lost(self, why: str) -> None:
        """The database stopped counting this generation in: declared dead (let every table go; the
        membership joins again once they are), joined again since (start over with the tables that still
        name this node) or superseded (stop serving)."""
        if why == REJOINED:
            self._in_background(self._claim(*owned(), "rejoin"))
            return
        self.drop_all()
        if why == DEAD:
            self.membership.dropped()
        elif why == SUPERSEDED:
            self.ended.set()

    async def _tell_claimed(self, table_id: str) -> None:
        """NOTIFY the table's owner that seats of it were claimed here (lost: the claim stays in the players'
        store, where "my games" reads it)."""
        try:
            async with self.database.using() as db:
                await db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"claimed:{table_id}"))
        except psycopg.Error as error:
            log.warning("claim not told to the table's owner", table_id=table_id, error=str(error))

    def _in_background(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
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
            async with self.database.using() as db, db.transaction():
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
        await self.database.close()

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        settings = self.settings
        next_reconcile = time.monotonic() + RECONCILE_SECONDS
        next_rebalance = time.monotonic() + settings.rebalance_seconds
        while not self.ended.is_set():
            now = time.monotonic()
            try:
                await self._publish_summaries()
                await self._take_over()
                if now >= next_reconcile:
                    await self._reconcile()
                    next_reconcile = now + RECONCILE_SECONDS
                if settings.rebalance_seconds and now >= next_rebalance and self.may_declare():
                    next_rebalance = now + settings.rebalance_seconds
                    await self.rebalancer.turn()
            except psycopg.Error as error:  # connected again next turn (ClusterDatabase.using)
                log.warning("cluster database unavailable", error=str(error))
            except ServiceError as error:  # the directory's STORE_UNAVAILABLE
                log.warning("cluster database unavailable", error=str(error))
            except Exception:  # one bad turn must not end the node's membership
                log.exception("cluster turn failed")
            await asyncio.sleep(settings.tick_seconds)

    def may_declare(self) -> bool:
        """Whether this node sees the cluster well enough to declare others dead: a whole lease since its
        last outage (every other node has had a lease to heartbeat since the database came back), and its
        own lease fresh (a node cut off from the database is the one late, not the others)."""
        lease = self.settings.lease_seconds
        return self.database.steady_seconds >= lease and self.membership.lease_age < lease / 2

    async def _take_over(self) -> None:
        """Declare dead the nodes whose lock is gone or lease ran out, then claim a share of the orphans."""
        if not self.may_declare():
            return
        async with self.database.using() as db:
            declared = await db.execute(
                f"UPDATE {SCHEMA}.nodes n SET state = 'dead' WHERE n.state = 'active' AND n.node_id <> %(me)s"
                " AND pg_postmaster_start_time() < now() - make_interval(secs => n.lease_seconds)"
                " AND (n.heartbeat < now() - make_interval(secs => n.lease_seconds)"
                " OR (n.heartbeat < now() - make_interval(secs => n.lease_seconds * %(gone)s)"
                f" AND NOT {LOCK_HELD}))"
                " RETURNING n.node_id",
                {"me": self.node_id, "gone": LOCK_GONE_FRACTION, "lock_class": LOCK_CLASS},
            )
            dead = await declared.fetchall()
        for (node_id,) in dead:
            self.figures.nodes_declared_dead += 1
            log.warning("node declared dead", node_id=node_id)
        await self.claim_orphans()

    async def claim_orphans(self) -> None:
        condition, params = claimable(self.kept_after())
        async with self.database.using() as db:
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
        condition, params = owned()
        async with self.database.using() as db:
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
                async with await self.database.connect() as listener:
                    await listener.execute(f"LISTEN {CHANNEL}")
                    async for notice in listener.notifies():
                        kind, _, rest = notice.payload.partition(":")
                        if kind == "orphans":
                            await self.claim_orphans()
                        elif kind == "claimed":
                            if self.on_claimed is not None and rest in self.store.holdings:
                                self._in_background(self.on_claimed(rest))
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
        self,
        condition: str,
        params: dict[str, object],
        reason: str,
        limit: int | None = None,
        last_seen: float | None = None,
    ) -> list[Table]:
        """Raise the epoch of (at most ``limit``) tables matching ``condition`` to this node's, record the
        claims, then load, replay and serve them. ``last_seen``: when their owner, active again, was last
        seen before (this node's previous process, on a restart); a dead owner's last heartbeat is read."""
        async with self.database.using() as db:
            values = {**params, "me": self.node_id, "limit": limit, "last_seen": last_seen}
            async with db.transaction():
                asked = time.time()
                claimed = await (await db.execute(claim_statement(condition), values)).fetchall()
                offset = (asked + time.time()) / 2 - float(claimed[0][5]) if claimed else 0.0
                if claimed:
                    async with db.cursor() as cursor:
                        await cursor.executemany(
                            f"INSERT INTO {SCHEMA}.claims (table_id, epoch, node_id, generation, reason)"
                            " VALUES (%s, %s, %s, %s, %s)",
                            [(row[0], row[1], self.node_id, self.generation, reason) for row in claimed],
                        )
        if not claimed:
            return []
        return await replay_claimed(
            [Claimed(str(t), int(e), int(n), bool(b), s, offset) for t, e, n, b, s, _ in claimed],
            lambda table_ids: self.store.get_many(table_ids, snapshots=True),
            lambda stored, claim, started: self._serve(stored, claim, reason, started),
        )

    def _serve(self, stored: StoredTable | None, claim: Claimed, reason: str, started: float) -> Table | None:
        """Replay a table just claimed and serve it, its turn clock going on (:func:`resume_clock`). Records
        read after the claim that are not the claim's count mean another node claimed the table since (this
        node was declared dead meanwhile: its claim was the older): it is that node's, and the records
        are not this node's to serve."""
        epoch, next_number = claim.epoch, claim.records
        if stored is None or stored.count != next_number:
            table_id = "?" if stored is None else stored.table_id
            log.warning(
                "table claimed by another node meanwhile",
                table_id=table_id,
                claimed_records=next_number,
                read_records=None if stored is None else stored.count,
            )
            if stored is not None:
                self._lost(stored.table_id)
            return None
        table_id = stored.table_id
        self.registry.drop(table_id, _moving())  # a table held at an older epoch is stale
        self.store.holdings[table_id] = Holding(epoch, next_number)
        table = self.registry.adopt(stored)
        resume_clock(table, stored.records, claim)
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
            replayed=len(stored.records),
            replay_ms=round(elapsed * 1000, 2),
        )
        return table

    def hold(self, table: Table) -> None:
        """Serve a table this node owns: its endpoints, and the hooks that publish and drop it."""
        table_id = table.table_id
        table.endpoints = (self.settings.endpoint, self.settings.web_endpoint)
        table.on_change = lambda: self._changed(table)
        table.on_lost = lambda: self._lost(table_id)
        self._dirty.add(table_id)

    def _changed(self, table: Table) -> None:
        """A table this node holds changed: its summary is published next turn, and a table waiting to be
        rebalanced may have reached its safe point."""
        self._dirty.add(table.table_id)
        self.rebalancer.changed(table)

    def _rebalanced(self) -> None:
        self.figures.rebalanced += 1

    def _lost(self, table_id: str) -> None:
        """A write of the table was refused: another node holds it now, or its records are not what this
        node knew (a commit whose outcome was lost). Drop it; if it is still this node's, claim it again."""
        self.drop(table_id)
        self._in_background(
            self._claim("t.table_id = %(id)s AND t.owner = %(me)s", {"id": table_id}, "resync")
        )

    def _orphan_asked(self, table_id: str) -> None:
        """A client asked for a finished table nobody serves (its owner gone, or this node, which left it
        in the database): claim it, so that the client's retry finds it here."""
        if table_id in self._asked:
            return
        self._asked.add(table_id)
        condition, params = claimable(self.kept_after(), finished=True)
        claim = self._claim(
            f"t.table_id = %(id)s AND (({condition}) OR (t.owner = %(me)s AND t.expire_time IS NULL))",
            {**params, "id": table_id},
            "asked",
        )

        async def claimed() -> None:
            try:
                await claim
            finally:
                self._asked.discard(table_id)

        self._in_background(claimed())

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
