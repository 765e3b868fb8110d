"""The durable table store: every table is event-sourced, in an embedded SQLite database (the default,
:mod:`server.store_sqlite`) or in PostgreSQL (:mod:`server.store_pg`, shared by the nodes of a cluster).

A table is its creation settings (its game, its rules as the game's rules message, seats, seed, first dealer
and a fair table's secret) plus an append-only list of records: a seat taken (with the SHA-256 of its token,
never the token, and the seed its player gave), a seat released, an action applied (with its seat and
request id, the action as the game's action message, ``thousand.v1.ThousandAction`` or
``thousand.v1.BlagogoAction`` bytes, so the wire contract's compatibility rules cover stored games too). The
game itself is never stored: it is a pure function of its rules, its seed or secret and seats' seeds, and its
actions (T-35, B-23), so a restart rebuilds every table by replaying its records and lands on the same events
with the same sequence numbers.

The game is stored by name in the settings' JSON (``"game": "blagogo"``); settings without it are those of
tables stored before there was a second game, which all play Thousand.

Every write is committed before the server acknowledges the request that made it, and before the table
applies the change: a write that fails leaves the table as it was. The writes of every table go to one
writer thread, which commits whatever has queued up meanwhile in one transaction (group commit): one
``fsync`` (or one round trip to PostgreSQL) for many tables' actions, taken off the event loop, which only
awaits its commit. This module holds what both stores share: the values, the queue and its writer thread;
each store says how a transaction is begun, written and ended, and how tables are read back.

A table that finished is marked so with its finish time, and one the server dropped from memory as idle with
its expiry time; a restart need not rebuild one that finished longer ago than tables are kept in memory, nor
one that expired (``Registry.restore``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from server import tracing
from server.identity.values import Privacy
from server.logs import get_logger
from server.store_recovery import Recovery
from server.time_control import TimeControl

DEFAULT_GAME: Final = "thousand"
"""The game of a table stored without one (before 1000 Blagogo)."""
log = get_logger("thousand.store")


@dataclass(frozen=True, slots=True)
class TableConfig:
    """What a table was created with; enough, with its records, to rebuild it."""

    rules: bytes
    """The game's rules message bytes (``thousand.v1.ThousandRules``, ``BlagogoRules``), every field set."""
    seats: list[tuple[bool, str]]
    """(is a bot, strategy) per seat."""
    seed: int
    first_dealer: int | None
    game: str = DEFAULT_GAME
    """The game's name (``server.games``): "thousand" or "blagogo"."""
    time_control: TimeControl | None = None
    """The turn clock; None (and absent from the JSON) for a table without one."""
    request_id: str = ""
    """The CreateTable request_id that made it ("" and absent from the JSON: none), so that a retry of the
    request after a restart finds this table instead of creating another."""
    request_digest: str = ""
    """A digest of that CreateTable request's content ("" and absent: not known), so that the request_id
    reused for a different request after a restart is still refused (REQUEST_ID_REUSED)."""
    seeded: bool = False
    """Whether the creator chose ``seed`` (a practice table): its deals follow from it. Absent: False."""
    secret: bytes = b""
    """A fair table's secret (engine.seeds.FairDeals), drawn at creation and stored with it, so that a
    restarted server, or another that takes the table over, deals the same cards. Empty (absent from the
    JSON) for a seeded table, and for a table stored before fair deals (its deals follow ``seed``)."""
    creator: str = ""
    """Who created it (:func:`server.requests.client_of`; "" and absent: not known), so that the table still
    counts in its creator's quotas after a restart, or on the node that took it over."""
    privacy: Privacy | None = None
    """A private table's settings (unlisted, the invite code's hash, reserved seats, the creating player),
    stored with the table itself, so that it is private from its first moment, on every node and after a
    restart. None (absent from the JSON): a public table, or one made before they were stored here (its
    settings are in the players' store alone)."""
    rated: bool = False
    """Its end changes its players' ratings (CreateTableRequest.rated). Absent: False."""

    def to_json(self) -> str:
        raw: dict[str, object] = {
            "game": self.game,
            "rules": self.rules.hex(),
            "seats": [[bot, strategy] for bot, strategy in self.seats],
            "seed": str(self.seed),
            "first_dealer": self.first_dealer,
        }
        if self.time_control is not None:
            raw["time_control"] = self.time_control.to_json()
        if self.request_id:
            raw["request_id"] = self.request_id
        if self.request_digest:
            raw["request_digest"] = self.request_digest
        if self.seeded:
            raw["seeded"] = True
        if self.secret:
            raw["secret"] = self.secret.hex()
        if self.creator:
            raw["creator"] = self.creator
        if self.privacy is not None:
            raw["privacy"] = {
                "unlisted": self.privacy.unlisted,
                "invite_hash": self.privacy.invite_hash.hex(),
                "reservations": {str(seat): p for seat, p in sorted(self.privacy.reservations.items())},
                "creator": self.privacy.creator,
            }
        if self.rated:
            raw["rated"] = True
        return json.dumps(raw)

    @staticmethod
    def from_json(text: str) -> TableConfig:
        raw = json.loads(text)
        return TableConfig(
            rules=bytes.fromhex(raw["rules"]),
            seats=[(bool(bot), str(strategy)) for bot, strategy in raw["seats"]],
            seed=int(raw["seed"]),
            first_dealer=raw["first_dealer"],
            game=str(raw.get("game", DEFAULT_GAME)),
            time_control=TimeControl.from_json(raw.get("time_control")),
            request_id=str(raw.get("request_id", "")),
            request_digest=str(raw.get("request_digest", "")),
            seeded=bool(raw.get("seeded", False)),
            secret=bytes.fromhex(raw.get("secret", "")),
            creator=str(raw.get("creator", "")),
            privacy=_privacy(raw.get("privacy")),
            rated=bool(raw.get("rated", False)),
        )


def _privacy(raw: dict[str, object] | None) -> Privacy | None:
    if raw is None:
        return None
    reservations = raw.get("reservations", {})
    assert isinstance(reservations, dict)
    return Privacy(
        "",
        unlisted=bool(raw.get("unlisted", False)),
        invite_hash=bytes.fromhex(str(raw.get("invite_hash", ""))),
        reservations={int(seat): str(player) for seat, player in reservations.items()},
        creator=str(raw.get("creator", "")),
    )


@dataclass(frozen=True, slots=True)
class Record:
    """One stored change of a table. ``kind`` is "join", "leave", "action", "seed" (stored with a "join" and
    before it, on a fair table: text: the seed the player gave, JoinTableRequest.client_seed), one of the
    turn clock's: "timeout" (the seat's time ran out; text: the policy), "away" (the seat's last stream closed
    at a table whose bot then plays it at once: TimeControl.away_bot), "reclaim" (the player took the seat
    back from the bot) and "bank" (text: the seat's time bank left, in seconds, after a decision that drew on
    it), "stop" (the server stopped the table; seat -1, text: the reason, data: the message, UTF-8), "player"
    (the seat's player, text: the player id; stored with a join made with a player's credential, or after a
    claim), "handover" (an operator gave the seat to a bot for good; text: the operator, data: the reason,
    UTF-8), or "rating" (a rated table's ratings changed, stored with the ratings' rows; seat -1, data: the
    RatingsUpdated message)."""

    kind: str
    seat: int
    text: str = ""
    """join: the player's name; action: the request id ("" for a bot's or the clock's move); timeout: the
    policy; bank: the seconds left."""
    data: bytes = b""
    """join: the SHA-256 of the seat token; action: the game's action message bytes (ThousandAction, ...)."""
    at: float | None = field(default=None, compare=False)
    """When it was stored (Unix time by the database's clock), where the store reads it back (PostgreSQL's,
    for a takeover: the turn clock of the seat to act goes on from it); None otherwise."""


@dataclass(frozen=True, slots=True)
class StoredTable:
    table_id: str
    serial: int
    create_time: float
    config: TableConfig
    records: list[Record]
    finish_time: float | None = None
    """When its game ended (Unix time), once the server noted it; None while playing (or not noted yet)."""


@dataclass(frozen=True, slots=True)
class Sql:
    """Statements run in one open transaction of a store (:meth:`Store.transact`), in either dialect: each
    statement is written with ``?`` placeholders and ``{t}`` before each table name; ``for_update`` ends a
    SELECT whose rows the transaction changes (PostgreSQL's row locks; SQLite's BEGIN IMMEDIATE holds the
    whole database already)."""

    run: Callable[[str, Sequence[object]], list[tuple[Any, ...]]]
    for_update: str

    def __call__(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        return self.run(sql, params)


Work = Callable[[Sql], Sequence["Record"]]
"""What :meth:`Store.transact` runs in its transaction: statements, then the table's records to append."""


class StoreError(Exception):
    """A write the store could not commit (a full disk, a read-only file, the database unreachable, the
    store closed, ...): nothing of it was stored, so the change it carried must not be made."""


class TableFencedError(StoreError):
    """A write of a table this node no longer owns (another node claimed it, with a higher epoch): refused
    by the database, nothing of it stored. The node must drop the table, not retry (:mod:`server.cluster`)."""

    def __init__(self, table_id: str, message: str) -> None:
        super().__init__(message)
        self.table_id = table_id


@dataclass(slots=True)
class Write:
    """One queued write, committed whole or not at all: a table's creation, the records of one change, or the
    note that a table finished or expired; and the future of whoever waits for its commit."""

    table_id: str
    records: Sequence[Record] = ()
    create: tuple[int, float, TableConfig] | None = None
    """(serial, create_time, config) of a new table."""
    finish_time: float | None = None
    expire_time: float | None = None
    done: asyncio.Future[None] | None = None
    """None when nobody waits (a note: losing it only costs a restart the replay of that table)."""
    serial: int = 0
    """A created table's serial as stored (PostgreSQL draws it from a sequence shared by every node)."""

    @property
    def statements(self) -> int:
        """How many statements the write takes (one needs no transaction of its own)."""
        return (
            (self.create is not None)
            + len(self.records)
            + (self.finish_time is not None)
            + (self.expire_time is not None)
        )


class Store(ABC):
    """The tables' database: the interface the registry and tables use, and the group commit both stores
    share. ``group_commit`` sends the writes to a writer thread, started on the first write, that commits
    everything queued meanwhile in one transaction; without it each write commits on the caller's thread.
    """

    def __init__(self, name: str, *, group_commit: bool) -> None:
        self.name = name
        """What the store is, for messages and logs (a file's path, a URL without its password)."""
        self.group_commit = group_commit
        self._lock = threading.Lock()
        """The connection's: the writer holds it for a whole transaction, readers for a query."""
        self._wake = threading.Condition()
        """Guards ``_queue`` and ``_closed``; the writer thread waits on it for work."""
        self._queue: list[Write] = []
        self._closed = False
        self._writer: threading.Thread | None = None
        self.commits = 0
        """Transactions committed; with group commit, fewer than ``writes`` when writes shared a commit."""
        self.writes = 0
        """Writes committed: tables created, changes (their records), finish notes."""
        self.commit_seconds = 0.0
        """Time the committed transactions took in all (``commits`` of them): the store's latency."""
        self.failures = 0
        """Transactions that failed (and were rolled back)."""
        self._recovery = Recovery(self.reachable)

    # ------------------------------------------------------------------ what each store does

    @abstractmethod
    def _execute(self, write: Write) -> None:
        """Write one write's statements (in the open transaction, or as one statement alone)."""

    @abstractmethod
    def _write_batch(self, writes: Sequence[Write]) -> None:
        """Write several writes in one transaction, committed (a store may pipeline them)."""

    @abstractmethod
    def _abort(self) -> None:
        """After a failure: roll back whatever is open, and make the connection usable again if it can be."""

    @abstractmethod
    def _committed(self) -> None:
        """After a transaction committed (a store that keeps something per commit, keeps it now)."""

    @abstractmethod
    def _close_connection(self) -> None:
        """Close the database connection (the writer has stopped)."""

    @abstractmethod
    def count(self) -> int:
        """How many tables are stored."""

    @abstractmethod
    def max_serial(self) -> int:
        """The highest serial of any stored table (0 for none), restored or not."""

    @abstractmethod
    def tables(self, *, finished_before: float | None = None) -> Iterator[StoredTable]:
        """Every stored table with its records, in creation order; with ``finished_before`` (Unix time), not
        those whose game ended before it, nor those a server dropped from memory as idle (``mark_expired``).
        """

    @abstractmethod
    def get(self, table_id: str) -> StoredTable | None:
        """One stored table with its records (None: no such table)."""

    @abstractmethod
    def transact(self, table_id: str, work: Work) -> None:
        """Run ``work`` in one transaction of its own and append the records it returns to the table, in
        the same transaction (blocking: run it in a thread): a change of other rows of the database (a
        rating) stored with the table's event of it, or neither. StoreError when it could not be committed
        (TableFencedError: the table is another node's now); a conflict with a concurrent transaction
        (PostgreSQL's deadlock or serialization failure) is retried first."""

    @abstractmethod
    def read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query written as for :class:`Sql` (blocking; StoreError when it failed)."""

    @abstractmethod
    def finish_times(self, table_ids: Sequence[str]) -> dict[str, float | None]:
        """The finish time of each of these tables that is stored (None: still playing, or its end not
        noted), in one query, without their records (a player's history reads only what finished)."""

    def reachable(self) -> bool:
        """Whether the database accepts a connection now (blocking: call it off the event loop). A file is
        always there; a database server may be restarting, recovering or failing over."""
        return True

    # ------------------------------------------------------------------ the interface

    async def wait_to_retry(self, pause: float) -> None:
        """Wait ``pause`` before trying again a change the store could not commit, or less: until the
        database, found unreachable meanwhile, accepts connections again (:class:`Recovery`). So the
        tables waiting on their own (the bots' moves) play on within a probe of PostgreSQL's return instead
        of at the end of a pause that doubled during the outage."""
        await self._recovery.wait(pause)

    @property
    def queued(self) -> int:
        """Writes waiting for the writer thread (not yet in a transaction)."""
        with self._wake:
            return len(self._queue)

    def close(self) -> None:
        """Commit what is queued, stop the writer thread and close the database; later writes fail."""
        with self._wake:
            self._closed = True
            self._wake.notify()
            writer = self._writer
        if writer is not None:
            writer.join()
        with self._lock:
            self._close_connection()

    async def create_table(self, table_id: str, serial: int, create_time: float, config: TableConfig) -> int:
        """Store a new table, committed before returning; StoreError when it could not be. Returns its
        serial as stored: ``serial`` (SQLite), or the next of the sequence every node shares (PostgreSQL)."""
        write = Write(table_id, create=(serial, create_time, config), serial=serial)
        await self._commit(write)
        return write.serial

    async def append(self, table_id: str, *records: Record) -> None:
        """Store the records of one change (all or none), committed before returning; StoreError when they
        could not be (TableFencedError: the table is another node's now).

        Once queued, the write may commit whatever happens to the caller, who must then make the change: so
        a cancellation that arrives while it waits is held back until the commit's outcome is known, and
        raised at the caller's next ``await`` instead."""
        with tracing.span("store.append", {"thousand.table_id": table_id, "thousand.records": len(records)}):
            await self._commit(Write(table_id, records=records))

    def mark_finished(self, table_id: str, finish_time: float) -> None:
        """Note that the table's game ended at ``finish_time`` (Unix time). Without the note a restart only
        replays the table once more."""
        self._note(Write(table_id, finish_time=finish_time), "finish")

    def mark_expired(self, table_id: str, expire_time: float) -> None:
        """Note that the server dropped the table from memory, idle (``--table-idle-seconds``): a restart
        leaves it in the store too, as the running server did, instead of rebuilding every table ever
        abandoned. Without the note a restart rebuilds the table once more."""
        self._note(Write(table_id, expire_time=expire_time), "expiry")

    # ------------------------------------------------------------------ the queue and its writer

    def _note(self, write: Write, what: str) -> None:
        """Store a note nobody waits for: queued (or written at once without group commit); a failure is
        logged, not raised, since losing a note only costs a restart some replaying."""
        try:
            if self.group_commit:
                self._enqueue(write)
            else:
                self._transaction([write])
        except StoreError as error:
            log.warning(f"{what} note not stored", table_id=write.table_id, error=str(error))

    async def _commit(self, write: Write) -> None:
        if not self.group_commit:
            self._transaction([write])
            return
        done = write.done = asyncio.get_running_loop().create_future()
        self._enqueue(write)
        await _outcome(done)

    def _enqueue(self, write: Write) -> None:
        with self._wake:
            if self._closed:
                raise StoreError(f"{self.name}: the store is closed")
            self._queue.append(write)
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_queued, name="store-writer", daemon=True)
                self._writer.start()
            self._wake.notify()

    def _write_queued(self) -> None:
        """The writer thread: each turn, everything queued since the last commit in one transaction."""
        while True:
            with self._wake:
                while not self._queue and not self._closed:
                    self._wake.wait()
                batch, self._queue = self._queue, []
            if not batch:
                return  # closed, and everything queued before is written
            # Rows are locked in table order in every transaction, by every node (PostgreSQL): two
            # transactions never wait for each other's rows. Stable: each table's writes keep their order.
            batch.sort(key=lambda write: write.table_id)
            try:
                self._transaction(batch)
                outcomes: list[StoreError | None] = [None] * len(batch)
            except StoreError as error:
                outcomes = [error] if len(batch) == 1 else [self._try_alone(w) for w in batch]
            _settle(batch, outcomes)

    def _try_alone(self, write: Write) -> StoreError | None:
        """After a batch failed: this write in a transaction of its own, so one bad write fails alone."""
        try:
            self._transaction([write])
        except StoreError as error:
            return error
        return None

    def _transaction(self, writes: Sequence[Write]) -> None:
        """Commit ``writes`` in one transaction, or none of them (StoreError).

        A single statement (most often: one action's record) is executed on its own, which the database
        commits as a transaction of its own (the connection is in autocommit mode): the same guarantee
        without the BEGIN and COMMIT round trips.
        """
        alone = len(writes) == 1 and writes[0].statements == 1
        with self._lock:
            started = time.perf_counter()
            try:
                if alone:
                    self._execute(writes[0])
                else:
                    self._write_batch(writes)
            except Exception as error:  # the driver's, or anything else: the writer thread must go on
                self.failures += 1
                self._abort()
                if isinstance(error, StoreError):
                    raise
                raise StoreError(f"{self.name}: {error}") from error
            self._committed()
            self.commit_seconds += time.perf_counter() - started
            self.commits += 1
            self.writes += len(writes)


async def _outcome(done: asyncio.Future[None]) -> None:
    """Wait for a queued write's commit; a cancellation meanwhile is deferred (see :meth:`Store.append`)."""
    cancelled = False
    while not done.done():
        try:
            await asyncio.wait((done,))
        except asyncio.CancelledError:
            cancelled = True
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # for asyncio.timeout() and TaskGroup: this one is re-raised below
    if cancelled:
        task = asyncio.current_task()
        if task is not None:
            task.cancel()
    done.result()


def _settle(batch: Sequence[Write], outcomes: Sequence[StoreError | None]) -> None:
    """From the writer thread: tell each waiting write's loop (one wake-up per loop) how its write went."""
    waiting: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], StoreError | None]]] = {}
    for write, error in zip(batch, outcomes, strict=True):
        if write.done is not None:
            waiting.setdefault(write.done.get_loop(), []).append((write.done, error))
        elif error is not None:
            log.warning("finish note not stored", table_id=write.table_id, error=str(error))
    for loop, settled in waiting.items():
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_resolve, settled)


def _resolve(settled: list[tuple[asyncio.Future[None], StoreError | None]]) -> None:
    for done, error in settled:
        if done.done():
            continue
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
