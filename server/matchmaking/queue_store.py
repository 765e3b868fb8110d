"""The quick-play queue in the database: one queue for the whole cluster, whichever node a player waits on.

A *ticket* is one player's place: named by the hash of the seat token the player will sit with (so a client
that reconnects, on any node, with the same token and request finds its place again), with what it asked
for, when it joined the queue, and when a node last saw its stream open (``seen_time``). A *match* is a group
the matcher formed: its tickets are marked with the match id and a seat **in the same transaction** that
records the match, so a ticket belongs to one match at most and nobody is ever seated twice; the match then
names its table once it is placed.

One matcher at a time across the cluster: a round runs in one transaction that first takes a PostgreSQL
advisory transaction lock (``pg_try_advisory_xact_lock``: a node that does not get it skips the round);
SQLite serves one node, whose ``BEGIN IMMEDIATE`` is the same guarantee. The queries are written once with
``?`` placeholders and ``{t}`` before each table name, as the players' store's
(:mod:`server.identity.store`); the schema has its own version (``queue_schema`` in ``meta``). Calls block:
the matchmaker runs them with ``asyncio.to_thread``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import psycopg

from server.store import Store
from server.store_pg import MIGRATION_LOCK, SCHEMA, connect
from server.store_select import is_postgres
from server.store_sqlite import SqliteStore

SCHEMA_KEY: Final = "queue_schema"
MATCHER_LOCK: Final = (0x5451, 1)
"""The advisory lock a matching round holds (its own class: the nodes' locks are 0x5448's)."""
KEEP_MATCHES_SECONDS: Final = 3600.0
"""How long a match (and its tickets) stays, for a reconnect and for the wait estimates."""

SCHEMA_1: Final = """
CREATE TABLE {t}quickplay_tickets (
    ticket_id TEXT PRIMARY KEY,
    pool TEXT NOT NULL,
    digest TEXT NOT NULL,
    game TEXT NOT NULL,
    players INTEGER NOT NULL,
    rules {blob} NOT NULL,
    rated {bool} NOT NULL,
    bots_ok {bool} NOT NULL,
    max_wait {real} NOT NULL,
    rating {real} NOT NULL,
    player_id TEXT NOT NULL,
    player_name TEXT NOT NULL,
    client_seed TEXT NOT NULL,
    enqueue_time {real} NOT NULL,
    seen_time {real} NOT NULL,
    match_id TEXT,
    seat INTEGER
);
CREATE UNIQUE INDEX quickplay_one_place ON {t}quickplay_tickets (player_id)
    WHERE player_id <> '' AND match_id IS NULL;
CREATE INDEX quickplay_by_match ON {t}quickplay_tickets (match_id);
CREATE TABLE {t}quickplay_matches (
    match_id TEXT PRIMARY KEY,
    pool TEXT NOT NULL,
    plan TEXT NOT NULL,
    create_time {real} NOT NULL,
    wait_seconds {real} NOT NULL,
    table_id TEXT
);
"""

_TICKET_COLUMNS: Final = (
    "ticket_id, pool, digest, game, players, rules, rated, bots_ok, max_wait, rating, player_id,"
    " player_name, client_seed, enqueue_time, seen_time, match_id, seat"
)


@dataclass(frozen=True, slots=True)
class Ticket:
    """One player's place in the queue (``match_id``/``seat`` once matched)."""

    ticket_id: str
    """The hex SHA-256 of the seat token the player sits with."""
    pool: str
    """Who may play together: game, players, rules and rated (:func:`server.matchmaking.matching.pool_of`)."""
    digest: str
    """What the request asked for, hashed: a reconnect must ask the same."""
    game: str
    players: int
    rules: bytes
    rated: bool
    bots_ok: bool
    max_wait: float
    rating: float
    player_id: str
    player_name: str
    client_seed: str
    enqueue_time: float
    seen_time: float
    match_id: str | None = None
    seat: int | None = None

    @property
    def token_hash(self) -> bytes:
        return bytes.fromhex(self.ticket_id)


@dataclass(frozen=True, slots=True)
class PlannedSeat:
    """One seat of a match: a ticket's player (``player_id`` when signed in), or a bot (``strategy``)."""

    ticket_id: str = ""
    player_name: str = ""
    client_seed: str = ""
    strategy: str = ""
    player_id: str = ""

    @property
    def bot(self) -> bool:
        return not self.ticket_id


@dataclass(frozen=True, slots=True)
class Match:
    """A group the matcher formed, to be placed at a new table whose request_id is ``match_id``."""

    match_id: str
    pool: str
    game: str
    rules: bytes
    rated: bool
    seats: tuple[PlannedSeat, ...]
    wait_seconds: float
    table_id: str | None = None

    @property
    def bots(self) -> int:
        return sum(1 for s in self.seats if s.bot)

    def plan_json(self) -> str:
        return json.dumps(
            {
                "game": self.game,
                "rules": self.rules.hex(),
                "rated": self.rated,
                "seats": [
                    [s.ticket_id, s.player_name, s.client_seed, s.strategy, s.player_id] for s in self.seats
                ],
            }
        )

    @staticmethod
    def from_row(row: Sequence[Any]) -> Match:
        match_id, pool, plan, wait_seconds, table_id = row
        loaded = json.loads(plan)
        return Match(
            match_id,
            pool,
            loaded["game"],
            bytes.fromhex(loaded["rules"]),
            bool(loaded["rated"]),
            tuple(PlannedSeat(*seat) for seat in loaded["seats"]),
            float(wait_seconds),
            table_id,
        )


class AlreadyWaitingError(Exception):
    """The player has another place in the queue."""


class QueueClosedError(Exception):
    """The queue's store was closed: the server is stopping (its waiters call again on another node)."""


class Execute(Protocol):
    def __call__(self, sql: str, params: Sequence[object] = (), /) -> list[tuple[Any, ...]]: ...


"""Runs one statement inside the current transaction; the rows it returned (none for a write)."""
Former = Callable[[list[Ticket]], list[Match]]
"""The matcher: the waiting tickets in, the matches they form out (a pure function of them and the time)."""


class QueueStore(ABC):
    """The queue's tables in one database; every method is one transaction."""

    prefix: str = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closed = False

    @abstractmethod
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Execute]: ...

    @abstractmethod
    def _matcher_lock(self, execute: Execute, key: tuple[int, int] = MATCHER_LOCK) -> bool:
        """Take the matcher's lock (or another of the cluster's one-at-a-time locks, ``key``) for this
        transaction; False when another node holds it."""

    @abstractmethod
    def _close_connection(self) -> None: ...

    def close(self) -> None:
        """Close the connection once the transaction under way (a matcher's round in its thread, which a
        cancelled task does not stop) has ended: closing SQLite's connection under a running statement
        crashes the process. Later calls raise QueueClosedError."""
        with self._lock:
            self._closed = True
            self._close_connection()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[Execute]:
        with self._lock:
            if self._closed:
                raise QueueClosedError("the queue's store is closed (the server is stopping)")
            with self._transaction() as execute:

                def run(sql: str, params: Sequence[object] = (), /) -> list[tuple[Any, ...]]:
                    return execute(sql.format(t=self.prefix), params)

                yield run

    def transaction(self) -> contextlib.AbstractContextManager[Execute]:
        """One transaction on the queue's connection, for another part's tables in the same database (the
        ladder's, :mod:`server.ladder.store`): statements with ``?`` and ``{t}``."""
        return self._tx()

    def try_lock(self, execute: Execute, key: tuple[int, int]) -> bool:
        """Take the cluster's lock ``key`` for the transaction of ``execute``; False: another node has it."""
        return self._matcher_lock(execute, key)

    @property
    def postgres(self) -> bool:
        return bool(self.prefix)

    # ------------------------------------------------------------------ a player's place

    def enqueue(self, ticket: Ticket) -> Ticket:
        """The ticket as stored: a new one, or the one its token already names (seen now).
        AlreadyWaitingError when the player waits with another token; the caller compares the digests."""
        try:
            return self._enqueue(ticket)
        except (sqlite3.IntegrityError, psycopg.IntegrityError):
            # Another node inserted it (the same token) or the player's other place at the same moment.
            return self._enqueue(ticket)

    def _enqueue(self, ticket: Ticket) -> Ticket:
        with self._tx() as run:
            rows = run(
                f"SELECT {_TICKET_COLUMNS} FROM {{t}}quickplay_tickets WHERE ticket_id = ?",
                (ticket.ticket_id,),
            )
            if rows:
                run(
                    "UPDATE {t}quickplay_tickets SET seen_time = ? WHERE ticket_id = ?",
                    (ticket.seen_time, ticket.ticket_id),
                )
                return _ticket(rows[0])
            if ticket.player_id and run(
                "SELECT 1 FROM {t}quickplay_tickets WHERE player_id = ? AND match_id IS NULL",
                (ticket.player_id,),
            ):
                raise AlreadyWaitingError(ticket.player_id)
            run(
                f"INSERT INTO {{t}}quickplay_tickets ({_TICKET_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
                (
                    ticket.ticket_id,
                    ticket.pool,
                    ticket.digest,
                    ticket.game,
                    ticket.players,
                    ticket.rules,
                    ticket.rated,
                    ticket.bots_ok,
                    ticket.max_wait,
                    ticket.rating,
                    ticket.player_id,
                    ticket.player_name,
                    ticket.client_seed,
                    ticket.enqueue_time,
                    ticket.seen_time,
                ),
            )
            return ticket

    def leave(self, ticket_id: str) -> bool:
        """Take a waiting ticket out of the queue; False when it was matched meanwhile (or is gone)."""
        with self._tx() as run:
            rows = run(
                "DELETE FROM {t}quickplay_tickets WHERE ticket_id = ? AND match_id IS NULL"
                " RETURNING ticket_id",
                (ticket_id,),
            )
            return bool(rows)

    def seen(self, ticket_ids: Sequence[str], now: float) -> None:
        """The streams of these tickets are open on this node (their places are kept)."""
        if ticket_ids:
            with self._tx() as run:
                run(
                    "UPDATE {t}quickplay_tickets SET seen_time = ?"
                    f" WHERE ticket_id IN ({_marks(ticket_ids)})",
                    (now, *ticket_ids),
                )

    def tickets(self, ticket_ids: Sequence[str]) -> dict[str, tuple[Ticket, str | None]]:
        """These tickets as they are now, each with its match's table id once placed."""
        if not ticket_ids:
            return {}
        with self._tx() as run:
            rows = run(
                f"SELECT {', '.join('k.' + c.strip() for c in _TICKET_COLUMNS.split(','))}, m.table_id"
                " FROM {t}quickplay_tickets k LEFT JOIN {t}quickplay_matches m ON m.match_id = k.match_id"
                f" WHERE k.ticket_id IN ({_marks(ticket_ids)})",
                tuple(ticket_ids),
            )
        return {row[0]: (_ticket(row[:-1]), row[-1]) for row in rows}

    def match(self, match_id: str) -> Match | None:
        with self._tx() as run:
            rows = run(
                "SELECT match_id, pool, plan, wait_seconds, table_id FROM {t}quickplay_matches"
                " WHERE match_id = ?",
                (match_id,),
            )
        return Match.from_row(rows[0]) if rows else None

    # ------------------------------------------------------------------ the queue as a whole

    def pools(self, since: float) -> tuple[dict[str, int], dict[str, float]]:
        """How many wait in each pool, and each pool's mean wait of the matches made since ``since``."""
        with self._tx() as run:
            waiting = run(
                "SELECT pool, count(*) FROM {t}quickplay_tickets WHERE match_id IS NULL GROUP BY pool"
            )
            waits = run(
                "SELECT pool, avg(wait_seconds) FROM {t}quickplay_matches WHERE create_time > ?"
                " GROUP BY pool",
                (since,),
            )
        return {p: int(n) for p, n in waiting}, {p: float(w) for p, w in waits}

    def round(self, now: float, fresh_after: float, forget_before: float, form: Former) -> list[Match] | None:
        """One matching round, in one transaction under the matcher's lock (None: another node holds it):
        forget the tickets no stream has shown for a while, form matches of the waiting tickets whose
        stream was seen since ``fresh_after``, and record each with its tickets' seats."""
        with self._tx() as run:
            if not self._matcher_lock(run):
                return None
            run("DELETE FROM {t}quickplay_tickets WHERE match_id IS NULL AND seen_time < ?", (forget_before,))
            run(
                "DELETE FROM {t}quickplay_tickets WHERE match_id IS NOT NULL AND seen_time < ?",
                (now - KEEP_MATCHES_SECONDS,),
            )
            run("DELETE FROM {t}quickplay_matches WHERE create_time < ?", (now - KEEP_MATCHES_SECONDS,))
            rows = run(
                f"SELECT {_TICKET_COLUMNS} FROM {{t}}quickplay_tickets"
                " WHERE match_id IS NULL AND seen_time >= ? ORDER BY enqueue_time, ticket_id",
                (fresh_after,),
            )
            matches = form([_ticket(row) for row in rows])
            for match in matches:
                run(
                    "INSERT INTO {t}quickplay_matches"
                    " (match_id, pool, plan, create_time, wait_seconds, table_id)"
                    " VALUES (?, ?, ?, ?, ?, NULL)",
                    (match.match_id, match.pool, match.plan_json(), now, match.wait_seconds),
                )
                for seat, planned in enumerate(match.seats):
                    if not planned.bot:
                        run(
                            "UPDATE {t}quickplay_tickets SET match_id = ?, seat = ?"
                            " WHERE ticket_id = ? AND match_id IS NULL",
                            (match.match_id, seat, planned.ticket_id),
                        )
            return matches

    def placed(self, match_id: str, table_id: str) -> None:
        """The match's table exists, its players seated: their streams can end."""
        with self._tx() as run:
            run("UPDATE {t}quickplay_matches SET table_id = ? WHERE match_id = ?", (table_id, match_id))

    def unplaced(self, older_than: float) -> list[Match]:
        """Matches recorded before ``older_than`` that have no table yet (their matcher failed or died)."""
        with self._tx() as run:
            rows = run(
                "SELECT match_id, pool, plan, wait_seconds, table_id FROM {t}quickplay_matches"
                " WHERE table_id IS NULL AND create_time < ?",
                (older_than,),
            )
        return [Match.from_row(row) for row in rows]

    def revert(self, match_id: str) -> None:
        """A match that could not be placed: its players wait again, in their places (enqueue times)."""
        with self._tx() as run:
            run(
                "UPDATE {t}quickplay_tickets SET match_id = NULL, seat = NULL WHERE match_id = ?", (match_id,)
            )
            run("DELETE FROM {t}quickplay_matches WHERE match_id = ? AND table_id IS NULL", (match_id,))


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" for _ in values)


def _ticket(row: Sequence[Any]) -> Ticket:
    values = list(row)
    values[5] = bytes(values[5])
    values[6], values[7] = bool(values[6]), bool(values[7])
    return Ticket(*values)


# ---------------------------------------------------------------------------------------------- dialects


class SqliteQueueStore(QueueStore):
    """The queue in the server's SQLite file (one node): a connection of its own beside the tables'.

    ``beside`` (the tables' in-memory store): its connection and lock instead. A ``":memory:"`` connection
    of its own would be another, empty database, so the ladder's ratings (kept on this connection,
    :mod:`server.ladder.store`) would miss the ratings' tables the tables' store holds and reads."""

    def __init__(self, path: str | Path, *, beside: SqliteStore | None = None) -> None:
        super().__init__()
        self.path = str(path)
        self._owned = beside is None
        if beside is not None:
            self._db, self._lock = beside.connection()
        else:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
        with self._lock, self._transaction() as run:
            run("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)", ())
            found = run("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,))
            if not found:
                schema = SCHEMA_1.format(t="", real="REAL", blob="BLOB", bool="INTEGER")
                for statement in filter(str.strip, schema.split(";")):
                    run(statement, ())
                run("INSERT INTO meta VALUES (?, '1')", (SCHEMA_KEY,))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Execute]:
        db = self._db

        def execute(sql: str, params: Sequence[object] = (), /) -> list[tuple[Any, ...]]:
            return db.execute(sql, tuple(params)).fetchall()

        db.execute("BEGIN IMMEDIATE")
        try:
            yield execute
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _matcher_lock(self, execute: Execute, key: tuple[int, int] = MATCHER_LOCK) -> bool:
        return True  # BEGIN IMMEDIATE: this transaction is the database's only writer

    def _close_connection(self) -> None:
        if self._owned:
            self._db.close()  # a borrowed connection is closed by the tables' store


class PostgresQueueStore(QueueStore):
    """The cluster's queue in its PostgreSQL database (schema ``thousand``)."""

    prefix = f"{SCHEMA}."

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self._db: psycopg.Connection[Any] | None = None
        db = self._connection()
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            db.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            db.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.meta (key TEXT PRIMARY KEY, value TEXT)")
            if (
                db.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = %s", (SCHEMA_KEY,)).fetchone()
                is None
            ):
                db.execute(
                    SCHEMA_1.format(t=self.prefix, real="DOUBLE PRECISION", blob="BYTEA", bool="BOOLEAN")
                )
                db.execute(f"INSERT INTO {SCHEMA}.meta VALUES (%s, '1')", (SCHEMA_KEY,))

    def _connection(self) -> psycopg.Connection[Any]:
        if self._db is None or self._db.closed or self._db.broken:
            if self._db is not None:
                self._db.close()
            self._db = connect(self.url)
        return self._db

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Execute]:
        db = self._connection()

        def execute(sql: str, params: Sequence[object] = (), /) -> list[tuple[Any, ...]]:
            cursor = db.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.fetchall() if cursor.description is not None else []

        try:
            with db.transaction():
                yield execute
        except psycopg.OperationalError:
            db.close()  # broken: the next call connects again
            raise

    def _matcher_lock(self, execute: Execute, key: tuple[int, int] = MATCHER_LOCK) -> bool:
        rows = execute("SELECT pg_try_advisory_xact_lock(?, ?)", key)
        return bool(rows[0][0])

    def _close_connection(self) -> None:
        if self._db is not None:
            self._db.close()


def open_queue_store(db: str, tables: Store | None = None) -> QueueStore:
    """The queue beside the tables of ``--db`` (a PostgreSQL URL, or a SQLite file); ``":memory:"``: in the
    tables' store's own database (``tables``), the only one the tables' store can read."""
    if is_postgres(db):
        return PostgresQueueStore(db)
    if db == ":memory:" and isinstance(tables, SqliteStore):
        return SqliteQueueStore(db, beside=tables)
    return SqliteQueueStore(db)
