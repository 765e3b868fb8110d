"""Scripted 1000 Blagogo clients of a real server, for the Blagogo server tests (test_blagogo_server*.py).

A :class:`Player` streams its seat and plays a seeded random choice among its Turn's actions, so a whole game
runs over the wire with every open seat played this way and the others by server-run bots. The tables use a
small ``target`` and ``turnover_limit=1`` (rules B-20, B-10): random players rarely go out, and without the
limit a round whose cards are all dead would never end.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bots.blagogo import BlagogoRandomStrategy
from codec import blagogo as codec_blagogo
from engine import blagogo as bg
from tests.server_harness import token_md
from thousand.v1 import blagogo_events_pb2
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TARGET = 100
TURNOVER_LIMIT = 1
TIMEOUT = 60


def blagogo_table(players: int, bots: int, seed: int, **rules: object) -> pb.CreateTableRequest:
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN) for _ in range(players - bots)]
    seats += [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random") for _ in range(bots)]
    request = pb.CreateTableRequest(
        game=pb.GAME_KIND_BLAGOGO, seats=seats, seed=seed, practice=True, first_dealer=0
    )
    request.rules.blagogo.target = TARGET
    request.rules.blagogo.turnover_limit = TURNOVER_LIMIT
    for name, value in rules.items():
        setattr(request.rules.blagogo, name, value)
    return request


async def seated(
    stub: pb_grpc.TableServiceAsyncStub, request: pb.CreateTableRequest
) -> tuple[str, list[tuple[int, str]]]:
    table = (await stub.CreateTable(request)).table
    joins = []
    for seat in table.seats:
        if seat.kind == pb.SEAT_KIND_OPEN:
            joined = await stub.JoinTable(
                pb.JoinTableRequest(table_id=table.table_id, player_name=f"p{seat.seat}")
            )
            joins.append((joined.seat, joined.seat_token))
    return table.table_id, joins


def submit(
    table_id: str, request_id: str, action: bg.Action, last_seen: int | None = None
) -> pb.SubmitActionRequest:
    request = pb.SubmitActionRequest(
        table_id=table_id,
        request_id=request_id,
        action=pb.Action(blagogo=codec_blagogo.action_to_proto(action)),
    )
    if last_seen is not None:
        request.last_seen_sequence = last_seen
    return request


@dataclass
class Player:
    """A scripted client: streams its seat and plays a seeded random choice among its Turn's actions."""

    stub: pb_grpc.TableServiceAsyncStub
    table_id: str
    seat: int
    token: str
    messages: list[pb.StreamEventsResponse] = field(default_factory=list)
    acted: int = 0
    rng: random.Random = field(init=False)
    strategy: BlagogoRandomStrategy = field(default_factory=BlagogoRandomStrategy)

    def __post_init__(self) -> None:
        self.rng = random.Random(1000 + self.seat)

    async def play(self, *, stop_after: int | None = None, after: int | None = None) -> bool:
        """Play to the game's end (True), or stop at this seat's turn after ``stop_after`` actions (False)."""
        request = pb.StreamEventsRequest(table_id=self.table_id)
        if after is not None:
            request.after_sequence = after
        call = self.stub.StreamEvents(request, metadata=token_md(self.token))
        async for message in call:
            self.messages.append(message)
            turn = message.turn
            if turn.HasField("seat") and turn.seat == self.seat and turn.HasField("view"):
                if stop_after is not None and self.acted >= stop_after:
                    call.cancel()
                    return False
                view = codec_blagogo.view_from_proto(turn.view.blagogo)
                assert view.viewer == self.seat and view.to_act == self.seat
                choices = [codec_blagogo.action_from_proto(a.blagogo) for a in turn.legal_actions]
                assert choices, "the acting seat's stream carries its actions"
                assert set(view.legal_actions) <= set(choices), "the simple legal actions come first"
                action = self.strategy.choose(view, choices, self.rng)
                self.acted += 1
                await self.stub.SubmitAction(
                    submit(self.table_id, f"{self.seat}-{self.acted}", action, message.sequence),
                    metadata=token_md(self.token),
                )
        return any(e.HasField("game_over") for e in blagogo_events(self.messages))


def blagogo_events(messages: list[pb.StreamEventsResponse]) -> list[blagogo_events_pb2.BlagogoEvent]:
    return [m.event.blagogo for m in messages if m.HasField("event") and m.event.HasField("blagogo")]


def assert_gap_free(messages: list[pb.StreamEventsResponse], last: int) -> None:
    """A snapshot, then every sequence number after it up to ``last``, once each."""
    assert messages[0].HasField("snapshot")
    sequences = [m.sequence for m in messages[1:] if m.WhichOneof("payload")]
    assert sequences == list(range(messages[0].sequence + 1, last + 1))
