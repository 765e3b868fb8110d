"""A table's open streams: each one's bounded queue of serialized messages, and the fan-out that fills them.

Every change the table makes is rendered once per audience (a seat, or spectators; :mod:`server.rendering`)
and the bytes are handed to that audience's streams. A stream that cannot keep up is not allowed to grow the
server's memory: its queue is bounded, and when it overflows the stream is given a fresh snapshot instead of
the backlog. A stream starts from a snapshot, or resumes after a sequence number from the table's log.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, Any, Final

from server.errors import ErrorReason, ServiceError
from server.rendering import Rendering, history, response, snapshot, turn_bytes
from server.seats import TableEvent, TableStoppedEvent

if TYPE_CHECKING:
    from server.table import AnyTable

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

    __slots__ = ("_table", "subscribers")

    def __init__(self, table: AnyTable) -> None:
        self._table = table
        self.subscribers: set[Subscriber] = set()

    def publish(self, events: Sequence[TableEvent[Any]], first: int) -> None:
        """Queue just-logged ``events`` (numbered from ``first``) to every stream, serialized once per
        audience; a stream whose events reach the game's end is ended after them."""
        if not self.subscribers:
            return
        audiences: dict[tuple[int | None, bool], list[Subscriber]] = {}
        for subscriber in self.subscribers:
            if not subscriber.catching_up:
                audiences.setdefault((subscriber.audience, subscriber.batch), []).append(subscriber)
        table = self._table
        ended = any(table.adapter.is_game_over(e) or isinstance(e, TableStoppedEvent) for e in events)
        rendering = Rendering(table, events, first)
        for (audience, batch), subscribers in audiences.items():
            messages = rendering.messages(audience, batch)
            for subscriber in subscribers:
                for data in messages:
                    subscriber.offer(data)
                if ended:
                    subscriber.offer(END)

    def open(self, subscriber: Subscriber, after: int | None) -> AsyncGenerator[bytes, None]:
        """Serialized StreamEventsResponse messages for one stream, from a snapshot or after a sequence,
        then as the table changes; :class:`Reply` messages queued to ``subscriber`` come in their place.

        ``after`` is checked at once (ServiceError), so that a caller can refuse the stream before it
        iterates; the stream subscribes when it is first iterated.
        """
        sequence = self._table.sequence
        if after is not None and after > sequence:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"after_sequence {after} is beyond the table's latest event {sequence}",
                field="after_sequence",
            )
        return self._stream(subscriber, after)

    async def _stream(self, subscriber: Subscriber, after: int | None) -> AsyncGenerator[bytes, None]:
        table = self._table
        audience = subscriber.audience
        # Subscribing and reading the backlog happen with no await in between: no event can fall in the gap.
        self.subscribers.add(subscriber)
        try:
            if after is not None and after < table.sequence:
                async for data in self._catch_up(subscriber, after):
                    yield data
                if subscriber.failure is not None:  # the table moved while its history was being sent
                    raise subscriber.failure
                if table.finished or subscriber.ended:
                    return
            else:
                # A snapshot, or nothing missed (still say whose turn it is).
                ended = table.finished
                yield (
                    snapshot(table, audience)
                    if after is None
                    else response(table.sequence, None, turn_bytes(table, audience))
                )
                if ended:
                    return
            while True:
                data = await subscriber.get()
                if type(data) is Reply:
                    yield data
                    continue
                if subscriber.lagging:
                    subscriber.drain()
                    subscriber.lagging = False
                    table.telemetry.stream_resynced(table, audience)
                    resync, ended = snapshot(table, audience), table.finished
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
            table.last_activity = time.monotonic()

    async def _catch_up(self, subscriber: Subscriber, after: int) -> AsyncGenerator[bytes, None]:
        """The logged events after ``after``, read from the table's log part by part as they are sent, until
        the stream has caught up with the table; from then on the table's messages are queued to it.

        Why from the log and not the queue: a long history takes a while to send to a slow reader, and the
        events the table logs meanwhile would fill the stream's bounded queue and cost it a resync by
        snapshot (the events of that time, the game's end among them, never seen). The log holds them
        already, so reading on from it costs no memory and loses nothing.
        """
        table = self._table
        subscriber.catching_up = True
        try:
            while after < table.sequence and not subscriber.ended:
                end = table.sequence
                turn = turn_bytes(table, subscriber.audience)
                for data in history(
                    table, after, end, audience=subscriber.audience, batch=subscriber.batch, turn=turn
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
