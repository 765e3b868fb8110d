"""Issue 21, items 1 and 2: a stream that does not read cannot grow the server's memory, and a resume of a
long history neither freezes the server nor escapes the stream's bound. Each test attacks a real in-process
server over the contract and reads the bound from outside: statuses, results and the server's metrics."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest
from grpc import aio

from server.rendering import MAX_BATCH
from tests.live_server import LiveServer, live_server
from tests.server_harness import error_info, run, thousand_table, token_md
from tests.test_limits_requests import TwoClients, two_clients
from tests.test_play import action, start
from tests.test_rate_limits import retry_delay
from thousand.v1 import blagogo_rules_pb2 as bg_rules
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


# ------------------------------------------------------------------------------------- item 2: resumes


async def long_history(stub: pb_grpc.TableServiceAsyncStub, target: int = 2500) -> tuple[str, int]:
    """A finished table of eight 1000 Blagogo bots with a history of thousands of events."""
    rules = pb.Rules(blagogo=bg_rules.BlagogoRules(players=8, target=target))
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random")] * 8
    request = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, rules=rules, seats=seats, seed=5)
    table_id = (await stub.CreateTable(request)).table.table_id
    async with asyncio.timeout(120):
        while True:
            table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            if table.status == pb.TABLE_STATUS_FINISHED:
                return table_id, table.sequence
            await asyncio.sleep(0.2)


async def read_history(stub: pb_grpc.TableServiceAsyncStub, table_id: str) -> int:
    """Read a finished table's whole history from sequence 0; the last sequence number received."""
    last = 0
    async for message in stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=0)):
        assert message.sequence == last + 1  # gap-free, in order
        last = message.sequence + len(message.more_events)
    return last


async def worst_latency(stub: pb_grpc.TableServiceAsyncStub, table_id: str, done: asyncio.Event) -> float:
    """A bystander's GetTable every 2 ms until ``done``: its worst latency in seconds."""
    worst = 0.0
    while not done.is_set():
        began = time.perf_counter()
        await stub.GetTable(pb.GetTableRequest(table_id=table_id))
        worst = max(worst, time.perf_counter() - began)
        await asyncio.sleep(0.002)
    return worst


def test_resumes_of_a_long_history_do_not_freeze_the_server() -> None:
    """Before: a resume from 0 rendered the whole history at once (392 ms for 9,499 events) and 20 at
    once froze the server for 6.4 s. Now history is sent a part at a time: while 20 resumes read it, a
    bystander's worst wait stays under twice what one whole resume alone takes (before: about five times or
    more), as the server goes on serving between parts."""

    async def scenario() -> None:
        async with two_clients(rate_limit=0) as c:
            table_id, events = await long_history(c.tcp)
            assert events > 3000
            bystander_table = (await c.unix.CreateTable(thousand_table())).table.table_id
            began = time.perf_counter()
            assert await read_history(c.tcp, table_id) == events
            alone = time.perf_counter() - began  # the reference, under the same load as what follows
            done = asyncio.Event()
            watching = asyncio.create_task(worst_latency(c.unix, bystander_table, done))
            began = time.perf_counter()
            lasts = await asyncio.gather(*(read_history(c.tcp, table_id) for _ in range(20)))
            took = time.perf_counter() - began
            done.set()
            worst = await watching
            assert lasts == [events] * 20
            # Before: the 20 histories were rendered one after the other while everyone waited: the
            # bystander's worst wait was about 20 renders, five times one whole resume or more.
            assert worst < 2 * alone, (
                f"one resume {alone:.2f} s, 20 in {took:.2f} s, bystander's worst {worst:.2f} s"
            )

    run(scenario())


def test_resumes_count_against_the_clients_rate() -> None:
    """A resume costs one request per part of its history (MAX_BATCH events): a client cannot ask for the
    whole history again and again, on StreamEvents or Play."""

    async def scenario() -> None:
        async with two_clients(rate_limit=5, rate_burst=10) as c:
            table_id, events = await long_history(c.unix, target=700)
            assert events > 10 * MAX_BATCH, events  # a resume costs the whole burst
            assert await read_history(c.tcp, table_id) == events
            stream = c.tcp.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=0))
            with pytest.raises(aio.AioRpcError) as caught:
                await stream.read()
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_info(caught.value).reason == "RATE_LIMITED"
            assert 0 < retry_delay(caught.value) <= 20
            async with aio.insecure_channel(f"127.0.0.1:{c.server.port}") as channel:
                call = play_method(channel)()
                await call.write(start(table_id, after=0))
                with pytest.raises(aio.AioRpcError) as caught:
                    await call.read()
                assert error_info(caught.value).reason == "RATE_LIMITED"
            assert await read_history(c.unix, table_id) == events  # another client's budget
            # A snapshot and a resume with nothing missed cost nothing.
            latest = c.tcp.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=events))
            message = await latest.read()
            assert isinstance(message, pb.StreamEventsResponse) and message.sequence == events
            metrics = await c.metrics()
            assert metrics.value("thousand_limit_refusals_total", limit="rate") == 2

    run(scenario())


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_unread_resumes_hold_one_part_of_the_history_each(tmp_path: Path) -> None:
    """Before: 300 resumes of a 4,807-event table that did not read held 53 MB of rendered history beyond
    the stream bound. Now each holds the part being sent: a real server process's memory barely grows."""
    streams = 150

    async def scenario(server: LiveServer) -> tuple[int, float]:
        async with aio.insecure_channel(server.address) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            table_id, events = await long_history(stub)
            await asyncio.sleep(0.5)
            assert server.process is not None
            before = rss_mb(server.process.pid)
            async with aio.insecure_channel(server.address, options=SMALL_WINDOW) as slow:
                quiet = pb_grpc.TableServiceStub(slow)
                request = pb.StreamEventsRequest(table_id=table_id, after_sequence=0)
                calls = [quiet.StreamEvents(request) for _ in range(streams)]
                for call in calls:
                    await call.read()  # started: the server has begun sending its history
                await asyncio.sleep(1.0)
                grown = rss_mb(server.process.pid) - before
                for call in calls:
                    call.cancel()
            return events, grown

    with live_server(tmp_path, ":memory:", "--rate-limit", "0") as server:
        events, grown = run(scenario(server))
    assert events > 3000
    assert grown < 20, f"{streams} unread resumes of {events} events: the server grew {grown:.1f} MB"
