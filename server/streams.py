"""A table's open streams: each one's bounded queue of serialized messages, and the fan-out that fills them.

Every change the table makes is rendered once per audience (a seat, or spectators; :mod:`server.rendering`)
and the bytes are handed to that audience's streams. A stream that cannot keep up is not allowed to grow the
server's memory: its queue is bounded, and when it overflows the stream is given a fresh snapshot instead of
the backlog. A stream starts from a snapshot, or resumes after a sequence number from the table's log.

The fan-out keeps no pointer to the table: each publication passes the table's core (what it renders from),
its turn clock (a Turn's deadline) and the step's events with their frame; a stream being opened is given the
same, and reads the core for as long as it is open.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Final

from server.errors import ErrorReason, ServiceError
from server.rendering import Rendering, history, response, snapshot, turn_bytes
from server.table_changes import Published
from server.table_state import SeatReleasedEvent, SeatTakenOverEvent, TableStoppedEvent

if TYPE_CHECKING:
    from server.table_core import TableCore
    from server.turn_clock import TurnClock

STREAM_QUEUE_SIZE: Final = 1024
"""Messages a stream may have waiting before it is considered lagging and resynchronized by a snapshot."""

SPECTATORS: Final = None
"""The audience of a stream opened without a seat token."""

END: Final = b""
"""Queued to a stream to end it (the game is over, or the server is shutting down)."""


class Reply(bytes):
    """A message for one stream alone that no dropped backlog may lose: the result of an action sent on a
    Play stream. It is queued among the table's messages, so it follows the events its action produced."""

    __slots__ = ()


class Subscriber:
    """One open stream: the audience it belongs to and its bounded queue of serialized messages.

    Not an ``asyncio.Queue``: a stream has one reader and the table is its only writer, so a list and a
    future that exists only while the stream waits do the same for a fraction of the memory (an idle stream
    holds an empty list, 56 bytes, and that one future, not a queue's three 760-byte deques and an event) and
    of the calls. The list is short (the messages of an action or two; at most STREAM_QUEUE_SIZE), so taking
    from its front is cheap.
    """

    __slots__ = (
        "_loop",
        "_pending",
        "_waiter",
        "audience",
        "batch",
        "catching_up",
        "ended",
        "failure",
        "lagging",
    )

    def __init__(self, audience: int | None, batch: bool = False) -> None:
        self.audience = audience
        self.batch = batch
        """The client asked for batches (StreamEventsRequest.batch_events): one message per change."""
        self.lagging = False
        self.failure: ServiceError | None = None
        """Why the stream ends, when it ends with an error (the table moved to another node)."""
        self.catching_up = False
        """The stream is still reading the table's log: the table's messages are not queued meanwhile (the
        log holds them already, and the stream reads on until it has caught up)."""
        self.ended = False
        self._pending: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        """The stream's loop, kept: CPython 3.11 asks the system for the process id in every
        ``asyncio.get_running_loop()``."""

    def offer(self, data: bytes) -> None:
        if self.lagging or self.catching_up:
            return
        if len(self._pending) >= STREAM_QUEUE_SIZE:
            self.lagging = True
            self.drain()
            self._pending.append(b"\x00")  # wake the stream so it resynchronizes
        else:
            self._pending.append(data)
        self._wake()

    def reply(self, data: Reply) -> None:
        """Queue a reply: never dropped, also while the stream lags."""
        self._pending.append(data)
        self._wake()

    def end(self, failure: ServiceError | None = None) -> None:
        """End the stream after what it is reading now: the backlog is dropped (replies kept), and no
        resync follows; with ``failure``, the stream ends with that error instead of cleanly."""
        self.failure = failure
        self.lagging = False
        self.ended = True
        self.drain()
        self._pending.append(END)
        self._wake()

    def drain(self) -> None:
        """Drop the backlog, replies excepted."""
        pending = self._pending
        if any(type(data) is Reply for data in pending):
            self._pending = [data for data in pending if type(data) is Reply]
        else:
            pending.clear()

    def take_reply(self) -> Reply | None:
        """The next message if it is a reply (taken from the queue), else None."""
        pending = self._pending
        if pending and type(pending[0]) is Reply:
            data = pending.pop(0)
            assert isinstance(data, Reply)
            return data
        return None

    def depth(self) -> int:
        """Messages waiting."""
        return len(self._pending)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> bytes:
        """The next message, once there is one."""
        while not self._pending:
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._pending.pop(0)


class Streams:
    """The open streams of one table: what it publishes reaches each of them, rendered for its audience."""

    __slots__ = ("last_closed", "subscribers")

    def __init__(self) -> None:
        self.subscribers: set[Subscriber] = set()
        self.last_closed = 0.0
        """time.monotonic() when the table's last stream closed (for idle expiry)."""

    def publish(self, core: TableCore, clock: TurnClock, published: Published) -> None:
        """Queue a step's just-logged events to every stream, serialized once per audience; a stream whose
        events reach the game's end is ended after them, and so are the streams of a seat given up (T-33:
        whoever gave the seat up sees nothing more of it)."""
        if not self.subscribers:
            return
        events = published.events
        audiences: dict[tuple[int | None, bool], list[Subscriber]] = {}
        for subscriber in self.subscribers:
            if not subscriber.catching_up:
                audiences.setdefault((subscriber.audience, subscriber.batch), []).append(subscriber)
        is_game_over = core.adapter.is_game_over
        ended = any(is_game_over(e) or isinstance(e, TableStoppedEvent) for e in events)
        # A seat an operator handed to a bot: its player's streams are told so, then end (no longer theirs).
        handed = {e.seat for e in events if isinstance(e, SeatTakenOverEvent) and e.handed_over}
        rendering = Rendering(core, clock, events, published.first)
        for (audience, batch), subscribers in audiences.items():
            messages = rendering.messages(audience, batch)
            for subscriber in subscribers:
                for data in messages:
                    subscriber.offer(data)
                if ended or subscriber.audience in handed:
                    subscriber.offer(END)
        for event in events:
            if isinstance(event, SeatReleasedEvent):
                self.end_seat(event.seat)
        for subscriber in self.subscribers:  # one still catching up sees nothing more of the seat either
            if subscriber.catching_up and subscriber.audience in handed:
                subscriber.end()

    def open(
        self,
        core: TableCore,
        clock: TurnClock,
        subscriber: Subscriber,
        after: int | None,
        *,
        resynced: Callable[[int | None], None],
        opened: Callable[[int], Awaitable[None]] | None = None,
        closed: Callable[[int], None] | None = None,
    ) -> AsyncGenerator[bytes, None]:
        """Serialized StreamEventsResponse messages for one stream, from a snapshot or after a sequence,
        then as the table changes; :class:`Reply` messages queued to ``subscriber`` come in their place.

        ``after`` is checked at once (ServiceError), so that a caller can refuse the stream before it
        iterates; the stream subscribes when it is first iterated. ``resynced`` is told when a lagging
        stream is sent a snapshot; ``opened`` (a seat's stream) is awaited once the stream has subscribed
        and sent what it had to (the seat's player is back: the table takes the seat back from its bot);
        ``closed`` (a seat's stream) is told once it ended with no other stream of its seat open.
        """
        sequence = core.sequence
        if after is not None and after > sequence:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"after_sequence {after} is beyond the table's latest event {sequence}",
                field="after_sequence",
            )
        return self._stream(core, clock, subscriber, after, resynced, opened, closed)

    async def _stream(  # noqa: PLR0917  # the arguments of open(), passed on
        self,
        core: TableCore,
        clock: TurnClock,
        subscriber: Subscriber,
        after: int | None,
        resynced: Callable[[int | None], None],
        opened: Callable[[int], Awaitable[None]] | None,
        closed: Callable[[int], None] | None,
    ) -> AsyncGenerator[bytes, None]:
        audience = subscriber.audience
        # Subscribing and reading the backlog happen with no await in between: no event can fall in the gap.
        self.subscribers.add(subscriber)
        try:
            if after is not None and after < core.sequence:
                async for data in self._catch_up(core, clock, subscriber, after):
                    yield data
                if subscriber.failure is not None:  # the table moved while its history was being sent
                    raise subscriber.failure
                if core.finished or subscriber.ended:
                    return
            else:
                # A snapshot, or nothing missed (still say whose turn it is).
                ended = core.finished
                yield (
                    snapshot(core, clock, audience)
                    if after is None
                    else response(core.sequence, None, turn_bytes(core, clock, audience))
                )
                if ended:
                    return
            if opened is not None and audience is not None:
                await opened(audience)
            while True:
                data = await subscriber.get()
                if type(data) is Reply:
                    yield data
                    continue
                if subscriber.lagging:
                    subscriber.drain()
                    subscriber.lagging = False
                    resynced(audience)
                    resync, ended = snapshot(core, clock, audience), core.finished
                    yield resync
                    if ended:  # the snapshot shows the end (the dropped backlog held the END)
                        return
                    continue
                if data == END:
                    if subscriber.failure is not None:
                        raise subscriber.failure
                    return
                yield data
        finally:
            self.subscribers.discard(subscriber)
            self.last_closed = time.monotonic()
            if closed is not None and audience is not None and not self.seat_open(audience):
                closed(audience)

    def seat_open(self, seat: int) -> bool:
        """Whether a stream of the seat's own is open."""
        return any(s.audience == seat for s in self.subscribers)

    async def _catch_up(
        self, core: TableCore, clock: TurnClock, subscriber: Subscriber, after: int
    ) -> AsyncGenerator[bytes, None]:
        """The logged events after ``after``, read from the table's log part by part as they are sent, until
        the stream has caught up with the table; from then on the table's messages are queued to it.

        Why from the log and not the queue: a long history takes a while to send to a slow reader, and the
        events the table logs meanwhile would fill the stream's bounded queue and cost it a resync by
        snapshot (the events of that time, the game's end among them, never seen). The log holds them
        already, so reading on from it costs no memory and loses nothing.
        """
        subscriber.catching_up = True
        try:
            while after < core.sequence and not subscriber.ended:
                end = core.sequence
                turn = turn_bytes(core, clock, subscriber.audience)
                for data in history(
                    core, clock, after, end, audience=subscriber.audience, batch=subscriber.batch, turn=turn
                ):
                    yield data
                    if subscriber.ended:
                        return
                after = end
        finally:
            subscriber.catching_up = False  # with no await since the last check: no event falls in the gap

    def end_seat(self, seat: int) -> None:
        """End the streams of a seat given up (T-33: whoever gave it up sees nothing more of it)."""
        for subscriber in self.subscribers:
            if subscriber.audience == seat:
                subscriber.end()

    def end_all(self, failure: ServiceError | None = None) -> None:
        """End every stream (the server is stopping, or the table moved: then with ``failure``): each ends
        rather than resynchronizing."""
        for subscriber in self.subscribers:
            subscriber.end(failure)

    def queue_depths(self) -> list[tuple[int | None, int]]:
        """Each open stream's audience and the number of messages waiting in its queue (for metrics)."""
        return [(s.audience, s.depth()) for s in list(self.subscribers)]
