"""The LadderService on the web port (Connect and gRPC-Web), for the web client's Bots page: the gRPC
server's own handlers behind connectrpc, as :mod:`server.ratings.web` serves the RatingService."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from connectrpc.request import RequestContext

from server.ladder import service as ladder_service
from server.web import MoreService
from server.web_more import HandledService, web_part
from thousand.v1 import ladder_service_connect as connect
from thousand.v1 import ladder_service_pb2 as ladder_pb


class WebLadderService(HandledService, connect.LadderService):
    """The generated Connect service, each method run by its (intercepted) gRPC handler."""

    async def register_bot(
        self, request: ladder_pb.RegisterBotRequest, ctx: RequestContext[Any, Any], /
    ) -> ladder_pb.RegisterBotResponse:
        response: ladder_pb.RegisterBotResponse = await self._unary("RegisterBot", request, ctx)
        return response

    async def list_my_bots(
        self, request: ladder_pb.ListMyBotsRequest, ctx: RequestContext[Any, Any], /
    ) -> ladder_pb.ListMyBotsResponse:
        response: ladder_pb.ListMyBotsResponse = await self._unary("ListMyBots", request, ctx)
        return response

    def join_ladder(
        self, request: ladder_pb.JoinLadderRequest, ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[ladder_pb.JoinLadderResponse]:
        return self._stream("JoinLadder", request, ctx)

    async def get_ladder_standings(
        self, request: ladder_pb.GetLadderStandingsRequest, ctx: RequestContext[Any, Any], /
    ) -> ladder_pb.GetLadderStandingsResponse:
        response: ladder_pb.GetLadderStandingsResponse = await self._unary("GetLadderStandings", request, ctx)
        return response

    async def get_ladder_set(
        self, request: ladder_pb.GetLadderSetRequest, ctx: RequestContext[Any, Any], /
    ) -> ladder_pb.GetLadderSetResponse:
        response: ladder_pb.GetLadderSetResponse = await self._unary("GetLadderSet", request, ctx)
        return response


def web_ladder(service: ladder_service.LadderService) -> MoreService:
    """The LadderService's part of the web port (a ``server.web.MoreService``)."""
    return web_part(
        ladder_service.SERVICE_NAME,
        ladder_service.method_handlers(service),
        connect.LadderServiceASGIApplication,
        WebLadderService,
    )
