"""The TableService over Connect and gRPC-Web: the gRPC server's own method handlers behind connectrpc.

One implementation, two transports: each method here runs the handler
:func:`server.table_handlers.method_handlers` gives the gRPC server, wrapped by the same logging and metrics
interceptors, with a :class:`server.web_context.WebContext` for its servicer context. Checks, rate limits,
locks, errors (with their ``ErrorInfo`` and ``RetryInfo`` details) and the stream's pre-serialized messages
are therefore the gRPC port's, byte for byte.

The codecs keep that true at the edges: a request that does not parse becomes the handlers' ``Malformed``
(refused with INVALID_ARGUMENT and ``field: request``, as over gRPC) rather than connectrpc's bare error, and
StreamEvents' messages, serialized once per audience by the table, go out as they are in the binary format
and are parsed (by protobuf-py, for its native JSON) only for a JSON stream.

Play is a bidirectional stream, which needs HTTP/2 in both directions at once: neither a browser's fetch nor
HTTP/1.1 can carry it, so the web port answers it UNIMPLEMENTED (counted and logged like any call) and says
what to use instead.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

import grpc
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from google.protobuf.message import Message
from grpc import aio
from protobuf import Message as WireMessage

from server.requests import Malformed, parse
from server.service import SERVICE_NAME
from server.web_context import WebContext, web_transport
from thousand.v1 import table_service_connect as connect
from thousand.v1 import table_service_pb2 as pb

PLAY_ON_THE_WEB: Final = (
    "Play is a bidirectional stream, which needs HTTP/2 both ways at once (native gRPC): a browser's fetch"
    " and HTTP/1.1 cannot carry it. Over Connect and gRPC-Web, open StreamEvents (batch_events: true) and"
    " send actions with SubmitAction: the same messages in two calls."
)
SHUTTING_DOWN: Final = (
    "the server is shutting down: open the stream again in a moment, with after_sequence set to the last"
    " sequence seen"
)

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"


# ---------------------------------------------------------------- codecs


class BinaryCodec(Codec[Any, Any]):
    """``application/proto``: a pre-serialized message is sent as it is; bad bytes become ``Malformed``."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Any) -> bytes:
        return message if isinstance(message, bytes) else bytes(message.SerializeToString())

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        return parse(message_class)(bytes(data))


class JsonCodec(Codec[Any, Any]):
    """``application/json``: the canonical proto3 JSON mapping; bad JSON becomes ``Malformed``.

    The mapping is protobuf-py's, native code, on the same messages generated for it (``*_pb.py``):
    google.protobuf's ``json_format`` is written in Python and cost the server more than the whole action
    (bench/README.md). Messages cross between the two runtimes in the binary format, which is cheap. Unknown
    fields are ignored, as the binary format ignores them: a client built from a newer contract can still
    talk to this server.
    """

    def __init__(self) -> None:
        self._twins: dict[type[Message], type[WireMessage[Any]]] = {}

    def name(self) -> str:
        return "json"

    def twin(self, message_class: type[Message]) -> type[WireMessage[Any]]:
        """The protobuf-py class of a google.protobuf class of ``thousand.v1``: ``x_pb2.M`` has ``x_pb.M``."""
        twin = self._twins.get(message_class)
        if twin is None:
            module = importlib.import_module(message_class.__module__.removesuffix("2"))
            twin = self._twins[message_class] = getattr(module, message_class.__name__)
        return twin

    def encode(self, message: Any) -> bytes:
        if not isinstance(message, WireMessage):  # a handler's response; a stream's message is one already
            message = self.twin(type(message)).from_binary(message.SerializeToString())
        text: str = message.to_json()
        return text.encode()

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        try:
            parsed = self.twin(message_class).from_json(bytes(data), ignore_unknown_fields=True)
        except (ValueError, TypeError, OverflowError, RecursionError) as error:
            return Malformed(message_class.DESCRIPTOR.full_name, f"not its JSON form: {error}")
        return message_class.FromString(parsed.to_binary())


JSON: Final = JsonCodec()
CODECS: Final[tuple[Codec[Any, Any], ...]] = (BinaryCodec(), JSON)


# ---------------------------------------------------------------- handlers


@dataclass(frozen=True, slots=True)
class _CallDetails(grpc.HandlerCallDetails):
    """What an interceptor is told of a method when its handler is looked up."""

    method: str
    invocation_metadata: tuple[tuple[str, str], ...] = ()


async def intercepted(
    handlers: Mapping[str, Handler],
    interceptors: Sequence[aio.ServerInterceptor],
    service: str = SERVICE_NAME,
) -> dict[str, Handler]:
    """Each handler of ``service`` wrapped by ``interceptors`` as the gRPC server wraps it (the first one
    outermost)."""
    result = {}
    for name, handler in handlers.items():

        async def found(_: grpc.HandlerCallDetails, handler: Handler = handler) -> Handler:
            return handler

        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]] = found
        for interceptor in reversed(interceptors):
            continuation = functools.partial(interceptor.intercept_service, continuation)
        wrapped = await continuation(_CallDetails(f"/{service}/{name}"))
        assert wrapped is not None, name
        result[name] = wrapped
    return result


async def _play_refused(
    requests: AsyncIterator[Any], context: aio.ServicerContext[Any, Any]
) -> AsyncIterator[Any]:
    await context.abort(grpc.StatusCode.UNIMPLEMENTED, PLAY_ON_THE_WEB)
    yield  # an async generator, as the gRPC server's Play is (never reached)


def web_handlers(handlers: Mapping[str, Handler]) -> dict[str, Handler]:
    """The gRPC server's handlers with Play's replaced by its refusal on the web."""
    return {**handlers, "Play": grpc.stream_stream_rpc_method_handler(_play_refused)}


def call_context(ctx: RequestContext[Any, Any]) -> WebContext:
    """The gRPC handlers' context of a web request (its transport told by its content type)."""
    return WebContext(ctx, web_transport(ctx.request_headers.get("content-type", "")))


class WebTableService(connect.TableService):
    """The generated Connect service, each method run by its (intercepted) gRPC handler."""

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._handlers = handlers
        self.accepting_streams = True
        """False once the server drains: a stream that has not yet subscribed is refused UNAVAILABLE (one
        that has is ended by the tables, and no stream may start after that)."""

    def _behavior(self, method: str) -> Callable[..., Any]:
        handler = self._handlers[method]
        behavior = handler.unary_unary or handler.unary_stream or handler.stream_stream
        assert behavior is not None, method
        return behavior  # grpc's stubs type it for the synchronous server; ours are coroutines, generators

    async def _unary(self, method: str, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        return await self._behavior(method)(request, call_context(ctx))

    async def create_table(
        self, request: pb.CreateTableRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.CreateTableResponse:
        response: pb.CreateTableResponse = await self._unary("CreateTable", request, ctx)
        return response

    async def list_tables(
        self, request: pb.ListTablesRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.ListTablesResponse:
        response: pb.ListTablesResponse = await self._unary("ListTables", request, ctx)
        return response

    async def get_table(
        self, request: pb.GetTableRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.GetTableResponse:
        response: pb.GetTableResponse = await self._unary("GetTable", request, ctx)
        return response

    async def join_table(
        self, request: pb.JoinTableRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.JoinTableResponse:
        response: pb.JoinTableResponse = await self._unary("JoinTable", request, ctx)
        return response

    async def leave_table(
        self, request: pb.LeaveTableRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.LeaveTableResponse:
        response: pb.LeaveTableResponse = await self._unary("LeaveTable", request, ctx)
        return response

    async def submit_action(
        self, request: pb.SubmitActionRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.SubmitActionResponse:
        response: pb.SubmitActionResponse = await self._unary("SubmitAction", request, ctx)
        return response

    async def reclaim_seat(
        self, request: pb.ReclaimSeatRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.ReclaimSeatResponse:
        response: pb.ReclaimSeatResponse = await self._unary("ReclaimSeat", request, ctx)
        return response

    async def export_table(
        self, request: pb.ExportTableRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.ExportTableResponse:
        response: pb.ExportTableResponse = await self._unary("ExportTable", request, ctx)
        return response

    async def stream_table_record(
        self, request: pb.StreamTableRecordRequest, ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[Any]:  # the handler's bytes, or (for JSON) protobuf-py's message of them
        """The record's parts as the gRPC port sends them (refusals and all), for Connect and gRPC-Web."""
        async for message in self._relay("StreamTableRecord", pb.StreamTableRecordResponse, request, ctx):
            yield message

    async def stream_events(
        self, request: pb.StreamEventsRequest, ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[Any]:  # the table's bytes, or (for JSON) protobuf-py's message of them
        if not self.accepting_streams:
            raise ConnectError(Code.UNAVAILABLE, SHUTTING_DOWN)
        # From here to the table's subscription nothing awaits: the stream is either subscribed before the
        # drain ends the tables' streams, or refused above.
        async for message in self._relay("StreamEvents", pb.StreamEventsResponse, request, ctx):
            yield message

    async def _relay(
        self, method: str, response_type: type[Message], request: Message, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[Any]:
        """A server stream's messages as the gRPC handler serializes them: its bytes as they are for binary
        Connect and gRPC-Web, or protobuf-py's message of them for Connect's JSON (no await before the
        handler's first step, which StreamEvents' drain ordering relies on)."""
        json = ctx.request_headers.get("content-type", "").partition(";")[0].strip().endswith("json")
        parse = JSON.twin(response_type).from_binary if json else None
        behavior = self._behavior(method)
        async with aclosing(behavior(request, call_context(ctx))) as responses:
            async for data in responses:
                yield data if parse is None else parse(data)

    async def play(
        self, request: AsyncIterator[pb.PlayRequest], ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[pb.PlayResponse]:
        behavior = self._behavior("Play")
        async with aclosing(behavior(request, call_context(ctx))) as responses:
            async for message in responses:
                yield message
