"""Server interceptors: the standard gRPC server metrics and one log line per RPC.

Both wrap the method handler that the server found, so they run in the call's own task: a call's start,
each message received and sent, and its end with the status code it ended with. A server stream ends when
its generator does (or the client cancels it), so a stream is counted as handled, and its duration
observed, then; each streamed message is counted as sent once gRPC has taken it.

How the status code is known: a handler that aborts (``context.abort``) has set it on the context; an
exception gRPC turns into a status is ``UNKNOWN``; a cancelled call is ``CANCELLED`` (``DEADLINE_EXCEEDED``
once its deadline has passed).
"""

from __future__ import annotations

import abc
import asyncio
import inspect
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Final

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.rpc import error_details_pb2, status_pb2
from grpc import aio

from server import tracing
from server.logs import bind_request, clear_request, get_logger
from server.metrics import GrpcMetrics
from server.requests import MAX_TABLE_ID_LENGTH

REQUEST_ID_METADATA: Final = "x-request-id"
_REQUEST_ID: Final = re.compile(r"[\x21-\x7e]{1,128}")
"""A client's request id is used when it is 1 to 128 printable ASCII characters; else one is generated."""
_STATUS_DETAILS: Final = "grpc-status-details-bin"

GO_CODE_NAMES: Final[dict[grpc.StatusCode, str]] = {
    grpc.StatusCode.OK: "OK",
    grpc.StatusCode.CANCELLED: "Canceled",
    grpc.StatusCode.UNKNOWN: "Unknown",
    grpc.StatusCode.INVALID_ARGUMENT: "InvalidArgument",
    grpc.StatusCode.DEADLINE_EXCEEDED: "DeadlineExceeded",
    grpc.StatusCode.NOT_FOUND: "NotFound",
    grpc.StatusCode.ALREADY_EXISTS: "AlreadyExists",
    grpc.StatusCode.PERMISSION_DENIED: "PermissionDenied",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "ResourceExhausted",
    grpc.StatusCode.FAILED_PRECONDITION: "FailedPrecondition",
    grpc.StatusCode.ABORTED: "Aborted",
    grpc.StatusCode.OUT_OF_RANGE: "OutOfRange",
    grpc.StatusCode.UNIMPLEMENTED: "Unimplemented",
    grpc.StatusCode.INTERNAL: "Internal",
    grpc.StatusCode.UNAVAILABLE: "Unavailable",
    grpc.StatusCode.DATA_LOSS: "DataLoss",
    grpc.StatusCode.UNAUTHENTICATED: "Unauthenticated",
}
"""``grpc_code`` label values: the names go-grpc-prometheus uses, so common dashboards and alerts apply."""

SERVER_FAULTS: Final = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.DATA_LOSS,
        grpc.StatusCode.UNAVAILABLE,
    }
)
"""Codes that mean the server failed (as opposed to a refused or cancelled request)."""

GRPC_TRANSPORT: Final = "grpc"
"""The ``transport`` of a call to the gRPC port; the web port's contexts name theirs (server.web_context)."""

QUIET_METHODS: Final = frozenset({"/grpc.health.v1.Health/Check"})
"""Logged at debug level: probes call them every few seconds."""

ROUTINE_REFUSALS: Final = frozenset({"TABLE_MOVING"})
"""Reasons of UNAVAILABLE refusals that are no fault: every deploy moves tables (a drained node's streams end
with TABLE_MOVING and clients follow), so they are logged at info level, not as errors."""


def log_level(full_method: str, code: grpc.StatusCode, reason: str | None) -> int:
    """The level of a call's ``rpc`` line: error only for a server fault (and not for a table moving)."""
    if code in SERVER_FAULTS and reason not in ROUTINE_REFUSALS:
        return logging.ERROR
    if full_method in QUIET_METHODS:
        return logging.DEBUG
    return logging.INFO


Context = aio.ServicerContext[Any, Any]


@dataclass(frozen=True, slots=True)
class RpcInfo:
    service: str
    method: str
    type: str
    """UNARY, SERVER_STREAM, CLIENT_STREAM or BIDI_STREAM."""
    full_method: str


class Call(abc.ABC):
    """One call being observed."""

    def received(self) -> None:  # noqa: B027 - optional hook
        """A request message was received."""

    def sent(self) -> None:  # noqa: B027 - optional hook
        """A response message was taken by gRPC."""

    @abc.abstractmethod
    def done(self, code: grpc.StatusCode, context: Context) -> None:
        """The call ended with ``code``."""


def transport_of(context: Context) -> str:
    """``grpc``, or what a web call's context says it came over (``connect``, ``grpc_web``)."""
    transport = getattr(context, "transport", GRPC_TRANSPORT)
    return transport if isinstance(transport, str) else GRPC_TRANSPORT


def rpc_type(handler: grpc.RpcMethodHandler[Any, Any]) -> str:
    if handler.request_streaming:
        return "BIDI_STREAM" if handler.response_streaming else "CLIENT_STREAM"
    return "SERVER_STREAM" if handler.response_streaming else "UNARY"


def _split(full_method: str) -> tuple[str, str]:
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service or "unknown", method or "unknown"


def _ended_ok(context: Context) -> grpc.StatusCode:
    code = context.code()
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.OK


def _ended_by(error: BaseException, context: Context) -> grpc.StatusCode:
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            return grpc.StatusCode.DEADLINE_EXCEEDED
        return grpc.StatusCode.CANCELLED
    code = context.code()
    if isinstance(code, grpc.StatusCode) and code is not grpc.StatusCode.OK:
        return code  # the handler aborted with it
    return grpc.StatusCode.UNKNOWN


class _CountingContext:
    """The servicer context as a coroutine-style handler sees it: ``read`` and ``write`` are counted."""

    def __init__(self, context: Context, call: Call) -> None:
        self._context = context
        self._call = call

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    async def read(self) -> Any:
        message = await self._context.read()
        if message is not aio.EOF:
            self._call.received()
        return message

    async def write(self, message: Any) -> None:
        await self._context.write(message)
        self._call.sent()


def _counts_requests(call: Call) -> bool:
    return type(call).received is not Call.received


async def _counted(requests: AsyncIterator[Any], call: Call) -> AsyncIterator[Any]:
    async for request in requests:
        call.received()
        yield request


class ObservingInterceptor(aio.ServerInterceptor, abc.ABC):
    """Wraps every method handler so that :meth:`begin`'s :class:`Call` sees the call from start to end.

    A method's wrapped handler is built once and reused for every call of that method (as long as the
    server finds the same handler for it), not rebuilt per call.
    """

    _wrapped: dict[str, tuple[grpc.RpcMethodHandler[Any, Any], grpc.RpcMethodHandler[Any, Any]]]

    @abc.abstractmethod
    def begin(self, info: RpcInfo, context: Context, request: Any) -> Call:
        """A call starts (``request`` is None for a request stream); runs in the call's task."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        full_method = handler_call_details.method
        try:
            wrapped = self._wrapped
        except AttributeError:  # subclasses need not call an __init__ of ours
            wrapped = self._wrapped = {}
        known = wrapped.get(full_method)  # only methods the server has a handler for: a bounded set
        if known is not None and known[0] is handler:
            return known[1]
        service, method = _split(full_method)
        result = self._wrap(handler, RpcInfo(service, method, rpc_type(handler), full_method))
        wrapped[full_method] = (handler, result)
        return result

    def _wrap(
        self, handler: grpc.RpcMethodHandler[Any, Any], info: RpcInfo
    ) -> grpc.RpcMethodHandler[Any, Any]:
        codecs: dict[str, Any] = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, info, False), **codecs
            )
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                self._unary(handler.stream_unary, info, True), **codecs
            )
        if handler.unary_stream is not None:
            behavior = self._stream(handler.unary_stream, info, False)
            return handler if behavior is None else grpc.unary_stream_rpc_method_handler(behavior, **codecs)
        if handler.stream_stream is not None:
            behavior = self._stream(handler.stream_stream, info, True)
            return handler if behavior is None else grpc.stream_stream_rpc_method_handler(behavior, **codecs)
        return handler

    def _start(self, info: RpcInfo, context: Context, request: Any, streaming: bool) -> tuple[Call, Any]:
        call = self.begin(info, context, None if streaming else request)
        if streaming:
            # A request stream is wrapped only for a call that counts its messages: every message of a
            # Play stream would otherwise pass through one more generator for nothing.
            return call, _counted(request, call) if _counts_requests(call) else request
        call.received()
        return call, request

    def _unary(self, inner: Callable[..., Any], info: RpcInfo, streaming: bool) -> Callable[..., Any]:
        async def behavior(request: Any, context: Context) -> Any:
            call, request = self._start(info, context, request, streaming)
            try:
                response = inner(request, _CountingContext(context, call) if streaming else context)
                if inspect.isawaitable(response):
                    response = await response
            except BaseException as error:
                call.done(_ended_by(error, context), context)
                raise
            call.sent()
            call.done(_ended_ok(context), context)
            return response

        return behavior

    def _stream(self, inner: Callable[..., Any], info: RpcInfo, streaming: bool) -> Callable[..., Any] | None:
        if inspect.isasyncgenfunction(inner):

            async def generator(request: Any, context: Context) -> AsyncIterator[Any]:
                call, request = self._start(info, context, request, streaming)
                try:
                    handler_context = _CountingContext(context, call) if streaming else context
                    async with aclosing(inner(request, handler_context)) as responses:
                        async for response in responses:
                            yield response
                            call.sent()  # gRPC asks for the next message once it has written this one
                except BaseException as error:
                    call.done(_ended_by(error, context), context)
                    raise
                call.done(_ended_ok(context), context)

            return generator
        if inspect.iscoroutinefunction(inner):

            async def writer(request: Any, context: Context) -> None:
                call, request = self._start(info, context, request, streaming)
                try:
                    await inner(request, _CountingContext(context, call))
                except BaseException as error:
                    call.done(_ended_by(error, context), context)
                    raise
                call.done(_ended_ok(context), context)

            return writer
        return None  # a synchronous streaming handler: served as it is, not observed


# ---------------------------------------------------------------- metrics


class _MetricsCall(Call):
    __slots__ = ("_labels", "_metrics", "_received", "_sent", "_start")

    def __init__(self, metrics: GrpcMetrics, info: RpcInfo, transport: str) -> None:
        self._metrics = metrics
        self._labels = (info.type, info.service, info.method, transport)
        self._start = time.perf_counter()
        self._received = metrics.msg_received.labels(*self._labels)
        self._sent = metrics.msg_sent.labels(*self._labels)
        metrics.started.labels(*self._labels).inc()

    def received(self) -> None:
        self._received.inc()

    def sent(self) -> None:
        self._sent.inc()

    def done(self, code: grpc.StatusCode, context: Context) -> None:
        self._metrics.handled.labels(*self._labels, GO_CODE_NAMES.get(code, "Unknown")).inc()
        self._metrics.handling_seconds.labels(*self._labels).observe(time.perf_counter() - self._start)


class MetricsInterceptor(ObservingInterceptor):
    """``grpc_server_*``: started, handled (by code), handling seconds, messages received and sent."""

    def __init__(self, metrics: GrpcMetrics) -> None:
        self.metrics = metrics

    def initialize(self, service: ServiceDescriptor, transports: tuple[str, ...] = (GRPC_TRANSPORT,)) -> None:
        """Create every method's series at zero, so rates and alerts see them before the first call."""
        for method, transport in ((m, t) for m in service.methods for t in transports):
            streaming = (method.client_streaming, method.server_streaming)
            kind = {
                (False, False): "UNARY",
                (False, True): "SERVER_STREAM",
                (True, False): "CLIENT_STREAM",
                (True, True): "BIDI_STREAM",
            }[streaming]
            labels = (kind, service.full_name, method.name, transport)
            self.metrics.started.labels(*labels)
            self.metrics.msg_received.labels(*labels)
            self.metrics.msg_sent.labels(*labels)
            self.metrics.handling_seconds.labels(*labels)
            self.metrics.handled.labels(*labels, "OK")

    def begin(self, info: RpcInfo, context: Context, request: Any) -> Call:
        return _MetricsCall(self.metrics, info, transport_of(context))


# ---------------------------------------------------------------- logs

log = get_logger("thousand.rpc")
_rpc_logger: Final = logging.getLogger("thousand.rpc")
"""The standard library logger ``log`` routes through, whose level decides what is dropped."""


def request_id_of(context: Context) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == REQUEST_ID_METADATA:
            text = value if isinstance(value, str) else value.decode("ascii", "replace")
            if _REQUEST_ID.fullmatch(text):
                return text
    return uuid.uuid4().hex


def error_reason(context: Context) -> str | None:
    """The ``google.rpc.ErrorInfo`` reason the call was refused with, if it carried one."""
    trailing = getattr(context, "trailing_metadata", None)
    for key, value in (trailing() if callable(trailing) else None) or ():
        if key == _STATUS_DETAILS and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return None


class _LoggedCall(Call):
    __slots__ = ("_info", "_peer", "_sent", "_span", "_start", "_transport")

    def __init__(self, info: RpcInfo, peer: str, transport: str, span: tracing.RpcSpan | None) -> None:
        self._info = info
        self._peer = peer
        self._transport = transport
        self._span = span
        self._start = time.perf_counter()
        self._sent = 0

    def sent(self) -> None:
        self._sent += 1

    def done(self, code: grpc.StatusCode, context: Context) -> None:
        reason = None if code is grpc.StatusCode.OK else error_reason(context)
        level = log_level(self._info.full_method, code, reason)
        if self._span is not None:
            self._span.end(code, fault=level == logging.ERROR)
        if not _rpc_logger.isEnabledFor(level):
            return  # the line would be dropped: do not build it (most calls, at --log-level warning)
        fields: dict[str, Any] = {
            "grpc_type": self._info.type,
            "grpc_code": GO_CODE_NAMES.get(code, "Unknown"),
            "duration_s": round(time.perf_counter() - self._start, 6),
            "peer": self._peer,
            "transport": self._transport,
        }
        if self._info.type in ("SERVER_STREAM", "BIDI_STREAM"):
            fields["messages_sent"] = self._sent
        if reason is not None:
            fields["error_reason"] = reason
        log.log(level, "rpc", **fields)


class LoggingInterceptor(ObservingInterceptor):
    """One line per call (``msg: rpc``), with the request context bound for everything logged during it.

    The context: ``request_id`` (the client's ``x-request-id`` metadata, or a generated one),
    ``grpc_service``, ``grpc_method``, ``trace_id`` (the call's trace: the client's W3C ``traceparent``, or
    the server's own span when tracing is on) and ``table_id`` and ``seat`` once known. Metadata and messages
    are never logged. The call's span (server.tracing) starts and ends with the call too.
    """

    def begin(self, info: RpcInfo, context: Context, request: Any) -> Call:
        clear_request()
        transport = transport_of(context)
        span, trace_id = tracing.start_rpc(
            info.service, info.method, context.invocation_metadata(), transport
        )
        bind_request(request_id=request_id_of(context), grpc_service=info.service, grpc_method=info.method)
        if trace_id:
            bind_request(trace_id=trace_id)
        table_id = getattr(request, "table_id", "")
        if isinstance(table_id, str) and table_id:
            bind_request(table_id=table_id[:MAX_TABLE_ID_LENGTH])  # a longer one is refused, not logged whole
        # The peer is read now: grpc (1.85) crashes reading it from a call the client has cancelled.
        return _LoggedCall(info, context.peer(), transport, span)
