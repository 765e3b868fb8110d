"""The attacks on streams: ``unread`` (a Play stream that sends without reading) and ``resume``
(StreamEvents from sequence 0 of a long history: alone, many at once, and many unread)."""

from __future__ import annotations

import asyncio
import time

from grpc import aio

from bench.attacks_shared import (
    SMALL_WINDOW,
    Figures,
    Run,
    bot,
    bystander,
    code_of,
    play_action,
    play_call,
    reason_of,
    seated,
    start,
    while_bystanding,
)
from thousand.v1 import blagogo_rules_pb2 as bg_rules
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

# ------------------------------------------------------------------------------------------------ 1 unread


async def unread(run: Run) -> Figures:
    """Issue: a Play stream sending 600,000 actions without reading grew RSS from 60 to 230 MB."""
    async with run.server() as served, served.channel(SMALL_WINDOW) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        table_id, tokens = await seated(stub, pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND))
        before = served.rss_mb()
        call = play_call(channel, tokens[0])
        await call.write(start(table_id))
        sent = 0
        ends = time.monotonic() + run.seconds(15)
        try:
            while sent < run.sized(600_000) and time.monotonic() < ends:
                await asyncio.wait_for(call.write(play_action(f"{sent:0128d}")), 2.0)
                sent += 1
        except TimeoutError:
            pass  # the server stopped reading: the client's writes block
        await asyncio.sleep(1.0)
        grown = round(served.rss_mb() - before, 1)
        labels = {"grpc_method": "Play", "grpc_type": "BIDI_STREAM"}
        read = int(await asyncio.to_thread(served.metric, "grpc_server_msg_received_total", **labels))
        call.cancel()
        spectator = play_call(channel, None)
        await spectator.write(start(table_id))
        refusals, ended = 0, "still open after 10 s"

        async def watch_and_act() -> None:
            for i in range(run.sized(2000)):
                await spectator.write(play_action(f"w{i}"))

        acting = asyncio.create_task(watch_and_act())
        try:
            async with asyncio.timeout(10):
                while isinstance(response := await spectator.read(), pb.PlayResponse):
                    refusals += response.HasField("result")
        except aio.AioRpcError:
            # The server ends it with SPECTATOR_CANNOT_ACT; grpc-python's client reports INTERNAL instead
            # when its own writes fail on the ended call first.
            ended = "ended"
        except TimeoutError:
            pass
        acting.cancel()
        await asyncio.gather(acting, return_exceptions=True)  # its writes fail once the call ended
        spectator.cancel()
    return {
        "seat_actions_sent": sent,
        "server_read": read,
        "server_rss_growth_mb": grown,
        "spectator_refusals_sent_back": refusals,
        "spectator_stream": ended,
    }


# ------------------------------------------------------------------------------------------------ 2 resume


async def long_history(stub: pb_grpc.TableServiceAsyncStub, run: Run) -> tuple[str, int]:
    """A finished table of eight random 1000 Blagogo bots with a long history (the issue's had 9,499)."""
    # Seed 7 to 2,500: about 10,700 events, a game that ends on both sides of the limits (some seeds play a
    # round whose cards left are all dead, which never ends).
    rules = pb.Rules(blagogo=bg_rules.BlagogoRules(players=8, target=run.sized(2500, least=100)))
    request = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, rules=rules, seats=[bot("random")] * 8, seed=7)
    table_id = (await stub.CreateTable(request)).table.table_id
    ends = time.monotonic() + 180
    while time.monotonic() < ends:
        table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
        if table.status == pb.TABLE_STATUS_FINISHED:
            return table_id, table.sequence
        await asyncio.sleep(0.5)
    raise SystemExit("bench: the history table did not finish within 180 s")


async def read_history(channel: aio.Channel, table_id: str) -> float:
    """Milliseconds to read a finished table's whole history from sequence 0 (as bytes: the client's
    parsing would otherwise be slower than the server's sending)."""
    method: aio.UnaryStreamMultiCallable[pb.StreamEventsRequest, bytes] = channel.unary_stream(
        "/thousand.v1.TableService/StreamEvents", request_serializer=pb.StreamEventsRequest.SerializeToString
    )
    began = time.perf_counter()
    async for _ in method(pb.StreamEventsRequest(table_id=table_id, after_sequence=0)):
        pass
    return (time.perf_counter() - began) * 1000


async def resumes_refused(run: Run, many: int) -> str:
    """Of ``many`` resumes of the whole history at once from one client, with the server's default limits:
    how many were refused, and why."""
    async with run.server() as served, served.channel() as channel:
        table_id, _ = await long_history(pb_grpc.TableServiceStub(channel), run)
        outcomes = await asyncio.gather(
            *(read_history(channel, table_id) for _ in range(many)), return_exceptions=True
        )
        refused = [reason_of(o) for o in outcomes if isinstance(o, aio.AioRpcError)]
        return f"{len(refused)} of {many}" + (f" ({refused[0]})" if refused else "")


async def resume(run: Run) -> Figures:
    """Issue: one resume of 9,499 events stalled others for 392 ms, 20 froze the server for 6.4 s, 300 unread
    resumes of 4,807 events held 53 MB beyond the stream bound. Measured without a rate limit (the 20 on one
    connection), then how many of 20 resumes at once one client gets with the default limits."""
    async with run.server("--rate-limit", "0") as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        table_id, events = await long_history(stub, run)
        idle = await bystander(served, 1.5)
        one, one_ms = await while_bystanding(served, 2.5, read_history(channel, table_id))
        many = run.sized(20, least=2)
        twenty, _ = await while_bystanding(
            served, 8.0, asyncio.gather(*(read_history(channel, table_id) for _ in range(many)))
        )
        before = served.rss_mb()
        async with served.channel(SMALL_WINDOW) as slow:
            quiet = pb_grpc.TableServiceStub(slow)
            calls = [
                quiet.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=0))
                for _ in range(run.sized(100, least=3))
            ]
            failed: dict[str, int] = {}
            for call in calls:
                try:
                    await call.wait_for_connection()
                except aio.AioRpcError as error:
                    failed[code_of(error)] = failed.get(code_of(error), 0) + 1
            await asyncio.sleep(3.0)
            held = round(served.rss_mb() - before, 1)
            for call in calls:
                call.cancel()
    limited = await resumes_refused(run, many)
    return {
        "events": events,
        "idle_p50_ms": idle["p50_ms"],
        "one_resume_ms": round(one_ms, 1),
        "one_bystander_p99_max_ms": f"{one['p99_ms']} {one['max_ms']}",
        f"{many}_resumes_bystander_p50_p99_max_ms": " ".join(
            str(twenty[k]) for k in ("p50_ms", "p99_ms", "max_ms")
        ),
        f"{len(calls)}_unread_resumes_rss_mb": held,
        "unread_resumes_failed": failed or 0,
        f"{many}_resumes_at_once_refused_by_default": limited,
    }
