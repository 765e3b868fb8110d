"""Expiry of idle tables (``--table-idle-seconds``): a table with no open stream and no action for the idle
time leaves memory (ListTables, GetTable), its stored records staying; a streamed or played table stays."""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import grpc
import pytest
from grpc import aio

from server.app import Server
from server.settings import Settings, parse_settings
from server.store_select import open_store
from tests import in_process
from tests.server_harness import expect_error, run, thousand_table, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

IDLE = 0.3
"""The idle time of these tests; the sweep runs every IDLE / 4."""


def serving(
    db: str = ":memory:",
) -> AbstractAsyncContextManager[tuple[Server, pb_grpc.TableServiceAsyncStub]]:
    """An in-process server that expires tables after IDLE seconds."""
    return in_process.serving(db, table_idle_seconds=IDLE)


async def listed(stub: pb_grpc.TableServiceAsyncStub) -> set[str]:
    response = await stub.ListTables(pb.ListTablesRequest(page_size=100))
    return {t.table_id for t in response.tables}


async def gone(stub: pb_grpc.TableServiceAsyncStub, table_id: str, timeout: float = 10.0) -> bool:
    """Whether GetTable says TABLE_NOT_FOUND within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            await stub.GetTable(pb.GetTableRequest(table_id=table_id))
        except aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND, error
            return True
        await asyncio.sleep(0.05)
    return False


def test_an_abandoned_table_expires_and_its_records_stay(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = str(tmp_path / "t.db")

    async def scenario() -> None:
        async with serving(db) as (server, stub):
            created = await stub.CreateTable(thousand_table())
            table_id = created.table.table_id
            assert table_id in await listed(stub)
            assert await gone(stub, table_id)
            assert table_id not in await listed(stub)
            await expect_error(
                stub.GetTable(pb.GetTableRequest(table_id=table_id)),
                "TABLE_NOT_FOUND",
                grpc.StatusCode.NOT_FOUND,
            )
            assert len(server.registry) == 0

    with caplog.at_level(logging.INFO, logger="thousand.server"):
        run(scenario())
    assert any("table expired" in r.getMessage() for r in caplog.records), caplog.text
    store = open_store(db)
    try:
        assert len(list(store.tables())) == 1  # kept for thousand-export
    finally:
        store.close()


def test_a_table_with_an_open_stream_does_not_expire() -> None:
    async def scenario() -> None:
        async with serving() as (_, stub):
            created = await stub.CreateTable(thousand_table())
            table_id = created.table.table_id
            call = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id))
            first = await asyncio.wait_for(call.read(), 10)
            assert isinstance(first, pb.StreamEventsResponse) and first.HasField("snapshot")
            await asyncio.sleep(IDLE * 4)
            described = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
            assert described.table.table_id == table_id
            assert table_id in await listed(stub)
            call.cancel()  # idle from the stream's end on
            assert await gone(stub, table_id)

    run(scenario())


def test_a_table_with_recent_actions_does_not_expire() -> None:
    async def scenario() -> None:
        async with serving() as (server, stub):
            created = await stub.CreateTable(thousand_table(bots=2))
            table_id = created.table.table_id
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0, player_name="p"))
            table = server.registry.get(table_id)
            acted = 0
            deadline = time.monotonic() + IDLE * 4
            while time.monotonic() < deadline:  # no stream: the player acts every 0.1 s or so, and the bots
                await asyncio.sleep(0.1)
                if table.game.to_act != 0:
                    continue
                action = table.adapter.turn_actions(table.game, 0)[0]
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=table_id,
                        request_id=f"r{acted}",
                        action=table.adapter.action_to_proto(action),
                    ),
                    metadata=token_md(joined.seat_token),
                )
                acted += 1
            assert acted >= 3
            described = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
            assert described.table.status == pb.TABLE_STATUS_PLAYING
            assert await gone(stub, table_id)  # abandoned from now on

    run(scenario())


def test_a_finished_table_is_dropped_after_the_idle_time() -> None:
    async def scenario() -> None:
        async with serving() as (_, stub):
            created = await stub.CreateTable(thousand_table(bots=3))
            table_id = created.table.table_id
            # While its bots play the table is in use; once the game is over it idles, then goes.
            assert await gone(stub, table_id, timeout=60)

    run(scenario())


def test_the_idle_time_setting() -> None:
    assert parse_settings([], {}).table_idle_seconds == 86_400
    assert parse_settings([], {"THOUSAND_TABLE_IDLE_SECONDS": "0"}).table_idle_seconds == 0
    settings = parse_settings(["--table-idle-seconds", "2"], {"THOUSAND_TABLE_IDLE_SECONDS": "9"})
    assert settings.table_idle_seconds == 2
    assert settings.sweep_seconds == 0.5
    assert Settings().sweep_seconds == 60
    with pytest.raises(SystemExit):
        parse_settings(["--table-idle-seconds", "-1"], {})


def test_zero_never_expires() -> None:
    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, table_idle_seconds=0))
        await server.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                created = await stub.CreateTable(thousand_table())
                await asyncio.sleep(0.3)
                assert created.table.table_id in await listed(stub)
        finally:
            await server.stop(grace=0.2)

    run(scenario())
