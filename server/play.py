"""Play: a seat's actions in and everything the seat may see out, over one bidirectional stream.

Why a stream: in grpc.aio a unary call costs the server several times what one more message on an open stream
costs (bench/README.md), so a client that acts often spends most of its server's CPU on SubmitAction's calls
rather than on its game. On a Play stream an action is one message in, and its result rides with the events
it produced.

How: the stream is the table's own batched stream (:meth:`Table.stream_to`, as StreamEvents with batches),
each message wrapped as ``PlayResponse.update``. A task reads the client's actions and applies them through
the same path as SubmitAction (:meth:`TableService.act`), one at a time in the order sent, and queues each
outcome to the stream's subscriber as a :class:`Reply`. The table offers an action's events to the subscriber
while applying it, and the reply is queued right after, so a result always follows its events; when it is
already waiting behind the update being sent, both go in one message. Replies survive a dropped backlog.

Bounds (issue 21): results cannot be dropped as a lagging stream's events are, so they are bounded another
way. The reader takes the client's next action only while fewer than :data:`MAX_UNSENT_RESULTS` results wait
to be sent: a client that sends without reading is held back by gRPC's flow control instead of growing the
server's memory (600,000 unread actions grew it by 170 MB). A spectator's stream (no seat token) answers its
first action with SPECTATOR_CANNOT_ACT and then ends with that status: it reads no more actions.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Final

from grpc import aio

from server import protobuf_wire as wire
from server.errors import ErrorReason, ServiceError
from server.logs import bind_request, get_logger
from server.requests import Context, Malformed, client_of, table_id_of, token_of
from server.streams import SPECTATORS, Reply, Subscriber
from server.table import Table
from server.telemetry import requested_kind
from thousand.v1 import table_service_pb2 as pb

if TYPE_CHECKING:
    from server.identity.values import Player
    from server.service import TableService

log = get_logger("thousand.play")

_UPDATE: Final = wire.field_number(pb.PlayResponse, "update")
_RESULT: Final = wire.field_number(pb.PlayResponse, "result")
_RESULT_REQUEST_ID: Final = wire.field_number(pb.ActionResult, "request_id")
_RESULT_SEQUENCE: Final = wire.field_number(pb.ActionResult, "sequence")
"""ActionResult's fields, as an accepted action's result is written by hand."""
MAX_UNSENT_RESULTS: Final = 64
"""Results of a Play stream's actions waiting to be sent at most; the client's next action is read after."""


def accepted(request_id: str, sequence: int) -> Reply:
    """A serialized PlayResponse with the result of an accepted action (what protobuf would write)."""
    result = wire.int_field(_RESULT_SEQUENCE, sequence) if sequence else b""
    if request_id:
        result = wire.message_field(_RESULT_REQUEST_ID, request_id.encode()) + result
    return Reply(wire.message_field(_RESULT, result))


def refused(request_id: str, error: ServiceError) -> Reply:
    """A serialized PlayResponse with the result of a refused action: the error SubmitAction would give."""
    refusal = pb.ActionRefusal(
        code=error.reason.code.value[0],
        reason=error.reason.value,
        message=error.message,
        metadata=error.metadata,
    )
    if error.retry_delay is not None:
        refusal.retry_delay.FromNanoseconds(max(0, int(error.retry_delay * 1e9)))
    message = pb.PlayResponse(result=pb.ActionResult(request_id=request_id, refusal=refusal))
    return Reply(message.SerializeToString())


async def play(
    service: TableService, requests: AsyncIterator[object], context: Context
) -> AsyncGenerator[bytes, None]:
    """The Play method's handler: serialized PlayResponses. A bad start ends the call with its status."""
    try:
        await service.caller(context)  # a credential sent is checked first, as on every call
        table, after = await _start(service, requests)
        player = await service.seat_caller(table.table_id, context)  # a seat token of another player's seat
        token = token_of(context)
        audience = await service.audience(table, token, player)
        service.limit_resume(table, after, client_of(context), token)
        subscriber = Subscriber(audience, batch=True)
        responses = table.stream_to(subscriber, after)
    except ServiceError as error:
        await context.abort_with_status(error.to_status())
        return
    seated = player if audience is not SPECTATORS else None  # a player acting by their credential alone
    actions = _Actions(service, table, token, subscriber, context, player=seated)
    reader = asyncio.create_task(actions.read(requests))
    try:
        async with aclosing(responses):  # the table's stream unsubscribes as soon as the call ends
            try:
                async for data in responses:
                    if type(data) is Reply:
                        actions.sent()
                        yield bytes(data)  # gRPC takes bytes only, not a subclass
                        continue
                    update = wire.message_field(_UPDATE, data)
                    reply = subscriber.take_reply()
                    if reply is None:
                        yield update
                    else:
                        actions.sent()
                        yield update + reply
            except ServiceError as error:  # the table moved to another node: results in hand go first
                while (reply := subscriber.take_reply()) is not None:
                    actions.sent()
                    yield bytes(reply)
                await context.abort_with_status(error.to_status())
                return
        # The table's stream ended (game over, seat given up, server stopping, a spectator's action): the
        # result of an action in hand still goes out, and so does any result queued behind the end.
        async with actions.acting:
            pass
        while (reply := subscriber.take_reply()) is not None:
            actions.sent()
            yield bytes(reply)
    finally:
        reader.cancel()
    if actions.ended_by is not None:
        await context.abort_with_status(actions.ended_by.to_status())


async def _start(service: TableService, requests: AsyncIterator[object]) -> tuple[Table, int | None]:
    """The table and the resume point of the stream's first request, which must be ``start``."""
    first = await anext(aiter(requests), None)
    if isinstance(first, Malformed):
        raise first.refuse()
    if not isinstance(first, pb.PlayRequest) or first.WhichOneof("request") != "start":
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            "a Play stream's first request must be `start` (the table's id and where to resume)",
            field="start",
        )
    start = first.start
    table_id = table_id_of(start.table_id)
    bind_request(table_id=table_id)  # the call's `rpc` line, and every other line of it, names the table
    table = await service.registry.owned(table_id)
    return table, start.after_sequence if start.HasField("after_sequence") else None


class _Actions:
    """The client's side of one Play stream: its actions, applied one at a time in the order sent."""

    __slots__ = (
        "_limit_key",
        "_room",
        "_unsent",
        "acting",
        "context",
        "ended_by",
        "player",
        "service",
        "subscriber",
        "table",
        "token",
    )

    def __init__(
        self,
        service: TableService,
        table: Table,
        token: str | None,
        subscriber: Subscriber,
        context: Context,
        *,
        player: Player | None = None,
    ) -> None:
        self.service = service
        self.table = table
        self.token = token
        self.player = player
        """The player whose seat the stream is, when it names it by the player's credential (no token)."""
        self.subscriber = subscriber
        self.context = context
        self.acting = asyncio.Lock()
        """Held while an action is being applied, so that the stream's end can wait for its result."""
        self.ended_by: ServiceError | None = None
        """The status the call ends with once its results are sent (a spectator's action); None: OK."""
        self._unsent = 0
        """Results queued to the stream and not yet sent."""
        self._room = asyncio.Event()
        """Set while fewer than MAX_UNSENT_RESULTS results wait: the reader may take the next action."""
        self._room.set()
        self._limit_key: str | None = None
        """The rate limiter's key of the stream's actions (:meth:`TableService.limit_key`), made once."""

    def sent(self) -> None:
        """One result was handed to gRPC."""
        self._unsent -= 1
        if self._unsent < MAX_UNSENT_RESULTS:
            self._room.set()

    def _queue(self, reply: Reply) -> None:
        self._unsent += 1
        if self._unsent >= MAX_UNSENT_RESULTS:
            self._room.clear()
        self.subscriber.reply(reply)

    async def read(self, requests: AsyncIterator[object]) -> None:
        """Apply the client's actions, queueing each one's result to the stream; the next action is read once
        there is room for its result."""
        try:
            iterator = aiter(requests)
            while True:
                await self._room.wait()
                request = await anext(iterator, None)
                if request is None:
                    return  # the client closed its side: the updates go on
                async with self.acting:
                    self._queue(await self._outcome(request))
                if (
                    self.token is None and self.player is None
                ):  # a spectator acted: it was refused; the stream ends with that
                    self.ended_by = _spectator_refusal()
                    self.service.registry.telemetry.limit_refused("play_spectator_action")
                    self.subscriber.end()
                    return
        except (aio.UsageError, aio.AbortError):  # the call ended under the reader (the stream aborted with
            return  # TABLE_MOVING as its node drains, say): nothing more to read, nobody to answer
        except Exception as error:  # reading the client's messages failed: end the stream rather than hang
            log.warning("play stream's requests failed", table_id=self.table.table_id, error=repr(error))
            self.subscriber.end()

    async def _outcome(self, request: object) -> Reply:
        if isinstance(request, Malformed):
            return refused("", request.refuse())
        if not isinstance(request, pb.PlayRequest) or request.WhichOneof("request") != "action":
            error = ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                "only a Play stream's first request may be `start`; every later one must be an `action`",
                field="action",
            )
            return refused("", error)
        sent = request.action
        if self.token is None and self.player is None:
            error = _spectator_refusal()
            self.service.registry.telemetry.action_rejected(*requested_kind(sent.action), error.reason.value)
            return refused(sent.request_id, error)
        try:
            if self._limit_key is None:  # whose budget the stream's actions spend: the same for the call
                self._limit_key = self.service.limit_key(client_of(self.context), self.token)
            self.service.limit_as("SubmitAction", self._limit_key)
            last_seen = sent.last_seen_sequence if sent.HasField("last_seen_sequence") else None
            sequence = await self.service.act(
                self.table, self.token, sent.request_id, last_seen, sent.action, player=self.player
            )
        except ServiceError as error:
            return refused(sent.request_id, error)
        return accepted(sent.request_id, sequence)


def _spectator_refusal() -> ServiceError:
    return ServiceError(
        ErrorReason.SPECTATOR_CANNOT_ACT,
        "a Play stream without a seat token only watches: its action was refused and the stream ends; watch"
        " without acting, or join a seat and send its token in metadata 'x-seat-token'",
    )
