"""The PlayerService on the web port (Connect and gRPC-Web), for browsers: the gRPC server's own handlers
behind connectrpc, wrapped by the port's interceptors, as ``server.web_service`` serves the TableService.
The AdminService is not on the web port: operators call the gRPC port."""

from __future__ import annotations

from typing import Any

from connectrpc.request import RequestContext

from server.identity import player_service
from server.web import MoreService
from server.web_more import HandledService, web_part
from thousand.v1 import player_service_connect as connect
from thousand.v1 import player_service_pb2 as player_pb


class WebPlayerService(HandledService, connect.PlayerService):
    """The generated Connect service, each method run by its (intercepted) gRPC handler."""

    async def get_sign_in_options(
        self, request: player_pb.GetSignInOptionsRequest, ctx: RequestContext[Any, Any], /
    ) -> player_pb.GetSignInOptionsResponse:
        response: player_pb.GetSignInOptionsResponse = await self._unary("GetSignInOptions", request, ctx)
        return response

    async def create_guest(
        self, request: player_pb.CreateGuestRequest, ctx: RequestContext[Any, Any], /
    ) -> player_pb.CreateGuestResponse:
        response: player_pb.CreateGuestResponse = await self._unary("CreateGuest", request, ctx)
        return response

    async def get_me(
        self, request: player_pb.GetMeRequest, ctx: RequestContext[Any, Any], /
    ) -> player_pb.GetMeResponse:
        response: player_pb.GetMeResponse = await self._unary("GetMe", request, ctx)
        return response

    async def update_me(
        self, request: player_pb.UpdateMeRequest, ctx: RequestContext[Any, Any], /
    ) -> player_pb.UpdateMeResponse:
        response: player_pb.UpdateMeResponse = await self._unary("UpdateMe", request, ctx)
        return response

    async def list_my_games(
        self, request: player_pb.ListMyGamesRequest, ctx: RequestContext[Any, Any], /
    ) -> player_pb.ListMyGamesResponse:
        response: player_pb.ListMyGamesResponse = await self._unary("ListMyGames", request, ctx)
        return response

    async def claim_seats(
        self, request: player_pb.ClaimSeatsRequest, ctx: RequestContext[Any, Any], /
    ) -> player_pb.ClaimSeatsResponse:
        response: player_pb.ClaimSeatsResponse = await self._unary("ClaimSeats", request, ctx)
        return response


def web_players(service: player_service.PlayerService) -> MoreService:
    """The PlayerService's part of the web port (a ``server.web.MoreService``)."""
    return web_part(
        player_service.SERVICE_NAME,
        player_service.method_handlers(service),
        connect.PlayerServiceASGIApplication,
        WebPlayerService,
    )
