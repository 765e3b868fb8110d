"""Hostile clients (hypothesis): random and malformed requests, wrong tokens, stale sequence numbers and
reused request ids never produce an INTERNAL (or UNKNOWN) error, and a refused request never changes a
table."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import grpc
from grpc import aio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codec import thousand as codec
from engine import Bid, Pass
from server.app import Server
from server.settings import Settings
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

SERVICE = "/thousand.v1.TableService/"
METHODS = [
    method.name
    for method in pb.DESCRIPTOR.services_by_name["TableService"].methods
    # every unary method, a new one included (StreamEvents: tests/test_server_streams.py)
    if not method.server_streaming
]
ACCEPTABLE = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}


@dataclass
class Live:
    loop: asyncio.AbstractEventLoop
    server: Server
    channel: aio.Channel
    stub: pb_grpc.TableServiceAsyncStub
    table_id: str
    tokens: list[str]


@contextmanager
def live() -> Iterator[Live]:
    loop = asyncio.new_event_loop()

    async def start() -> Live:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        channel = aio.insecure_channel(f"127.0.0.1:{server.port}")
        stub = pb_grpc.TableServiceStub(channel)
        request = pb.CreateTableRequest(
            game=pb.GAME_KIND_THOUSAND,
            seats=[pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] * 2
            + [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")],
            seed=3,
            practice=True,
            first_dealer=0,
        )
        table = (await stub.CreateTable(request)).table
        tokens = [
            (await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))).seat_token for _ in range(2)
        ]
        # The loop runs only during each check: let the bot make its moves now (they take their turns on the
        # loop), so that no check sees the table change for a reason of its own.
        while server.registry.get(table.table_id).bots.running():
            await asyncio.sleep(0.01)
        return Live(loop, server, channel, stub, table.table_id, tokens)

    state = loop.run_until_complete(start())
    try:
        yield state
    finally:
        loop.run_until_complete(state.channel.close())
        loop.run_until_complete(state.server.stop(grace=0.1))
        loop.close()


def sequence(state: Live) -> int:
    return state.server.registry.get(state.table_id).sequence


def test_random_bytes_to_every_method_never_break_the_server() -> None:
    with live() as state:

        @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
        @given(
            method=st.sampled_from(METHODS),
            body=st.binary(max_size=200),
            token=st.sampled_from(["", "x", "T"]),
        )
        def check(method: str, body: bytes, token: str) -> None:
            metadata = (("x-seat-token", state.tokens[0] if token == "T" else token),) if token else ()
            before = sequence(state)

            async def call() -> grpc.StatusCode:
                raw: aio.UnaryUnaryMultiCallable[bytes, bytes] = state.channel.unary_unary(SERVICE + method)
                try:
                    await raw(body, metadata=metadata, timeout=10)
                except aio.AioRpcError as error:
                    return error.code()
                return grpc.StatusCode.OK

            code = state.loop.run_until_complete(call())
            assert code in ACCEPTABLE, (method, body, code)
            if code != grpc.StatusCode.OK:
                assert sequence(state) == before

        check()


def test_wrong_tokens_stale_sequences_and_reused_ids_are_refused_without_a_change() -> None:
    with live() as state:
        actions = [codec.action_to_proto(a) for a in (Pass(), Bid(105), Bid(100), Bid(1000), Bid(-5))]

        @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
        @given(
            who=st.sampled_from(["seat0", "seat1", "none", "garbage", "table-id"]),
            action=st.sampled_from(actions),
            request_id=st.sampled_from(["", "a", "b", "x" * 200]),
            stale=st.sampled_from([None, 0, 1, 10**12]),
            table=st.sampled_from(["ours", "", "nope"]),
        )
        def check(who: str, action: object, request_id: str, stale: int | None, table: str) -> None:
            token = {
                "seat0": state.tokens[0],
                "seat1": state.tokens[1],
                "garbage": "g" * 43,
                "table-id": state.table_id,
            }
            metadata = (("x-seat-token", token[who]),) if who in token else ()
            request = pb.SubmitActionRequest(
                table_id=state.table_id if table == "ours" else table,
                request_id=request_id,
            )
            request.action.thousand.CopyFrom(action)  # type: ignore[arg-type]
            if stale is not None:
                request.last_seen_sequence = stale
            before = sequence(state)

            async def call() -> grpc.StatusCode:
                try:
                    await state.stub.SubmitAction(request, metadata=metadata, timeout=10)
                except aio.AioRpcError as error:
                    return error.code()
                return grpc.StatusCode.OK

            code = state.loop.run_until_complete(call())
            assert code in ACCEPTABLE, code
            if code != grpc.StatusCode.OK:
                assert sequence(state) == before

        check()


def test_random_messages_on_a_play_stream_never_break_it() -> None:
    """Play with random bytes: as the first message the call ends with a status a client can act on; later
    every message gets a result (a refusal unless it happens to be a legal action), the stream goes on, and a
    refused message changes nothing."""
    with live() as state:
        start = pb.PlayRequest()
        start.start.table_id = state.table_id
        play: aio.StreamStreamMultiCallable[bytes, bytes] = state.channel.stream_stream(SERVICE + "Play")
        metadata = (("x-seat-token", state.tokens[0]),)

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(
            first=st.one_of(st.just(start.SerializeToString()), st.binary(max_size=100)),
            later=st.lists(st.binary(max_size=100), max_size=4),
        )
        def check(first: bytes, later: list[bytes]) -> None:
            async def call() -> None:
                opened = play(metadata=metadata, timeout=10)
                await opened.write(first)
                try:
                    response = await opened.read()
                except aio.AioRpcError as error:
                    assert error.code() in ACCEPTABLE, (first, error.code())
                    return
                if response is aio.EOF:
                    assert await opened.code() in ACCEPTABLE
                    return
                for body in later:
                    before = sequence(state)
                    await opened.write(body)
                    while True:  # the body's result, after any updates
                        message = await opened.read()
                        assert isinstance(message, bytes), "the stream ended instead of answering"
                        parsed = pb.PlayResponse.FromString(message)
                        if parsed.HasField("result"):
                            break
                    if parsed.result.HasField("refusal"):
                        assert sequence(state) == before
                        assert parsed.result.refusal.reason, parsed
                opened.cancel()

            state.loop.run_until_complete(call())

        check()
