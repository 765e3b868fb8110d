"""One API over every transport the server speaks, for tests that must see the same answers on each.

``api(kind, ...)`` is the TableService over native gRPC (the gRPC port) or, on the web port, Connect with
binary or JSON messages or gRPC-Web, each through a real client on a real loopback socket: grpc.aio's stub,
or connectrpc's client (pyqwest). A refusal is read the same way from each (:func:`refusal`), so a test can
compare the code, the ``ErrorInfo`` and the ``RetryInfo`` a client sees.
"""

from __future__ import annotations

import asyncio
import http.client
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc import aio
from grpc_status import rpc_status

from scripts.ports import free_port
from server.app import Server
from tests.in_process import serving
from thousand.v1 import table_service_connect as connect
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TRANSPORTS: Final = ("grpc", "connect", "connect-json", "grpc-web")
WEB_TRANSPORTS: Final = TRANSPORTS[1:]
TRANSPORT_LABEL: Final = {
    "grpc": "grpc",
    "connect": "connect",
    "connect-json": "connect",
    "grpc-web": "grpc_web",
}
"""The ``transport`` label and log field each kind of client's calls carry."""


@dataclass(frozen=True)
class Refusal:
    """What any client reads of a refused call."""

    code: str
    """The status code's name, gRPC's spelling (``NOT_FOUND``, ``CANCELLED``)."""
    message: str
    reason: str | None
    metadata: dict[str, str] = field(default_factory=dict)
    retry_delay: float | None = None


def _details(refusal_code: str, message: str, details: list[tuple[str, bytes]]) -> Refusal:
    reason, metadata, delay = None, {}, None
    for type_name, value in details:
        if type_name == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo.FromString(value)
            reason, metadata = info.reason, dict(info.metadata)
            assert info.domain == "thousand.v1"
        elif type_name == "google.rpc.RetryInfo":
            delay = error_details_pb2.RetryInfo.FromString(value).retry_delay.ToNanoseconds() / 1e9
    return Refusal(refusal_code, message, reason, metadata, delay)


def refusal(error: BaseException) -> Refusal:
    if isinstance(error, aio.AioRpcError):
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
        details = [] if status is None else [(d.type_url.rpartition("/")[2], d.value) for d in status.details]
        return _details(error.code().name, error.details() or "", details)
    if isinstance(error, ConnectError):
        code = error.code.name.replace("CANCELED", "CANCELLED")
        return _details(code, error.message, [(d.type_name, d.message_bytes) for d in error.details])
    raise AssertionError(f"not a refusal: {error!r}")


class Api(Protocol):
    """The TableService as a test calls it, the seat token apart from the request. A stream is a generator
    to close (``aclosing``) when left early: its call (and, on the web, its HTTP connection) ends then."""

    kind: str

    async def unary(self, method: str, request: Message, token: str | None = None) -> Any: ...

    def stream(
        self, request: pb.StreamEventsRequest, token: str | None = None
    ) -> AsyncGenerator[Any, None]: ...


def _metadata(token: str | None, request_id: str | None = None) -> dict[str, str]:
    entries = {} if token is None else {"x-seat-token": token}
    if request_id is not None:
        entries["x-request-id"] = request_id
    return entries


@dataclass
class GrpcApi:
    stub: pb_grpc.TableServiceAsyncStub
    kind: str = "grpc"
    request_id: str | None = None

    async def unary(self, method: str, request: Message, token: str | None = None) -> Any:
        call = getattr(self.stub, method)
        return await call(request, metadata=tuple(_metadata(token, self.request_id).items()))

    async def stream(
        self, request: pb.StreamEventsRequest, token: str | None = None
    ) -> AsyncGenerator[Any, None]:
        call = self.stub.StreamEvents(request, metadata=tuple(_metadata(token, self.request_id).items()))
        try:
            async for message in call:
                yield message
        finally:
            call.cancel()


_SNAKE: Final = {
    "CreateTable": "create_table",
    "ListTables": "list_tables",
    "GetTable": "get_table",
    "JoinTable": "join_table",
    "LeaveTable": "leave_table",
    "SubmitAction": "submit_action",
    "ReclaimSeat": "reclaim_seat",
    "ExportTable": "export_table",
}


@dataclass
class WebApi:
    client: connect.TableServiceClient
    kind: str
    request_id: str | None = None

    async def unary(self, method: str, request: Message, token: str | None = None) -> Any:
        call = getattr(self.client, _SNAKE[method])
        return await call(request, headers=_metadata(token, self.request_id))

    async def stream(
        self, request: pb.StreamEventsRequest, token: str | None = None
    ) -> AsyncGenerator[Any, None]:
        responses = self.client.stream_events(request, headers=_metadata(token, self.request_id))
        async with aclosing(responses):  # type: ignore[type-var]  # connectrpc's is an async generator
            async for message in responses:
                yield message


def web_client(url: str, kind: str) -> connect.TableServiceClient:
    codec: Codec[Any, Any] = (
        google_protobuf_json_codec() if kind == "connect-json" else google_protobuf_binary_codec()
    )
    protocol = ProtocolType.GRPC_WEB if kind == "grpc-web" else ProtocolType.CONNECT
    return connect.TableServiceClient(url, protocol=protocol, codec=codec)


@asynccontextmanager
async def web_server(**settings: Any) -> AsyncIterator[tuple[Server, pb_grpc.TableServiceAsyncStub, str]]:
    """An in-process server with its web port on loopback; the gRPC stub and the web port's URL."""
    async with serving(web_port=free_port(), **settings) as (server, stub):
        yield server, stub, f"http://127.0.0.1:{server.web_port}"


@asynccontextmanager
async def api(kind: str, stub: pb_grpc.TableServiceAsyncStub, url: str) -> AsyncIterator[Api]:
    if kind == "grpc":
        yield GrpcApi(stub)
        return
    async with web_client(url, kind) as client:
        yield WebApi(client, kind)


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: dict[str, str]
    body: bytes


def _http(port: int, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> HttpResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        return HttpResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        connection.close()


async def http_request(
    port: int, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> HttpResponse:
    """One plain HTTP/1.1 request (the standard library's client, in a thread: the server is in this loop)."""
    return await asyncio.to_thread(_http, port, method, path, body, headers or {})
