"""What the identity tests share: a server in the test's process with players on, stubs of its three
services, and a call's ``authorization`` metadata."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grpc import aio

from server.app import Server
from server.identity.flags import IdentitySettings
from server.settings import Settings
from thousand.v1 import admin_service_pb2_grpc as admin_grpc
from thousand.v1 import player_service_pb2_grpc as player_grpc
from thousand.v1 import table_service_pb2_grpc as table_grpc

ADMIN_TOKEN = "an-operator-token-for-the-tests-0123456789abcdef"


def bearer(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),)


@dataclass
class Served:
    server: Server
    tables: table_grpc.TableServiceAsyncStub
    players: player_grpc.PlayerServiceAsyncStub
    admin: admin_grpc.AdminServiceAsyncStub


@asynccontextmanager
async def served(
    directory: Path, db: str = "", server_settings: dict[str, Any] | None = None, **identity: Any
) -> AsyncIterator[Served]:
    """A server on loopback with a file store (``db``: another), the operator token file, and ``identity``'s
    settings (``server_settings``: more of the server's); stopped after."""
    token_file = directory / "admin-token"
    token_file.write_text(ADMIN_TOKEN + "\n", encoding="utf-8")
    settings = IdentitySettings(admin_token_file=str(token_file), **identity)
    server = Server(
        Settings(
            host="127.0.0.1",
            port=0,
            db=db or str(directory / "thousand.db"),
            identity=settings,
            **(server_settings or {}),
        )
    )
    await server.start()
    try:
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield Served(
                server,
                table_grpc.TableServiceStub(channel),
                player_grpc.PlayerServiceStub(channel),
                admin_grpc.AdminServiceStub(channel),
            )
    finally:
        await server.stop(grace=0.2)
