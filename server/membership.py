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

**The fence.** The others declare this node dead only once its last heartbeat is a lease old by the
database's clock (sooner only when its lock is gone: its connection died). A heartbeat's ``now()`` is no
earlier than the moment this node sent it, so until :data:`FENCE_FRACTION` of a lease after the send of its
last accepted heartbeat (by a clock that counts a frozen process's and a suspended machine's time), no
other node can hold this node's tables: :meth:`Membership.vouches`. Past it, the node does not answer as
their owner (:mod:`server.directory`): a node woken from a freeze says TABLE_MOVING instead of serving the
state it had. A node declared dead lets its tables go before it joins again.

While its heartbeats fail (the database down, restarting, failing over) the node keeps vouching: nothing of
its tables can change without the database (every write waits, STORE_UNAVAILABLE), nor be claimed by
another node until a lease after that node sees the database again, and their history is committed: the
streams go on from memory. The one case this trusts too much is a network cut of this node alone, whose
clients then see the table as it was until the cut heals and the node finds its tables gone.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, Final

import psycopg

from server.cluster_db import LOCK_CLASS, ClusterDatabase
from server.logs import get_logger
from server.store_pg import SCHEMA

DEAD: Final = "dead"
SUPERSEDED: Final = "superseded"
REJOINED: Final = "rejoined"
FENCE_FRACTION: Final = 0.8
"""How much of a lease after a heartbeat's send this node answers as its tables' owner (the rest: margin
for the time the statement took to reach the database, and clocks that run a little apart)."""
LOCK_GONE_FRACTION: Final = 0.375
"""How old a heartbeat may be, by a lease, before a node whose lock is gone is declared dead."""
LATE_FRACTION: Final = 0.25
"""A heartbeat later than this much of a lease after it was due is logged ("heartbeat late")."""
DROP_WAIT_SECONDS: Final = 10.0
"""How long a node declared dead waits for its loop to let its tables go before it joins again anyway."""


def lease_clock() -> float:
    """Seconds by a clock that goes on while the process is stopped or the machine suspended (Linux's
    CLOCK_BOOTTIME), so that a node woken after any pause knows how long it was away."""
    boottime = getattr(time, "CLOCK_BOOTTIME", None)
    return time.clock_gettime(boottime) if boottime is not None else time.monotonic()


WEB_ENDPOINTS: Final = (
    f"(SELECT array_agg(web_endpoint) FROM {SCHEMA}.nodes WHERE web_endpoint <> '' AND state = 'active'),"
    f" (SELECT array_agg(web_endpoint) FROM {SCHEMA}.nodes WHERE web_endpoint <> '')"
)
"""SQL: the web endpoints of the active nodes, and of every node the cluster has had (two arrays, NULL for
none): read with each heartbeat, in its round trip."""
log = get_logger("thousand.cluster")


class Membership:
    """The node ``node_id``'s registration, lock and heartbeat thread."""

    def __init__(
        self,
        database: ClusterDatabase,
        node_id: str,
        *,
        endpoint: str,
        web_endpoint: str,
        lease_seconds: float,
        on_lost: Callable[[str], None],
    ) -> None:
        self.database = database
        self.node_id = node_id
        self.endpoint = endpoint
        self.web_endpoint = web_endpoint
        self.lease_seconds = lease_seconds
        self.on_lost = on_lost
        """Called on the event loop with DEAD (let every table go: the node joins again once it has),
        REJOINED (a new generation of it is active) or SUPERSEDED (heartbeats stopped)."""
        self.generation = 0
        self.lock_key = 0
        self.previous_heartbeat: float | None = None
        """The last heartbeat of this node id's process before this one joined (Unix time, the database's
        clock; None: none, or it left cleanly): when the tables it still owns stopped being served."""
        self.last_heartbeat = 0.0
        """time.monotonic() of the last heartbeat the database accepted."""
        self.fence = 0.0
        """:func:`lease_clock` time until which no other node can hold this node's tables."""
        self.unreachable = False
        """The last heartbeat failed: the database cannot be reached (see the fence, above)."""
        self._dropped = threading.Event()
        """Set by the loop once it let every table go after this node was declared dead."""
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

    def vouches(self) -> bool:
        """Whether no other node can hold this node's tables now (the fence, above)."""
        return self.unreachable or lease_clock() < self.fence

    def join(self) -> None:
        """Register a new generation of this node, holding its lock (blocking: call it in a thread)."""
        db = self._connection()
        sent = lease_clock()
        with db.transaction():  # a new generation, unlike a heartbeat, must survive a crash: flushed
            db.execute("SET LOCAL synchronous_commit = on")
            row = db.execute(
                f"WITH before AS (SELECT heartbeat FROM {SCHEMA}.nodes"
                " WHERE node_id = %s AND state <> 'left')"
                f" INSERT INTO {SCHEMA}.nodes AS n (node_id, generation, endpoint, web_endpoint, lock_key,"
                " lease_seconds, heartbeat, started, state)"
                f" VALUES (%s, 1, %s, %s, nextval('{SCHEMA}.node_lock_key'), %s, now(), now(), 'active')"
                " ON CONFLICT (node_id) DO UPDATE SET generation = n.generation + 1,"
                " endpoint = EXCLUDED.endpoint, web_endpoint = EXCLUDED.web_endpoint,"
                " lease_seconds = EXCLUDED.lease_seconds, heartbeat = now(), started = now(),"
                " state = 'active'"
                " RETURNING generation, lock_key, (SELECT extract(epoch FROM heartbeat)::float8 FROM before)",
                (self.node_id, self.node_id, self.endpoint, self.web_endpoint, self.lease_seconds),
            ).fetchone()
        assert row is not None
        self.generation, self.lock_key = int(row[0]), int(row[1])
        self.previous_heartbeat = None if row[2] is None else float(row[2])
        self._take_lock(db)
        self._accepted(sent)
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
            self._db = self.database.connect_blocking()
            # A heartbeat must not wait behind the store's commits for its own flush of the write-ahead
            # log: one lost in a crash is harmless (the grace after an outage covers it).
            self._db.execute("SET synchronous_commit = off")
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
        """The heartbeat thread: every quarter lease, at a fixed rate (a slow heartbeat does not push the next
        one later), until stopped or superseded."""
        due = time.monotonic()
        while True:
            due = max(due + self.heartbeat_seconds, time.monotonic())
            if self._stopping.wait(max(0.0, due - time.monotonic())):
                return
            woke = time.monotonic()
            try:
                lost = self._heartbeat()
                self._note_slow(woke - due, time.monotonic() - woke)
            except psycopg.Error as error:
                self.database.outage()
                self.unreachable = True
                if self._db is not None and self._db.broken:
                    self._db.close()
                log.warning("heartbeat failed", error=str(error))
                continue
            if lost is None:
                continue
            self.fence, self.unreachable = 0.0, False
            if lost == SUPERSEDED:
                self._tell(lost)
                return
            self._dropped.clear()
            self._tell(lost)  # the loop lets every table go, then sets _dropped
            if not self._dropped.wait(DROP_WAIT_SECONDS):
                log.error("the loop did not let the tables go in time; joining again anyway")
            while not self._stopping.is_set():
                try:
                    self.join()
                    self._tell(REJOINED)
                    break
                except psycopg.Error as error:
                    self.database.outage()
                    log.warning("could not join again", error=str(error))
                    self._stopping.wait(self.heartbeat_seconds)

    def _note_slow(self, woke_late: float, took: float) -> None:
        """Log a heartbeat that came late, saying which part was slow: the thread's waking (this process
        starved of CPU, or a pause holding every thread) or the database's answer."""
        if woke_late + took > LATE_FRACTION * self.lease_seconds:
            log.warning("heartbeat late", woke_late_s=round(woke_late, 3), took_s=round(took, 3))

    def dropped(self) -> None:
        """The loop let every table go after this node was declared dead (from any thread)."""
        self._dropped.set()

    def _heartbeat(self) -> str | None:
        """One heartbeat; DEAD or SUPERSEDED when the database no longer counts this generation in."""
        db = self._connection()
        sent = lease_clock()
        row = db.execute(  # one round trip: the web endpoints come back with the heartbeat
            f"UPDATE {SCHEMA}.nodes SET heartbeat = now() WHERE node_id = %s AND generation = %s"
            f" AND state = 'active' RETURNING {WEB_ENDPOINTS}",
            (self.node_id, self.generation),
        ).fetchone()
        if row is not None:
            self._accepted(sent)
            self._note_web_endpoints(row)
            return None
        current = db.execute(
            f"SELECT generation FROM {SCHEMA}.nodes WHERE node_id = %s", (self.node_id,)
        ).fetchone()
        if current is not None and int(current[0]) != self.generation:
            log.error("another process took this node id over", node_id=self.node_id)
            return SUPERSEDED
        log.warning("declared dead by the cluster: dropping every table, joining again", node_id=self.node_id)
        return DEAD

    def _accepted(self, sent: float) -> None:
        """The database accepted a heartbeat (or a join) sent at ``sent`` (:func:`lease_clock`)."""
        self.last_heartbeat = time.monotonic()
        self.unreachable = False
        self.fence = sent + FENCE_FRACTION * self.lease_seconds

    def _read_web_endpoints(self, db: psycopg.Connection[Any]) -> None:
        row = db.execute(f"SELECT {WEB_ENDPOINTS}").fetchone()
        assert row is not None
        self._note_web_endpoints(row)

    def _note_web_endpoints(self, row: tuple[Any, ...]) -> None:
        """A row of :data:`WEB_ENDPOINTS`: the active nodes' web endpoints, and every node's."""
        active, every = row[0] or [], row[1] or []
        self.web_endpoints = frozenset(str(endpoint) for endpoint in active)
        self.page_endpoints = frozenset(str(endpoint) for endpoint in every)

    def _tell(self, lost: str) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.on_lost, lost)
