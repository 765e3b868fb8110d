"""Issue 21, items 1 and 2: a stream that does not read cannot grow the server's memory, and a resume of a
long history neither freezes the server nor escapes the stream's bound. Each test attacks a real in-process
server over the contract and reads the bound from outside: statuses, results and the server's metrics."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc import aio

from tests.test_limits_requests import TwoClients, two_clients
from tests.test_play import action, start
from tests.test_server import error_info, run, thousand_table, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

PLAY = "/thousand.v1.TableService/Play"
NOT_READ = 20_000
"""Actions a client sends on a Play stream that never reads (issue 21: 600,000 grew the server by 170 MB)."""

SMALL_WINDOW = [("grpc.http2.bdp_probe", 0)]
"""A client whose receive window stays at HTTP/2's 64 KiB: gRPC grows it (BDP probing) to megabytes on a
fast link, which only takes longer to fill."""


PlayCall = aio.StreamStreamMultiCallable[pb.PlayRequest, pb.PlayResponse]


def play_method(channel: aio.Channel) -> PlayCall:
    method: PlayCall = channel.stream_stream(
        PLAY,
        request_serializer=pb.PlayRequest.SerializeToString,
        response_deserializer=pb.PlayResponse.FromString,
    )
    return method


async def seated_table(stub: pb_grpc.TableServiceAsyncStub) -> tuple[str, list[str]]:
    table_id = (await stub.CreateTable(thousand_table())).table.table_id
    tokens = [(await stub.JoinTable(pb.JoinTableRequest(table_id=table_id))).seat_token for _ in range(3)]
    return table_id, tokens


def test_a_spectators_play_stream_ends_at_its_first_action() -> None:
    async def scenario() -> None:
        async with two_clients() as c, aio.insecure_channel(f"127.0.0.1:{c.server.port}") as channel:
            table_id, _ = await seated_table(c.tcp)
            call = play_method(channel)()
            await call.write(start(table_id))
            first = await call.read()
            assert isinstance(first, pb.PlayResponse) and first.HasField("update")
            await call.write(action("w1", pb.Action()))
            await call.write(action("w2", pb.Action()))
            results = []
            with pytest.raises(aio.AioRpcError) as ended:
                async with asyncio.timeout(30):  # before: the stream went on, reading every action
                    while isinstance(response := await call.read(), pb.PlayResponse):
                        if response.HasField("result"):
                            results.append(response.result)
            assert [r.request_id for r in results] == ["w1"]  # w2 was never read
            assert results[0].refusal.reason == "SPECTATOR_CANNOT_ACT"
            assert ended.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert error_info(ended.value).reason == "SPECTATOR_CANNOT_ACT"
            metrics = await c.metrics()
            assert metrics.value("thousand_limit_refusals_total", limit="play_spectator_action") == 1

    run(scenario())


def test_a_seats_play_stream_that_does_not_read_is_held_back() -> None:
    """The server stops taking the client's actions while their results wait unread: the number of actions
    it read stops growing far below the number sent, and once the client reads, every result arrives, in
    order."""

    async def scenario() -> None:
        async with (
            two_clients(rate_limit=0) as c,
            aio.insecure_channel(f"127.0.0.1:{c.server.port}", options=SMALL_WINDOW) as channel,
        ):
            table_id, tokens = await seated_table(c.tcp)
            call = play_method(channel)(metadata=token_md(tokens[0]))
            await call.write(start(table_id))
            written = 0

            async def write() -> None:
                nonlocal written
                for i in range(NOT_READ):
                    await call.write(action(f"{i:0128d}", pb.Action()))  # refused: an empty action
                    written += 1
                await call.done_writing()

            writer = asyncio.create_task(write())
            read = await received(c)
            for _ in range(50):  # until the server stops reading (gRPC's windows are full)
                await asyncio.sleep(0.2)
                now = await received(c)
                if now == read:
                    break
                read = now
            assert read < NOT_READ / 4, read
            assert written < NOT_READ
            results: list[str] = []
            async for response in call:
                if response.HasField("result"):
                    results.append(response.result.request_id)
                    assert response.result.refusal.reason == "INVALID_ARGUMENT"
                if len(results) == NOT_READ:
                    break
            await writer
            assert results == [f"{i:0128d}" for i in range(NOT_READ)]
            call.cancel()

    run(scenario())


async def received(c: TwoClients) -> float:
    """Play requests the server has read so far."""
    metrics = await c.metrics()
    return float(
        metrics.value(
            "grpc_server_msg_received_total",
            grpc_type="BIDI_STREAM",
            grpc_service="thousand.v1.TableService",
            grpc_method="Play",
        )
    )
