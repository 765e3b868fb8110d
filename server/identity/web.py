"""The PlayerService on the web port (Connect and gRPC-Web), for browsers: the gRPC server's own handlers
behind connectrpc, wrapped by the port's interceptors, as ``server.web_service`` serves the TableService.
The AdminService is not on the web port: operators call the gRPC port."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from connectrpc.request import RequestContext
from grpc import aio

from server.identity import player_service
from server.web import ASGIApp, MoreService
from server.web_context import WebContext, web_transport
from server.web_service import CODECS, Handler, intercepted
from thousand.v1 import player_service_connect as connect
from thousand.v1 import player_service_pb2 as player_pb

PREFIX = f"/{player_service.SERVICE_NAME}/"


class WebPlayerService(connect.PlayerService):
    """The generated Connect service, each method run by its (intercepted) gRPC handler."""

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._handlers = handlers

    async def _unary(self, method: str, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        behavior = self._handlers[method].unary_unary
        assert behavior is not None, method
        context = WebContext(ctx, web_transport(ctx.request_headers.get("content-type", "")))
        return await behavior(request, context)  # type: ignore[arg-type]  # grpc types it for sync servers

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

    async def build(
        interceptors: Sequence[aio.ServerInterceptor], read_max_bytes: int
    ) -> tuple[str, ASGIApp]:
        handlers = await intercepted(
            player_service.method_handlers(service), interceptors, player_service.SERVICE_NAME
        )
        app = connect.PlayerServiceASGIApplication(
            WebPlayerService(handlers), codecs=CODECS, read_max_bytes=read_max_bytes
        )
        return PREFIX, app

    return build
