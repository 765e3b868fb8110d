"""The ladder in the database: who is connected (on which node), the sets and their results; one scheduler
for the whole cluster.

The ladder's tables sit beside the quick-play queue's and the ratings' in the server's database, and its
statements run on the queue store's connection (:meth:`~server.matchmaking.queue_store.QueueStore.
transaction`). A scheduling round and a set's rating each run in one transaction under the ladder's
cluster-wide lock (PostgreSQL's ``pg_try_advisory_xact_lock``; SQLite's BEGIN IMMEDIATE on one node): two
nodes never start the same bot's sets or rate a set twice. A set's rating update is written with
:func:`server.ratings.store.update_ratings` into the ratings' own rows (pool ``<game>-<players>-ladder``),
in the same transaction that marks the set rated.

A set is ``placing`` (decided, its tables being created), ``playing``, ``rated``, or ``void`` (a table could
not be created, or was stopped before its game ended: nothing rated).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from server.ladder.pairing import Pairing
from server.ladder.results import MemberResult
from server.matchmaking.queue_store import Execute, QueueStore
from server.ratings.model import Pool, RatingValue
from server.ratings.store import update_ratings
from server.store import Sql

SCHEMA_KEY: Final = "ladder_schema"
LADDER_LOCK: Final = (0x5451, 2)
"""The scheduler's advisory lock (the matcher's is (0x5451, 1))."""
DAY: Final = 86_400.0
SCHEMA_1: Final = """
CREATE TABLE IF NOT EXISTS {t}ladder_presence (
    bot_id TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    display_name TEXT NOT NULL,
    key_hash {blob} NOT NULL,
    pools TEXT NOT NULL,
    since {real} NOT NULL,
    seen_time {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS {t}ladder_sets (
    set_id TEXT PRIMARY KEY,
    pool_id TEXT NOT NULL,
    members TEXT NOT NULL,
    state TEXT NOT NULL,
    create_time {real} NOT NULL,
    finish_time {real},
    tables TEXT NOT NULL,
    results TEXT NOT NULL,
    disconnected TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ladder_sets_by_state ON {t}ladder_sets (state, create_time);
CREATE INDEX IF NOT EXISTS ladder_sets_by_pool ON {t}ladder_sets (pool_id, create_time)
"""


@dataclass(frozen=True, slots=True)
class Presence:
    """A connected bot, as its node last noted it."""

    bot_id: str
    display_name: str
    key_hash: bytes
    pools: tuple[str, ...]
    since: float


@dataclass(frozen=True, slots=True)
class SetTable:
    table_id: str
    rotation: int
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RatedMember:
    """One member's result in a rated set, with its rating before and after."""

    result: MemberResult
    before: RatingValue
    after: RatingValue


@dataclass(frozen=True, slots=True)
class LadderSetRow:
    set_id: str
    pool_id: str
    members: tuple[str, ...]
    state: str
    create_time: float
    finish_time: float | None = None
    tables: tuple[SetTable, ...] = ()
    results: tuple[RatedMember, ...] = ()
    disconnected: tuple[str, ...] = field(default=())

    @property
    def pool(self) -> Pool:
        return Pool.parse(self.pool_id)


Planner = Callable[[Pool, Sequence[Presence], set[str], dict[Pairing, int], int], list[tuple[str, ...]]]
"""``(pool, idle bots, busy bots, pairings played today, reference-only sets playing) -> sets``."""


class LadderStore:
    """The ladder's rows, on the queue store's connection (blocking calls: run them in a thread)."""

    def __init__(self, queue: QueueStore) -> None:
        self.queue = queue
        real, blob = ("DOUBLE PRECISION", "BYTEA") if queue.postgres else ("REAL", "BLOB")
        with queue.transaction() as run:
            for statement in filter(str.strip, SCHEMA_1.format(t="{t}", real=real, blob=blob).split(";")):
                run(statement)

    # ------------------------------------------------------------------ presence

    def seen(self, bots: Sequence[Presence], node_id: str, now: float) -> None:
        """This node's connected bots, seen now."""
        with self.queue.transaction() as run:
            for bot in bots:
                run(
                    "INSERT INTO {t}ladder_presence (bot_id, node_id, display_name, key_hash, pools, since,"
                    " seen_time) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bot_id) DO UPDATE SET"
                    " node_id = excluded.node_id, display_name = excluded.display_name,"
                    " key_hash = excluded.key_hash, pools = excluded.pools, seen_time = excluded.seen_time",
                    (
                        bot.bot_id,
                        node_id,
                        bot.display_name,
                        bot.key_hash,
                        json.dumps(bot.pools),
                        bot.since,
                        now,
                    ),
                )

    def gone(self, bot_id: str, node_id: str) -> list[str]:
        """The bot's stream on ``node_id`` closed: it leaves the ladder, and every set it plays is marked
        (a reference bot plays its seats meanwhile). Returns those sets' ids."""
        with self.queue.transaction() as run:
            run("DELETE FROM {t}ladder_presence WHERE bot_id = ? AND node_id = ?", (bot_id, node_id))
            marked = []
            for row in run(f"SELECT {_COLUMNS} FROM {{t}}ladder_sets WHERE state IN ('placing', 'playing')"):
                found = _row(row)
                if bot_id in found.members and bot_id not in found.disconnected:
                    run(
                        "UPDATE {t}ladder_sets SET disconnected = ? WHERE set_id = ?",
                        (json.dumps([*found.disconnected, bot_id]), found.set_id),
                    )
                    marked.append(found.set_id)
            return marked

    def connected(self, fresh_after: float) -> list[Presence]:
        with self.queue.transaction() as run:
            return _presences(run, fresh_after)

    # ------------------------------------------------------------------ scheduling

    def schedule(
        self, pools: Sequence[Pool], now: float, fresh_after: float, plan: Planner
    ) -> list[LadderSetRow] | None:
        """One scheduling round under the ladder's lock (None: another node runs it): the sets ``plan``
        starts in each pool, recorded as ``placing``."""
        with self.queue.transaction() as run:
            if not self.queue.try_lock(run, LADDER_LOCK):
                return None
            run("DELETE FROM {t}ladder_presence WHERE seen_time < ?", (now - DAY,))
            present = _presences(run, fresh_after)
            active = [
                _row(r)
                for r in run(f"SELECT {_COLUMNS} FROM {{t}}ladder_sets WHERE state IN ('placing', 'playing')")
            ]
            recent = run(
                "SELECT pool_id, members FROM {t}ladder_sets WHERE create_time >= ? AND state <> 'void'",
                (now - DAY,),
            )
            new: list[LadderSetRow] = []
            for pool in pools:
                busy = {m for s in active if s.pool_id == pool.pool_id for m in s.members}
                idle = [p for p in present if pool.pool_id in p.pools and p.bot_id not in busy]
                today: dict[Pairing, int] = {}
                for pool_id, members in recent:
                    if pool_id == pool.pool_id:
                        key = frozenset(json.loads(members))
                        today[key] = today.get(key, 0) + 1
                references_only = sum(
                    1
                    for s in active
                    if s.pool_id == pool.pool_id and all(m.startswith("bot:") for m in s.members)
                )
                for members in plan(pool, idle, busy, today, references_only):
                    row = LadderSetRow(f"set-{secrets.token_hex(8)}", pool.pool_id, members, "placing", now)
                    run(
                        "INSERT INTO {t}ladder_sets (set_id, pool_id, members, state, create_time, tables,"
                        " results, disconnected) VALUES (?, ?, ?, 'placing', ?, '[]', '[]', '[]')",
                        (row.set_id, row.pool_id, json.dumps(members), now),
                    )
                    new.append(row)
            run(
                "UPDATE {t}ladder_sets SET state = 'void', finish_time = ? WHERE state = 'placing'"
                " AND create_time < ?",
                (now, now - 120.0),
            )  # its placing node died before the tables were made
            return new

    def placed(self, set_id: str, tables: Sequence[SetTable]) -> None:
        with self.queue.transaction() as run:
            run(
                "UPDATE {t}ladder_sets SET state = 'playing', tables = ?"
                " WHERE set_id = ? AND state = 'placing'",
                (json.dumps([[t.table_id, t.rotation, list(t.seats)] for t in tables]), set_id),
            )

    def void(self, set_id: str, now: float) -> None:
        with self.queue.transaction() as run:
            run(
                "UPDATE {t}ladder_sets SET state = 'void', finish_time = ?"
                " WHERE set_id = ? AND state <> 'rated'",
                (now, set_id),
            )

    def rate(self, set_id: str, results: Sequence[MemberResult], now: float) -> LadderSetRow | None:
        """Rate a playing set from its members' results, under the ladder's lock, with its rating rows in
        the same transaction; None when another node holds the lock or the set is not playing any more."""
        with self.queue.transaction() as run:
            if not self.queue.try_lock(run, LADDER_LOCK):
                return None
            rows = run(
                f"SELECT {_COLUMNS} FROM {{t}}ladder_sets WHERE set_id = ? AND state = 'playing'", (set_id,)
            )
            if not rows:
                return None
            found = _row(rows[0])
            members = [r.member_id for r in results]
            sql = Sql(run, " FOR UPDATE" if self.queue.postgres else "")
            updates = update_ratings(sql, set_id, found.pool, members, [r.rank for r in results], now=now)
            rated = [RatedMember(r, u.before, u.after) for r, u in zip(results, updates, strict=True)]
            run(
                "UPDATE {t}ladder_sets SET state = 'rated', finish_time = ?, results = ? WHERE set_id = ?",
                (now, json.dumps([_result_json(r) for r in rated]), set_id),
            )
            return LadderSetRow(
                **{**_fields(found), "state": "rated", "finish_time": now, "results": tuple(rated)}
            )

    # ------------------------------------------------------------------ reading

    def active(self) -> list[LadderSetRow]:
        with self.queue.transaction() as run:
            rows = run(f"SELECT {_COLUMNS} FROM {{t}}ladder_sets WHERE state IN ('placing', 'playing')")
        return [_row(r) for r in rows]

    def finished_since(self, since: float) -> list[LadderSetRow]:
        with self.queue.transaction() as run:
            rows = run(
                f"SELECT {_COLUMNS} FROM {{t}}ladder_sets WHERE state = 'rated' AND finish_time >= ?",
                (since,),
            )
        return [_row(r) for r in rows]

    def get(self, set_id: str) -> LadderSetRow | None:
        with self.queue.transaction() as run:
            rows = run(f"SELECT {_COLUMNS} FROM {{t}}ladder_sets WHERE set_id = ?", (set_id,))
        return _row(rows[0]) if rows else None

    def recent(self, pool: Pool, limit: int) -> list[LadderSetRow]:
        """The pool's latest rated sets, newest first."""
        with self.queue.transaction() as run:
            rows = run(
                f"SELECT {_COLUMNS} FROM {{t}}ladder_sets WHERE pool_id = ? AND state = 'rated'"
                " ORDER BY finish_time DESC, set_id LIMIT ?",
                (pool.pool_id, limit),
            )
        return [_row(r) for r in rows]


_COLUMNS: Final = "set_id, pool_id, members, state, create_time, finish_time, tables, results, disconnected"


def _presences(run: Execute, fresh_after: float) -> list[Presence]:
    rows = run(
        "SELECT bot_id, display_name, key_hash, pools, since FROM {t}ladder_presence WHERE seen_time >= ?"
        " ORDER BY since, bot_id",
        (fresh_after,),
    )
    return [Presence(str(b), str(n), bytes(k), tuple(json.loads(p)), float(s)) for b, n, k, p, s in rows]


def _row(row: Sequence[Any]) -> LadderSetRow:
    set_id, pool_id, members, state, created, finished, tables, results, disconnected = row
    return LadderSetRow(
        str(set_id),
        str(pool_id),
        tuple(json.loads(members)),
        str(state),
        float(created),
        None if finished is None else float(finished),
        tuple(SetTable(str(t), int(r), tuple(s)) for t, r, s in json.loads(tables)),
        tuple(_result_of(r) for r in json.loads(results)),
        tuple(json.loads(disconnected)),
    )


def _fields(row: LadderSetRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in LadderSetRow.__dataclass_fields__}


def _result_json(rated: RatedMember) -> list[Any]:
    r, b, a = rated.result, rated.before, rated.after
    return [
        r.member_id,
        r.total_score,
        r.rank,
        r.timeouts,
        [b.mu, b.sigma, b.games],
        [a.mu, a.sigma, a.games],
    ]


def _result_of(raw: Sequence[Any]) -> RatedMember:
    member, total, rank, timeouts, before, after = raw
    return RatedMember(
        MemberResult(str(member), int(total), int(rank), int(timeouts)),
        RatingValue(float(before[0]), float(before[1]), int(before[2])),
        RatingValue(float(after[0]), float(after[1]), int(after[2])),
    )
