"""The MatchmakingService on the web port (Connect and gRPC-Web), for browsers: the gRPC server's own handlers
behind connectrpc, wrapped by the port's interceptors, as ``server.identity.web`` serves the PlayerService.
QuickPlay and Rematch are server streams, which Connect and gRPC-Web carry as they carry StreamEvents."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from connectrpc.request import RequestContext

from server.matchmaking import service as matchmaking
from server.web import MoreService
from server.web_more import HandledService, web_part
from thousand.v1 import matchmaking_connect as connect
from thousand.v1 import matchmaking_pb2 as mm


class WebMatchmakingService(HandledService, connect.MatchmakingService):
    """The generated Connect service, each stream run by its (intercepted) gRPC handler."""

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
    return web_part(
        matchmaking.SERVICE_NAME,
        matchmaking.method_handlers(matchmaker),
        connect.MatchmakingServiceASGIApplication,
        WebMatchmakingService,
    )
