"""The gRPC server on loopback: whole games, hidden information (T-33), every error reason, retries, races,
resume, health and reflection."""

from __future__ import annotations

import asyncio
import gc
import random
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

import server.streams as streams_module
from clients.bots.strategy import greedy_player
from codec import thousand as codec
from engine import Bid, Pass, Rules
from server.app import Server, tune_gc
from server.registry import Registry, SeatSpec
from server.settings import Settings, parse_settings
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc
from thousand.v1 import thousand_events_pb2 as events_pb

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await coro

    return asyncio.run(main())


@dataclass
class Harness:
    server: Server
    channel: aio.Channel
    stub: pb_grpc.TableServiceAsyncStub
    address: str


@asynccontextmanager
async def harness() -> AsyncIterator[Harness]:
    server = Server(Settings(host="127.0.0.1", port=0))
    await server.start()
    address = f"127.0.0.1:{server.port}"
    try:
        async with aio.insecure_channel(address) as channel:
            yield Harness(server, channel, pb_grpc.TableServiceStub(channel), address)
    finally:
        await server.stop(grace=0.5)


def token_md(token: str) -> tuple[tuple[str, str], ...]:
    return (("x-seat-token", token),)


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, error
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    raise AssertionError(f"no ErrorInfo in {error}")


async def expect_error(
    call: Awaitable[object], reason: str, code: grpc.StatusCode
) -> error_details_pb2.ErrorInfo:
    with pytest.raises(aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    info = error_info(caught.value)
    assert info.reason == reason, (info.reason, caught.value.details())
    assert info.domain == "thousand.v1"
    assert caught.value.details()
    return info


def thousand_table(players: int = 3, bots: int = 0, **rules: object) -> pb.CreateTableRequest:
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN) for _ in range(players - bots)]
    seats += [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy") for _ in range(bots)]
    request = pb.CreateTableRequest(
        game=pb.GAME_KIND_THOUSAND, seats=seats, seed=7, practice=True, first_dealer=0
    )
    for name, value in rules.items():
        setattr(request.rules.thousand, name, value)
    return request


@dataclass
class Client:
    """A scripted player: streams its seat and plays the greedy strategy on the view each Turn carries."""

    stub: pb_grpc.TableServiceAsyncStub
    table_id: str
    seat: int
    token: str
    messages: list[pb.StreamEventsResponse] = field(default_factory=list)
    acted: int = 0

    async def play(self, stop_after: int | None = None) -> None:
        rng = random.Random(self.seat)
        call = self.stub.StreamEvents(
            pb.StreamEventsRequest(table_id=self.table_id), metadata=token_md(self.token)
        )
        async for message in call:
            self.messages.append(message)
            turn = message.turn
            if turn.HasField("seat") and turn.seat == self.seat and turn.HasField("view"):
                assert turn.legal_actions, "the acting seat's stream carries its legal actions"
                view = codec.view_from_proto(turn.view.thousand)
                action = greedy_player(view, rng)
                self.acted += 1
                await self.stub.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=self.table_id,
                        request_id=f"{self.seat}-{self.acted}",
                        last_seen_sequence=message.sequence,
                        action=pb.Action(thousand=codec.action_to_proto(action)),
                    ),
                    metadata=token_md(self.token),
                )
                if stop_after is not None and self.acted >= stop_after:
                    call.cancel()
                    return


def events_of(messages: list[pb.StreamEventsResponse]) -> list[events_pb.ThousandEvent]:
    return [m.event.thousand for m in messages if m.HasField("event") and m.event.HasField("thousand")]


async def seated(h: Harness, request: pb.CreateTableRequest) -> tuple[str, list[tuple[int, str]]]:
    table = (await h.stub.CreateTable(request)).table
    joins = []
    for seat in table.seats:
        if seat.kind == pb.SEAT_KIND_OPEN:
            joined = await h.stub.JoinTable(
                pb.JoinTableRequest(table_id=table.table_id, player_name=f"p{seat.seat}")
            )
            joins.append((joined.seat, joined.seat_token))
    return table.table_id, joins


# ---------------------------------------------------------------- whole games


def test_whole_game_among_three_clients_with_hidden_information_kept() -> None:
    """A whole game over gRPC by three scripted clients; each stream is gap-free and hides what T-33 hides."""

    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h, thousand_table(3))
            clients = [Client(h.stub, table_id, seat, token) for seat, token in joins]
            spectator: list[pb.StreamEventsResponse] = []

            async def watch() -> None:
                async for message in h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id)):
                    spectator.append(message)

            await asyncio.wait_for(asyncio.gather(*(c.play() for c in clients), watch()), timeout=120)
            final = (await h.stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert final.status == pb.TABLE_STATUS_FINISHED
            for client in clients:
                messages = client.messages
                assert messages[0].HasField("snapshot")
                sequences = [m.sequence for m in messages[1:]]
                assert sequences == list(range(messages[0].sequence + 1, final.sequence + 1))
                assert events_of(messages)[-1].HasField("game_over")
                assert_hidden(client.seat, events_of(messages))
            assert_hidden(None, events_of(spectator))
            assert events_of(spectator)[-1].HasField("game_over")

    run(scenario())


def assert_hidden(seat: int | None, events: list[events_pb.ThousandEvent]) -> None:
    """T-33 on the wire: others' hands, a closed talon and others' exchange cards never arrive."""
    for event in events:
        kind = event.WhichOneof("event")
        if kind == "hand_dealt" and event.hand_dealt.seat != seat:
            assert not event.hand_dealt.cards
        elif kind == "talon_taken" and not event.talon_taken.face_up and event.talon_taken.seat != seat:
            assert not event.talon_taken.cards
        elif kind == "card_given":
            given = event.card_given
            receiver = given.to_seat if given.HasField("to_seat") else None
            if seat not in (given.seat, receiver):
                assert not given.HasField("card")


def test_bot_seats_play_with_one_person() -> None:
    """Server-run bot seats: one client plays a whole game against two bots."""

    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h, thousand_table(3, bots=2))
            assert len(joins) == 1
            client = Client(h.stub, table_id, *joins[0])
            await asyncio.wait_for(client.play(), timeout=120)
            assert events_of(client.messages)[-1].HasField("game_over")

    run(scenario())


# ---------------------------------------------------------------- errors


def test_every_error_reason() -> None:
    """Each documented reason, with its status code and a message; nothing changes on a refusal."""

    async def scenario() -> None:
        async with harness() as h:
            s = h.stub
            await expect_error(
                s.GetTable(pb.GetTableRequest(table_id="nope")), "TABLE_NOT_FOUND", grpc.StatusCode.NOT_FOUND
            )
            await expect_error(
                s.GetTable(pb.GetTableRequest()), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )
            info = await expect_error(
                s.CreateTable(thousand_table(2, dark=True)), "INVALID_RULES", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert info.metadata["field"] == "dark"
            bad_bot = thousand_table(3)
            bad_bot.seats[2].kind = pb.SEAT_KIND_BOT
            bad_bot.seats[2].strategy = "genius"
            await expect_error(s.CreateTable(bad_bot), "UNKNOWN_STRATEGY", grpc.StatusCode.INVALID_ARGUMENT)
            await expect_error(
                s.CreateTable(pb.CreateTableRequest()), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )

            table = (await s.CreateTable(thousand_table(3, bots=1))).table
            tid = table.table_id
            first = await s.JoinTable(pb.JoinTableRequest(table_id=tid, seat=0))
            await expect_error(
                s.JoinTable(pb.JoinTableRequest(table_id=tid, seat=0)),
                "SEAT_TAKEN",
                grpc.StatusCode.ALREADY_EXISTS,
            )
            await expect_error(
                s.JoinTable(pb.JoinTableRequest(table_id=tid, seat=2)),
                "SEAT_NOT_OPEN",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            pass_action = pb.Action(thousand=codec.action_to_proto(Pass()))
            submit = pb.SubmitActionRequest(table_id=tid, request_id="r1", action=pass_action)
            await expect_error(
                s.SubmitAction(submit, metadata=token_md(first.seat_token)),
                "GAME_NOT_STARTED",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            second = await s.JoinTable(pb.JoinTableRequest(table_id=tid))
            assert second.seat == 1
            await expect_error(
                s.JoinTable(pb.JoinTableRequest(table_id=tid)),
                "TABLE_FULL",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            )
            await expect_error(
                s.SubmitAction(submit), "SPECTATOR_CANNOT_ACT", grpc.StatusCode.PERMISSION_DENIED
            )
            await expect_error(
                s.SubmitAction(submit, metadata=token_md("x" * 43)),
                "SEAT_TOKEN_INVALID",
                grpc.StatusCode.UNAUTHENTICATED,
            )
            # Dealer 0: seat 1 opened with the forced 100, seat 2 (the bot) or seat 0 acts next.
            snapshot = await anext(aiter(s.StreamEvents(pb.StreamEventsRequest(table_id=tid))))
            to_act = snapshot.turn.seat
            waiting = first if to_act != 0 else second
            tokens = {0: first.seat_token, 1: second.seat_token}
            await expect_error(
                s.SubmitAction(submit, metadata=token_md(waiting.seat_token)),
                "NOT_YOUR_TURN",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            assert to_act in tokens, "the bot moved already or is to act"
            bid_too_low = pb.Action(thousand=codec.action_to_proto(Bid(100)))
            info = await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(table_id=tid, request_id="r2", action=bid_too_low),
                    metadata=token_md(tokens[to_act]),
                ),
                "ILLEGAL_ACTION",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            assert info.metadata["rule"] == "BID_TOO_LOW"
            await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=tid, request_id="r3", last_seen_sequence=1, action=pass_action
                    ),
                    metadata=token_md(tokens[to_act]),
                ),
                "STALE_SEQUENCE",
                grpc.StatusCode.ABORTED,
            )
            await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(table_id=tid, request_id="", action=pass_action),
                    metadata=token_md(tokens[to_act]),
                ),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            after = (await s.GetTable(pb.GetTableRequest(table_id=tid))).table
            assert after.sequence == snapshot.sequence  # nothing changed
            done = await s.SubmitAction(
                pb.SubmitActionRequest(table_id=tid, request_id="r4", action=pass_action),
                metadata=token_md(tokens[to_act]),
            )
            assert done.sequence > after.sequence
            await expect_error(
                s.SubmitAction(
                    pb.SubmitActionRequest(table_id=tid, request_id="r4", action=bid_too_low),
                    metadata=token_md(tokens[to_act]),
                ),
                "REQUEST_ID_REUSED",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

    run(scenario())


def test_idempotent_retry_applies_once() -> None:
    """A retried SubmitAction with the same request_id returns the first outcome and acts once."""

    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h, thousand_table(3))
            tokens = dict(joins)
            snapshot = await anext(aiter(h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id))))
            seat = snapshot.turn.seat
            request = pb.SubmitActionRequest(
                table_id=table_id,
                request_id="once",
                action=pb.Action(thousand=codec.action_to_proto(Pass())),
            )
            first = await h.stub.SubmitAction(request, metadata=token_md(tokens[seat]))
            again = await h.stub.SubmitAction(request, metadata=token_md(tokens[seat]))
            assert first.sequence == again.sequence
            table = (await h.stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert table.sequence == first.sequence

    run(scenario())


def test_two_clients_race_for_one_seat() -> None:
    async def scenario() -> None:
        async with harness() as h:
            table = (await h.stub.CreateTable(thousand_table(3))).table
            calls = [h.stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, seat=1)) for _ in range(2)]
            results = await asyncio.gather(*calls, return_exceptions=True)
            ok = [r for r in results if isinstance(r, pb.JoinTableResponse)]
            failed = [r for r in results if isinstance(r, aio.AioRpcError)]
            assert len(ok) == 1 and len(failed) == 1
            assert error_info(failed[0]).reason == "SEAT_TAKEN"

    run(scenario())


def test_resume_returns_exactly_the_missed_events() -> None:
    """A stream resumed after sequence N gets the events after N, none lost, none twice."""

    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h, thousand_table(3, bots=2))
            seat, token = joins[0]
            client = Client(h.stub, table_id, seat, token)
            await asyncio.wait_for(client.play(stop_after=3), timeout=30)
            seen = client.messages[-1].sequence
            await asyncio.sleep(0.05)
            table = (await h.stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            resumed: list[pb.StreamEventsResponse] = []
            call = h.stub.StreamEvents(
                pb.StreamEventsRequest(table_id=table_id, after_sequence=seen), metadata=token_md(token)
            )
            async for message in call:
                resumed.append(message)
                if message.sequence >= table.sequence:
                    call.cancel()
                    break
            assert [m.sequence for m in resumed] == list(range(seen + 1, table.sequence + 1))
            assert not any(m.HasField("snapshot") for m in resumed)
            await expect_error(
                aiter(
                    h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=10**9))
                ).__anext__(),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

    run(scenario())


def test_list_tables_filters_and_pages() -> None:
    async def scenario() -> None:
        async with harness() as h:
            ids = [(await h.stub.CreateTable(thousand_table(3))).table.table_id for _ in range(5)]
            full_id, _ = await seated(h, thousand_table(3, bots=2))
            page = await h.stub.ListTables(pb.ListTablesRequest(page_size=2))
            assert [t.table_id for t in page.tables] == [full_id, ids[4]]
            seen = [t.table_id for t in page.tables]
            while page.next_page_token:
                page = await h.stub.ListTables(
                    pb.ListTablesRequest(page_size=2, page_token=page.next_page_token)
                )
                seen += [t.table_id for t in page.tables]
            assert seen == [full_id, *reversed(ids)]
            open_only = await h.stub.ListTables(pb.ListTablesRequest(only_open_seats=True, page_size=100))
            assert full_id not in [t.table_id for t in open_only.tables]
            await expect_error(
                h.stub.ListTables(pb.ListTablesRequest(page_token="garbage")),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

    run(scenario())


def test_health_serving_then_not_serving_on_shutdown() -> None:
    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            health: Any = health_pb2_grpc.HealthStub(channel)
            reply = await health.Check(health_pb2.HealthCheckRequest(service="thousand.v1.TableService"))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            await server.health.enter_graceful_shutdown()
            reply = await health.Check(health_pb2.HealthCheckRequest(service="thousand.v1.TableService"))
            assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
        await server.stop(grace=0.1)

    run(scenario())


BUF = Path(sys.executable).parent / "buf"


@pytest.mark.skipif(not BUF.exists() and shutil.which("buf") is None, reason="buf-bin is a dev dependency")
def test_buf_curl_lists_services_by_reflection_and_calls_list_tables() -> None:
    async def scenario() -> None:
        async with harness() as h:
            await h.stub.CreateTable(thousand_table(3))
            buf = str(BUF if BUF.exists() else shutil.which("buf"))
            listing = await _run(
                buf,
                "curl",
                "--protocol",
                "grpc",
                "--http2-prior-knowledge",
                "--list-services",
                f"http://{h.address}",
            )
            assert "thousand.v1.TableService" in listing
            reply = await _run(
                buf,
                "curl",
                "--protocol",
                "grpc",
                "--http2-prior-knowledge",
                "-d",
                "{}",
                f"http://{h.address}/thousand.v1.TableService/ListTables",
            )
            assert '"tables"' in reply and "GAME_KIND_THOUSAND" in reply

    run(scenario())


async def _run(*argv: str) -> str:
    process = await asyncio.create_subprocess_exec(*argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    return out.decode()


def test_streams_end_cleanly_on_graceful_shutdown() -> None:
    """SIGTERM-style shutdown: health goes NOT_SERVING and open streams complete with status OK."""

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = pb_grpc.TableServiceStub(channel)
            table = (await stub.CreateTable(thousand_table(3))).table
            call = stub.StreamEvents(pb.StreamEventsRequest(table_id=table.table_id))
            first = await anext(aiter(call))
            assert first.HasField("snapshot")
            await server.stop(grace=1.0)
            rest = [m async for m in call]
            assert rest == []
            assert await call.code() == grpc.StatusCode.OK

    run(scenario())


def test_a_lagging_stream_gets_a_fresh_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream whose bounded queue overflows is resynchronized by a snapshot instead of growing memory."""
    monkeypatch.setattr(streams_module, "STREAM_QUEUE_SIZE", 4)

    async def scenario() -> None:
        registry = Registry()
        table = await registry.create(
            Rules(), [SeatSpec(bot=True, strategy="greedy")] * 3, seed=3, first_dealer=0
        )
        stream = table.stream(0, None)
        first = pb.StreamEventsResponse.FromString(await anext(stream))
        assert first.HasField("snapshot")
        for _ in range(40):  # the bots play on while nobody reads the stream
            seat = table.bot_to_act()
            assert seat is not None
            await table.play_bot(seat)
        resync = pb.StreamEventsResponse.FromString(await anext(stream))
        assert resync.HasField("snapshot")
        assert resync.sequence == table.sequence
        await stream.aclose()

    run(scenario())


@pytest.mark.parametrize("queue_size", [100_000, 4])
def test_a_stream_ends_with_the_game_that_ends_while_its_backlog_is_sent(
    monkeypatch: pytest.MonkeyPatch, queue_size: int
) -> None:
    """The game ends while a resumed stream is still sending its backlog: the stream reads on from the log to
    the end (every event, the GameOver last) and then ends, instead of stopping after the backlog, waiting
    for ever, or, however small its queue, skipping what was logged meanwhile for a snapshot."""
    monkeypatch.setattr(streams_module, "STREAM_QUEUE_SIZE", queue_size)

    async def scenario() -> None:
        table = await Registry().create(
            Rules(), [SeatSpec(bot=True, strategy="greedy")] * 3, seed=3, first_dealer=0
        )
        for _ in range(5):
            seat = table.bot_to_act()
            assert seat is not None
            await table.play_bot(seat)
        stream = table.stream(None, 0)
        first = pb.StreamEventsResponse.FromString(await anext(stream))
        while (seat := table.bot_to_act()) is not None:
            await table.play_bot(seat)
        assert table.finished

        async def rest() -> list[pb.StreamEventsResponse]:
            return [pb.StreamEventsResponse.FromString(data) async for data in stream]

        messages = [first, *await asyncio.wait_for(rest(), timeout=10)]
        assert [m.sequence for m in messages] == list(range(1, table.sequence + 1))
        assert not any(m.HasField("snapshot") for m in messages)
        assert messages[-1].event.thousand.HasField("game_over")

    run(scenario())


def test_a_stream_resynchronized_just_before_the_end_still_reaches_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lagging stream's resync snapshot is sent while the game ends: the stream goes on to the end."""
    monkeypatch.setattr(streams_module, "STREAM_QUEUE_SIZE", 8)

    async def scenario() -> None:
        table = await Registry().create(
            Rules(), [SeatSpec(bot=True, strategy="greedy")] * 3, seed=3, first_dealer=0
        )
        stream = table.stream(None, None)
        assert pb.StreamEventsResponse.FromString(await anext(stream)).HasField("snapshot")
        while not any(s.lagging for s in table.streams.subscribers):
            seat = table.bot_to_act()
            assert seat is not None
            await table.play_bot(seat)
        resync = pb.StreamEventsResponse.FromString(await anext(stream))
        assert resync.HasField("snapshot") and resync.sequence == table.sequence
        while (seat := table.bot_to_act()) is not None:  # the game ends while the snapshot is on its way
            await table.play_bot(seat)

        async def rest() -> list[pb.StreamEventsResponse]:
            return [pb.StreamEventsResponse.FromString(data) async for data in stream]

        messages = await asyncio.wait_for(rest(), timeout=10)
        assert messages and messages[-1].sequence == table.sequence

    run(scenario())


def test_settings_from_flags_and_environment() -> None:
    env = {"THOUSAND_PORT": "6000", "THOUSAND_HOST": "0.0.0.0", "THOUSAND_DB": "/tmp/t.db"}
    assert parse_settings([], env) == Settings(
        host="0.0.0.0", port=6000, db="/tmp/t.db", metrics_port=0, bot_pace=1.0
    )
    assert parse_settings(["--port", "7000", "--metrics-port", "9100"], env).port == 7000
    assert parse_settings([], {}).port == 50051


def test_garbage_collection_is_tuned_as_set() -> None:
    """--gc-threshold (THOUSAND_GC_THRESHOLD): young collections that rare, start-up frozen; 0: as it was."""
    assert parse_settings([], {}).gc_threshold == 50_000
    assert parse_settings([], {"THOUSAND_GC_THRESHOLD": "0"}).gc_threshold == 0
    assert parse_settings(["--gc-threshold", "9000"], {}).gc_threshold == 9000
    with pytest.raises(SystemExit):
        parse_settings(["--gc-threshold", "5"], {})
    before = gc.get_threshold()
    try:
        tune_gc(0)
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        tune_gc(9000)
        assert gc.get_threshold() == (9000, 20, 10)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_a_table_of_bots_plays_itself_to_the_end_for_a_spectator() -> None:
    async def scenario() -> None:
        async with harness() as h:
            table = (await h.stub.CreateTable(thousand_table(3, bots=3))).table
            assert table.status == pb.TABLE_STATUS_PLAYING
            messages = [m async for m in h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table.table_id))]
            last = messages[-1]
            if last.HasField("snapshot"):
                # The spectator fell behind the bots and was resynchronized after the end: the snapshot
                # shows the finished game (its view holds the winner) instead of the GameOver event.
                assert last.snapshot.table.status == pb.TABLE_STATUS_FINISHED
                assert last.snapshot.view.thousand.HasField("winner")
            else:
                assert events_of(messages)[-1].HasField("game_over")
            assert_hidden(None, events_of(messages))
            final = (await h.stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert final.status == pb.TABLE_STATUS_FINISHED

    run(scenario())


def test_limits_on_tables_and_message_size() -> None:
    """Hostile input is bounded: a server holds at most max_tables unfinished tables, and an oversized
    request is refused before it is parsed."""

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, max_tables=2, max_message_bytes=4096))
        await server.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                for _ in range(2):
                    await stub.CreateTable(thousand_table(3))
                await expect_error(
                    stub.CreateTable(thousand_table(3)), "TOO_MANY_TABLES", grpc.StatusCode.RESOURCE_EXHAUSTED
                )
                with pytest.raises(aio.AioRpcError) as caught:
                    await stub.GetTable(pb.GetTableRequest(table_id="x" * 10_000))
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        finally:
            await server.stop(grace=0.1)

    run(scenario())


def test_leaving_a_seat_ends_its_streams() -> None:
    """T-33: a player who gives a seat up sees nothing more of it, even on a stream opened before."""

    async def scenario() -> None:
        async with harness() as h:
            table_id, joins = await seated(h, thousand_table(3, bots=2))
            seat, token = joins[0]
            call = h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=token_md(token))
            first = await anext(aiter(call))
            assert first.HasField("snapshot")
            await h.stub.LeaveTable(pb.LeaveTableRequest(table_id=table_id), metadata=token_md(token))
            newcomer = await h.stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=seat))
            assert newcomer.seat == seat
            rest = [m async for m in call]
            assert await call.code() == grpc.StatusCode.OK
            assert all(not m.turn.HasField("view") for m in rest)
            assert not any(m.HasField("event") and m.event.HasField("seat_taken") for m in rest)

    run(scenario())


@pytest.mark.parametrize("strategy", ["heuristic", "ismcts"])
def test_server_side_bots_of_every_strategy(strategy: str) -> None:
    """Bot seats run the real strategies of clients.bots; a searching one thinks off the event loop."""

    async def scenario() -> None:
        async with harness() as h:
            request = thousand_table(3, bots=0)
            for seat in request.seats:
                seat.kind = pb.SEAT_KIND_BOT
                seat.strategy = strategy
            table = (await h.stub.CreateTable(request)).table
            seen = 0
            call = h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table.table_id))
            async for message in call:
                if message.HasField("event") and message.event.thousand.HasField("deal_scored"):
                    seen += 1
                    if seen == 2:  # two whole deals played by the strategy is enough here
                        call.cancel()
                        break
                # The server still answers while the bots think.
            assert seen == 2
            got = await asyncio.wait_for(h.stub.GetTable(pb.GetTableRequest(table_id=table.table_id)), 5)
            assert got.table.status == pb.TABLE_STATUS_PLAYING

    run(scenario())
