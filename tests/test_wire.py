"""The stream messages a table assembles from serialized pieces (server/protobuf_wire.py) are byte for byte
what building the messages and serializing them gives: for every audience, at every step of seeded games of
both games, with and without a turn clock."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from clients.streams import unbatched
from engine import Rules
from engine.blagogo import BlagogoRules
from server import protobuf_wire as wire
from server import rendering
from server.creations import SeatSpec
from server.registry import Registry
from server.rendering import MAX_BATCH
from server.table import Table
from server.table_state import SeatReleasedEvent, SeatTakenEvent, seat_event_proto
from server.time_control import TimeControl
from thousand.v1 import table_service_pb2 as pb


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 16_383, 16_384, 2**32, 2**64 - 1])
def test_varint_fields_match_protobuf(value: int) -> None:
    message = pb.StreamEventsResponse(sequence=value)
    assert (wire.int_field(1, value) if value else b"") == message.SerializeToString()


@pytest.mark.parametrize("size", [0, 1, 127, 128, 20_000])
def test_message_fields_match_protobuf(size: int) -> None:
    name = "x" * size
    event = pb.Event(seat_taken=pb.SeatTaken(player_name=name))
    message = pb.StreamEventsResponse(event=event)
    assert wire.message_field(3, event.SerializeToString()) == message.SerializeToString()


def render(
    table: Table, events: list[Any], first: int, audience: int | None, batch: bool = False
) -> list[bytes]:
    """The table's messages of ``events`` (numbered from ``first``) for one audience, as streams get them."""
    return rendering.Rendering(table.core, table.clock, events, first).messages(audience, batch)


def turn_bytes(table: Table, audience: int | None) -> bytes:
    """The table's serialized Turn for ``audience``."""
    return rendering.turn_bytes(table.core, table.clock, audience)


def reference_turn(table: Table, audience: int | None) -> pb.Turn:
    """The Turn built as a message, field by field (as the table built it before server/protobuf_wire.py)."""
    turn = pb.Turn()
    seat = table.game.to_act if table.started else None
    if seat is not None:
        turn.seat = seat
        if table.clock.key is not None and table.clock.key[1] == seat:
            turn.deadline.FromNanoseconds(int(table.clock.deadline_wall * 1e9))
            turn.bank_remaining.FromNanoseconds(round(table.seats[seat].bank * 1e9))
        if audience == seat:
            adapter = table.adapter
            actions = adapter.turn_actions(table.game, seat)
            turn.legal_actions.extend(adapter.action_to_proto(a) for a in actions)
            turn.view.CopyFrom(adapter.view_to_proto(table.game, seat))
    return turn


def reference_messages(table: Table, events: list[Any], first: int, audience: int | None) -> list[bytes]:
    messages = []
    for i, event in enumerate(events):
        if isinstance(event, SeatTakenEvent):
            message = pb.Event(
                seat_taken=pb.SeatTaken(seat=event.seat, player_name=event.player_name, bot=event.bot)
            )
        elif isinstance(event, SeatReleasedEvent):
            message = seat_event_proto(event)
        else:
            message = table.adapter.event_to_proto(event, audience)
        messages.append(pb.StreamEventsResponse(sequence=first + i, event=message))
    messages[-1].turn.CopyFrom(reference_turn(table, audience))
    return [m.SerializeToString() for m in messages]


def expand(batched: list[bytes]) -> list[pb.StreamEventsResponse]:
    """Batched messages as the one-event messages they stand for (the client library's reading)."""
    out: list[pb.StreamEventsResponse] = []
    for data in batched:
        message = pb.StreamEventsResponse.FromString(data)
        assert message.SerializeToString() == data  # the hand-written bytes are protobuf's own
        out += unbatched(message)
    return out


def play(rules: Any, seed: int, clock: bool, steps: int) -> None:
    async def scenario() -> None:
        registry = Registry()
        control = TimeControl(per_move=30.0, bank=60.0) if clock else None
        players = rules.players
        table = await registry.create(rules, [SeatSpec(bot=False)] * players, seed, 0, control)
        audiences: list[int | None] = [*range(players), None]
        for seat in range(players):
            await table.join(seat, f"p{seat}")
        rng = random.Random(seed)
        checked = 0
        for _ in range(steps):
            seat = table.game.to_act
            if seat is None:
                break
            before = table.sequence
            await table.submit(seat, f"r{checked}", before, rng.choice(list(table.game.legal_actions())))
            events = table.log[before:]
            for audience in audiences:
                expected = reference_messages(table, events, before + 1, audience)
                assert render(table, events, before + 1, audience) == expected
                assert pb.Turn.FromString(turn_bytes(table, audience)) == reference_turn(table, audience)
                batched = render(table, events, before + 1, audience, batch=True)
                assert len(batched) == 1  # one change, one message
                assert expand(batched) == [pb.StreamEventsResponse.FromString(m) for m in expected]
            checked += 1
        assert checked > 20
        # A resume renders the whole log at once, seat events included.
        for audience in audiences:
            expected = reference_messages(table, table.log, 1, audience)
            assert render(table, table.log, 1, audience) == expected
            batched = render(table, table.log, 1, audience, batch=True)
            assert len(batched) == -(-len(table.log) // MAX_BATCH)  # at most MAX_BATCH events a message
            assert expand(batched) == [pb.StreamEventsResponse.FromString(m) for m in expected]

    asyncio.run(scenario())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("clock", [False, True])
def test_thousand_stream_messages_are_byte_identical(seed: int, clock: bool) -> None:
    play(Rules(players=3 + seed % 2, dark=seed % 2 == 0), seed, clock, 400)


@pytest.mark.parametrize("seed", range(2))
def test_blagogo_stream_messages_are_byte_identical(seed: int) -> None:
    play(BlagogoRules(players=3), seed, seed == 1, 150)


@pytest.mark.parametrize("number", [1, 15, 16, 2047])
def test_field_numbers_beyond_one_byte_tags(number: int) -> None:
    assert wire.int_field(number, 300) == wire.tag(number, 0) + wire.varint(300)
    assert wire.message_field(number, b"ab") == wire.tag(number, 2) + b"\x02ab"
    assert wire.tag(16, 0) == b"\x80\x01"


def test_field_numbers_are_read_from_the_descriptors() -> None:
    assert wire.field_number(pb.StreamEventsResponse, "more_events") == 5
    assert wire.field_number(pb.Turn, "bank_remaining") == 5
    with pytest.raises(KeyError):
        wire.field_number(pb.Turn, "no_such_field")
