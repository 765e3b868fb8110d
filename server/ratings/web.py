"""The RatingService on the web port (Connect and gRPC-Web), for browsers' leaderboard and profile pages: the
gRPC server's own handlers behind connectrpc, wrapped by the port's interceptors, as
:mod:`server.identity.web` serves the PlayerService."""

from __future__ import annotations

from typing import Any

from connectrpc.request import RequestContext

from server.ratings import service as rating_service
from server.web import MoreService
from server.web_more import HandledService, web_part
from thousand.v1 import rating_service_connect as connect
from thousand.v1 import rating_service_pb2 as rating_pb


class WebRatingService(HandledService, connect.RatingService):
    """The generated Connect service, each method run by its (intercepted) gRPC handler."""

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
    return web_part(
        rating_service.SERVICE_NAME,
        rating_service.method_handlers(service),
        connect.RatingServiceASGIApplication,
        WebRatingService,
    )
