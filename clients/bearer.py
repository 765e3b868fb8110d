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


class _Bearer:
    """What the four kinds of interceptor share: the credential, added to a call's metadata."""

    def __init__(self, credential: str) -> None:
        self._credential = credential

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"  # never the credential

    def details(self, details: aio.ClientCallDetails) -> aio.ClientCallDetails:
        entries = list(details.metadata or ())
        if not any(key == AUTHORIZATION for key, _ in entries):
            entries.append((AUTHORIZATION, f"Bearer {self._credential}"))
        metadata = aio.Metadata(*entries)
        return aio.ClientCallDetails(
            details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
        )


# A channel files each interceptor under the first kind it implements only, so one class a kind.
class _UnaryUnary(_Bearer, aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, go: Callable[..., Any], details: Any, request: Any) -> Any:
        return await go(self.details(details), request)


class _UnaryStream(_Bearer, aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, go: Callable[..., Any], details: Any, request: Any) -> Any:
        return await go(self.details(details), request)


class _StreamUnary(_Bearer, aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, go: Callable[..., Any], details: Any, requests: Any) -> Any:
        return await go(self.details(details), requests)


class _StreamStream(_Bearer, aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, go: Callable[..., Any], details: Any, requests: Any) -> Any:
        return await go(self.details(details), requests)


def bearer_interceptors(credential: str) -> list[aio.ClientInterceptor]:
    """The interceptors that add ``authorization: Bearer <credential>`` to every kind of call."""
    return [
        _UnaryUnary(credential),
        _UnaryStream(credential),
        _StreamUnary(credential),
        _StreamStream(credential),
    ]
