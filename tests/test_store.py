"""The store's group commit: many tables' changes share one commit, each is stored before it is made, a
change the store cannot commit is refused (STORE_UNAVAILABLE) and not made, and closing the store writes what
was queued. And a restart leaves finished tables older than the idle time in the store."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from grpc import aio

from engine import Rules
from server import bots as bots_module
from server.app import Server
from server.creations import SeatSpec
from server.registry import Registry
from server.settings import Settings
from server.store import Record, StoreError
from server.store_select import open_store
from server.table import Table
from server.table_state import StopReason
from tests.server_harness import expect_error, run, thousand_table, token_md
from tests.table_driving import bot_to_act, play_bot
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

BOTS = [SeatSpec(bot=True, strategy="greedy")] * 3


async def bot_tables(registry: Registry, count: int) -> list[Table]:
    return [await registry.create(Rules(), BOTS, seed=seed, first_dealer=0) for seed in range(count)]


async def one_bot_move(table: Table) -> None:
    async with table.lock:
        seat = bot_to_act(table)
        assert seat is not None
        await play_bot(table, seat)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.001)


def stored_records(db: str) -> int:
    """Records stored, read back through a store of its own."""
    store = open_store(db)
    try:
        return sum(len(table.records) for table in store.tables())
    finally:
        store.close()


def test_concurrent_changes_of_different_tables_share_a_commit(db: str) -> None:
    """Twenty tables' bot moves queued while the writer is busy: two transactions at most, not twenty, and
    no move is made before its record is committed (SQLite and PostgreSQL alike)."""

    async def scenario() -> None:
        store = open_store(db)
        assert store.group_commit
        tables = await bot_tables(Registry(store), 20)
        sequences = [t.sequence for t in tables]
        commits, writes = store.commits, store.writes
        with store._lock:  # the writer cannot commit meanwhile: every move waits, queued
            moves = [asyncio.create_task(one_bot_move(t)) for t in tables]
            # Each move runs to its commit's await in its first step: all queued after one turn of the loop.
            # The writer may take some of them, then waits for the connection; the rest wait in the queue.
            await asyncio.sleep(0.05)
            assert [t.sequence for t in tables] == sequences  # nothing made before it is stored
        await asyncio.gather(*moves)
        assert store.writes - writes == 20
        assert store.commits - commits <= 2
        assert all(t.sequence > s for t, s in zip(tables, sequences, strict=True))
        store.close()

    run(scenario())
    assert stored_records(db) == 20


def test_a_cancelled_caller_still_makes_the_change_it_queued(db: str) -> None:
    """Cancelled while its record is being committed, a move is still made: the table in memory and the one
    a restart rebuilds stay the same; the cancellation comes after."""

    async def scenario() -> None:
        store = open_store(db)
        (table,) = await bot_tables(Registry(store), 1)
        sequence = table.sequence
        with store._lock:
            move = asyncio.create_task(one_bot_move(table))
            await asyncio.sleep(0.01)  # queued: its first step ran to the commit's await
            move.cancel()
            await asyncio.sleep(0.01)
        with pytest.raises(asyncio.CancelledError):
            await move
        assert table.sequence > sequence
        store.close()
        stored = open_store(db).get(table.table_id)
        assert stored is not None and len(stored.records) == 1

    run(scenario())


def test_closing_the_store_commits_what_is_queued(db: str) -> None:

    async def scenario() -> None:
        store = open_store(db)
        tables = await bot_tables(Registry(store), 5)
        with store._lock:
            moves = [asyncio.create_task(one_bot_move(t)) for t in tables]
            await asyncio.sleep(0.01)  # all queued
            closing = asyncio.create_task(asyncio.to_thread(store.close))
            await asyncio.sleep(0.05)
            assert not closing.done()  # it waits for the queued writes
        await closing
        await asyncio.gather(*moves)  # every one committed and made
        with pytest.raises(StoreError, match="closed"):
            await store.append(tables[0].table_id, Record("leave", 0))

    run(scenario())
    assert stored_records(db) == 5


def failing(error: str) -> Callable[[object], None]:
    def execute(write: object) -> None:
        raise OSError(error)  # whatever the driver raises, the store answers StoreError

    return execute


@pytest.mark.parametrize("group_commit", [True, False])
def test_a_change_the_store_cannot_commit_is_refused_and_not_made(
    db: str, monkeypatch: pytest.MonkeyPatch, group_commit: bool
) -> None:
    """SubmitAction, JoinTable and CreateTable while every write fails: STORE_UNAVAILABLE (UNAVAILABLE), the
    table as it was, nothing stored; the same request succeeds once the store works again."""

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, db=db))
        server.store.group_commit = group_commit  # before any write: both paths
        await server.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                table_id = (await stub.CreateTable(thousand_table())).table.table_id
                joined = [await stub.JoinTable(pb.JoinTableRequest(table_id=table_id)) for _ in range(3)]
                table = server.registry.get(table_id)
                seat = table.game.to_act
                assert seat is not None and joined[seat].seat == seat
                action = table.adapter.action_to_proto(table.adapter.turn_actions(table.game, seat)[0])
                request = pb.SubmitActionRequest(table_id=table_id, request_id="r1", action=action)
                md = token_md(joined[seat].seat_token)
                before = (table.sequence, len(table.log), stored_records(db))

                with monkeypatch.context() as broken:
                    broken.setattr(server.store, "_execute", failing("disk I/O error"))
                    info = await expect_error(
                        stub.SubmitAction(request, metadata=md),
                        "STORE_UNAVAILABLE",
                        grpc.StatusCode.UNAVAILABLE,
                    )
                    assert info.reason == "STORE_UNAVAILABLE"
                    assert (table.sequence, len(table.log), stored_records(db)) == before
                    assert table.game.to_act == seat
                    described = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
                    assert described.table.sequence == before[0]
                    await expect_error(
                        stub.CreateTable(thousand_table()), "STORE_UNAVAILABLE", grpc.StatusCode.UNAVAILABLE
                    )
                    assert len(server.registry) == 1
                    other = server.registry.all()[0]
                    assert other is table

                reply = await stub.SubmitAction(request, metadata=md)  # the same request, now stored
                assert reply.sequence > before[0]
                assert stored_records(db) > before[2]
        finally:
            await server.stop(grace=0.2)

    run(scenario())


def test_a_join_the_store_cannot_commit_leaves_the_seat_open(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, db=db))
        await server.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                table_id = (await stub.CreateTable(thousand_table())).table.table_id
                with monkeypatch.context() as broken:
                    broken.setattr(server.store, "_execute", failing("database or disk is full"))
                    await expect_error(
                        stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0)),
                        "STORE_UNAVAILABLE",
                        grpc.StatusCode.UNAVAILABLE,
                    )
                described = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
                assert described.table.open_seats == 3 and described.table.sequence == 0
                joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0))
                assert joined.seat == 0
        finally:
            await server.stop(grace=0.2)

    run(scenario())


def test_the_bots_wait_for_a_failing_store_and_go_on_once_it_works(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bots_module, "STORE_RETRY_SECONDS", 0.02)

    async def scenario() -> None:
        store = open_store(db)
        (table,) = await bot_tables(Registry(store), 1)
        sequence = table.sequence
        with monkeypatch.context() as broken:
            broken.setattr(store, "_execute", failing("disk I/O error"))
            table.ensure_bots_running()
            await asyncio.sleep(0.2)
            assert table.sequence == sequence  # no move made while none can be stored
            assert table.bots.task is not None and not table.bots.task.done()  # still trying
        await until(lambda: table.sequence > sequence + 10)
        assert table.bots.task is not None
        table.bots.task.cancel()
        await asyncio.gather(table.bots.task, return_exceptions=True)
        store.close()

    run(scenario())


async def finished_bot_table(registry: Registry) -> Table:
    table = await registry.create(Rules(), BOTS, seed=1, first_dealer=0)
    while (seat := bot_to_act(table)) is not None:
        await play_bot(table, seat)
    assert table.finished
    return table


def test_restore_leaves_finished_tables_older_than_the_idle_time_in_the_store(tmp_path: Path) -> None:
    db = tmp_path / "r.db"

    async def play() -> tuple[str, str]:
        store = open_store(db)
        registry = Registry(store)
        finished = await finished_bot_table(registry)
        playing = await registry.create(Rules(), [SeatSpec(bot=False)] * 3, seed=2, first_dealer=0)
        store.close()
        return finished.table_id, playing.table_id

    finished_id, playing_id = run(play())
    stored = open_store(db).get(finished_id)
    assert stored is not None and stored.finish_time is not None
    assert abs(stored.finish_time - time.time()) < 60

    def restored(idle_seconds: float, later: float) -> tuple[set[str], Registry]:
        registry = Registry(open_store(db))
        registry.restore(idle_seconds, now=time.time() + later)
        return {t.table_id for t in registry.all()}, registry

    assert restored(10, later=1)[0] == {finished_id, playing_id}  # finished within the idle time: kept
    assert restored(0, later=3600)[0] == {finished_id, playing_id}  # 0: tables never expire
    ids, registry = restored(10, later=60)
    assert ids == {playing_id}
    assert registry.left_in_store == 1
    new = run(registry.create(Rules(), BOTS, seed=3, first_dealer=0))
    assert new.serial == 3  # after the table left in the store, too
    stored = open_store(db).get(finished_id)  # still there, for thousand-export
    assert stored is not None and stored.records


def test_restore_notes_the_finish_of_a_table_stored_without_it(tmp_path: Path) -> None:
    """A database from before finish times: its finished tables are replayed once, noted finished as of that
    restart, and left in the store by restarts after the idle time."""
    db = tmp_path / "o.db"

    async def play() -> str:
        store = open_store(db)
        table = await finished_bot_table(Registry(store))
        store.close()
        return table.table_id

    table_id = run(play())
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE tables SET finished = 0, finish_time = NULL")
    store = open_store(db)
    registry = Registry(store)
    restart = time.time()
    assert registry.restore(10, now=restart) == 1
    store.close()  # commits the note
    stored = open_store(db).get(table_id)
    assert stored is not None and stored.finish_time == restart
    registry = Registry(open_store(db))
    assert registry.restore(10, now=restart + 11) == 0


def test_a_table_the_server_dropped_as_idle_is_not_restored(tmp_path: Path) -> None:
    """An abandoned game (nobody streams, nobody acts) that the running server expired stays in the store on
    a restart instead of coming back, however many restarts follow; one still in memory is restored."""
    db = tmp_path / "e.db"

    async def play() -> tuple[str, str]:
        store = open_store(db)
        registry = Registry(store)
        abandoned = await registry.create(Rules(), [SeatSpec(bot=False)] * 3, seed=4, first_dealer=0)
        await abandoned.join(0, "ann")
        kept = await registry.create(Rules(), [SeatSpec(bot=False)] * 3, seed=5, first_dealer=0)
        abandoned.last_activity -= 100  # idle for longer than the idle time; ``kept`` was just used
        assert [t.table_id for t, _ in registry.expire(10)] == [abandoned.table_id]
        store.close()  # commits the expiry note
        return abandoned.table_id, kept.table_id

    abandoned_id, kept_id = run(play())
    for _ in range(2):
        registry = Registry(open_store(db))
        assert registry.restore(10) == 1
        assert {t.table_id for t in registry.all()} == {kept_id}
        assert registry.left_in_store == 1
    stored = open_store(db).get(abandoned_id)  # its records stay, for export
    assert stored is not None and [r.kind for r in stored.records] == ["join"]
    registry = Registry(open_store(db))
    assert registry.restore(0) == 2  # idle time 0: tables never expire, every one is rebuilt


def test_finish_times_are_read_for_many_tables_without_their_records(db: str) -> None:
    """A player's history learns which games ended from one query (Store.finish_times), on both stores."""

    async def scenario() -> None:
        store = open_store(db)
        try:
            registry = Registry(store)
            playing, ended = await bot_tables(registry, 2)
            await one_bot_move(playing)
            async with ended.lock:
                await ended.stop(StopReason.CLOSED_BY_OPERATOR, "closed")
            await until(lambda: store.finish_times([ended.table_id])[ended.table_id] is not None)
            times = store.finish_times([playing.table_id, ended.table_id, "000000000000"])
            assert set(times) == {playing.table_id, ended.table_id}  # a table not stored is absent
            assert times[playing.table_id] is None
            assert abs(time.time() - (times[ended.table_id] or 0)) < 60
            assert store.finish_times([]) == {}
        finally:
            store.close()

    run(scenario())
