"""Calls that are safe to retry, game records over the wire, and connections that die silently.

CreateTable with a ``request_id`` and JoinTable with a client-chosen ``seat_token`` can be retried after a
lost reply without creating a second table or taking a second seat, also across a restart of the server on
the same database. ExportTable returns a finished table's game record (the ``thousand-export`` JSON), which
replays exactly; a table still in play is refused with TABLE_NOT_FINISHED. ``thousand export`` fetches it.
"""

from __future__ import annotations

import asyncio
import io
import json
import secrets
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc import aio
from grpc_status import rpc_status

from clients.cli.main import main as thousand_main
from codec import thousand as codec
from engine import Rules
from server.app import Server
from server.export import replay
from server.settings import Settings, parse_settings
from tests.cli_harness import Proxy
from tests.in_process import serving
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

T = TypeVar("T")
SHORT = Rules(barrel_at=0)


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(coro, 120)

    return asyncio.run(main())


def reason_of(error: aio.AioRpcError) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return error.code(), info.reason, dict(info.metadata)


def create_request(request_id: str = "", bots: int = 2) -> pb.CreateTableRequest:
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] * (3 - bots)
    seats += [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")] * bots
    return pb.CreateTableRequest(
        game=pb.GAME_KIND_THOUSAND,
        rules=pb.Rules(thousand=codec.rules_to_proto(SHORT)),
        seats=seats,
        seed=11,
        practice=True,
        first_dealer=0,
        request_id=request_id,
    )


def test_a_retried_create_table_returns_the_same_table_also_after_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "tables.db")

    async def scenario() -> None:
        async with serving(db) as (server, stub):
            first = (await stub.CreateTable(create_request("create-1"))).table
            again = (await stub.CreateTable(create_request("create-1"))).table
            assert again.table_id == first.table_id
            other = (await stub.CreateTable(create_request("create-2"))).table
            plain = [(await stub.CreateTable(create_request(""))).table for _ in range(2)]
            assert len({first.table_id, other.table_id, *(t.table_id for t in plain)}) == 4
            assert len(server.registry) == 4
            # Retries racing the first call (still waiting for its commit) get the same table too.
            racing = await asyncio.gather(*(stub.CreateTable(create_request("create-3")) for _ in range(5)))
            assert len({r.table.table_id for r in racing}) == 1
            assert len(server.registry) == 5
        async with serving(db) as (server, stub):
            assert len(server.registry) == 5
            again = (await stub.CreateTable(create_request("create-1"))).table
            assert again.table_id == first.table_id
            assert len(server.registry) == 5

    run(scenario())


def test_create_table_refuses_an_overlong_request_id() -> None:
    async def scenario() -> None:
        async with serving() as (server, stub):
            with pytest.raises(aio.AioRpcError) as error:
                await stub.CreateTable(create_request("x" * 65))
            assert reason_of(error.value) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_ARGUMENT",
                {"field": "request_id"},
            )
            assert len(server.registry) == 0

    run(scenario())


def test_a_retried_join_with_the_clients_token_gets_the_same_seat_also_after_a_restart(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "tables.db")
    token = secrets.token_urlsafe(32)

    async def scenario() -> None:
        async with serving(db) as (_, stub):
            table = (await stub.CreateTable(create_request(bots=1))).table
            join = pb.JoinTableRequest(table_id=table.table_id, player_name="ann", seat_token=token)
            first = await stub.JoinTable(join)
            assert first.seat_token == token and first.table.open_seats == 1
            again = await stub.JoinTable(join)  # the retry of a join whose reply was lost
            assert (again.seat, again.seat_token) == (first.seat, token)
            assert again.table.open_seats == 1  # no second seat taken
            # The token acts for the seat: it opens the seat's own stream.
            stream = stub.StreamEvents(
                pb.StreamEventsRequest(table_id=table.table_id), metadata=(("x-seat-token", token),)
            )
            snapshot = await anext(aiter(stream))
            assert snapshot.snapshot.view.thousand.viewer == first.seat
            stream.cancel()
        async with serving(db) as (_, stub):
            again = await stub.JoinTable(join)
            assert (again.seat, again.seat_token) == (first.seat, token)
            assert again.table.open_seats == 1
            other = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            assert other.seat != first.seat and other.seat_token != token
            assert other.table.open_seats == 0

    run(scenario())


@pytest.mark.parametrize(
    "token", ["short", "x" * 129, "has space" + "x" * 30, "ünïcode" + "x" * 30, "a" * 64, "ab" * 20]
)
def test_join_refuses_a_seat_token_that_is_not_a_long_url_safe_string(token: str) -> None:
    async def scenario() -> None:
        async with serving() as (server, stub):
            table = (await stub.CreateTable(create_request(bots=1))).table
            with pytest.raises(aio.AioRpcError) as error:
                await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, seat_token=token))
            assert reason_of(error.value) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_ARGUMENT",
                {"field": "seat_token"},
            )
            assert server.registry.get(table.table_id).open_seats() == 2

    run(scenario())


async def finished_table(stub: pb_grpc.TableServiceAsyncStub) -> str:
    """A table of three greedy bots, played to the end."""
    table = (await stub.CreateTable(create_request(bots=3))).table
    while (
        await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))
    ).table.status != pb.TABLE_STATUS_FINISHED:
        await asyncio.sleep(0.05)
    return table.table_id


def test_export_table_returns_a_finished_games_record_that_replays_exactly() -> None:
    async def scenario() -> None:
        async with serving() as (server, stub):
            table_id = await finished_table(stub)
            record = json.loads(
                (await stub.ExportTable(pb.ExportTableRequest(table_id=table_id))).record_json
            )
            assert record["format"] == "thousand.game-record/1" and record["finished"]
            assert record["table_id"] == table_id and record["winner"] is not None
            replayed = replay(record)
            assert replayed.winner == record["winner"]
            # Still there once the table has left the server's memory (expiry): read from the store.
            server.registry.expire(0.0, now=float("inf"))
            assert server.registry.find(table_id) is None
            again = await stub.ExportTable(pb.ExportTableRequest(table_id=table_id))
            assert json.loads(again.record_json) == record

    run(scenario())


def test_export_table_refuses_a_game_in_play_and_an_unknown_table() -> None:
    async def scenario() -> None:
        async with serving() as (_, stub):
            table = (await stub.CreateTable(create_request(bots=2))).table
            with pytest.raises(aio.AioRpcError) as error:
                await stub.ExportTable(pb.ExportTableRequest(table_id=table.table_id))
            assert reason_of(error.value)[:2] == (grpc.StatusCode.FAILED_PRECONDITION, "TABLE_NOT_FINISHED")
            with pytest.raises(aio.AioRpcError) as error:
                await stub.ExportTable(pb.ExportTableRequest(table_id="nope"))
            assert reason_of(error.value)[:2] == (grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
            with pytest.raises(aio.AioRpcError) as error:
                await stub.ExportTable(pb.ExportTableRequest())
            assert reason_of(error.value) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_ARGUMENT",
                {"field": "table_id"},
            )

    run(scenario())


def test_thousand_export_writes_the_record(tmp_path: Path) -> None:
    out = tmp_path / "game.json"

    async def scenario() -> tuple[str, str]:
        async with serving() as (server, stub):
            table_id = await finished_table(stub)
            address = f"127.0.0.1:{server.port}"
            printed = io.StringIO()
            code = await asyncio.to_thread(
                thousand_main, ["export", table_id, "--server", address, "--out", str(out)], None, printed
            )
            assert code == 0
            assert f"Wrote the game record of table {table_id}" in printed.getvalue()
            expected = (await stub.ExportTable(pb.ExportTableRequest(table_id=table_id))).record_json
            return table_id, expected

    table_id, expected = run(scenario())
    written = out.read_text(encoding="utf-8")
    assert json.loads(written) == json.loads(expected)  # the same record, indented for people
    assert written.startswith('{\n  "format": "thousand.game-record/1"')
    assert json.loads(expected)["table_id"] == table_id


def test_the_server_closes_a_connection_whose_peer_stopped_answering() -> None:
    """Keepalive: a seat's stream on a connection that went silent (no FIN: the proxy swallows everything) is
    ended by the server's pings going unanswered, which frees the stream."""

    async def scenario() -> None:
        server = Server(
            Settings(host="127.0.0.1", port=0, keepalive_seconds=1.0, keepalive_timeout_seconds=1.0)
        )
        await server.start()
        proxy = Proxy(f"127.0.0.1:{server.port}")
        await proxy.start()
        try:
            async with aio.insecure_channel(proxy.address) as channel:
                stub = pb_grpc.TableServiceStub(channel)
                table = (await stub.CreateTable(create_request(bots=2))).table
                joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
                stream = stub.StreamEvents(
                    pb.StreamEventsRequest(table_id=table.table_id),
                    metadata=(("x-seat-token", joined.seat_token),),
                )
                await anext(aiter(stream))
                live = server.registry.get(table.table_id)
                assert [audience for audience, _ in live.stream_queue_depths()] == [joined.seat]
                proxy.frozen = True
                deadline = asyncio.get_running_loop().time() + 15
                while live.stream_queue_depths():
                    assert asyncio.get_running_loop().time() < deadline, "the silent stream was never ended"
                    await asyncio.sleep(0.1)
                stream.cancel()
        finally:
            await proxy.stop()
            await server.stop(grace=0.2)

    run(scenario())


def test_keepalive_settings() -> None:
    options = dict(Settings(keepalive_seconds=120).grpc_options)
    assert options["grpc.keepalive_time_ms"] == 120_000
    assert options["grpc.http2.min_ping_interval_without_data_ms"] <= 30_000  # the client pings every 30 s
    assert "grpc.keepalive_time_ms" not in dict(Settings(keepalive_seconds=0).grpc_options)
    assert parse_settings(["--keepalive-seconds", "0"], env={}).keepalive_seconds == 0
    assert parse_settings([], env={"THOUSAND_KEEPALIVE_SECONDS": "30"}).keepalive_seconds == 30
    with pytest.raises(SystemExit):
        parse_settings(["--keepalive-seconds", "2"], env={})
