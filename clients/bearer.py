"""A player's credential on every call: ``authorization: Bearer <credential>`` (docs/protocol.md, "Players").

The server reads a player from that entry on any call of any service (a seat reserved for the player, the
unlisted tables the player is part of, a player's history of the seats taken). A channel made by
:meth:`clients.connection.Connection.channel` with a credential adds it to every call through these
interceptors, so no call of a session, a bot or the player calls can forget it; a call that already names
an ``authorization`` entry keeps its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from grpc import aio

AUTHORIZATION: Final = "authorization"


def _with_bearer(details: aio.ClientCallDetails, credential: str) -> aio.ClientCallDetails:
    entries = list(details.metadata or ())
    if not any(key == AUTHORIZATION for key, _ in entries):
        entries.append((AUTHORIZATION, f"Bearer {credential}"))
    return aio.ClientCallDetails(
        details.method,
        details.timeout,
        aio.Metadata(*entries),
        details.credentials,
        details.wait_for_ready,
    )


class _UnaryUnary(aio.UnaryUnaryClientInterceptor):
    def __init__(self, credential: str) -> None:
        self._credential = credential

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], client_call_details: aio.ClientCallDetails, request: Any
    ) -> Any:
        return await continuation(_with_bearer(client_call_details, self._credential), request)


class _UnaryStream(aio.UnaryStreamClientInterceptor):
    def __init__(self, credential: str) -> None:
        self._credential = credential

    async def intercept_unary_stream(
        self, continuation: Callable[..., Any], client_call_details: aio.ClientCallDetails, request: Any
    ) -> Any:
        return await continuation(_with_bearer(client_call_details, self._credential), request)


class _StreamUnary(aio.StreamUnaryClientInterceptor):
    def __init__(self, credential: str) -> None:
        self._credential = credential

    async def intercept_stream_unary(
        self,
        continuation: Callable[..., Any],
        client_call_details: aio.ClientCallDetails,
        request_iterator: Any,
    ) -> Any:
        return await continuation(_with_bearer(client_call_details, self._credential), request_iterator)


class _StreamStream(aio.StreamStreamClientInterceptor):
    def __init__(self, credential: str) -> None:
        self._credential = credential

    async def intercept_stream_stream(
        self,
        continuation: Callable[..., Any],
        client_call_details: aio.ClientCallDetails,
        request_iterator: Any,
    ) -> Any:
        return await continuation(_with_bearer(client_call_details, self._credential), request_iterator)


def bearer_interceptors(credential: str) -> list[aio.ClientInterceptor]:
    """The interceptors that add ``authorization: Bearer <credential>`` to every kind of call."""
    return [
        _UnaryUnary(credential),
        _UnaryStream(credential),
        _StreamUnary(credential),
        _StreamStream(credential),
    ]
