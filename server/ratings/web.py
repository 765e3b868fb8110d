"""The RatingService on the web port (Connect and gRPC-Web), for browsers' leaderboard and profile pages: the
gRPC server's own handlers behind connectrpc, wrapped by the port's interceptors, as
:mod:`server.identity.web` serves the PlayerService."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from connectrpc.request import RequestContext
from grpc import aio

from server.ratings import service as rating_service
from server.web import ASGIApp, MoreService
from server.web_context import WebContext, web_transport
from server.web_service import CODECS, Handler, intercepted
from thousand.v1 import rating_service_connect as connect
from thousand.v1 import rating_service_pb2 as rating_pb

PREFIX = f"/{rating_service.SERVICE_NAME}/"


class WebRatingService(connect.RatingService):
    """The generated Connect service, each method run by its (intercepted) gRPC handler."""

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._handlers = handlers

    async def _unary(self, method: str, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        behavior = self._handlers[method].unary_unary
        assert behavior is not None, method
        context = WebContext(ctx, web_transport(ctx.request_headers.get("content-type", "")))
        return await behavior(request, context)  # type: ignore[arg-type]  # grpc types it for sync servers

    async def get_leaderboard(
        self, request: rating_pb.GetLeaderboardRequest, ctx: RequestContext[Any, Any], /
    ) -> rating_pb.GetLeaderboardResponse:
        response: rating_pb.GetLeaderboardResponse = await self._unary("GetLeaderboard", request, ctx)
        return response

    async def get_player_profile(
        self, request: rating_pb.GetPlayerProfileRequest, ctx: RequestContext[Any, Any], /
    ) -> rating_pb.GetPlayerProfileResponse:
        response: rating_pb.GetPlayerProfileResponse = await self._unary("GetPlayerProfile", request, ctx)
        return response


def web_ratings(service: rating_service.RatingService) -> MoreService:
    """The RatingService's part of the web port (a ``server.web.MoreService``)."""

    async def build(
        interceptors: Sequence[aio.ServerInterceptor], read_max_bytes: int
    ) -> tuple[str, ASGIApp]:
        handlers = await intercepted(
            rating_service.method_handlers(service), interceptors, rating_service.SERVICE_NAME
        )
        app = connect.RatingServiceASGIApplication(
            WebRatingService(handlers), codecs=CODECS, read_max_bytes=read_max_bytes
        )
        return PREFIX, app

    return build
