"""What a table's streams send, serialized: StreamEventsResponse messages of its events, Turns and snapshots.

Everything here reads the table's core (:class:`~server.table_core.TableCore`) and its turn clock, given as
arguments. A message is written from serialized pieces (:mod:`server.protobuf_wire`), each piece once per
change however many audiences share it: an event every seat sees alike (every card played, every bid) is
serialized once for all of them, and so is the Turn every stream but the acting seat's gets. The pieces go in
field-number order, as protobuf's own serializer writes them, so the bytes are protobuf's (tests/test_wire.py
compares them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

from google.protobuf.timestamp_pb2 import Timestamp

from server import protobuf_wire as wire
from server.deal_progress import deal_in_progress
from server.description import describe
from server.protobuf_wire import field_number
from server.table_state import SeatEvent, TableEvent, seat_event_proto
from server.time_control import duration
from thousand.v1 import table_service_pb2 as pb

if TYPE_CHECKING:
    from server.games import AnyAdapter
    from server.table_core import TableCore
    from server.turn_clock import TurnClock

MAX_BATCH: Final = 64
"""Events in one batched message at most (a resumed stream's catching up is cut into such messages)."""

_RESPONSE_SEQUENCE: Final = field_number(pb.StreamEventsResponse, "sequence")
_RESPONSE_EVENT: Final = field_number(pb.StreamEventsResponse, "event")
_RESPONSE_TURN: Final = field_number(pb.StreamEventsResponse, "turn")
_RESPONSE_MORE_EVENTS: Final = field_number(pb.StreamEventsResponse, "more_events")
_TURN_SEAT: Final = field_number(pb.Turn, "seat")
_TURN_DEADLINE: Final = field_number(pb.Turn, "deadline")
_TURN_VIEW: Final = field_number(pb.Turn, "view")
_TURN_BANK_REMAINING: Final = field_number(pb.Turn, "bank_remaining")


def response(sequence: int, event: bytes | None, turn: bytes | None, more: Sequence[bytes] = ()) -> bytes:
    """A serialized StreamEventsResponse from its serialized event, Turn (None: the field is unset) and, in a
    batch, the events after the first (in field-number order, as protobuf's own serializer writes them)."""
    data = wire.int_field(_RESPONSE_SEQUENCE, sequence) if sequence else b""
    if event is not None:
        data += wire.message_field(_RESPONSE_EVENT, event)
    if turn is not None:
        data += wire.message_field(_RESPONSE_TURN, turn)
    for following in more:
        data += wire.message_field(_RESPONSE_MORE_EVENTS, following)
    return data


class Rendering:
    """Events just logged, rendered once per visibility class: audiences that see every event in the same
    form and get the same Turn (the seats not acting and the spectators, when the events hide nothing from
    them) share one list of messages, and each distinct piece in it is serialized once."""

    __slots__ = ("_classes", "_clock", "_core", "_first", "_forms", "_public_turn", "events")

    def __init__(
        self, core: TableCore, clock: TurnClock, events: Sequence[TableEvent[Any]], first: int
    ) -> None:
        self._core = core
        self._clock = clock
        self.events = events
        self._first = first
        self._forms: list[list[tuple[object, bytes]]] = [[] for _ in events]
        """Per event: each form some audience saw it in, with its serialization."""
        self._public_turn: bytes | None = None
        self._classes: dict[tuple[object, ...], list[bytes]] = {}
        """The messages of each visibility class rendered so far: by batching, the Turn's owner (None for the
        public Turn) and the form each event is seen in."""

    def _form(self, index: int, audience: int | None) -> int:
        """Which of the event's forms ``audience`` sees (its place in ``_forms[index]``), serialized once."""
        adapter = self._core.adapter
        seen = seen_by(adapter, self.events[index], audience)
        forms = self._forms[index]
        for place, (form, _) in enumerate(forms):
            if form is seen or form == seen:
                return place
        forms.append((seen, event_bytes(adapter, seen)))
        return len(forms) - 1

    def _turn(self, audience: int | None) -> tuple[int | None, bytes]:
        """The Turn ``audience`` gets, with whose it is: the acting seat's own, or the public one (None)."""
        core = self._core
        if audience is not None and audience == core.game.to_act:
            return audience, turn_bytes(core, self._clock, audience)
        if self._public_turn is None:
            self._public_turn = turn_bytes(core, self._clock, None)
        return None, self._public_turn

    def messages(self, audience: int | None, batch: bool = False) -> list[bytes]:
        """The audience's messages: one per event, or (``batch``) up to MAX_BATCH events a message; the
        Turn goes on the last. The same list for every audience of its visibility class."""
        owner, turn = self._turn(audience)
        forms = [self._form(i, audience) for i in range(len(self.events))]
        key = (batch, owner, *forms)
        messages = self._classes.get(key)
        if messages is None:
            messages = self._render(forms, batch, turn)
            self._classes[key] = messages
        return messages

    def messages_with(self, audience: int | None, batch: bool, turn: bytes | None) -> list[bytes]:
        """:meth:`messages` with ``turn`` on the last (None: no Turn, a part of a longer history)."""
        return self._render([self._form(i, audience) for i in range(len(self.events))], batch, turn)

    def _render(self, forms: list[int], batch: bool, turn: bytes | None) -> list[bytes]:
        first, all_forms = self._first, self._forms
        events = [all_forms[i][place][1] for i, place in enumerate(forms)]
        last = len(events) - 1
        if batch:
            return [
                response(
                    first + start,
                    events[start],
                    turn if start + MAX_BATCH > last else None,
                    events[start + 1 : start + MAX_BATCH],
                )
                for start in range(0, last + 1, MAX_BATCH)
            ]
        messages = [response(first + i, events[i], None) for i in range(last)]
        messages.append(response(first + last, events[last], turn))
        return messages


def history(
    core: TableCore, clock: TurnClock, after: int, end: int, *, audience: int | None, batch: bool, turn: bytes
) -> Iterator[bytes]:
    """The messages of the table's logged events after ``after`` up to ``end``, rendered MAX_BATCH events
    at a time as they are taken, ``turn`` on the last: a resume of a long history holds one part of it at a
    time, not all of it (issue 21: a resume of 9,499 events was rendered at once, blocking the event loop
    for 392 ms, and 300 unread resumes held 53 MB)."""
    for start in range(after, end, MAX_BATCH):
        stop = min(start + MAX_BATCH, end)
        part = Rendering(core, clock, core.log[start:stop], start + 1)
        yield from part.messages_with(audience, batch, turn if stop == end else None)


def seen_by(adapter: AnyAdapter, event: TableEvent[Any], audience: int | None) -> TableEvent[Any]:
    """``event`` as ``audience`` may see it (the table's own events are public)."""
    if isinstance(event, SeatEvent):
        return event
    return adapter.event_for(event, audience)


def event_bytes(adapter: AnyAdapter, seen: TableEvent[Any]) -> bytes:
    """A serialized ``Event`` of an event already filtered by :func:`seen_by`."""
    if isinstance(seen, SeatEvent):
        return seat_event_proto(seen).SerializeToString()
    return adapter.event_bytes(seen)


def turn_bytes(core: TableCore, clock: TurnClock, audience: int | None) -> bytes:
    """A serialized ``Turn``: whose turn it is and, on that seat's own stream, its actions and view.

    Written field by field in field-number order (see :mod:`server.protobuf_wire`): the legal actions come
    from the adapter already serialized (Thousand's fields kept per action), and the view serialized once.
    """
    seat = core.to_act
    if seat is None:
        return b""
    own = audience == seat
    timed = clock.runs_for(seat)
    adapter = core.adapter
    parts = [wire.int_field(_TURN_SEAT, seat)]
    if own:
        parts.append(adapter.turn_actions_bytes(core.game, seat))
    if timed:
        deadline = Timestamp()
        deadline.FromNanoseconds(int(clock.deadline_wall * 1e9))
        parts.append(wire.message_field(_TURN_DEADLINE, deadline.SerializeToString()))
    if own:
        parts.append(wire.message_field(_TURN_VIEW, adapter.view_bytes(core.game, seat)))
    if timed:
        bank = duration(core.seats[seat].bank).SerializeToString()
        parts.append(wire.message_field(_TURN_BANK_REMAINING, bank))
    return b"".join(parts)


def snapshot(core: TableCore, clock: TurnClock, audience: int | None) -> bytes:
    """A serialized StreamEventsResponse holding the table as ``audience`` may see it, and its Turn; on a
    fair table, the deal in progress with the events a check of it reads (:mod:`server.deal_progress`)."""
    message = pb.StreamEventsResponse(sequence=core.sequence)
    message.snapshot.table.CopyFrom(describe(core))
    if core.started:
        message.snapshot.view.CopyFrom(core.adapter.view_to_proto(core.game, audience))
    deal = deal_in_progress(core, audience)
    if deal is not None:
        progress = message.snapshot.deal
        progress.number = deal.number
        progress.commitment = deal.commitment
        for sequence in deal.sequences:
            seen = event_bytes(core.adapter, seen_by(core.adapter, core.log[sequence - 1], audience))
            progress.events.add(sequence=sequence).event.ParseFromString(seen)
    return message.SerializeToString() + wire.message_field(_RESPONSE_TURN, turn_bytes(core, clock, audience))
