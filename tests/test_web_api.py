"""The TableService on the web port (Connect with binary and JSON messages, gRPC-Web) answers as the gRPC
port does: every RPC's result, every refusal's code, ErrorInfo and RetryInfo, the streams and their resume,
the same game event for event, over the same tables and rate limits. Real clients on loopback sockets."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Final

import pytest
from connectrpc.errors import ConnectError
from grpc import aio

from bots.strategy import greedy_player
from codec import thousand as codec
from server.service import SERVICE_NAME
from tests.server_harness import run, thousand_table
from tests.web_harness import (
    TRANSPORTS,
    WEB_TRANSPORTS,
    Api,
    Refusal,
    api,
    http_request,
    refusal,
    web_client,
    web_server,
)
from thousand.v1 import table_service_pb2 as pb


async def refused(call: Awaitable[object]) -> Refusal:
    try:
        await call
    except (aio.AioRpcError, ConnectError) as error:
        return refusal(error)
    raise AssertionError("the call was not refused")


async def first_message(
    client: Api, request: pb.StreamEventsRequest, token: str | None = None
) -> pb.StreamEventsResponse:
    async with aclosing(client.stream(request, token)) as messages:
        async for message in messages:
            return message  # type: ignore[no-any-return]
    raise AssertionError("the stream ended at once")


async def stream_refused(client: Api, request: pb.StreamEventsRequest, token: str | None = None) -> Refusal:
    return await refused(first_message(client, request, token))


async def watch_to_the_end(
    client: Api, table_id: str, token: str | None = None
) -> list[pb.StreamEventsResponse]:
    return [m async for m in client.stream(pb.StreamEventsRequest(table_id=table_id), token)]


# ---------------------------------------------------------------- every RPC


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_every_rpc_answers_over_every_transport(kind: str) -> None:
    async def scenario() -> None:
        async with web_server() as (_, stub, url), api(kind, stub, url) as client:
            created = (await client.unary("CreateTable", thousand_table(3))).table
            tid = created.table_id
            assert created.status == pb.TABLE_STATUS_WAITING and created.open_seats == 3
            listed = await client.unary("ListTables", pb.ListTablesRequest(only_open_seats=True))
            assert [t.table_id for t in listed.tables] == [tid]
            assert (await client.unary("GetTable", pb.GetTableRequest(table_id=tid))).table == created
            tokens = []
            for seat in range(3):
                joined = await client.unary(
                    "JoinTable", pb.JoinTableRequest(table_id=tid, player_name=f"p{seat}")
                )
                assert joined.seat == seat
                tokens.append(joined.seat_token)
            snapshot = await first_message(client, pb.StreamEventsRequest(table_id=tid), tokens[0])
            assert snapshot.HasField("snapshot") and snapshot.snapshot.table.status == pb.TABLE_STATUS_PLAYING
            to_act = snapshot.turn.seat
            own = await first_message(client, pb.StreamEventsRequest(table_id=tid), tokens[to_act])
            assert own.turn.legal_actions, "the acting seat's own stream carries its legal actions"
            submitted = await client.unary(
                "SubmitAction",
                pb.SubmitActionRequest(table_id=tid, request_id="a1", action=own.turn.legal_actions[0]),
                tokens[to_act],
            )
            assert submitted.sequence == own.sequence + 1
            reclaimed = await client.unary("ReclaimSeat", pb.ReclaimSeatRequest(table_id=tid), tokens[0])
            assert reclaimed.table.table_id == tid  # nothing to take back: the seat was never taken over
            waiting = (await client.unary("CreateTable", thousand_table(3))).table.table_id
            seat = await client.unary("JoinTable", pb.JoinTableRequest(table_id=waiting, player_name="x"))
            left = await client.unary("LeaveTable", pb.LeaveTableRequest(table_id=waiting), seat.seat_token)
            assert left.table.open_seats == 3
            bots = (await client.unary("CreateTable", thousand_table(3, bots=3))).table.table_id
            watched = await watch_to_the_end(client, bots)
            assert watched[-1].event.thousand.HasField("game_over")
            exported = await client.unary("ExportTable", pb.ExportTableRequest(table_id=bots))
            record = json.loads(exported.record_json)
            assert record["finished"] and len(record["actions"]) > 0

    run(scenario())


# ---------------------------------------------------------------- every refusal, as gRPC gives it


@pytest.mark.parametrize("kind", WEB_TRANSPORTS)
def test_refusals_carry_the_same_code_error_info_and_message_as_over_grpc(kind: str) -> None:
    async def scenario() -> None:
        async with (
            web_server() as (_, stub, url),
            api("grpc", stub, url) as grpc_api,
            api(kind, stub, url) as web,
        ):
            waiting = (await grpc_api.unary("CreateTable", thousand_table(3))).table.table_id
            early = (await grpc_api.unary("JoinTable", pb.JoinTableRequest(table_id=waiting))).seat_token
            full = (await grpc_api.unary("CreateTable", thousand_table(3))).table.table_id
            tokens = [
                (await grpc_api.unary("JoinTable", pb.JoinTableRequest(table_id=full))).seat_token
                for _ in range(3)
            ]
            turn = (await first_message(grpc_api, pb.StreamEventsRequest(table_id=full), tokens[0])).turn
            mover, other = turn.seat, (turn.seat + 1) % 3
            legal = (await first_message(grpc_api, pb.StreamEventsRequest(table_id=full), tokens[mover])).turn
            action = legal.legal_actions[0]
            bad_bot = thousand_table(3)
            bad_bot.seats[0].kind = pb.SEAT_KIND_BOT
            unknown = thousand_table(3, bots=1)
            unknown.seats[2].strategy = "no-such-strategy"

            def submit(**fields: object) -> pb.SubmitActionRequest:
                request = pb.SubmitActionRequest(table_id=full, request_id="r", action=action)
                for name, value in fields.items():
                    setattr(request, name, value)
                return request

            cases: list[Callable[[Api], Awaitable[Refusal]]] = [
                lambda c: refused(c.unary("GetTable", pb.GetTableRequest(table_id="nope"))),
                lambda c: refused(c.unary("GetTable", pb.GetTableRequest())),
                lambda c: refused(c.unary("CreateTable", pb.CreateTableRequest())),
                lambda c: refused(c.unary("CreateTable", bad_bot)),
                lambda c: refused(c.unary("CreateTable", unknown)),
                lambda c: refused(c.unary("JoinTable", pb.JoinTableRequest(table_id=full))),
                lambda c: refused(
                    c.unary("JoinTable", pb.JoinTableRequest(table_id=waiting, seat_token="short"))
                ),
                lambda c: refused(c.unary("JoinTable", pb.JoinTableRequest(table_id=waiting, seat=0))),
                lambda c: refused(c.unary("SubmitAction", submit())),
                lambda c: refused(c.unary("SubmitAction", submit(), "x" * 43)),
                lambda c: refused(c.unary("SubmitAction", submit(), tokens[other])),
                lambda c: refused(c.unary("SubmitAction", submit(request_id=""), tokens[mover])),
                lambda c: refused(c.unary("SubmitAction", submit(last_seen_sequence=1), tokens[mover])),
                lambda c: refused(c.unary("SubmitAction", submit(table_id=waiting), early)),
                lambda c: refused(c.unary("LeaveTable", pb.LeaveTableRequest(table_id=full), "y" * 43)),
                lambda c: refused(c.unary("ExportTable", pb.ExportTableRequest(table_id=full))),
                lambda c: stream_refused(c, pb.StreamEventsRequest(table_id="nope")),
                lambda c: stream_refused(c, pb.StreamEventsRequest(table_id=full), "z" * 43),
                lambda c: stream_refused(c, pb.StreamEventsRequest(table_id=full, after_sequence=10_000)),
            ]
            for index, case in enumerate(cases):
                over_grpc, over_web = await case(grpc_api), await case(web)
                assert over_web == over_grpc, index
                assert over_grpc.reason is not None, (index, over_grpc)
            reasons = {(await case(web)).reason for case in cases}
            assert {
                "TABLE_NOT_FOUND",
                "INVALID_ARGUMENT",
                "UNKNOWN_STRATEGY",
                "TABLE_FULL",
                "SEAT_TAKEN",
            } <= reasons
            assert {
                "SPECTATOR_CANNOT_ACT",
                "SEAT_TOKEN_INVALID",
                "NOT_YOUR_TURN",
                "STALE_SEQUENCE",
            } <= reasons
            assert {"GAME_NOT_STARTED", "TABLE_NOT_FINISHED"} <= reasons

    run(scenario())


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/proto", b"\xff\xff\xff"),
        ("application/json", b"{not json"),
        ("application/json", b'{"tableId": 5'),
    ],
)
def test_a_request_that_does_not_parse_is_invalid_argument_with_its_field(
    content_type: str, body: bytes
) -> None:
    async def scenario() -> None:
        async with web_server() as (server, _, _):
            answer = await http_request(
                server.web_port, "POST", f"/{SERVICE_NAME}/GetTable", body, {"content-type": content_type}
            )
            assert answer.status == 400, answer
            error = json.loads(answer.body)
            assert error["code"] == "invalid_argument"
            assert "thousand.v1.GetTableRequest" in error["message"]
            [detail] = error["details"]
            assert detail["type"] == "google.rpc.ErrorInfo"

    run(scenario())


@pytest.mark.parametrize("kind", WEB_TRANSPORTS)
def test_play_is_unimplemented_on_the_web_and_says_what_to_use(kind: str) -> None:
    async def scenario() -> None:
        async with web_server() as (_, _, url), web_client(url, kind) as client:

            async def start() -> object:
                async def requests() -> AsyncIterator[pb.PlayRequest]:
                    yield pb.PlayRequest(start=pb.PlayStart(table_id="t"))

                async for message in client.play(requests()):
                    return message
                return None

            answer = await refused(start())
            assert answer.code == "UNIMPLEMENTED"
            assert "StreamEvents" in answer.message and "SubmitAction" in answer.message

    run(scenario())


def test_rate_limits_are_one_per_client_address_across_transports() -> None:
    async def scenario() -> None:
        async with (
            web_server(rate_limit=1, rate_burst=2) as (_, stub, url),
            api("grpc", stub, url) as over_grpc,
            api("connect", stub, url) as over_web,
        ):
            await over_grpc.unary("CreateTable", thousand_table(3))
            await over_web.unary("CreateTable", thousand_table(3))
            limited = await refused(over_web.unary("CreateTable", thousand_table(3)))
            assert limited.code == "RESOURCE_EXHAUSTED" and limited.reason == "RATE_LIMITED"
            assert limited.retry_delay is not None and 0 < limited.retry_delay <= 1
            again = await refused(over_grpc.unary("CreateTable", thousand_table(3)))
            assert again.reason == "RATE_LIMITED", "the same client (127.0.0.1) on either port"

    run(scenario())


# ---------------------------------------------------------------- streams: a game, dropped and resumed

ACTIONS: Final = 300
"""Actions played in a game test: some ten deals (a whole greedy game takes thousands, too long here)."""


async def play_game(client: Api, table_id: str, tokens: list[str], seed: int, *, drop_every: int = 0) -> int:
    """Play every seat by the greedy strategy on the view its turn carries, each on its own batched stream,
    for ACTIONS actions (or to the game's end); a stream is dropped after every ``drop_every`` messages and
    resumed after the last sequence it saw. Checks that every stream saw every event once, in order."""
    rng = random.Random(seed)
    played = 0

    async def on_stream(index: int, last: int | None, seen: list[int]) -> tuple[int | None, bool]:
        """One stream of the seat: the last sequence it saw, and whether the seat is done."""
        nonlocal played
        request = pb.StreamEventsRequest(table_id=table_id, batch_events=True)
        if last is not None:
            request.after_sequence = last
        async with aclosing(client.stream(request, tokens[index])) as messages:
            count = 0
            async for message in messages:
                if message.HasField("event"):
                    seen.extend(range(message.sequence, message.sequence + 1 + len(message.more_events)))
                last = message.sequence + len(message.more_events)  # the batch's last event
                if played >= ACTIONS:
                    return last, True
                turn = message.turn
                if turn.HasField("seat") and turn.seat == index and turn.legal_actions:
                    view = codec.view_from_proto(turn.view.thousand)
                    played += 1
                    submit = pb.SubmitActionRequest(
                        table_id=table_id,
                        request_id=f"{index}-{played}",
                        last_seen_sequence=last,
                        action=pb.Action(thousand=codec.action_to_proto(greedy_player(view, rng))),
                    )
                    await client.unary("SubmitAction", submit, tokens[index])
                count += 1
                if drop_every and count >= drop_every:
                    return last, False
        return last, True

    async def seat(index: int) -> None:
        last: int | None = None
        seen: list[int] = []
        done = False
        while not done:
            last, done = await on_stream(index, last, seen)
        assert seen == list(range(seen[0], seen[0] + len(seen))), "no event lost or repeated"

    # The last action's events reach every seat's stream, which then sees that the game is played.
    await asyncio.wait_for(asyncio.gather(*(seat(i) for i in range(len(tokens)))), timeout=120)
    return played


async def seated_table(client: Api, seed: int) -> tuple[str, list[str]]:
    request = thousand_table(3)
    request.seed = seed
    table_id = (await client.unary("CreateTable", request)).table.table_id
    tokens = [
        (await client.unary("JoinTable", pb.JoinTableRequest(table_id=table_id))).seat_token for _ in range(3)
    ]
    return table_id, tokens


async def history(client: Api, table_id: str) -> list[pb.StreamEventsResponse]:
    """Every event of the table so far, as a spectator resuming from the start receives them."""
    latest = (await client.unary("GetTable", pb.GetTableRequest(table_id=table_id))).table.sequence
    received = []
    async with aclosing(
        client.stream(pb.StreamEventsRequest(table_id=table_id, after_sequence=0))
    ) as messages:
        async for message in messages:
            received.append(message)
            if message.sequence >= latest:
                break
    assert [m.sequence for m in received] == list(range(1, latest + 1))
    return received


@pytest.mark.parametrize("kind", WEB_TRANSPORTS)
def test_streams_dropped_and_resumed_over_the_web_miss_nothing(kind: str) -> None:
    async def scenario() -> None:
        async with web_server() as (_, stub, url), api(kind, stub, url) as client:
            table_id, tokens = await seated_table(client, seed=11)
            played = await play_game(client, table_id, tokens, seed=5, drop_every=7)
            assert played == ACTIONS
            events = await history(client, table_id)
            assert sum(m.event.thousand.HasField("deal_scored") for m in events) >= 3

    run(scenario())


def test_the_same_seeded_game_gives_the_same_events_over_every_transport() -> None:
    async def scenario() -> None:
        games: dict[str, list[pb.Event]] = {}
        async with web_server() as (_, stub, url):
            for kind in TRANSPORTS:
                async with api(kind, stub, url) as client:
                    table_id, tokens = await seated_table(client, seed=3)
                    assert await play_game(client, table_id, tokens, seed=9) == ACTIONS
                    games[kind] = [m.event for m in await history(client, table_id)]
        assert len(games["grpc"]) > ACTIONS
        for kind in WEB_TRANSPORTS:
            assert games[kind] == games["grpc"], kind

    run(scenario())
