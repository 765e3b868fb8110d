"""Play: a seat's actions and its stream on one bidirectional call.

Checked here: a whole game played over Play streams only, each seat's updates byte for byte what a batched
StreamEvents stream of the same seat gets, and each action's result after the events it produced; every
refusal as a result on a stream that goes on (the table unchanged), bad starts as statuses, idempotent
retries shared with SubmitAction, rate limits, the result of the game's last action before the stream ends,
the BIDI_STREAM metrics, and replies that survive a dropped backlog.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from grpc import aio

from bots.strategy import greedy_player
from codec import thousand as codec
from engine import Bid, Pass
from scripts.ports import free_port
from server.app import Server
from server.streams import Reply, Subscriber
from tests.in_process import serving
from tests.server_harness import assert_hidden, expect_error, run, thousand_table, token_md
from tests.test_ops_metrics import scrape
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc
from thousand.v1 import thousand_events_pb2 as events_pb


class Requests:
    """A Play call's request stream, fed by the test: ``send`` queues, ``close`` half-closes."""

    def __init__(self, first: pb.PlayRequest | bytes | None) -> None:
        self._queue: asyncio.Queue[pb.PlayRequest | bytes | None] = asyncio.Queue()
        if first is not None:
            self._queue.put_nowait(first)

    def send(self, request: pb.PlayRequest | bytes) -> None:
        self._queue.put_nowait(request)

    def close(self) -> None:
        self._queue.put_nowait(None)

    async def __aiter__(self) -> AsyncIterator[pb.PlayRequest | bytes]:
        while (request := await self._queue.get()) is not None:
            yield request


def start(table_id: str, after: int | None = None) -> pb.PlayRequest:
    request = pb.PlayRequest()
    request.start.table_id = table_id
    if after is not None:
        request.start.after_sequence = after
    return request


def action(request_id: str, message: pb.Action, last_seen: int | None = None) -> pb.PlayRequest:
    request = pb.PlayRequest()
    request.action.request_id = request_id
    request.action.action.CopyFrom(message)
    if last_seen is not None:
        request.action.last_seen_sequence = last_seen
    return request


def _serialize(request: pb.PlayRequest | bytes) -> bytes:
    return request if isinstance(request, bytes) else request.SerializeToString()


@asynccontextmanager
async def playing(
    **settings: Any,
) -> AsyncIterator[tuple[Server, pb_grpc.TableServiceAsyncStub, aio.Channel]]:
    """A server (:func:`serving`), its stub, and a channel of the test's own for Play calls."""
    async with (
        serving(**settings) as (server, stub),
        aio.insecure_channel(f"127.0.0.1:{server.port}") as channel,
    ):
        yield server, stub, channel


def play_call(
    channel: aio.Channel, requests: Requests, token: str | None
) -> aio.StreamStreamCall[pb.PlayRequest | bytes, pb.PlayResponse]:
    """A Play call that may also send bytes that are no PlayRequest (the stub's method would not)."""
    method = channel.stream_stream(
        "/thousand.v1.TableService/Play",
        request_serializer=_serialize,
        response_deserializer=pb.PlayResponse.FromString,
    )
    call: aio.StreamStreamCall[pb.PlayRequest | bytes, pb.PlayResponse] = method(
        requests,  # type: ignore[arg-type]
        metadata=token_md(token) if token else None,
    )
    return call


def events_of(updates: list[pb.StreamEventsResponse]) -> list[events_pb.ThousandEvent]:
    """The game's events in batched messages, in order."""
    return [
        event.thousand
        for update in updates
        if update.HasField("event")
        for event in (update.event, *update.more_events)
        if event.HasField("thousand")
    ]


def last_sequence(update: pb.StreamEventsResponse) -> int:
    return update.sequence + len(update.more_events)


async def next_result(call: aio.StreamStreamCall[pb.PlayRequest | bytes, pb.PlayResponse]) -> pb.ActionResult:
    async for response in call:
        if response.HasField("result"):
            return response.result
    raise AssertionError("the stream ended without a result")


@dataclass
class Player:
    """A seat played greedily over a Play stream, recording what it received."""

    channel: aio.Channel
    table_id: str
    seat: int
    token: str
    updates: list[pb.StreamEventsResponse] = field(default_factory=list)
    results: list[pb.ActionResult] = field(default_factory=list)
    seen_at_result: list[int] = field(default_factory=list)

    async def play(self) -> grpc.StatusCode:
        rng = random.Random(self.seat)
        requests = Requests(start(self.table_id))
        call = play_call(self.channel, requests, self.token)
        seen = 0
        acted = 0
        async for response in call:
            if response.HasField("update"):
                self.updates.append(response.update)
                seen = last_sequence(response.update)
            if response.HasField("result"):
                self.results.append(response.result)
                self.seen_at_result.append(seen)
            turn = response.update.turn
            if turn.HasField("seat") and turn.seat == self.seat and turn.HasField("view"):
                acted += 1
                chosen = greedy_player(codec.view_from_proto(turn.view.thousand), rng)
                message = pb.Action(thousand=codec.action_to_proto(chosen))
                requests.send(action(f"{self.seat}-{acted}", message, last_seen=seen))
        requests.close()
        return await call.code()


async def batched_stream(
    stub: pb_grpc.TableServiceAsyncStub, table_id: str, token: str
) -> list[pb.StreamEventsResponse]:
    request = pb.StreamEventsRequest(table_id=table_id, batch_events=True)
    return [m async for m in stub.StreamEvents(request, metadata=token_md(token))]


def test_a_whole_game_over_play_streams_sends_what_batched_streams_send() -> None:
    """T-33 and the stream contract hold on Play: every seat's updates are the batched StreamEvents messages
    of its seat, byte for byte; every action is accepted, its result after the events it produced; the
    stream ends with OK after the game's last events."""

    async def scenario() -> None:
        async with playing() as (_, stub, channel):
            table = (await stub.CreateTable(thousand_table(3))).table
            joined = [
                await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, seat=seat))
                for seat in range(3)
            ]
            players = [Player(channel, table.table_id, j.seat, j.seat_token) for j in joined]
            references = [batched_stream(stub, table.table_id, j.seat_token) for j in joined]
            outcome = await asyncio.wait_for(
                asyncio.gather(*(p.play() for p in players), *references), timeout=120
            )
            codes, streams = outcome[:3], outcome[3:]
            assert codes == [grpc.StatusCode.OK] * 3
            final = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert final.status == pb.TABLE_STATUS_FINISHED
            for player, reference in zip(players, streams, strict=True):
                assert isinstance(reference, list)
                assert player.updates[0].HasField("snapshot") and reference[0].HasField("snapshot")
                # Both streams opened while the game ran: compare from the later snapshot on.
                since = max(player.updates[0].sequence, reference[0].sequence)
                assert [u.SerializeToString() for u in player.updates[1:] if u.sequence > since] == [
                    m.SerializeToString() for m in reference[1:] if m.sequence > since
                ]
                assert last_sequence(player.updates[-1]) == final.sequence
                assert events_of(player.updates)[-1].HasField("game_over")
                assert_hidden(player.seat, events_of(player.updates))
                assert player.results, "every seat acted"
                assert all(r.sequence and not r.HasField("refusal") for r in player.results)
                assert [r.request_id for r in player.results] == [
                    f"{player.seat}-{n}" for n in range(1, len(player.results) + 1)
                ]
                # A result never comes before the events its action produced.
                for result, seen in zip(player.results, player.seen_at_result, strict=True):
                    assert seen >= result.sequence

    run(scenario())


def test_refusals_come_as_results_and_the_stream_goes_on() -> None:
    """Each refusal SubmitAction would raise comes as an ActionResult with its reason, code and metadata; the
    table is unchanged and the stream keeps going; a request_id is shared with SubmitAction."""

    async def scenario() -> None:
        async with playing() as (_, stub, channel):
            table = (await stub.CreateTable(thousand_table(3))).table
            tid = table.table_id
            tokens = [
                (await stub.JoinTable(pb.JoinTableRequest(table_id=tid, seat=seat))).seat_token
                for seat in range(3)
            ]
            snapshot = await anext(aiter(stub.StreamEvents(pb.StreamEventsRequest(table_id=tid))))
            to_act = snapshot.turn.seat
            waiting = (to_act + 1) % 3
            at = snapshot.sequence
            bid_100 = pb.Action(thousand=codec.action_to_proto(Bid(100)))
            pass_action = pb.Action(thousand=codec.action_to_proto(Pass()))

            requests = Requests(start(tid))
            call = play_call(channel, requests, tokens[to_act])
            other_requests = Requests(start(tid))
            other = play_call(channel, other_requests, tokens[waiting])
            watcher_requests = Requests(start(tid))
            watcher = play_call(channel, watcher_requests, None)

            async def refused(
                stream: aio.StreamStreamCall[pb.PlayRequest | bytes, pb.PlayResponse],
                feed: Requests,
                request: pb.PlayRequest | bytes,
                reason: str,
                code: grpc.StatusCode,
            ) -> pb.ActionRefusal:
                feed.send(request)
                result = await next_result(stream)
                assert result.HasField("refusal"), result
                assert result.sequence == 0
                assert (result.refusal.reason, result.refusal.code) == (reason, code.value[0])
                assert result.refusal.message
                return result.refusal

            refusal = await refused(
                call, requests, action("r1", bid_100), "ILLEGAL_ACTION", grpc.StatusCode.FAILED_PRECONDITION
            )
            assert refusal.metadata["rule"] == "BID_TOO_LOW"
            await refused(
                call,
                requests,
                action("r2", pass_action, last_seen=1),
                "STALE_SEQUENCE",
                grpc.StatusCode.ABORTED,
            )
            refusal = await refused(
                call, requests, action("", pass_action), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert refusal.metadata["field"] == "request_id"
            await refused(call, requests, start(tid), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT)
            refusal = await refused(
                call, requests, b"\xff\xff", "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert refusal.metadata["field"] == "request"
            await refused(
                other,
                other_requests,
                action("o1", pass_action),
                "NOT_YOUR_TURN",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            await refused(
                watcher,
                watcher_requests,
                action("w1", pass_action),
                "SPECTATOR_CANNOT_ACT",
                grpc.StatusCode.PERMISSION_DENIED,
            )
            unchanged = (await stub.GetTable(pb.GetTableRequest(table_id=tid))).table
            assert unchanged.sequence == at

            requests.send(action("r4", pass_action, last_seen=at))
            done = await next_result(call)
            assert done.request_id == "r4" and done.sequence > at and not done.HasField("refusal")
            # The same request_id again, on this stream or through SubmitAction: the first outcome.
            requests.send(action("r4", pass_action))
            assert (await next_result(call)).sequence == done.sequence
            again = await stub.SubmitAction(
                pb.SubmitActionRequest(table_id=tid, request_id="r4", action=pass_action),
                metadata=token_md(tokens[to_act]),
            )
            assert again.sequence == done.sequence
            await refused(
                call,
                requests,
                action("r4", bid_100),
                "REQUEST_ID_REUSED",
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            for feed, stream in ((requests, call), (other_requests, other), (watcher_requests, watcher)):
                feed.close()
                stream.cancel()

    run(scenario())


@pytest.mark.parametrize(
    ("first", "reason", "code"),
    [
        (b"\xff\xff", "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT),
        (action("a", pb.Action()), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT),
        (start(""), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT),
        (start("nope"), "TABLE_NOT_FOUND", grpc.StatusCode.NOT_FOUND),
        (None, "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_a_bad_start_ends_the_call_with_its_status(
    first: pb.PlayRequest | bytes | None, reason: str, code: grpc.StatusCode
) -> None:
    async def scenario() -> None:
        async with playing() as (_, _stub, channel):
            requests = Requests(first)
            requests.close()
            call = play_call(channel, requests, None)
            await expect_error(call.read(), reason, code)

    run(scenario())


def test_a_wrong_token_or_resume_point_ends_the_call_with_its_status() -> None:
    async def scenario() -> None:
        async with playing() as (_, stub, channel):
            table = (await stub.CreateTable(thousand_table(3))).table
            requests = Requests(start(table.table_id))
            call = play_call(channel, requests, "x" * 43)
            await expect_error(call.read(), "SEAT_TOKEN_INVALID", grpc.StatusCode.UNAUTHENTICATED)
            requests = Requests(start(table.table_id, after=table.sequence + 5))
            call = play_call(channel, requests, None)
            await expect_error(call.read(), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT)

    run(scenario())


def test_actions_count_against_the_seat_rate_limit() -> None:
    async def scenario() -> None:
        async with playing(rate_limit=1, rate_burst=2) as (_, stub, channel):
            table = (await stub.CreateTable(thousand_table(3, bots=2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            requests = Requests(start(table.table_id))
            call = play_call(channel, requests, joined.seat_token)
            outcomes = []
            for n in range(3):
                requests.send(action(f"r{n}", pb.Action()))  # refused for being empty, once let through
                outcomes.append(await next_result(call))
            reasons = [o.refusal.reason for o in outcomes]
            assert reasons == ["INVALID_ARGUMENT", "INVALID_ARGUMENT", "RATE_LIMITED"]
            assert outcomes[2].refusal.retry_delay.ToNanoseconds() > 0
            call.cancel()

    run(scenario())


def test_the_result_of_the_last_action_comes_before_the_stream_ends() -> None:
    """The action that ends the game: its events, its result, then the end of the stream (OK)."""

    async def scenario() -> None:
        async with playing() as (server, stub, channel):
            table = (await stub.CreateTable(thousand_table(3, bots=2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            player = Player(channel, table.table_id, joined.seat, joined.seat_token)
            assert await asyncio.wait_for(player.play(), timeout=120) == grpc.StatusCode.OK
            live = server.registry.get(table.table_id)
            assert live.finished
            assert events_of(player.updates)[-1].HasField("game_over")
            assert all(not r.HasField("refusal") for r in player.results)
            if live.game.history and live.game.history[-1][0] == joined.seat:
                assert player.results[-1].sequence == live.sequence

    run(scenario())


def test_play_is_counted_as_a_bidi_stream_in_the_grpc_metrics() -> None:
    async def scenario() -> None:
        async with playing(metrics_port=free_port()) as (server, stub, channel):
            table = (await stub.CreateTable(thousand_table(3, bots=2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            requests = Requests(start(table.table_id))
            call = play_call(channel, requests, joined.seat_token)
            requests.send(action("x", pb.Action()))
            await next_result(call)
            requests.close()
            call.cancel()
            await asyncio.sleep(0.2)
            m = await scrape(server)
            play = {"grpc_type": "BIDI_STREAM", "grpc_method": "Play"}
            assert m.value("grpc_server_started_total", **play) == 1
            assert m.value("grpc_server_msg_received_total", **play) == 2  # the start and the action
            assert m.value("grpc_server_handled_total", grpc_code="Canceled", **play) == 1

    run(scenario())


def test_replies_survive_a_dropped_backlog() -> None:
    """A lagging stream drops its backlog for a fresh snapshot, and an ended one its backlog: never a
    reply, which is queued in order among the table's messages."""
    subscriber = Subscriber(0, batch=True)
    subscriber.offer(b"event 1")
    subscriber.reply(Reply(b"result"))
    subscriber.offer(b"event 2")
    subscriber.drain()
    assert subscriber.take_reply() == b"result"
    assert subscriber.depth() == 0
    subscriber.offer(b"event 3")
    subscriber.reply(Reply(b"second"))
    subscriber.end()
    assert subscriber.take_reply() == b"second"  # the event before it is gone, the reply is kept
    assert subscriber.depth() == 1  # the end


def test_a_half_closed_play_stream_keeps_its_updates_coming_to_the_end() -> None:
    """Closing the client's side stops acting, not watching: a spectator's Play stream on a table of bots
    half-closes at once and still gets every change until the game's end (OK)."""

    async def scenario() -> None:
        async with playing() as (_, stub, channel):
            request = thousand_table(3, bots=3)
            table = (await stub.CreateTable(request)).table
            requests = Requests(start(table.table_id, after=0))
            requests.close()
            call = play_call(channel, requests, None)
            updates = [r.update async for r in call if r.HasField("update")]
            assert await call.code() == grpc.StatusCode.OK
            assert events_of(updates)[-1].HasField("game_over")
            final = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert last_sequence(updates[-1]) == final.sequence

    run(scenario())


def test_a_cancelled_play_stream_leaves_nothing_behind() -> None:
    """The client cancels: the table forgets the stream's subscriber and the reader of its actions ends."""

    async def scenario() -> None:
        async with playing() as (server, stub, channel):
            table = (await stub.CreateTable(thousand_table(3, bots=2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            live = server.registry.get(table.table_id)
            tasks_before = len(asyncio.all_tasks())
            requests = Requests(start(table.table_id))
            call = play_call(channel, requests, joined.seat_token)
            await call.read()
            assert len(live.streams.subscribers) == 1
            call.cancel()
            for _ in range(100):
                if not live.streams.subscribers and len(asyncio.all_tasks()) <= tasks_before:
                    break
                await asyncio.sleep(0.02)
            assert not live.streams.subscribers
            assert len(asyncio.all_tasks()) <= tasks_before

    run(scenario())
