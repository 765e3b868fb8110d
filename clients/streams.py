"""The two calls a table's stream runs on, read as one sequence of one-event messages.

- **Play** (a seated session): one bidirectional call that brings the updates and takes the seat's actions.
  :class:`PlayCall` sends the actions through the call's request iterator and hands each result to the action
  waiting for it; :func:`play_updates` reads the call in a task of its own, so a result reaches its action
  even while whoever iterates the stream is busy (a bot awaiting its own action inside its stream loop).
- **StreamEvents** (a spectator, or a server without Play): batches of events, which :func:`unbatched` turns
  into the one-event messages they stand for.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Final

from grpc import aio

from thousand.v1 import table_service_pb2 as pb

RESULT_TIMEOUT: Final = 10.0
"""Seconds an action sent on Play waits for its result before it is sent again as a SubmitAction call."""


class PlayLostError(Exception):
    """The Play stream an action was sent on ended before its result came: ask SubmitAction instead."""


class PlayCall:
    """A seated session's open Play call: actions go out on it (through its request iterator), each one's
    result comes back to the future :meth:`act` waits on."""

    def __init__(self) -> None:
        self._outgoing: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self._results: dict[str, asyncio.Future[pb.ActionResult]] = {}
        self.open = True

    async def requests(self, start: pb.PlayRequest) -> AsyncGenerator[pb.PlayRequest, None]:
        yield start
        while (request := await self._outgoing.get()) is not None:
            yield request

    async def act(self, request_id: str, last_seen: int | None, action: pb.Action) -> pb.ActionResult:
        """Send an action and wait for its result; :class:`PlayLostError` if the call ends first."""
        if not self.open:
            raise PlayLostError
        request = pb.PlayRequest()
        request.action.request_id = request_id
        request.action.action.CopyFrom(action)
        if last_seen is not None:
            request.action.last_seen_sequence = last_seen
        result = self._results[request_id] = asyncio.get_running_loop().create_future()
        self._outgoing.put_nowait(request)
        try:
            return await asyncio.wait_for(result, RESULT_TIMEOUT)
        except TimeoutError:
            raise PlayLostError from None
        finally:
            self._results.pop(request_id, None)

    def resolve(self, result: pb.ActionResult) -> None:
        waiting = self._results.get(result.request_id)
        if waiting is not None and not waiting.done():
            waiting.set_result(result)

    def close(self) -> None:
        """The call ended: stop sending, and fail the actions still waiting (they go to SubmitAction)."""
        self.open = False
        self._outgoing.put_nowait(None)
        for waiting in self._results.values():
            if not waiting.done():
                waiting.set_exception(PlayLostError())


async def play_updates(
    call: aio.StreamStreamCall[pb.PlayRequest, pb.PlayResponse], play: PlayCall
) -> AsyncGenerator[pb.StreamEventsResponse, None]:
    """A Play call's updates, read by a task of their own: results go to the actions waiting for them at
    once, updates wait here for the stream's reader; the call's error is raised here."""
    updates: asyncio.Queue[pb.StreamEventsResponse | BaseException | None] = asyncio.Queue()

    async def read() -> None:
        try:
            async for response in call:
                if response.HasField("update"):
                    updates.put_nowait(response.update)
                if response.HasField("result"):
                    play.resolve(response.result)
            updates.put_nowait(None)
        except (Exception, asyncio.CancelledError) as error:  # any end of the call reaches the stream
            updates.put_nowait(error)
        finally:
            play.close()

    reader = asyncio.create_task(read())
    try:
        while (update := await updates.get()) is not None:
            if isinstance(update, BaseException):
                raise update
            yield update
    finally:
        reader.cancel()


def unbatched(message: pb.StreamEventsResponse) -> list[pb.StreamEventsResponse]:
    """A batched stream message (StreamEventsRequest.batch_events) as the one-event messages it stands for:
    the events numbered on from ``sequence``, the Turn on the last, so everything after reads one event at a
    time whether the server batched or not."""
    if not message.more_events:
        return [message]
    events = [message.event, *message.more_events]
    parts = [pb.StreamEventsResponse(sequence=message.sequence + i, event=e) for i, e in enumerate(events)]
    if message.HasField("turn"):
        parts[-1].turn.CopyFrom(message.turn)
    return parts
