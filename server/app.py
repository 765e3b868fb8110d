"""``thousand-server``: the gRPC server process.

It serves the TableService with gRPC health checking and server reflection, and shuts down gracefully on
SIGTERM or SIGINT: health turns NOT_SERVING first (so load balancers stop sending), in-flight calls get a
grace period, and every stream is ended cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from server.registry import Registry
from server.service import SERVICE_NAME, TableService, generic_handler
from server.store import Store

DEFAULT_PORT: Final = 50051
DEFAULT_DB: Final = "thousand.db"
SHUTDOWN_GRACE_SECONDS: Final = 5.0
log = logging.getLogger("thousand.server")


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    db: str = ":memory:"
    """The store; the ``thousand-server`` command defaults to DEFAULT_DB, a file."""
    metrics_port: int = 0


class Server:
    """A running server: the gRPC server, its health service and its tables."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store(settings.db)
        self.registry = Registry(self.store)
        restored = self.registry.restore()
        if restored:
            log.info("restored %d tables from %s", restored, settings.db)
        self.service = TableService(self.registry)
        self.health = health.aio.HealthServicer()
        self.grpc = aio.server()
        self.grpc.add_generic_rpc_handlers((generic_handler(self.service),))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.grpc)
        reflection.enable_server_reflection(
            (
                SERVICE_NAME,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self.grpc,
        )
        self.port = self.grpc.add_insecure_port(f"{settings.host}:{settings.port}")

    async def start(self) -> None:
        await self.grpc.start()
        for name in ("", SERVICE_NAME):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        log.info("serving on %s:%d", self.settings.host, self.port)

    async def stop(self, grace: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Drain: NOT_SERVING, end the streams, let in-flight calls finish within ``grace`` seconds."""
        await self.health.enter_graceful_shutdown()
        self.service.close_streams()
        await self.grpc.stop(grace)
        self.store.close()

    async def wait(self) -> None:
        await self.grpc.wait_for_termination()


async def serve(settings: Settings) -> None:
    server = Server(settings)
    await server.start()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    log.info("shutting down")
    await server.stop()


def parse_settings(argv: Sequence[str] | None = None, env: dict[str, str] | None = None) -> Settings:
    """Flags override the environment (THOUSAND_HOST, THOUSAND_PORT, THOUSAND_DB, THOUSAND_METRICS_PORT)."""
    env = dict(os.environ) if env is None else env
    defaults = Settings()
    parser = argparse.ArgumentParser(prog="thousand-server", description="The Thousand gRPC game server.")
    parser.add_argument("--host", default=env.get("THOUSAND_HOST", defaults.host))
    parser.add_argument("--port", type=int, default=int(env.get("THOUSAND_PORT", defaults.port)))
    parser.add_argument(
        "--db",
        default=env.get("THOUSAND_DB", DEFAULT_DB),
        help="the SQLite database tables are event-sourced in (':memory:' keeps nothing)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(env.get("THOUSAND_METRICS_PORT", defaults.metrics_port)),
        help="Prometheus metrics port (0: off)",
    )
    args = parser.parse_args(argv)
    return Settings(host=args.host, port=args.port, db=args.db, metrics_port=args.metrics_port)


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(serve(parse_settings(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
