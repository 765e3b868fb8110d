"""StreamEvents on the server: a resumed stream gets exactly the missed events, a lagging one a fresh
snapshot, a stream reaches the end of a game that ends while it catches up, and leaving a seat ends its
streams (T-33)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

import server.streams as streams_module
from engine import Rules
from server.creations import SeatSpec
from server.registry import Registry
from tests.server_harness import Client, expect_error, harness, run, seated, thousand_table, token_md
from tests.table_driving import bot_to_act, play_bot
from thousand.v1 import table_service_pb2 as pb


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
            seat = bot_to_act(table)
            assert seat is not None
            await play_bot(table, seat)
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
            seat = bot_to_act(table)
            assert seat is not None
            await play_bot(table, seat)
        stream = table.stream(None, 0)
        first = pb.StreamEventsResponse.FromString(await anext(stream))
        while (seat := bot_to_act(table)) is not None:
            await play_bot(table, seat)
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
            seat = bot_to_act(table)
            assert seat is not None
            await play_bot(table, seat)
        resync = pb.StreamEventsResponse.FromString(await anext(stream))
        assert resync.HasField("snapshot") and resync.sequence == table.sequence
        while (seat := bot_to_act(table)) is not None:  # the game ends while the snapshot is on its way
            await play_bot(table, seat)

        async def rest() -> list[pb.StreamEventsResponse]:
            return [pb.StreamEventsResponse.FromString(data) async for data in stream]

        messages = await asyncio.wait_for(rest(), timeout=10)
        assert messages and messages[-1].sequence == table.sequence

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
