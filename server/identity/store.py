"""The players' store: players, bans, the audit log, players' seats and private tables, in SQL.

Beside the tables' store, in the same database (the SQLite file of ``--db``, or the PostgreSQL database of a
cluster, where every node reads the same bans), with its own tables and its own schema version
(``players_schema`` in the ``meta`` table), so that it migrates independently of the tables' schema. The
queries are written once, with ``?`` placeholders and ``{t}`` before each table name; each dialect
(:mod:`server.identity.store_sqlite`, :mod:`server.identity.store_pg`) says how to run them and gives its
migrations. Calls are blocking: the services run them with ``asyncio.to_thread``.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, Final

from server.identity.values import (
    AuditEntry,
    Ban,
    Outcome,
    Player,
    PlayerKind,
    PlayerSeat,
    Privacy,
    SeatResult,
)

SCHEMA_KEY: Final = "players_schema"
"""The ``meta`` key of the players' schema version (the tables' is ``schema``)."""

_PLAYER_COLUMNS: Final = "player_id, kind, display_name, locale, create_time, issuer, subject, owner_id"
_SEAT_COLUMNS: Final = "player_id, table_id, seat, token_hash, join_time, game, outcome, score, place"
_BAN_COLUMNS: Final = "player_id, reason, operator, create_time, expire_time"
_AUDIT_COLUMNS: Final = "entry_id, create_time, operator, action, table_id, seat, player_id, reason"


SCHEMA_1: Final = """
CREATE TABLE {t}players (
    player_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    display_name TEXT NOT NULL,
    locale TEXT NOT NULL,
    create_time {real} NOT NULL,
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    token_hash {blob} UNIQUE,
    UNIQUE (issuer, subject)
);
CREATE TABLE {t}bans (
    player_id TEXT PRIMARY KEY REFERENCES {t}players (player_id),
    reason TEXT NOT NULL,
    operator TEXT NOT NULL,
    create_time {real} NOT NULL,
    expire_time {real}
);
CREATE TABLE {t}audit_log (
    entry_id {serial} PRIMARY KEY{autoincrement},
    create_time {real} NOT NULL,
    operator TEXT NOT NULL,
    action TEXT NOT NULL,
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE {t}player_seats (
    player_id TEXT NOT NULL REFERENCES {t}players (player_id),
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    token_hash {blob} NOT NULL,
    join_time {real} NOT NULL,
    game TEXT NOT NULL,
    outcome TEXT,
    score INTEGER NOT NULL,
    place INTEGER NOT NULL,
    PRIMARY KEY (table_id, token_hash)
);
CREATE INDEX player_seats_by_player ON {t}player_seats (player_id, join_time DESC, table_id DESC, seat DESC);
CREATE TABLE {t}private_tables (
    table_id TEXT PRIMARY KEY,
    unlisted {bool} NOT NULL,
    invite_hash {blob} NOT NULL,
    reservations TEXT NOT NULL,
    creator TEXT NOT NULL
);
"""
"""Version 1 of the players' schema (players, their bans and seats, the audit log, private tables), for
either dialect: each fills in its table prefix and its names of the column types."""


SCHEMA_2: Final = """
ALTER TABLE {t}players ADD COLUMN owner_id TEXT NOT NULL DEFAULT '';
CREATE INDEX players_by_owner ON {t}players (owner_id, create_time)
"""
"""Version 2: bots (kind ``bot``), each with its owner; a bot's key hash is its ``token_hash``."""


def new_player_id() -> str:
    """A player's id: 16 hex digits, not secret (reservations and the audit log name it)."""
    return secrets.token_hex(8)


class PlayerStore(ABC):
    """The players' data. ``prefix`` goes before each table name (a PostgreSQL schema)."""

    prefix: str = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the dialect

    @abstractmethod
    def _run(self, statements: Sequence[tuple[str, Sequence[object]]]) -> list[tuple[Any, ...]]:
        """Run the statements in one transaction; the rows of the last one."""

    @abstractmethod
    def close(self) -> None: ...

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._run([(sql.format(t=self.prefix), params)])

    def _transaction(self, *statements: tuple[str, Sequence[object]]) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._run([(sql.format(t=self.prefix), params) for sql, params in statements])

    # ------------------------------------------------------------------ players

    def create_guest(self, display_name: str, locale: str, token_hash: bytes) -> Player:
        player = Player(new_player_id(), PlayerKind.GUEST, display_name, locale, time.time())
        self._query(
            "INSERT INTO {t}players (player_id, kind, display_name, locale, create_time, issuer, subject,"
            " token_hash) VALUES (?, ?, ?, ?, ?, '', ?, ?)",
            (
                player.player_id,
                player.kind.value,
                display_name,
                locale,
                player.create_time,
                player.player_id,
                token_hash,
            ),
        )
        return player

    def create_bot(self, owner_id: str, display_name: str, key_hash: bytes) -> Player:
        """A bot owned by ``owner_id``; ``key_hash``: its key's SHA-256 (the key itself is never stored)."""
        player = Player(new_player_id(), PlayerKind.BOT, display_name, "", time.time(), owner_id=owner_id)
        self._query(
            "INSERT INTO {t}players (player_id, kind, display_name, locale, create_time, issuer, subject,"
            " token_hash, owner_id) VALUES (?, ?, ?, '', ?, '', ?, ?, ?)",
            (
                player.player_id,
                player.kind.value,
                display_name,
                player.create_time,
                player.player_id,
                key_hash,
                owner_id,
            ),
        )
        return player

    def bots_of(self, owner_id: str) -> list[Player]:
        """The bots ``owner_id`` registered, oldest first."""
        rows = self._query(
            f"SELECT {_PLAYER_COLUMNS} FROM {{t}}players WHERE owner_id = ? AND kind = 'bot'"
            " ORDER BY create_time, player_id",
            (owner_id,),
        )
        return [_player(row) for row in rows]

    def player_for_subject(self, issuer: str, subject: str, display_name: str) -> Player:
        """The OIDC player (issuer, subject), created on its first call (concurrent first calls: one wins)."""
        known = self.players_by_subject(issuer, subject)
        if known:
            return known[0]  # a read, not a write transaction, for every call after the first
        rows = self._transaction(
            (
                "INSERT INTO {t}players (player_id, kind, display_name, locale, create_time, issuer, subject)"
                " VALUES (?, 'oidc', ?, '', ?, ?, ?) ON CONFLICT (issuer, subject) DO NOTHING",
                (new_player_id(), display_name, time.time(), issuer, subject),
            ),
            (
                f"SELECT {_PLAYER_COLUMNS} FROM {{t}}players WHERE issuer = ? AND subject = ?",
                (issuer, subject),
            ),
        )
        return _player(rows[0])

    def player_by_token(self, token_hash: bytes) -> Player | None:
        rows = self._query(f"SELECT {_PLAYER_COLUMNS} FROM {{t}}players WHERE token_hash = ?", (token_hash,))
        return _player(rows[0]) if rows else None

    def players_by_subject(self, issuer: str, subject: str) -> list[Player]:
        """The OIDC player (issuer, subject), if any (a list: empty or one)."""
        rows = self._query(
            f"SELECT {_PLAYER_COLUMNS} FROM {{t}}players WHERE kind = 'oidc' AND issuer = ? AND subject = ?",
            (issuer, subject),
        )
        return [_player(row) for row in rows]

    def player(self, player_id: str) -> Player | None:
        rows = self._query(f"SELECT {_PLAYER_COLUMNS} FROM {{t}}players WHERE player_id = ?", (player_id,))
        return _player(rows[0]) if rows else None

    def players(self, player_ids: Iterable[str]) -> dict[str, Player]:
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = self._query(f"SELECT {_PLAYER_COLUMNS} FROM {{t}}players WHERE player_id IN ({marks})", ids)
        return {row[0]: _player(row) for row in rows}

    def update_player(self, player_id: str, display_name: str | None, locale: str | None) -> Player | None:
        rows = self._transaction(
            (
                "UPDATE {t}players SET display_name = COALESCE(?, display_name), locale = COALESCE(?, locale)"
                " WHERE player_id = ?",
                (display_name, locale, player_id),
            ),
            (f"SELECT {_PLAYER_COLUMNS} FROM {{t}}players WHERE player_id = ?", (player_id,)),
        )
        return _player(rows[0]) if rows else None

    # ------------------------------------------------------------------ bans and the audit log

    def ban(self, ban: Ban, entry: AuditEntry) -> None:
        """Ban (or ban again, replacing the earlier ban) and audit it, in one transaction."""
        self._transaction(
            (
                f"INSERT INTO {{t}}bans ({_BAN_COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (player_id) DO"
                " UPDATE SET reason = excluded.reason, operator = excluded.operator,"
                " create_time = excluded.create_time, expire_time = excluded.expire_time",
                (ban.player_id, ban.reason, ban.operator, ban.create_time, ban.expire_time),
            ),
            _audit_statement(entry),
        )

    def unban(self, player_id: str, entry: AuditEntry) -> None:
        self._transaction(("DELETE FROM {t}bans WHERE player_id = ?", (player_id,)), _audit_statement(entry))

    def ban_of(self, player_id: str) -> Ban | None:
        """The player's ban in force, if any (an expired one is no ban)."""
        rows = self._query(f"SELECT {_BAN_COLUMNS} FROM {{t}}bans WHERE player_id = ?", (player_id,))
        if not rows:
            return None
        found, reason, operator, created, expires = rows[0]
        ban = Ban(found, reason, operator, float(created), None if expires is None else float(expires))
        return ban if ban.in_force() else None

    def audit(self, entry: AuditEntry) -> None:
        self._transaction(_audit_statement(entry))

    def audit_entries(
        self, limit: int, before: int | None = None, player_id: str = "", table_id: str = ""
    ) -> list[AuditEntry]:
        """Newest first; ``before``: only entries with a smaller id (the previous page's last)."""
        where: list[str] = ["1 = 1"]
        params: list[object] = []
        for column, value in (("player_id", player_id), ("table_id", table_id)):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        if before is not None:
            where.append("entry_id < ?")
            params.append(before)
        rows = self._query(
            f"SELECT {_AUDIT_COLUMNS} FROM {{t}}audit_log WHERE {' AND '.join(where)}"
            " ORDER BY entry_id DESC LIMIT ?",
            (*params, limit),
        )
        return [
            AuditEntry(
                operator=operator,
                action=action,
                reason=reason,
                table_id=table,
                seat=int(seat),
                player_id=player,
                create_time=float(created),
                entry_id=int(entry_id),
            )
            for entry_id, created, operator, action, table, seat, player, reason in rows
        ]

    # ------------------------------------------------------------------ players' seats

    def add_seat(self, seat: PlayerSeat) -> tuple[str, bool]:
        """Make the seat the player's, unless it belongs to a player already: the player it belongs to
        now, and whether this call made it so (a seat's player changes only by :meth:`move_seat`)."""
        inserted = self._query(
            f"INSERT INTO {{t}}player_seats ({_SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, 0, 0)"
            " ON CONFLICT (table_id, token_hash) DO NOTHING RETURNING player_id",
            (seat.player_id, seat.table_id, seat.seat, seat.token_hash, seat.join_time, seat.game),
        )
        if inserted:
            return str(inserted[0][0]), True
        rows = self._query(
            "SELECT player_id FROM {t}player_seats WHERE table_id = ? AND token_hash = ?",
            (seat.table_id, seat.token_hash),
        )
        return str(rows[0][0]), False

    def move_seat(self, table_id: str, token_hash: bytes, from_player: str, to_player: str) -> bool:
        """A guest's seat becomes another player's (ClaimSeats with the guest's token): whether it moved
        (False when it was not ``from_player``'s any more)."""
        rows = self._query(
            "UPDATE {t}player_seats SET player_id = ? WHERE table_id = ? AND token_hash = ? AND player_id = ?"
            " RETURNING player_id",
            (to_player, table_id, token_hash, from_player),
        )
        return bool(rows)

    def seat_owner(self, table_id: str, token_hash: bytes) -> str | None:
        """The player the seat with this token belongs to, None when no player's (an anonymous seat)."""
        rows = self._query(
            "SELECT player_id FROM {t}player_seats WHERE table_id = ? AND token_hash = ?",
            (table_id, token_hash),
        )
        return str(rows[0][0]) if rows else None

    def seat_hashes(self, table_id: str, player_id: str) -> list[bytes]:
        """The token hashes of the player's seats at the table (a seat token the table still holds is one
        the player sits in now)."""
        rows = self._query(
            "SELECT token_hash FROM {t}player_seats WHERE table_id = ? AND player_id = ?",
            (table_id, player_id),
        )
        return [bytes(row[0]) for row in rows]

    def seats(
        self, player_id: str, limit: int, before: tuple[float, str, int] | None = None
    ) -> list[PlayerSeat]:
        """The player's seats, newest first; ``before``: (join_time, table_id, seat) of the previous page's
        last, so that a page never repeats or skips a seat taken meanwhile."""
        condition, params = "", list[object]()
        if before is not None:
            condition = (
                " AND (join_time < ? OR (join_time = ? AND (table_id < ? OR (table_id = ? AND seat < ?))))"
            )
            params = [before[0], before[0], before[1], before[1], before[2]]
        rows = self._query(
            f"SELECT {_SEAT_COLUMNS} FROM {{t}}player_seats WHERE player_id = ?{condition}"
            " ORDER BY join_time DESC, table_id DESC, seat DESC LIMIT ?",
            (player_id, *params, limit),
        )
        return [_seat(row) for row in rows]

    def seats_at(self, table_ids: Iterable[str], player_id: str) -> set[str]:
        """Which of these tables the player has a seat at."""
        ids = sorted(set(table_ids))
        if not ids:
            return set()
        marks = ", ".join("?" for _ in ids)
        rows = self._query(
            f"SELECT DISTINCT table_id FROM {{t}}player_seats WHERE player_id = ? AND table_id IN ({marks})",
            (player_id, *ids),
        )
        return {row[0] for row in rows}

    def set_result(self, seat: PlayerSeat, game: str, result: SeatResult) -> None:
        self._query(
            "UPDATE {t}player_seats SET game = ?, outcome = ?, score = ?, place = ?"
            " WHERE table_id = ? AND token_hash = ?",
            (game, result.outcome.value, result.score, result.place, seat.table_id, seat.token_hash),
        )

    def set_results(self, table_id: str, game: str, results: Sequence[tuple[bytes, SeatResult]]) -> None:
        """A finished table's results, by seat token hash, for the players' seats there that have none yet."""
        if not results:
            return
        self._transaction(
            *(
                (
                    "UPDATE {t}player_seats SET game = ?, outcome = ?, score = ?, place = ?"
                    " WHERE table_id = ? AND token_hash = ? AND outcome IS NULL",
                    (game, r.outcome.value, r.score, r.place, table_id, token_hash),
                )
                for token_hash, r in results
            )
        )

    # ------------------------------------------------------------------ private tables

    def put_privacy(self, privacy: Privacy) -> None:
        self._query(
            "INSERT INTO {t}private_tables (table_id, unlisted, invite_hash, reservations, creator)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id) DO NOTHING",
            (
                privacy.table_id,
                privacy.unlisted,
                privacy.invite_hash,
                json.dumps({str(seat): player for seat, player in sorted(privacy.reservations.items())}),
                privacy.creator,
            ),
        )

    def privacy(self, table_ids: Iterable[str]) -> dict[str, Privacy]:
        """The private ones among these tables (a table absent from the answer is public)."""
        ids = sorted(set(table_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = self._query(
            "SELECT table_id, unlisted, invite_hash, reservations, creator FROM {t}private_tables"
            f" WHERE table_id IN ({marks})",
            ids,
        )
        return {
            table_id: Privacy(
                table_id,
                bool(unlisted),
                bytes(invite_hash or b""),
                {int(seat): str(player) for seat, player in json.loads(reservations).items()},
                creator,
            )
            for table_id, unlisted, invite_hash, reservations, creator in rows
        }


def _audit_statement(entry: AuditEntry) -> tuple[str, Sequence[object]]:
    return (
        "INSERT INTO {t}audit_log (create_time, operator, action, table_id, seat, player_id, reason)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            entry.create_time,
            entry.operator,
            entry.action,
            entry.table_id,
            entry.seat,
            entry.player_id,
            entry.reason,
        ),
    )


def _player(row: tuple[Any, ...]) -> Player:
    player_id, kind, display_name, locale, create_time, issuer, subject, owner_id = row
    oidc = kind == PlayerKind.OIDC.value
    return Player(
        player_id,
        PlayerKind(kind),
        display_name,
        locale,
        float(create_time),
        issuer if oidc else "",
        subject if oidc else "",
        owner_id,
    )


def _seat(row: tuple[Any, ...]) -> PlayerSeat:
    player_id, table_id, seat, token_hash, join_time, game, outcome, score, place = row
    result = None if outcome is None else SeatResult(Outcome(outcome), int(score), int(place))
    return PlayerSeat(player_id, table_id, int(seat), bytes(token_hash), float(join_time), game, result)
