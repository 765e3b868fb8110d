"""A server in the test's process on loopback with a stub to it, and what the tests of its contract share:
a scripted player (:class:`Client`), tables to create, and the checks of an error's reason and of T-33's
hidden information on the wire."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TypeVar

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc import aio
from grpc_status import rpc_status

from bots.strategy import greedy_player
from codec import thousand as codec
from server.app import Server
from server.settings import Settings
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


async def record_parts(stub: pb_grpc.TableServiceAsyncStub, table_id: str) -> list[bytes]:
    """StreamTableRecord's parts of a finished table's game record, as sent."""
    request = pb.StreamTableRecordRequest(table_id=table_id)
    return [response.record_part async for response in stub.StreamTableRecord(request)]


async def game_record(stub: pb_grpc.TableServiceAsyncStub, table_id: str) -> str:
    """A finished table's game record read as a client should (StreamTableRecord's parts joined): a whole
    game among bots can outgrow ExportTable's one message (RECORD_TOO_LARGE)."""
    return b"".join(await record_parts(stub, table_id)).decode()


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
