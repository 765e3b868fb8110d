"""A node's membership of the cluster: its row in ``thousand.nodes``, its heartbeat and its advisory lock.

The heartbeat runs in a thread of its own, on a connection of its own, and not on the event loop: a node
whose loop is busy (replaying the tables it just took over, a burst of actions) is slow, not dead, and must
not lose its tables for it. The same connection holds the node's session advisory lock, which PostgreSQL
releases the moment the process dies: that is how the others notice a killed node within about a heartbeat
(:mod:`server.cluster`). A frozen process (SIGSTOP, a stalled VM) keeps its connection, and so its lock, but
stops heartbeating: the others notice when its lease has run out.

Each start registers a new ``generation`` of the node id. A heartbeat the database refuses means either that
the others declared this node dead (it was frozen or cut off past its lease: it joins again as a new
generation, with no tables), or that another process registered the same node id since (this one must stop
serving). The node's ``on_lost`` hears which, on the event loop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, Final

import psycopg

from server.directory import LOCK_CLASS
from server.logs import get_logger
from server.store_pg import SCHEMA, connect

DEAD: Final = "dead"
SUPERSEDED: Final = "superseded"
log = get_logger("thousand.cluster")


class Membership:
    """The node ``node_id``'s registration, lock and heartbeat thread."""

    def __init__(
        self,
        url: str,
        node_id: str,
        *,
        endpoint: str,
        web_endpoint: str,
        lease_seconds: float,
        on_lost: Callable[[str], None],
    ) -> None:
        self.url = url
        self.node_id = node_id
        self.endpoint = endpoint
        self.web_endpoint = web_endpoint
        self.lease_seconds = lease_seconds
        self.on_lost = on_lost
        """Called on the event loop with DEAD (joined again since) or SUPERSEDED (heartbeats stopped)."""
        self.generation = 0
        self.lock_key = 0
        self.last_heartbeat = 0.0
        """time.monotonic() of the last heartbeat the database accepted."""
        self.web_endpoints: frozenset[str] = frozenset()
        """The web endpoints of the active nodes, this one's included, read at every heartbeat: where a page
        may go on when the node it talks to dies (``/cluster.json``, :class:`server.web.WebApp`)."""
        self.page_endpoints: frozenset[str] = frozenset()
        """The web endpoints of every node the cluster has had, dead or gone too: the pages this node's web
        port lets call its API (CORS, :class:`server.web.Cors`). A page outlives the node that served it
        (killed, or stopped for an upgrade) and follows its table to the node that took it over."""
        self._db: psycopg.Connection[Any] | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def heartbeat_seconds(self) -> float:
        return self.lease_seconds / 4

    @property
    def lease_age(self) -> float:
        """Seconds since the database last accepted this node's heartbeat."""
        return time.monotonic() - self.last_heartbeat

    def join(self) -> None:
        """Register a new generation of this node, holding its lock (blocking: call it in a thread)."""
        db = self._connection()
        row = db.execute(
            f"INSERT INTO {SCHEMA}.nodes AS n (node_id, generation, endpoint, web_endpoint, lock_key,"
            " lease_seconds, heartbeat, started, state)"
            f" VALUES (%s, 1, %s, %s, nextval('{SCHEMA}.node_lock_key'), %s, now(), now(), 'active')"
            " ON CONFLICT (node_id) DO UPDATE SET generation = n.generation + 1,"
            " endpoint = EXCLUDED.endpoint, web_endpoint = EXCLUDED.web_endpoint,"
            " lease_seconds = EXCLUDED.lease_seconds, heartbeat = now(), started = now(), state = 'active'"
            " RETURNING generation, lock_key",
            (self.node_id, self.endpoint, self.web_endpoint, self.lease_seconds),
        ).fetchone()
        assert row is not None
        self.generation, self.lock_key = int(row[0]), int(row[1])
        self._take_lock(db)
        self.last_heartbeat = time.monotonic()
        self._read_web_endpoints(db)
        log.info("joined the cluster", node_id=self.node_id, generation=self.generation)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.Thread(target=self._beat, name="cluster-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop heartbeating and mark this generation gone (its tables are released by the node)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        try:
            self._connection().execute(
                f"UPDATE {SCHEMA}.nodes SET state = 'left' WHERE node_id = %s AND generation = %s",
                (self.node_id, self.generation),
            )
        except psycopg.Error as error:
            log.warning("could not leave the cluster cleanly", error=str(error))
        if self._db is not None:
            self._db.close()

    def _connection(self) -> psycopg.Connection[Any]:
        """The membership connection, connected again (and the lock taken again) after it was lost."""
        if self._db is None or self._db.closed or self._db.broken:
            if self._db is not None:
                self._db.close()
            self._db = connect(self.url)
            if self.lock_key:
                self._take_lock(self._db)
        return self._db

    def _take_lock(self, db: psycopg.Connection[Any]) -> None:
        """The node's advisory lock; a session still holding it (an earlier process of this node id, frozen)
        is ended first, so that nothing of that process outlives the new generation's start."""
        taken = db.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, self.lock_key)).fetchone()
        if taken is not None and taken[0]:
            return
        db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s"
            " AND objid = %s AND objsubid = 2 AND granted AND pid <> pg_backend_pid()",
            (LOCK_CLASS, self.lock_key),
        )
        db.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, self.lock_key))

    def _beat(self) -> None:
        """The heartbeat thread: every quarter lease, until stopped or superseded."""
        while not self._stopping.wait(self.heartbeat_seconds):
            try:
                lost = self._heartbeat()
            except psycopg.Error as error:
                log.warning("heartbeat failed", error=str(error))
                continue
            if lost is None:
                continue
            if lost == DEAD:
                try:
                    self.join()
                except psycopg.Error as error:
                    log.warning("could not join again", error=str(error))
                    continue
            self._tell(lost)
            if lost == SUPERSEDED:
                return

    def _heartbeat(self) -> str | None:
        """One heartbeat; DEAD or SUPERSEDED when the database no longer counts this generation in."""
        db = self._connection()
        row = db.execute(
            f"UPDATE {SCHEMA}.nodes SET heartbeat = now() WHERE node_id = %s AND generation = %s"
            " AND state = 'active' RETURNING 1",
            (self.node_id, self.generation),
        ).fetchone()
        if row is not None:
            self.last_heartbeat = time.monotonic()
            self._read_web_endpoints(db)
            return None
        current = db.execute(
            f"SELECT generation FROM {SCHEMA}.nodes WHERE node_id = %s", (self.node_id,)
        ).fetchone()
        if current is not None and int(current[0]) != self.generation:
            log.error("another process took this node id over", node_id=self.node_id)
            return SUPERSEDED
        log.warning("declared dead by the cluster: dropping every table, joining again", node_id=self.node_id)
        return DEAD

    def _read_web_endpoints(self, db: psycopg.Connection[Any]) -> None:
        rows = db.execute(
            f"SELECT web_endpoint, state = 'active' FROM {SCHEMA}.nodes WHERE web_endpoint <> ''"
        ).fetchall()
        self.web_endpoints = frozenset(str(endpoint) for endpoint, active in rows if active)
        self.page_endpoints = frozenset(str(endpoint) for endpoint, _ in rows)

    def _tell(self, lost: str) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.on_lost, lost)
