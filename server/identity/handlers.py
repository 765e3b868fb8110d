"""What the identity services' gRPC handlers share: refusals become statuses, requests are parsed safely."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from server.errors import ServiceError
from server.requests import Context, Malformed, parse

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Handler = Callable[[Any, Context], Awaitable[Any]]


def unary(fn: Callable[[Req, Context], Awaitable[Resp]]) -> Callable[[Req, Context], Awaitable[Resp]]:
    """``fn`` with a malformed request refused (INVALID_ARGUMENT) and a ServiceError sent as its status."""

    async def handle(request: Req, context: Context) -> Resp:
        try:
            if isinstance(request, Malformed):
                raise request.refuse()
            return await fn(request, context)
        except ServiceError as error:
            await context.abort_with_status(error.to_status())
            raise AssertionError("unreachable") from None

    return handle


def method(fn: Handler, request: type[Message], response: type[Message]) -> grpc.RpcMethodHandler[Any, Any]:
    return grpc.unary_unary_rpc_method_handler(
        unary(fn), request_deserializer=parse(request), response_serializer=response.SerializeToString
    )
