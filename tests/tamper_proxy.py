"""A man in the middle for the fair-deal tests: a gRPC server on loopback that passes every TableService call
through to a real server, unchanged, except the stream messages a test rewrites on their way (what a
dishonest server would send). Nothing is mocked: both ends are the real server and the real clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import grpc
from grpc import aio

from thousand.v1 import table_service_pb2 as pb

Change = Callable[[pb.StreamEventsResponse], None]
"""Rewrites one stream message in place (for Play, the update it carries)."""


class _Passthrough(grpc.GenericRpcHandler):
    def __init__(self, channel: aio.Channel, change: Change) -> None:
        self._channel = channel
        self._change = change

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[Any, Any] | None:
        method: str = details.method
        name = method.rsplit("/", 1)[-1]
        if name == "Play":
            return grpc.stream_stream_rpc_method_handler(self._play(method))
        if name == "StreamEvents":
            return grpc.unary_stream_rpc_method_handler(self._events(method))
        return grpc.unary_unary_rpc_method_handler(self._unary(method))

    def _unary(self, method: str) -> Callable[[bytes, aio.ServicerContext[Any, Any]], Any]:
        call: aio.UnaryUnaryMultiCallable[bytes, bytes] = self._channel.unary_unary(method)

        async def handle(request: bytes, context: aio.ServicerContext[Any, Any]) -> bytes:
            try:
                reply: bytes = await call(request, metadata=_forwarded(context))
            except aio.AioRpcError as error:
                await _abort(context, error)
                raise
            return reply

        return handle

    def _events(self, method: str) -> Callable[[bytes, aio.ServicerContext[Any, Any]], Any]:
        open_call: aio.UnaryStreamMultiCallable[bytes, bytes] = self._channel.unary_stream(method)

        async def handle(request: bytes, context: aio.ServicerContext[Any, Any]) -> AsyncIterator[bytes]:
            call = open_call(request, metadata=_forwarded(context))
            try:
                async for data in call:
                    message = pb.StreamEventsResponse.FromString(data)
                    self._change(message)
                    yield message.SerializeToString()
            except aio.AioRpcError as error:
                await _abort(context, error)
            finally:
                call.cancel()

        return handle

    def _play(self, method: str) -> Callable[[AsyncIterator[bytes], aio.ServicerContext[Any, Any]], Any]:
        open_call: aio.StreamStreamMultiCallable[bytes, bytes] = self._channel.stream_stream(method)

        async def handle(
            requests: AsyncIterator[bytes], context: aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[bytes]:
            call = open_call(requests, metadata=_forwarded(context))
            try:
                async for data in call:
                    message = pb.PlayResponse.FromString(data)
                    if message.HasField("update"):
                        self._change(message.update)
                    yield message.SerializeToString()
            except aio.AioRpcError as error:
                await _abort(context, error)
            finally:
                call.cancel()

        return handle


def _forwarded(context: aio.ServicerContext[Any, Any]) -> tuple[tuple[str, str | bytes], ...]:
    """The client's own metadata (the seat token), not the transport's."""
    return tuple((k, v) for k, v in context.invocation_metadata() or () if k.startswith("x-"))


async def _abort(context: aio.ServicerContext[Any, Any], error: aio.AioRpcError) -> None:
    """The server's refusal, passed on as it came (its ErrorInfo in the trailers)."""
    trailers = tuple(error.trailing_metadata() or ())
    await context.abort(error.code(), error.details() or "", trailers)


@asynccontextmanager
async def tampering(upstream: str, change: Change) -> AsyncIterator[str]:
    """A proxy of ``upstream`` that rewrites stream messages with ``change``; yields its address."""
    async with aio.insecure_channel(upstream) as channel:
        server = aio.server()
        server.add_generic_rpc_handlers((_Passthrough(channel, change),))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            yield f"127.0.0.1:{port}"
        finally:
            await server.stop(grace=0.2)
