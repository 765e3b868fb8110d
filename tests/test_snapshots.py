"""Snapshots (issue #32, "a snapshot: a table's state stored every N records so that a replay reads a bounded
tail"; server/snapshots.py): a table rebuilt from a snapshot and the records after it is the table rebuilt
from every record, for both games, in both stores; a snapshot that is damaged, foreign or of other code is
not used (every record is replayed), and loading one never runs anything but the table's own classes."""

from __future__ import annotations

import asyncio
import enum
import hashlib
import os
import pickle
import sqlite3
from pathlib import Path
from typing import Any, Final

import psycopg
import pytest

from server import snapshots
from server.registry import Registry
from server.store import Store, StoredTable
from server.store_pg import PostgresStore
from server.store_select import is_postgres, open_store
from server.table import Table
from server.table_core import TableCore
from tests.in_process import serving
from tests.server_harness import token_md
from thousand.v1 import blagogo_rules_pb2 as blagogo_pb
from thousand.v1 import table_service_pb2 as pb

EVERY = 16
"""Records between two snapshots here: many snapshots in each game."""


def test_every_slot_of_a_table_core_is_state_or_settings() -> None:
    """A slot added to the core must be put in one of the two, or snapshots would silently leave it out."""
    state, settings = set(snapshots.STATE_SLOTS), set(snapshots.SETTINGS_SLOTS)
    assert not state & settings
    assert set(TableCore.__slots__) == state | settings


def thousand() -> pb.CreateTableRequest:
    """Three heuristic bots (a strategy with memory: its beliefs are in the snapshot), a fair table."""
    bot = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="heuristic")
    return pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[bot, bot, bot])


def blagogo() -> pb.CreateTableRequest:
    """Three planners of 1000 Blagogo (each remembers its round), to 300."""
    bot = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="planner")
    request = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, seats=[bot, bot, bot], seed=11)
    request.rules.blagogo.CopyFrom(blagogo_pb.BlagogoRules(target=300))
    return request


async def play(db: str) -> list[str]:
    """A game of each, played to its end by a real server storing a snapshot every EVERY records."""
    async with serving(db, snapshot_records=EVERY) as (_, stub):
        tables = [(await stub.CreateTable(request)).table.table_id for request in (thousand(), blagogo())]
        for table_id in tables:
            for _ in range(3000):  # a loaded machine: up to 150 s for a game
                table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
                if table.status == pb.TABLE_STATUS_FINISHED:
                    break
                await asyncio.sleep(0.05)
            assert table.status == pb.TABLE_STATUS_FINISHED
    return tables


LAST_DECISION: Final = frozenset({"stats"})
"""Attributes of a strategy that hold the figures of its last search (ISMCTS's, the planner's), set afresh
by each decision and read by nothing that decides: a live table's snapshot has them, a replay (which makes
no decisions) does not."""


def state_of(table: Table) -> dict[str, Any]:
    """Everything a table's records make of it: the core's state and the bots' players (what a snapshot
    holds), the frame, and the turn clock's running decision (its key and when it began)."""
    return {
        "core": {slot: getattr(table.core, slot) for slot in snapshots.STATE_SLOTS},
        "players": {seat: (p.strategy, p.player) for seat, p in table.bots.players().items()},
        "frame": table.core.frame(),
        "clock": (table.clock.key, table.clock.deadline_wall if table.clock.key is not None else None),
    }


def differences(a: object, b: object, path: str = "table") -> list[str]:
    """Where two object graphs differ in value (not in which objects they share): every attribute, item and
    slot compared down to plain values; empty when they are the same."""
    found: list[str] = []
    seen: set[tuple[int, int]] = set()

    def walk(x: object, y: object, where: str) -> None:
        if len(found) > 10 or (id(x), id(y)) in seen:
            return
        seen.add((id(x), id(y)))
        if type(x) is not type(y):
            found.append(f"{where}: {type(x).__name__} against {type(y).__name__}")
        elif isinstance(x, (dict, list, tuple)):
            assert isinstance(y, (dict, list, tuple))
            keys_x = list(x) if isinstance(x, dict) else list(range(len(x)))
            keys_y = list(y) if isinstance(y, dict) else list(range(len(y)))
            if keys_x != keys_y:
                found.append(f"{where}: keys {keys_x[:5]}... against {keys_y[:5]}...")
                return
            for key in keys_x:
                walk(x[key], y[key], f"{where}[{key!r}]")
        elif (fields := _fields(x)) is not None:
            for name, value in fields.items():
                if name not in LAST_DECISION:
                    walk(value, _fields(y).get(name, _MISSING), f"{where}.{name}")  # type: ignore[union-attr]
        elif x != y:
            found.append(f"{where}: {x!r:.80} against {y!r:.80}")

    walk(a, b, path)
    return found


_MISSING = object()


def _fields(value: object) -> dict[str, Any] | None:
    """An object's attributes (its __dict__ and slots); None for a plain value (numbers, strings, enums,
    sets, frozen values compared by their own equality)."""
    if isinstance(value, (int, float, str, bytes, frozenset, set, type(None), enum.Enum)):
        return None
    fields = dict(getattr(value, "__dict__", {}))
    for cls in type(value).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(value, slot) and slot != "__weakref__":
                fields[slot] = getattr(value, slot)
    return fields or None


def rebuilt(db: str, stored: StoredTable) -> Table:
    registry = Registry(open_store(db))
    return registry.adopt(stored)


@pytest.fixture
def played(db: str) -> tuple[str, list[str]]:
    return db, asyncio.run(play(db))


def test_a_table_rebuilt_from_its_snapshot_and_tail_is_the_table_rebuilt_from_every_record(
    played: tuple[str, list[str]],
) -> None:
    db, tables = played
    store = open_store(db)
    for table_id in tables:
        whole = store.get(table_id)
        from_snapshot = store.get(table_id, snapshots=True)
        assert whole is not None and from_snapshot is not None and from_snapshot.snapshot is not None
        assert whole.snapshot is None
        assert from_snapshot.count == len(whole.records)
        assert from_snapshot.records == whole.records[from_snapshot.snapshot.records :]
        assert len(from_snapshot.records) <= 2 * EVERY  # a bounded tail
        assert differences(state_of(rebuilt(db, from_snapshot)), state_of(rebuilt(db, whole))) == []


def test_a_snapshot_at_any_record_then_its_tail_rebuilds_the_same_table_and_bots(tmp_path: Path) -> None:
    """Cut each game at records spread over it: the table replayed up to the cut, snapshotted, put into a
    fresh table, and the rest replayed on it, is the table replayed whole; and before each of the first bot
    moves after the cut, the restored table's bots (Thousand's heuristic, which remembers the deal) choose
    the move that was played."""
    db = str(tmp_path / "thousand.db")
    tables = asyncio.run(play(db))
    store = open_store(db)
    for table_id in tables:
        whole = store.get(table_id)
        assert whole is not None
        records = whole.records
        full = state_of(rebuilt(db, whole))
        for cut in range(1, len(records), max(1, len(records) // 7)):
            head = StoredTable(whole.table_id, whole.serial, whole.create_time, whole.config, records[:cut])
            made = rebuilt(db, head)
            snapshot = snapshots.take(made.core, made.bots)
            state = snapshots.load(snapshot.data, snapshot.checksum, snapshot.fingerprint, cut)
            assert state is not None
            restored = rebuilt(
                db, StoredTable(whole.table_id, whole.serial, whole.create_time, whole.config, [])
            )
            snapshots.restore(restored.core, restored.bots, state)
            checked_bot_moves(restored, records[cut:], limit=4)
            assert differences(state_of(restored), full) == [], (table_id, cut)


def checked_bot_moves(table: Table, tail: list[Any], limit: int) -> None:
    """Replay ``tail`` on ``table`` one record at a time; before each of the first ``limit`` actions of a
    bot seat, the move its bot makes now must be the one stored. Not for a searching strategy (the Blagogo
    planner): it thinks for a time budget, so its move depends on the machine's speed at that moment, on a
    full replay as much as from a snapshot; its memory is compared with the full replay's instead."""
    adapter = table.adapter
    checked = 0
    for record in tail:
        seat = record.seat
        bot = table.core.seats[seat].bot and not table.bots.player(seat).searching
        if record.kind == "action" and checked < limit and bot:
            action = table.bots.decide(table.core.game, seat, table.core.sequence, True)
            assert adapter.action_to_bytes(action) == record.data
            checked += 1
        table.replay([record])


async def play_a_person_on_the_clock(db: str, decisions: int) -> str:
    """A person (answering with the Turn's first action: at once, but every fifth decision 0.3 s late, drawing
    on the bank) and two heuristic bots on a turn clock with a time bank, stopped with the person on turn
    after ``decisions`` decisions of theirs: the clock runs."""
    bot = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="heuristic")
    request = pb.CreateTableRequest(
        game=pb.GAME_KIND_THOUSAND, seats=[pb.SeatConfig(kind=pb.SEAT_KIND_OPEN), bot, bot]
    )
    request.time_control.per_move.FromNanoseconds(200_000_000)
    request.time_control.bank.FromNanoseconds(120 * 10**9)
    async with serving(db, snapshot_records=EVERY) as (_, stub):
        table_id = (await stub.CreateTable(request)).table.table_id
        token = (await stub.JoinTable(pb.JoinTableRequest(table_id=table_id))).seat_token
        made = 0
        stream = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=token_md(token))
        async with asyncio.timeout(120):
            async for message in stream:
                if not (
                    message.turn.HasField("seat") and message.turn.seat == 0 and message.turn.legal_actions
                ):
                    continue
                if made == decisions:
                    break
                if made % 5 == 4:
                    await asyncio.sleep(0.5)
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=table_id,
                        request_id=f"d{made}",
                        last_seen_sequence=message.sequence + len(message.more_events),
                        action=message.turn.legal_actions[0],
                    ),
                    metadata=token_md(token),
                )
                made += 1
        stream.cancel()
    return table_id


def test_a_snapshot_taken_while_a_person_is_on_the_clock_restores_the_running_clock(db: str) -> None:
    """The bots-only games above never run a turn clock. Here a person plays on a clock with a bank, and the
    table is cut wherever the person is on turn with the clock running: the snapshot there and the records
    after it rebuild the running decision (its key and deadline on the wall clock), the banks and the rest as
    the table replayed whole. The clock itself is not in a snapshot: a replay starts it from the stored time
    of the record that began the decision, so the store uses a snapshot only when its tail holds an action
    (``snapshots.rebuilds_clock``), as here. PostgreSQL gives each record its stored time (the clock goes on
    from it, to the microsecond); SQLite's records have none, and its one node restarts a running clock from
    now."""
    table_id = asyncio.run(play_a_person_on_the_clock(db, decisions=30))
    store = open_store(db)
    whole = with_times(store, table_id, snapshots=False)
    full = rebuilt(db, whole)
    assert full.clock.key is not None and full.core.game.to_act == 0, "the person is on turn, the clock runs"
    records = whole.records
    on_turn = 0
    for cut in range(1, len(records)):
        head = StoredTable(whole.table_id, whole.serial, whole.create_time, whole.config, records[:cut])
        made = rebuilt(db, head)
        if made.clock.key is None or made.core.game.is_chance_node or made.core.game.to_act != 0:
            continue
        assert snapshots.rebuilds_clock(records[cut:])
        on_turn += 1
        snapshot = snapshots.take(made.core, made.bots)
        state = snapshots.load(snapshot.data, snapshot.checksum, snapshot.fingerprint, cut)
        assert state is not None
        restored = rebuilt(db, StoredTable(whole.table_id, whole.serial, whole.create_time, whole.config, []))
        snapshots.restore(restored.core, restored.bots, state)
        restored.replay(records[cut:])
        assert same_but_a_clock_started_now(restored, full, db) == [], cut
    assert on_turn >= 20, on_turn
    assert full.core.seats[0].bank < 120 and any(r.kind == "bank" for r in records), "the bank was drawn on"
    from_snapshot = with_times(store, table_id, snapshots=True)
    assert from_snapshot.snapshot is not None
    assert same_but_a_clock_started_now(rebuilt(db, from_snapshot), full, db) == []


def with_times(store: Store, table_id: str, *, snapshots: bool) -> StoredTable:
    """The stored table as a takeover reads it: PostgreSQL's records with when each was stored."""
    found = (
        store.get_many([table_id], snapshots=snapshots).get(table_id)
        if isinstance(store, PostgresStore)
        else store.get(table_id, snapshots=snapshots)
    )
    assert found is not None
    return found


def same_but_a_clock_started_now(table: Table, other: Table, db: str) -> list[str]:
    """:func:`differences` of the two tables' states; a clock that no stored time started (SQLite's) is
    compared by its running decision only, its deadline being now's."""
    mine, theirs = state_of(table), state_of(other)
    assert table.clock.recorded == other.clock.recorded == is_postgres(db)
    if not table.clock.recorded:
        mine["clock"], theirs["clock"] = mine["clock"][0], theirs["clock"][0]
    return differences(mine, theirs)


def damage(db: str, table_id: str, **columns: object) -> None:
    """Set columns of the table's stored snapshot, in either store."""
    names = list(columns)
    if is_postgres(db):
        with psycopg.connect(db, autocommit=True) as connection:
            sets = ", ".join(f"{name} = %s" for name in names)
            connection.execute(
                f"UPDATE thousand.snapshots SET {sets} WHERE table_id = %s", [*columns.values(), table_id]
            )
    else:
        with sqlite3.connect(db) as connection:
            sets = ", ".join(f"{name} = ?" for name in names)
            connection.execute(
                f"UPDATE snapshots SET {sets} WHERE table_id = ?", [*columns.values(), table_id]
            )


class Payload:
    """What an attacker with the database's write access would store: a pickle that runs a command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def test_a_damaged_foreign_or_hostile_snapshot_is_not_used_and_every_record_is_replayed(
    played: tuple[str, list[str]], tmp_path: Path
) -> None:
    db, tables = played
    store = open_store(db)
    table_id = tables[0]
    whole = store.get(table_id)
    assert whole is not None
    full = state_of(rebuilt(db, whole))
    good = store.get(table_id, snapshots=True)
    assert good is not None and good.snapshot is not None
    marker = tmp_path / "ran"
    hostile = pickle.dumps({"core": {}, "players": Payload(marker)})
    cases: list[dict[str, object]] = [
        {"data": b"\x80\x05not a pickle at all"},  # damaged: the checksum no longer holds
        {"fingerprint": "0" * 32},  # made by other code
        {"data": b"\x80\x05not a pickle", "checksum": hashlib.sha256(b"\x80\x05not a pickle").digest()},
        {"data": hostile, "checksum": hashlib.sha256(hostile).digest()},  # a command to run
    ]
    for columns in cases:
        damage(db, table_id, **columns)
        read = store.get(table_id, snapshots=True)
        assert read is not None
        assert read.snapshot is None, columns
        assert read.records == whole.records
        assert differences(state_of(rebuilt(db, read)), full) == []
    assert not marker.exists()
