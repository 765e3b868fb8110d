"""The web port's further services (PlayerService, MatchmakingService, RatingService), each served as
:mod:`server.web_service` serves the TableService: the generated Connect service whose methods run the gRPC
server's own handlers, wrapped by the port's interceptors. What differs between them is only which service;
this module is the rest, once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from typing import Any

from connectrpc.request import RequestContext
from grpc import aio

from server.web import ASGIApp, MoreService
from server.web_service import CODECS, Handler, call_context, intercepted


class HandledService:
    """The base of a generated Connect service's implementation: each method a call of its (intercepted)
    gRPC handler with the web request's context."""

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._handlers = handlers

    async def _unary(self, method: str, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        behavior = self._handlers[method].unary_unary
        assert behavior is not None, method
        return await behavior(request, call_context(ctx))  # type: ignore[arg-type]  # grpc types it for sync servers

    async def _stream(self, method: str, request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        behavior: Any = self._handlers[method].unary_stream  # grpc types it for the synchronous server
        assert behavior is not None, method
        async with aclosing(behavior(request, call_context(ctx))) as responses:
            async for message in responses:
                yield message


def web_part(
    service_name: str,
    handlers: Mapping[str, Handler],
    application: Callable[..., ASGIApp],
    implementation: Callable[[Mapping[str, Handler]], HandledService],
) -> MoreService:
    """The part of the web port (a ``server.web.MoreService``) serving ``service_name`` at its path: the
    generated ASGI ``application`` around ``implementation`` of the gRPC ``handlers``, intercepted as the
    port's own calls are."""
    prefix = f"/{service_name}/"

    async def build(
        interceptors: Sequence[aio.ServerInterceptor], read_max_bytes: int
    ) -> tuple[str, ASGIApp]:
        wrapped = await intercepted(handlers, interceptors, service_name)
        return prefix, application(implementation(wrapped), codecs=CODECS, read_max_bytes=read_max_bytes)

    return build
