"""The durable table store: every table is event-sourced in an embedded SQLite database.

A table is its creation settings (its game, its rules as the game's rules message, seats, seed and first
dealer) plus an append-only list of records: a seat taken (with the SHA-256 of its token, never the token), a
seat released, an action applied (with its seat and request id, the action as the game's action message,
``thousand.v1.ThousandAction`` or ``thousand.v1.BlagogoAction`` bytes, so the wire contract's compatibility
rules cover stored games too). The game itself is never stored: it is a pure function of its rules, seed and
actions (T-35, B-23), so a restart rebuilds every table by replaying its records and lands on the same events
with the same sequence numbers.

The game is stored by name in the settings' JSON (``"game": "blagogo"``); settings without it are those of
tables stored before there was a second game, which all play Thousand.

Writes are synchronous and committed (WAL, ``synchronous=FULL``) before the server acknowledges a request.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from server.clock import TimeControl

SCHEMA_VERSION: Final = 1
DEFAULT_GAME: Final = "thousand"
"""The game of a table stored without one (before 1000 Blagogo)."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    serial INTEGER NOT NULL,
    create_time REAL NOT NULL,
    config TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS records (
    table_id TEXT NOT NULL REFERENCES tables(table_id),
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER NOT NULL,
    text TEXT NOT NULL,
    data BLOB,
    PRIMARY KEY (table_id, number)
);
"""


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
        )


@dataclass(frozen=True, slots=True)
class Record:
    """One stored change of a table. ``kind`` is "join", "leave", "action", or one of the turn clock's:
    "timeout" (the seat's time ran out; text: the policy), "reclaim" (the player took the seat back from the
    bot) and "bank" (text: the seat's time bank left, in seconds, after a decision that drew on it)."""

    kind: str
    seat: int
    text: str = ""
    """join: the player's name; action: the request id ("" for a bot's or the clock's move); timeout: the
    policy; bank: the seconds left."""
    data: bytes = b""
    """join: the SHA-256 of the seat token; action: the game's action message bytes (ThousandAction, ...)."""


@dataclass(frozen=True, slots=True)
class StoredTable:
    table_id: str
    serial: int
    create_time: float
    config: TableConfig
    records: list[Record]


class Store:
    """One SQLite database of tables. ``":memory:"`` keeps nothing across restarts (for tests)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise RuntimeError(f"{self.path}: schema {row[0]}, this server reads {SCHEMA_VERSION}")
        self._next: dict[str, int] = {}

    def close(self) -> None:
        self._db.close()

    def create_table(self, table_id: str, serial: int, create_time: float, config: TableConfig) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO tables (table_id, serial, create_time, config) VALUES (?, ?, ?, ?)",
                (table_id, serial, create_time, config.to_json()),
            )
        self._next[table_id] = 0

    def append(self, table_id: str, record: Record, *, finished: bool = False) -> None:
        """Store one record, committed before returning."""
        number = self._next.get(table_id)
        if number is None:
            row = self._db.execute(
                "SELECT COALESCE(MAX(number) + 1, 0) FROM records WHERE table_id = ?", (table_id,)
            ).fetchone()
            number = int(row[0])
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)",
                (table_id, number, record.kind, record.seat, record.text, record.data),
            )
            if finished:
                self._db.execute("UPDATE tables SET finished = 1 WHERE table_id = ?", (table_id,))
        self._next[table_id] = number + 1

    def tables(self) -> Iterator[StoredTable]:
        """Every stored table with its records, in creation order."""
        rows = self._db.execute(
            "SELECT table_id, serial, create_time, config FROM tables ORDER BY serial"
        ).fetchall()
        for table_id, serial, create_time, config in rows:
            yield self.load(table_id, int(serial), float(create_time), TableConfig.from_json(config))

    def load(self, table_id: str, serial: int, create_time: float, config: TableConfig) -> StoredTable:
        records = [
            Record(kind, int(seat), text, bytes(data or b""))
            for kind, seat, text, data in self._db.execute(
                "SELECT kind, seat, text, data FROM records WHERE table_id = ? ORDER BY number", (table_id,)
            )
        ]
        self._next[table_id] = len(records)
        return StoredTable(table_id, serial, create_time, config, records)

    def get(self, table_id: str) -> StoredTable | None:
        row = self._db.execute(
            "SELECT serial, create_time, config FROM tables WHERE table_id = ?", (table_id,)
        ).fetchone()
        if row is None:
            return None
        return self.load(table_id, int(row[0]), float(row[1]), TableConfig.from_json(row[2]))
