"""The shared store: tables event-sourced in PostgreSQL, which every node of a cluster writes to.

The same records as the SQLite store, the same group commit (one transaction per batch, from one writer
thread, with psycopg 3), the same promise: a change is committed before it is made and acknowledged. Two
things are PostgreSQL's own, because several nodes share the database:

- **Fencing.** Each table row names its owner and an ``epoch`` that grows by one with every claim
  (:mod:`server.cluster`). This store knows, per table it holds, the epoch it holds it at and the number its
  next record gets; an append is one call of ``thousand.append_records``, which takes the table's row lock,
  checks both and numbers the records in the same statement. A node that lost the table (another claimed
  it: a higher epoch), or whose view of the records is not the database's (a write whose commit was lost
  with the connection, but which committed), changes nothing: :class:`~server.store.TableFencedError`, and the
  node drops the table. Record numbers are unique per table by the primary key besides.
- **Schema migrations.** The schema is created, and later versions applied in order, by whichever node
  starts first, under an advisory lock (a node starting at the same moment waits for it).

A connection lost (PostgreSQL restarting, a failover) fails the write in hand with StoreError, which the
service answers with STORE_UNAVAILABLE (retryable); the next write connects again.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import psycopg

from server import snapshots as snapshots_module
from server.logs import get_logger
from server.snapshots import Snapshot, TableState
from server.store import (
    Record,
    Sql,
    Store,
    StoredTable,
    StoreError,
    TableConfig,
    TableFencedError,
    Work,
    Write,
)
from server.store_pg_schema import MIGRATIONS

SCHEMA: Final = "thousand"
"""The PostgreSQL schema of every object the server makes: the database may hold others' too."""
CONNECT_TIMEOUT_SECONDS: Final = 3
FENCED_SQLSTATE: Final = "TF001"
"""What ``thousand.append_records`` raises for a write of a table the writer does not hold (any class
outside the standard ones: it names this server's own error)."""
MIGRATION_LOCK: Final = 0x7468_6F75
"""The advisory lock migrations are applied under ("thou")."""
log = get_logger("thousand.store")

CONFLICT_SQLSTATES: Final = frozenset({"40001", "40P01"})
"""A serialization failure or a deadlock: the transaction lost to a concurrent one and is tried again."""
CONFLICT_RETRIES: Final = 8


@dataclass(slots=True)
class Holding:
    """A table this node writes: the epoch it holds it at, and the number of the table's next record."""

    epoch: int
    next_number: int


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def connect(url: str, *, autocommit: bool = True) -> psycopg.Connection[Any]:
    """A connection to the server's database (psycopg.OperationalError when it cannot be had in time)."""
    return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_SECONDS)


def migrate(connection: psycopg.Connection[Any]) -> int:
    """Create the schema or bring it to the latest version; returns that version."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        connection.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.meta (key TEXT PRIMARY KEY, value TEXT)")
        row = connection.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = 'schema'").fetchone()
        version = 0 if row is None else int(row[0])
        if version > len(MIGRATIONS):
            raise RuntimeError(f"schema {version}, this server knows {len(MIGRATIONS)}: upgrade the server")
        for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
            connection.execute(migration)
            log.info("schema migrated", version=number)
        connection.execute(
            f"INSERT INTO {SCHEMA}.meta VALUES ('schema', %s) ON CONFLICT (key) DO UPDATE SET value = %s",
            (str(len(MIGRATIONS)), str(len(MIGRATIONS))),
        )
    return len(MIGRATIONS)


class PostgresStore(Store):
    """Tables in the PostgreSQL database at ``url``, written by node ``node_id`` ("": a node outside any
    cluster: its tables have no owner)."""

    def __init__(self, url: str, *, node_id: str = "", group_commit: bool = True) -> None:
        super().__init__(redact(url), group_commit=group_commit)
        self.url = url
        self.node_id = node_id
        self.holdings: dict[str, Holding] = {}
        """The tables this node writes, by id: set at creation and by a claim, removed when dropped."""
        self._committing: dict[str, Holding] = {}
        """Holdings the open transaction changes, applied once it commits."""
        self._db: psycopg.Connection[Any] | None = None
        self._transact_db: psycopg.Connection[Any] | None = None
        """:meth:`transact`'s own connection (under ``_transact_lock``), opened when first needed."""
        self._transact_lock = threading.Lock()
        try:
            self.schema = migrate(self._connection())
        except psycopg.Error as error:
            raise RuntimeError(f"{self.name}: {error}") from error

    def _connection(self) -> psycopg.Connection[Any]:
        if self._db is None or self._db.closed:
            self._db = connect(self.url)
        return self._db

    def reachable(self) -> bool:
        """Whether PostgreSQL accepts a new connection now (one of its own, closed at once: the writer's
        may be mid-transaction)."""
        try:
            connect(self.url).close()
        except psycopg.Error:
            return False
        return True

    # ------------------------------------------------------------------ writing

    def _write_batch(self, writes: Sequence[Write]) -> None:
        """The batch's statements in one transaction, pipelined: sent together, one round trip to the
        database for all of them (its errors come at the end, failing the whole batch)."""
        db = self._connection()
        try:
            with db.pipeline():
                db.execute("BEGIN")
                for write in writes:
                    self._execute(write)
                db.execute("COMMIT")
        except psycopg.Error as error:
            appending = [w.table_id for w in writes if w.records]
            if error.sqlstate == FENCED_SQLSTATE and len(appending) == 1:
                raise TableFencedError(appending[0], f"{self.name}: {error}") from error
            raise  # several tables: each write is tried alone next, and the fenced one fails alone

    def _committed(self) -> None:
        self.holdings.update(self._committing)
        self._committing.clear()

    def _abort(self) -> None:
        self._committing.clear()
        db = self._db
        if db is None or db.closed:
            return
        try:
            if db.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                db.execute("ROLLBACK")
        except psycopg.Error:
            db.close()  # broken: the next write connects again

    def _close_connection(self) -> None:
        if self._db is not None:
            self._db.close()
        with self._transact_lock:
            if self._transact_db is not None:
                self._transact_db.close()

    def _execute(self, write: Write) -> None:
        db = self._connection()
        if write.create is not None:
            _, create_time, config = write.create
            row = db.execute(
                f"INSERT INTO {SCHEMA}.tables"
                " (table_id, serial, create_time, config, owner, game, open_seats, request_id, creator,"
                " bots_only)"
                f" VALUES (%s, nextval('{SCHEMA}.table_serial'), %s, %s, %s, %s, %s, %s, %s, %s)"
                " RETURNING serial, epoch",
                (
                    write.table_id,
                    create_time,
                    config.to_json(),
                    self.node_id or None,
                    config.game,
                    sum(1 for bot, _ in config.seats if not bot),
                    config.request_id or None,
                    config.creator,
                    bool(config.seats) and all(bot for bot, _ in config.seats),
                ),
            ).fetchone()
            assert row is not None
            write.serial = int(row[0])
            self._committing[write.table_id] = Holding(int(row[1]), 0)
        if write.snapshot is not None and write.records:
            self._snapshot(db, write.table_id, write.snapshot)
        if write.records:
            self._append(db, write.table_id, write.records)
        if write.finish_time is not None or write.expire_time is not None:
            held = self._held(write.table_id)
            db.execute(
                f"UPDATE {SCHEMA}.tables SET finished = finished OR %s,"
                " finish_time = COALESCE(%s, finish_time), expire_time = COALESCE(%s, expire_time)"
                " WHERE table_id = %s AND epoch = %s",
                (
                    write.finish_time is not None,
                    write.finish_time,
                    write.expire_time,
                    write.table_id,
                    held.epoch if held is not None else 0,
                ),
            )

    def _held(self, table_id: str) -> Holding | None:
        return self._committing.get(table_id) or self.holdings.get(table_id)

    def _snapshot(self, db: psycopg.Connection[Any], table_id: str, snapshot: Snapshot) -> None:
        """The table's state after the records this node holds it with (``next_number``), in the transaction
        that appends the next ones at that number: both are stored, or neither (fenced)."""
        held = self._held(table_id)
        if held is None:
            return  # the append that follows is refused: the table is not this node's
        db.execute(
            f"INSERT INTO {SCHEMA}.snapshots (table_id, records, fingerprint, checksum, data)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (table_id) DO UPDATE SET records = EXCLUDED.records,"
            " fingerprint = EXCLUDED.fingerprint, checksum = EXCLUDED.checksum, data = EXCLUDED.data",
            (table_id, held.next_number, snapshot.fingerprint, snapshot.checksum, snapshot.data),
        )

    def _append(self, db: psycopg.Connection[Any], table_id: str, records: Sequence[Record]) -> None:
        held = self._held(table_id)
        if held is None:
            raise TableFencedError(table_id, f"{self.name}: table {table_id} is not held by this node")
        self._committing[table_id] = self._append_at(db, table_id, held, records)

    def _append_at(
        self, db: psycopg.Connection[Any], table_id: str, held: Holding, records: Sequence[Record]
    ) -> Holding:
        """Append the records at the table's holding (fenced by the database); the holding after them."""
        try:
            db.execute(
                f"SELECT {SCHEMA}.append_records(%s, %s, %s, %s::text[], %s::integer[], %s::text[],"
                " %s::bytea[])",
                (
                    table_id,
                    held.epoch,
                    held.next_number,
                    [r.kind for r in records],
                    [r.seat for r in records],
                    [r.text for r in records],
                    [r.data for r in records],
                ),
            )
        except psycopg.Error as error:
            if error.sqlstate == FENCED_SQLSTATE:
                raise TableFencedError(table_id, f"{self.name}: {error}") from error
            raise
        return Holding(held.epoch, held.next_number + len(records))

    def transact(self, table_id: str, work: Work) -> None:
        """:meth:`Store.transact` on a connection of its own (a transaction that waits for another node's
        row locks never holds up the writer's group commits), tried again after a short pause growing with
        each try when it conflicted with another node's. The caller holds the table's lock: none of the
        table's writes is queued meanwhile, so the holding read here is the table's last."""
        for attempt in range(CONFLICT_RETRIES):
            with self._transact_lock:
                held = self.holdings.get(table_id)
                if held is None:
                    raise TableFencedError(
                        table_id, f"{self.name}: table {table_id} is not held by this node"
                    )
                try:
                    if self._transact_db is None or self._transact_db.closed:
                        self._transact_db = connect(self.url)
                    db = self._transact_db
                    with db.transaction():
                        records = work(Sql(functools.partial(_rows, db), " FOR UPDATE"))
                        after = self._append_at(db, table_id, held, records)
                    self.holdings[table_id] = after
                    self.commits += 1
                    self.writes += 1
                    return
                except TableFencedError:
                    self.failures += 1
                    raise
                except psycopg.Error as error:
                    self.failures += 1
                    if isinstance(error, psycopg.OperationalError) and self._transact_db is not None:
                        self._transact_db.close()  # broken: the next try connects again
                    if error.sqlstate not in CONFLICT_SQLSTATES or attempt == CONFLICT_RETRIES - 1:
                        raise StoreError(f"{self.name}: {error}") from error
                    log.info("transaction conflicted; trying again", table_id=table_id, attempt=attempt + 1)
            time.sleep(0.01 * (attempt + 1))

    def read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._query(sql.format(t=f"{SCHEMA}.").replace("?", "%s"), params)
        except psycopg.Error as error:
            raise StoreError(f"{self.name}: {error}") from error

    # ------------------------------------------------------------------ reading

    def _query(self, query: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._connection().execute(query, params).fetchall()
            except psycopg.Error:
                self._abort()
                raise

    def count(self) -> int:
        return int(self._query(f"SELECT COUNT(*) FROM {SCHEMA}.tables")[0][0])

    def max_serial(self) -> int:
        return int(self._query(f"SELECT COALESCE(MAX(serial), 0) FROM {SCHEMA}.tables")[0][0])

    def tables(
        self, *, finished_before: float | None = None, snapshots: bool = False
    ) -> Iterator[StoredTable]:
        query = f"SELECT table_id FROM {SCHEMA}.tables"
        params: tuple[object, ...] = ()
        if finished_before is not None:
            query += (
                " WHERE NOT (finished AND finish_time IS NOT NULL AND finish_time < %s)"
                " AND expire_time IS NULL"
            )
            params = (finished_before,)
        for (table_id,) in self._query(query + " ORDER BY serial", params):
            stored = self.get(table_id, snapshots=snapshots)
            if stored is not None:
                yield stored

    def get_many(self, table_ids: Sequence[str], *, snapshots: bool = False) -> dict[str, StoredTable]:
        """Several tables at once, by id (a takeover's: a few queries for all of them, not a few each), on a
        connection of their own: not the writer's, whose commits of this node's other tables would wait
        behind a large read. Each record with when it was stored (:attr:`Record.at`). With ``snapshots``,
        each table's usable snapshot and only the records after it (:mod:`server.snapshots`)."""
        ids = list(table_ids)
        with connect(self.url) as db:
            rows = db.execute(
                f"SELECT table_id, serial, create_time, config, finish_time FROM {SCHEMA}.tables"
                " WHERE table_id = ANY(%s)",
                (ids,),
            ).fetchall()
            states = _snapshots(db, ids) if snapshots else {}
            firsts = {table_id: state.records for table_id, state in states.items()}
            records = _records(db, ids, firsts)
            whole = [t for t in states if not snapshots_module.rebuilds_clock(records.get(t, []))]
            if whole:  # a tail without an action: every record of those, no snapshot
                records.update(_records(db, whole, {}))
                for table_id in whole:
                    del states[table_id]
        return {
            str(table_id): StoredTable(
                table_id,
                int(serial),
                float(create_time),
                TableConfig.from_json(config),
                records.get(table_id, []),
                None if finish_time is None else float(finish_time),
                states.get(table_id),
            )
            for table_id, serial, create_time, config, finish_time in rows
        }

    def finish_times(self, table_ids: Sequence[str]) -> dict[str, float | None]:
        if not table_ids:
            return {}
        rows = self._query(
            f"SELECT table_id, finish_time FROM {SCHEMA}.tables WHERE table_id = ANY(%s)", (list(table_ids),)
        )
        return {str(table_id): None if finished is None else float(finished) for table_id, finished in rows}

    def get(self, table_id: str, *, snapshots: bool = False) -> StoredTable | None:
        if snapshots:
            return self.get_many([table_id], snapshots=True).get(table_id)
        rows = self._query(
            f"SELECT serial, create_time, config, finish_time FROM {SCHEMA}.tables WHERE table_id = %s",
            (table_id,),
        )
        if not rows:
            return None
        serial, create_time, config, finish_time = rows[0]
        records = [
            Record(kind, int(seat), text, bytes(data or b""))
            for kind, seat, text, data in self._query(
                f"SELECT kind, seat, text, data FROM {SCHEMA}.records WHERE table_id = %s ORDER BY number",
                (table_id,),
            )
        ]
        finished = None if finish_time is None else float(finish_time)
        return StoredTable(
            table_id, int(serial), float(create_time), TableConfig.from_json(config), records, finished
        )


def _rows(db: psycopg.Connection[Any], sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
    """One statement of a :class:`~server.store.Sql` in this dialect: its rows (none for a write)."""
    cursor = db.execute(sql.format(t=f"{SCHEMA}.").replace("?", "%s"), tuple(params))
    return cursor.fetchall() if cursor.description is not None else []


def _snapshots(db: psycopg.Connection[Any], table_ids: list[str]) -> dict[str, TableState]:
    """The usable snapshots of these tables (this code's, intact, loading): table id -> its state."""
    states: dict[str, TableState] = {}
    for table_id, records, made_by, checksum, data in db.execute(
        f"SELECT table_id, records, fingerprint, checksum, data FROM {SCHEMA}.snapshots"
        " WHERE table_id = ANY(%s) AND fingerprint = %s",
        (table_ids, snapshots_module.fingerprint()),
    ):
        state = snapshots_module.load(bytes(data), bytes(checksum), str(made_by), int(records))
        if state is not None:
            states[str(table_id)] = state
    return states


def _records(
    db: psycopg.Connection[Any], table_ids: list[str], firsts: dict[str, int]
) -> dict[str, list[Record]]:
    """The records of these tables from number ``firsts[table]`` on (0 when not given), in order, each with
    when it was stored."""
    records: dict[str, list[Record]] = {table_id: [] for table_id in table_ids}
    for table_id, kind, seat, text, data, at in db.execute(
        f"SELECT r.table_id, r.kind, r.seat, r.text, r.data, r.stored_at FROM {SCHEMA}.records r"
        " JOIN unnest(%s::text[], %s::bigint[]) AS f (table_id, first)"
        " ON r.table_id = f.table_id AND r.number >= f.first ORDER BY r.table_id, r.number",
        (table_ids, [firsts.get(table_id, 0) for table_id in table_ids]),
    ):
        records[table_id].append(Record(kind, int(seat), text, bytes(data or b""), at))
    return records
