"""The web port: the TableService over Connect and gRPC-Web, and the web client, in the server's own loop.

A browser cannot speak native gRPC (it has no HTTP/2 trailers), so ``--web-port`` serves the same service,
over the same tables, locks, rate limits and store, in the protocols a browser can: Connect (unary calls as
plain POSTs, streams in enveloped messages, JSON or binary) and gRPC-Web. The URLs are Connect's standard
``/thousand.v1.TableService/<Method>`` and the seat token is the ``x-seat-token`` header, exactly the gRPC
metadata, so any Connect or gRPC-Web client works. Everything else on the port is the built web client
(:mod:`server.web_static`), ``/healthz`` for HTTP load balancers, and ``/cluster.json``: the web endpoints of
the cluster's active nodes, from which a page learns where to go on should the node it talks to die (the
node that served it included; a gRPC client is given several addresses instead, a page has only its own).

The page and the API share one origin, so a browser needs no CORS; ``--web-allowed-origin`` adds CORS for a
frontend served from elsewhere (a development server, another site), and in a cluster every node's web port
allows the pages of the others' (their advertised web endpoints, in this port's scheme; a node's that died or
left too, whose pages live on in browsers), so that a page follows its table to the node that owns it
(docs/protocol.md, "Clusters"). Nothing else is allowed.

uvicorn serves the ASGI application on a socket this module binds, in the running event loop, with httptools
for HTTP/1.1 and the gRPC port's TLS certificate when it has one. Stopping is a drain like the gRPC
port's: no new connections, idle ones closed, every table stream ended (so a browser sees its stream end
cleanly and reconnects), and the responses in flight given the grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import uvicorn
from grpc import aio

from server.logs import get_logger
from server.service import SERVICE_NAME
from server.web_service import CODECS, Handler, WebTableService, intercepted, web_handlers
from server.web_static import ASGIReceive, ASGISend, Scope, StaticFiles
from thousand.v1 import table_service_connect as connect

API_PREFIX: Final = f"/{SERVICE_NAME}/"
HEALTH_PATH: Final = "/healthz"
NODES_PATH: Final = "/cluster.json"
CORS_ALLOWED_HEADERS: Final = (
    *("content-type", "connect-protocol-version", "connect-timeout-ms", "connect-accept-encoding"),
    *("connect-content-encoding", "grpc-timeout", "grpc-accept-encoding", "grpc-encoding", "x-grpc-web"),
    *("x-user-agent", "x-seat-token", "x-request-id", "authorization"),
)
"""What a Connect or gRPC-Web client sends, and our metadata entries (a player's credential among them)."""
CORS_EXPOSED_HEADERS: Final = ("grpc-status", "grpc-message", "grpc-status-details-bin", "grpc-encoding")
"""What a gRPC-Web client must read from a response (a Connect client reads its errors from the body)."""
CORS_MAX_AGE_SECONDS: Final = 7200
KEEPALIVE_PROBES: Final = 3
BACKLOG: Final = 2048
log = get_logger("thousand.web")
ASGIApp = Callable[[Scope, ASGIReceive, ASGISend], Awaitable[None]]
MoreService = Callable[[Sequence[aio.ServerInterceptor], int], Awaitable[tuple[str, ASGIApp]]]
"""Another service on the port: given the port's interceptors and its largest message, its path prefix
(``/thousand.v1.PlayerService/``) and application (``server.identity.web``)."""


def valid_origin(origin: str) -> bool:
    """``*``, or an origin as a browser sends it: ``scheme://host[:port]``, no path."""
    if origin == "*":
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not (parts.path or parts.query)


class Cors:
    """The CORS answers for the origins an operator allowed, and for the pages of the cluster's other nodes
    (``peers``: their web endpoints, ``host:port``, as the cluster's membership last read them: every node's
    the cluster has had, since a page outlives the node that served it). None of either: no CORS headers,
    preflights refused."""

    def __init__(
        self,
        origins: Sequence[str],
        *,
        peers: Callable[[], Collection[str]] | None = None,
        scheme: str = "http",
    ) -> None:
        self.any = "*" in origins
        self.origins = frozenset(origin.rstrip("/") for origin in origins)
        self._peers = peers
        self._scheme = scheme
        self._seen: Collection[str] = ()
        self._allowed = self.origins

    def allowed_origins(self) -> frozenset[str]:
        """The origins allowed now: the operator's, and the other nodes' pages."""
        if self._peers is not None:
            endpoints = self._peers()
            if endpoints != self._seen:
                self._seen = endpoints
                self._allowed = self.origins | {origin_of(self._scheme, e) for e in endpoints}
        return self._allowed

    def allowed(self, origin: bytes | None) -> bytes | None:
        """The ``access-control-allow-origin`` value for a request from ``origin``, if it is allowed."""
        if origin is None or not (self.any or origin.decode("latin-1") in self.allowed_origins()):
            return None
        return b"*" if self.any else origin

    def preflight(self, origin: bytes | None) -> tuple[int, list[tuple[bytes, bytes]]]:
        allow = self.allowed(origin)
        vary = (b"vary", b"origin, access-control-request-method, access-control-request-headers")
        if allow is None:
            return 403, [vary]
        return 204, [
            (b"access-control-allow-origin", allow),
            (b"access-control-allow-methods", b"GET, POST"),
            (b"access-control-allow-headers", ", ".join(CORS_ALLOWED_HEADERS).encode()),
            (b"access-control-max-age", str(CORS_MAX_AGE_SECONDS).encode()),
            vary,
        ]

    def response_headers(self, origin: bytes | None) -> list[tuple[bytes, bytes]]:
        allow = self.allowed(origin)
        if allow is None:
            return [(b"vary", b"origin")] if self.allowed_origins() else []
        return [
            (b"access-control-allow-origin", allow),
            (b"access-control-expose-headers", ", ".join(CORS_EXPOSED_HEADERS).encode()),
            (b"vary", b"origin"),
        ]


def origin_of(scheme: str, endpoint: str) -> str:
    """The origin a browser names a page at ``endpoint`` (``host:port``) by: its default port left out."""
    host, _, port = endpoint.rpartition(":")
    default = {"http": "80", "https": "443"}[scheme]
    return f"{scheme}://{host}" if port == default else f"{scheme}://{endpoint}"


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


class WebApp:
    """The port's ASGI application: the API (with CORS when allowed), ``/healthz``, the cluster's nodes, and
    the web client."""

    def __init__(
        self,
        api: connect.TableServiceASGIApplication,
        static: StaticFiles,
        cors: Cors,
        serving: Callable[[], bool],
        nodes: Callable[[], Collection[str]] = tuple,
        *,
        more: Mapping[str, ASGIApp] | None = None,
    ) -> None:
        self.api = api
        self.more = dict(more or {})
        """Other services' applications by path prefix (``/thousand.v1.PlayerService/``)."""
        self.static = static
        self.cors = cors
        self.serving = serving
        self.nodes = nodes

    async def __call__(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        if scope["type"] != "http":
            return  # lifespan is off; uvicorn has no WebSocket support installed
        path: str = scope["path"]
        if path.startswith(API_PREFIX):
            await self._api(self.api, scope, receive, send)
        elif path.startswith(tuple(self.more)):
            await self._api(self.more[path[: path.index("/", 1) + 1]], scope, receive, send)
        elif path == HEALTH_PATH:
            ok = self.serving()
            await _plain(send, 200 if ok else 503, b"SERVING\n" if ok else b"NOT_SERVING\n")
        elif path == NODES_PATH:
            await self._nodes(scope, send)
        else:
            await self.static(scope, receive, send)

    async def _nodes(self, scope: Scope, send: ASGISend) -> None:
        """The web endpoints (``host:port``) of the cluster's active nodes, this one's among them; none from a
        server that is not part of a cluster. Readable by the pages the API is (CORS): a page asks the node
        it follows its table on, which need not be the one it came from."""
        if scope["method"] not in ("GET", "HEAD"):
            await _plain(send, 405, b"only GET and HEAD here\n", [(b"allow", b"GET, HEAD")])
            return
        body = json.dumps({"web_endpoints": sorted(self.nodes())}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            *self.cors.response_headers(_header(scope, b"origin")),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    async def _api(self, api: ASGIApp, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        origin = _header(scope, b"origin")
        if scope["method"] == "OPTIONS":
            status, headers = self.cors.preflight(origin)
            await _plain(send, status, b"", headers)
            return
        extra = self.cors.response_headers(origin)
        if not extra:
            await api(scope, receive, send)
            return

        async def send_with_cors(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await api(scope, receive, send_with_cors)


async def _plain(
    send: ASGISend, status: int, body: bytes, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    start = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*start, *headers]})
    await send({"type": "http.response.body", "body": body})


def listening_socket(
    host: str, port: int, keepalive_seconds: float, keepalive_timeout: float
) -> socket.socket:
    """The port's socket. With keepalive, TCP probes a connection idle for ``keepalive_seconds`` and drops a
    peer that does not answer (or leaves sent data unacknowledged) for ``keepalive_timeout``: a vanished
    browser frees its streams as a vanished gRPC client does (accepted sockets inherit these options)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets that say
    # they are TCP, and with it on, a response's headers and body meet the client's delayed ACK: 40 ms a call.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise  # the server gives up in words: the JSON `cannot start` line (server.app)
    if keepalive_seconds > 0:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, max(1, int(keepalive_seconds)))
        sock.setsockopt(
            socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, max(1, int(keepalive_timeout / KEEPALIVE_PROBES))
        )
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, KEEPALIVE_PROBES)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, int(keepalive_timeout * 1000))
    return sock


class WebPort:
    """The web port of one server: built with the server, started and drained with it."""

    def __init__(
        self,
        handlers: Mapping[str, Handler],
        interceptors: Sequence[aio.ServerInterceptor],
        *,
        host: str,
        port: int,
        root: Path,
        allowed_origins: Sequence[str] = (),
        peers: Callable[[], Collection[str]] | None = None,
        nodes: Callable[[], Collection[str]] = tuple,
        max_message_bytes: int,
        tls_cert: str = "",
        tls_key: str = "",
        keepalive_seconds: float = 0,
        keepalive_timeout: float = 20,
        serving: Callable[[], bool],
        more: Sequence[MoreService] = (),
    ) -> None:
        self._handlers = web_handlers(handlers)
        self._more = more
        self._interceptors = interceptors
        self._host = host
        self._port = port
        self._keepalive = (keepalive_seconds, keepalive_timeout)
        self._max_message_bytes = max_message_bytes
        self._tls = (tls_cert, tls_key)
        self.static = StaticFiles(root)
        self.cors = Cors(allowed_origins, peers=peers, scheme="https" if tls_cert else "http")
        self._nodes = nodes
        self._serving = serving
        self.service: WebTableService | None = None
        self._server: uvicorn.Server | None = None
        self.port = 0

    async def start(self) -> int:
        """Listen and serve; returns the port (the one chosen, for port 0)."""
        self.service = WebTableService(await intercepted(self._handlers, self._interceptors))
        api = connect.TableServiceASGIApplication(
            self.service, codecs=CODECS, read_max_bytes=self._max_message_bytes
        )
        more = dict([await build(self._interceptors, self._max_message_bytes) for build in self._more])
        cert, key = self._tls
        config = uvicorn.Config(
            WebApp(api, self.static, self.cors, self._serving, self._nodes, more=more),
            http="httptools",
            ws="none",
            lifespan="off",
            log_config=None,
            access_log=False,
            proxy_headers=False,  # the peer is the TCP peer, as on the gRPC port: rate limits go by it
            server_header=False,
            ssl_certfile=cert or None,
            ssl_keyfile=key or None,
        )
        config.load()
        sock = listening_socket(self._host, self._port, *self._keepalive)
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        await server.startup(sockets=[sock])
        self._server = server
        self.port = int(sock.getsockname()[1])
        if not self.static.built:
            log.warning(
                "the web client is not built: the web port serves the API only", root=str(self.static.root)
            )
        return self.port

    async def stop(self, grace: float, end_streams: Callable[[], None]) -> None:
        """Drain: stop accepting, close idle connections, end the streams, give the rest ``grace`` seconds."""
        server = self._server
        if server is None:
            return
        self._server = None
        if self.service is not None:
            self.service.accepting_streams = False
        for listener in server.servers:
            listener.close()
        state = server.server_state
        for connection in list(state.connections):
            connection.shutdown()  # an idle keep-alive connection closes; a busy one after its response
        end_streams()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while state.connections and loop.time() < deadline:
            await asyncio.sleep(0.02)
        late = list(state.tasks)
        if late:
            log.warning("web responses cut short by the end of the grace period", count=len(late))
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        for listener in server.servers:  # from Python 3.12 this waits for the connections too: bounded
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(listener.wait_closed(), 1)
