"""The MatchmakingService on the web port (Connect and gRPC-Web), for browsers: the gRPC server's own handlers
behind connectrpc, wrapped by the port's interceptors, as ``server.identity.web`` serves the PlayerService.
QuickPlay and Rematch are server streams, which Connect and gRPC-Web carry as they carry StreamEvents."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from typing import Any

from connectrpc.request import RequestContext
from grpc import aio

from server.matchmaking import service as matchmaking
from server.web import ASGIApp, MoreService
from server.web_context import WebContext, web_transport
from server.web_service import CODECS, Handler, intercepted
from thousand.v1 import matchmaking_connect as connect
from thousand.v1 import matchmaking_pb2 as mm

PREFIX = f"/{matchmaking.SERVICE_NAME}/"


class WebMatchmakingService(connect.MatchmakingService):
    """The generated Connect service, each stream run by its (intercepted) gRPC handler."""

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._handlers = handlers

    async def _stream(self, method: str, request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        behavior: Any = self._handlers[method].unary_stream  # grpc types it for the synchronous server
        assert behavior is not None, method
        context = WebContext(ctx, web_transport(ctx.request_headers.get("content-type", "")))
        async with aclosing(behavior(request, context)) as responses:
            async for message in responses:
                yield message

    async def quick_play(
        self, request: mm.QuickPlayRequest, ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[mm.QuickPlayResponse]:
        async for message in self._stream("QuickPlay", request, ctx):
            yield message

    async def rematch(
        self, request: mm.RematchRequest, ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[mm.RematchResponse]:
        async for message in self._stream("Rematch", request, ctx):
            yield message


def web_matchmaking(matchmaker: matchmaking.Matchmaker) -> MoreService:
    """The MatchmakingService's part of the web port (a ``server.web.MoreService``)."""

    async def build(
        interceptors: Sequence[aio.ServerInterceptor], read_max_bytes: int
    ) -> tuple[str, ASGIApp]:
        handlers = await intercepted(
            matchmaking.method_handlers(matchmaker), interceptors, matchmaking.SERVICE_NAME
        )
        app = connect.MatchmakingServiceASGIApplication(
            WebMatchmakingService(handlers), codecs=CODECS, read_max_bytes=read_max_bytes
        )
        return PREFIX, app

    return build
