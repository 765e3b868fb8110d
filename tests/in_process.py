"""A server in the test's own process and event loop, on loopback, with a stub connected to it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest
from grpc import aio

import server.app as app_module
import server.table_handlers as handlers_module
from server.app import Server
from server.settings import Settings
from thousand.v1 import table_service_pb2_grpc as pb_grpc


@asynccontextmanager
async def serving(
    db: str = ":memory:", **settings: Any
) -> AsyncIterator[tuple[Server, pb_grpc.TableServiceAsyncStub]]:
    """``Server(Settings(db=db, **settings))`` on 127.0.0.1 and a free port, stopped (0.2 s grace) after."""
    server = Server(Settings(host="127.0.0.1", port=0, db=db, **settings))
    await server.start()
    try:
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield server, pb_grpc.TableServiceStub(channel)
    finally:
        await server.stop(grace=0.2)


class _WithoutPlay(grpc.GenericRpcHandler):
    """The service as a server that predates Play serves it: Play is UNIMPLEMENTED."""

    def __init__(self, inner: grpc.GenericRpcHandler) -> None:
        self._inner = inner

    def service(
        self, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        if handler_call_details.method.endswith("/Play"):
            return None
        return self._inner.service(handler_call_details)


def without_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers started in this test answer Play with UNIMPLEMENTED, as one older than Play does."""
    original = handlers_module.generic_handler
    monkeypatch.setattr(app_module, "generic_handler", lambda service: _WithoutPlay(original(service)))
