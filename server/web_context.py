"""A call that came over Connect or gRPC-Web, as the gRPC method handlers and interceptors see a call.

The web port serves the very handlers the gRPC server runs (:func:`server.table_handlers.method_handlers`,
wrapped by the same logging and metrics interceptors), so a web call gets a servicer context of its own: the
HTTP request headers are its invocation metadata (``x-seat-token``, ``x-request-id``), the TCP peer is its
peer (rate limits go by its host, as for gRPC), and an abort raises the :class:`ConnectError` that connectrpc
writes as the protocol's error, with the status's details (``ErrorInfo``, ``RetryInfo``) unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.request import RequestContext
from google.rpc import status_pb2
from grpc import aio
from protobuf.wkt import Any as WireAny

CONNECT: Final = "connect"
GRPC_WEB: Final = "grpc_web"
"""The ``transport`` of a web call (metrics label and log field); a native gRPC call's is ``grpc``."""
_STATUS_DETAILS: Final = "grpc-status-details-bin"
_TYPE_URL_PREFIX: Final = "type.googleapis.com/"

CODES: Final[dict[grpc.StatusCode, Code]] = {
    status: Code[status.name.replace("CANCELLED", "CANCELED")]
    for status in grpc.StatusCode
    if status is not grpc.StatusCode.OK
}
"""gRPC's status codes and Connect's are the same list, spelt differently (CANCELLED / canceled)."""

Metadata = tuple[tuple[str, str | bytes], ...]


def web_transport(content_type: str) -> str:
    """``grpc_web`` for ``application/grpc-web…``, else ``connect`` (the web port serves no native gRPC)."""
    return GRPC_WEB if content_type.startswith("application/grpc-web") else CONNECT


def grpc_peer(client_address: str | None) -> str:
    """The peer in gRPC's spelling (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``) from ``host:port``."""
    if not client_address:
        return "unknown"
    host, _, port = client_address.rpartition(":")
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


def connect_error(code: grpc.StatusCode, message: str, trailing_metadata: Metadata) -> ConnectError:
    """The error connectrpc sends for a status: its code, message and ``grpc-status-details-bin`` details."""
    details: list[ErrorDetail] = []
    for key, value in trailing_metadata:
        if key == _STATUS_DETAILS and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                type_url = detail.type_url
                if not type_url.startswith(_TYPE_URL_PREFIX):  # Connect names a detail's type without a host
                    type_url = _TYPE_URL_PREFIX + type_url.rpartition("/")[2]
                details.append(ErrorDetail(WireAny(type_url=type_url, value=detail.value)))
    return ConnectError(CODES.get(code, Code.UNKNOWN), message, details)


class WebContext(aio.ServicerContext[Any, Any]):
    """The servicer context of one Connect or gRPC-Web call (one per call, in the call's task)."""

    __slots__ = ("_code", "_ctx", "_details", "_metadata", "_trailing", "transport")

    def __init__(self, ctx: RequestContext[Any, Any], transport: str) -> None:
        self._ctx = ctx
        self.transport = transport
        """``connect`` or ``grpc_web``: how the interceptors label the call."""
        self._code: grpc.StatusCode | None = None
        self._details = ""
        self._trailing: Metadata = ()
        self._metadata: Metadata | None = None

    # ------------------------------------------------------------ what the handlers read

    def invocation_metadata(self) -> Metadata:  # type: ignore[override]  # grpc.aio's is a tuple too
        """The request's HTTP headers (lower-case names), as gRPC metadata would carry them."""
        if self._metadata is None:
            self._metadata = tuple(self._ctx.request_headers.allitems())
        return self._metadata

    def peer(self) -> str:
        return grpc_peer(self._ctx.client_address)

    def time_remaining(self) -> float | None:  # type: ignore[override]  # None: no deadline, as in grpc.aio
        remaining = self._ctx.timeout_ms
        return None if remaining is None else max(0.0, remaining / 1000)

    # ------------------------------------------------------------ how a call ends

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> NoReturn:
        self._code = code
        self._details = details
        self._trailing = tuple(trailing_metadata)
        raise connect_error(code, details, self._trailing)

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        await self.abort(status.code, status.details, status.trailing_metadata)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def set_trailing_metadata(self, trailing_metadata: Any) -> None:
        self._trailing = tuple(trailing_metadata)

    def code(self) -> grpc.StatusCode | None:  # type: ignore[override]  # None until set, as in grpc.aio
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> Metadata:  # type: ignore[override]  # grpc.aio's is a tuple too
        return self._trailing

    # ------------------------------------------------------------ what no handler of ours uses on the web

    async def read(self) -> NoReturn:
        raise NotImplementedError("the web port serves no client-streaming method")

    async def write(self, message: Any) -> NoReturn:
        raise NotImplementedError("web streams are async generators; they never write to the context")

    async def send_initial_metadata(self, initial_metadata: Any) -> None:
        for key, value in initial_metadata:
            if isinstance(value, str):
                self._ctx.response_headers[key] = value

    def set_compression(self, compression: grpc.Compression) -> None:
        """Compression is negotiated by connectrpc from the request's headers."""

    def disable_next_message_compression(self) -> None:
        """Compression is negotiated by connectrpc from the request's headers."""

    def peer_identities(self) -> Iterable[bytes] | None:
        return None

    def peer_identity_key(self) -> str | None:
        return None

    def auth_context(self) -> Mapping[str, Iterable[bytes]]:
        return {}

    def add_done_callback(self, callback: Any) -> None:
        raise NotImplementedError("no handler of this server registers done callbacks")

    def cancelled(self) -> bool:
        return False

    def done(self) -> bool:
        return self._code is not None
