"""``thousand-server``: the gRPC server process.

It serves the TableService with gRPC health checking and server reflection, and shuts down gracefully on
SIGTERM or SIGINT: health turns NOT_SERVING first (so load balancers stop sending), in-flight calls get a
grace period, and every stream is ended cleanly. With ``--web-port`` it serves the same service over Connect
and gRPC-Web, and the web client, to browsers (server/web.py); with ``--metrics-port`` it serves Prometheus
metrics over HTTP; it logs JSON lines (or a console format on a terminal). See docs/operations.md.
"""

from __future__ import annotations

import asyncio
import gc
import math
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final, NoReturn

import grpc
from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

import engine
from server import tracing
from server.cluster import Node
from server.cluster_flags import node_settings
from server.cluster_metrics import ClusterCollector, StoreCollector
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError
from server.identity.web import web_players
from server.identity.wiring import SERVICE_NAMES as IDENTITY_SERVICE_NAMES
from server.identity.wiring import Identity
from server.interceptors import GRPC_TRANSPORT, LoggingInterceptor, MetricsInterceptor
from server.ladder.flags import references_of
from server.ladder.ladder import Ladder, LadderSettings
from server.ladder.metrics import LadderMetrics
from server.ladder.service import SERVICE_NAME as LADDER_SERVICE_NAME
from server.ladder.service import LadderService
from server.ladder.service import generic_handler as ladder_handler
from server.ladder.store import LadderStore
from server.ladder.web import web_ladder
from server.logs import configure_logging, get_logger
from server.matchmaking import service as matchmaking
from server.matchmaking.metrics import QuickPlayMetrics
from server.matchmaking.queue_store import open_queue_store
from server.matchmaking.ratings import ReaderLookup
from server.matchmaking.web import web_matchmaking
from server.metrics import Metrics
from server.pacing import BotPacer
from server.ratelimit import RateLimiter
from server.ratings.service import SERVICE_NAME as RATING_SERVICE_NAME
from server.ratings.service import RatingService
from server.ratings.service import generic_handler as rating_handler
from server.ratings.store import RatingReader
from server.ratings.web import web_ratings
from server.registry import Registry
from server.service import SERVICE_NAME, TableService
from server.settings import Settings, parse_settings
from server.stalls import StallWatch
from server.store_pg import PostgresStore
from server.store_select import open_store
from server.table_handlers import generic_handler, method_handlers
from server.telemetry import Telemetry
from server.web import WebPort
from server.web_context import CONNECT, GRPC_WEB
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import matchmaking_pb2 as matchmaking_pb
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import rating_service_pb2 as rating_pb
from thousand.v1 import table_service_pb2 as pb

log = get_logger("thousand.server")

FINAL_RESPONSE_SECONDS: Final = 0.5
"""After the final scrape's collection, time for the metrics thread to write its response before the exit."""


class StartError(Exception):
    """The server cannot start as configured (its port is taken): said in words, and the process exits 1."""


class Server:
    """A running server: the gRPC server, its health service and its tables."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.metrics = Metrics() if settings.metrics_port else None
        self.telemetry = Telemetry(self.metrics.game if self.metrics is not None else None)
        self.store = open_store(settings.db)
        self.store.snapshot_records = settings.snapshot_records
        self.stalls = StallWatch(self.telemetry.loop_stalled)
        self.registry = Registry(
            self.store,
            self.telemetry,
            quotas=settings.quotas,
            pacer=BotPacer(settings.bot_move_delay, settings.bot_table_max_moves),
            stalls=self.stalls,
        )
        self.node: Node | None = None
        """This server's part in a cluster (a PostgreSQL store), once it knows its port."""
        restored = (
            0 if isinstance(self.store, PostgresStore) else self.registry.restore(settings.table_idle_seconds)
        )
        if restored or self.registry.left_in_store:
            log.info(
                "tables restored", count=restored, left_in_store=self.registry.left_in_store, db=settings.db
            )
        self.service = TableService(self.registry, RateLimiter(settings.rate_limit, settings.rate_burst))
        self.service.default_bot_pace = settings.bot_pace
        self.identity = Identity(settings.identity, settings.db, self.registry, self.service.limiter)
        self.service.access = self.identity.access
        self.queue = open_queue_store(settings.db, self.store)
        self.registry.rater.owners = self.identity.store.seat_owner
        self.rating_reader = RatingReader(self.store, settings.rating_min_games)
        """Current ratings per pool (``rating_reader.ratings(Pool(game, players, bots), ids)``, blocking):
        what matchmaking reads; a bot's id is ``server.ratings.model.bot_id(strategy)``."""
        self.ratings = RatingService(self.rating_reader, self.identity.store)
        self.matchmaker = matchmaking.Matchmaker(
            self.queue,
            self.service,
            lookup=ReaderLookup(self.rating_reader),
            metrics=QuickPlayMetrics(self.metrics.registry) if self.metrics is not None else None,
        )
        self.ladder = Ladder(
            LadderStore(self.queue),
            self.service,
            LadderSettings(
                per_move=settings.ladder_per_move,
                max_same_per_day=settings.ladder_max_same,
                reference_sets=settings.ladder_reference_sets,
                references=references_of(settings.ladder_references),
                seed=settings.ladder_seed,
            ),
            node_id=settings.node_id,
            metrics=LadderMetrics(self.metrics.registry) if self.metrics is not None else None,
        )
        self.ladder_service = LadderService(self.ladder, self.identity.store, self.rating_reader)
        self.health = health.aio.HealthServicer()
        self.draining = False
        if self.metrics is not None:
            self.metrics.watch(self.registry, self.telemetry)
        self.grpc = aio.server(
            interceptors=self._interceptors(GRPC_TRANSPORT),
            options=settings.grpc_options,
        )
        self.grpc.add_generic_rpc_handlers(
            (
                generic_handler(self.service),
                *self.identity.handlers(),
                matchmaking.generic_handler(self.matchmaker),
                rating_handler(self.ratings),
                ladder_handler(self.ladder_service),
            )
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.grpc)
        # Reflection names every service the port serves, so that grpcurl and buf curl find them all.
        reflection.enable_server_reflection(
            (
                SERVICE_NAME,
                *IDENTITY_SERVICE_NAMES,
                matchmaking.SERVICE_NAME,
                RATING_SERVICE_NAME,
                LADDER_SERVICE_NAME,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self.grpc,
        )
        self.port = self._listen(f"{settings.host}:{settings.port}")
        if isinstance(self.store, PostgresStore):
            self.node = Node(
                node_settings(
                    settings.node_id,
                    settings.advertise_address,
                    settings.host,
                    self.port,
                    web_port=settings.web_port,
                    lease_seconds=settings.lease_seconds,
                    placement=settings.placement,
                    finished_kept_seconds=settings.table_idle_seconds,
                    rebalance_seconds=settings.rebalance_seconds,
                ),
                self.registry,
                self.store,
            )
            self.store.node_id = self.node.node_id
            self.registry.directory = self.node.directory
            self.node.on_claimed = self.identity.players.claimed_into_log
        if self.metrics is not None:
            self.metrics.registry.register(StoreCollector(self.store))
            if self.node is not None:
                self.metrics.registry.register(ClusterCollector(self.node))
        self.metrics_port = 0
        self.web: WebPort | None = None
        if settings.web_port:
            self.web = WebPort(
                method_handlers(self.service),
                self._interceptors(CONNECT, GRPC_WEB),
                host=settings.host,
                port=settings.web_port,
                root=Path(settings.web_root),
                allowed_origins=settings.web_allowed_origins,
                peers=self._page_web_endpoints if self.node is not None else None,
                nodes=self._active_web_endpoints,
                max_message_bytes=settings.max_message_bytes,
                tls_cert=settings.tls_cert,
                tls_key=settings.tls_key,
                keepalive_seconds=settings.keepalive_seconds,
                keepalive_timeout=settings.keepalive_timeout_seconds,
                serving=lambda: not self.draining,
                more=(
                    web_players(self.identity.players),
                    web_matchmaking(self.matchmaker),
                    web_ratings(self.ratings),
                    web_ladder(self.ladder_service),
                ),
            )
        self.web_port = 0
        self._sweeper: asyncio.Task[None] | None = None
        self._readiness: asyncio.Task[None] | None = None

    def _page_web_endpoints(self) -> frozenset[str]:
        """The web endpoints of the cluster's nodes, alive or not, whose pages this node's web port serves
        too (CORS)."""
        return self.node.membership.page_endpoints if self.node is not None else frozenset()

    def _active_web_endpoints(self) -> frozenset[str]:
        """The web endpoints of the cluster's active nodes (none from a server that is not part of one)."""
        return self.node.membership.web_endpoints if self.node is not None else frozenset()

    def _listen(self, address: str) -> int:
        """Bind the gRPC port; :class:`StartError` when it cannot be had (taken by another process)."""
        settings = self.settings
        try:
            if settings.tls_cert or settings.tls_key:
                credentials = tls_credentials(settings.tls_cert, settings.tls_key)
                return self.grpc.add_secure_port(address, credentials)
            return self.grpc.add_insecure_port(address)
        except RuntimeError:
            self.store.close()
            self.queue.close()
            self.identity.close()
            raise StartError(
                f"cannot listen on {address}: the port is taken (another thousand-server?) or the address "
                "is not this machine's; stop the other process or choose another --port"
            ) from None

    def _interceptors(self, *transports: str) -> list[aio.ServerInterceptor]:
        """The logging and (with metrics) metrics interceptors of the gRPC port, or of the web port (its own
        instances: each caches the handlers it wrapped), with every method's series at zero."""
        interceptors: list[aio.ServerInterceptor] = [LoggingInterceptor()]
        if self.metrics is not None:
            observed = MetricsInterceptor(self.metrics.grpc)
            observed.initialize(pb.DESCRIPTOR.services_by_name["TableService"], transports)
            observed.initialize(player_pb.DESCRIPTOR.services_by_name["PlayerService"], transports)
            observed.initialize(matchmaking_pb.DESCRIPTOR.services_by_name["MatchmakingService"], transports)
            observed.initialize(rating_pb.DESCRIPTOR.services_by_name["RatingService"], transports)
            observed.initialize(ladder_pb.DESCRIPTOR.services_by_name["LadderService"], transports)
            if GRPC_TRANSPORT in transports:  # the web port serves no AdminService
                observed.initialize(admin_pb.DESCRIPTOR.services_by_name["AdminService"], transports)
            interceptors.append(observed)
        return interceptors

    async def start(self) -> None:
        self.stalls.start()
        if self.node is not None:
            await self.node.start()  # the tables that still name this node are back before it serves
        await self.grpc.start()
        host = self.settings.host
        if self.web is not None:
            try:
                self.web_port = await self.web.start()
            except OSError as error:
                await self._give_up(
                    f"cannot listen on {host}:{self.settings.web_port} (the web port): "
                    f"{error.strerror or error}; choose another --web-port"
                )
        if self.metrics is not None:
            try:
                self.metrics_port = self.metrics.serve(host, self.settings.metrics_port)
            except OSError as error:
                await self._give_up(
                    f"cannot serve metrics on {host}:{self.settings.metrics_port}: "
                    f"{error.strerror or error}; choose another --metrics-port"
                )
        for table in self.registry.all():
            table.ensure_bots_running()  # a restored table may be waiting for a bot's move
        self.matchmaker.start()
        if self.settings.ladder:
            self.ladder.start()
        for name in ("", SERVICE_NAME):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if self.settings.sweep_seconds > 0:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_idle_tables())
        if self.node is not None:
            self._readiness = asyncio.get_running_loop().create_task(self._watch_lease(self.node))
        log.info(
            "serving",
            host=self.settings.host,
            port=self.port,
            metrics_port=self.metrics_port,
            web_port=self.web_port,
            tables=len(self.registry),
            engine="compiled" if engine.COMPILED else "python",
        )

    async def _give_up(self, message: str) -> NoReturn:
        """A start that failed half way: undo what started (a cluster node leaves, releasing its tables)."""
        await self.grpc.stop(0)
        self.stalls.stop()
        self.store.close()
        self.identity.close()
        if self.node is not None:
            await self.node.stop()
        raise StartError(message)

    def _end_streams(self) -> None:
        """End every stream: cleanly on a single server; in a cluster the tables go to other nodes, so their
        streams end with TABLE_MOVING (clients follow) and the tables leave this node's memory."""
        if self.node is None:
            self.service.close_streams()
            return
        moving = ServiceError(
            ErrorReason.TABLE_MOVING,
            "the node is stopping; the table moves to another node",
            retry_delay=MOVING_RETRY_SECONDS,
        )
        for table in self.registry.all():
            self.registry.drop(table.table_id, moving)

    async def stop(self, grace: float | None = None) -> None:
        """Drain: NOT_SERVING, end the streams, let in-flight calls finish within ``grace`` seconds."""
        grace = self.settings.shutdown_grace if grace is None else grace
        log.info("draining", grace_s=grace)
        self.draining = True
        await self.health.enter_graceful_shutdown()
        for task in (self._sweeper, self._readiness):
            if task is not None:
                task.cancel()
        await self.ladder.stop()
        await self.matchmaker.stop()  # its waiters keep their places: they call again on another node
        self._end_streams()
        stopping = [self.grpc.stop(grace)]
        if self.web is not None:
            # The web port ends the streams once more after it stopped accepting: one that started meanwhile.
            stopping.append(self.web.stop(grace, self._end_streams))
        await asyncio.gather(*stopping)
        self.stalls.stop()
        self.queue.close()
        self.store.close()  # commits what is still queued (bots cancelled mid-move) and stops its writer
        await self.identity.players.written()  # finished games' results being kept, before the store closes
        self.identity.close()
        if self.node is not None:
            await self.node.stop()  # releases the tables, now that nothing more of them will be written
        if self.metrics is not None:
            await self._final_scrape(self.metrics)
            self.metrics.close()
        log.info("stopped")

    async def _final_scrape(self, metrics: Metrics) -> None:
        """Wait (``--final-scrape-seconds`` at most) for Prometheus to scrape the final counts: a drained
        process otherwise exits within a second, and what it counted since the last scrape is lost."""
        wait = self.settings.final_scrape_seconds
        if wait <= 0 or not self.metrics_port:
            return
        metrics.scrapes.forget()
        log.info("waiting for a final scrape", timeout_s=wait)
        scraped = await asyncio.to_thread(metrics.scrapes.wait, wait)
        if scraped:
            # The scrape's response is written by the metrics thread after the collection this saw.
            await asyncio.sleep(FINAL_RESPONSE_SECONDS)
        log.info("final scrape", scraped=scraped)

    async def _watch_lease(self, node: Node) -> None:
        """Readiness of a cluster node: the game service is SERVING only while the database accepts its
        heartbeats (the lease is fresh: under half of it old), so that a load balancer sends no new players
        to a node that cannot reach the database or is about to lose its tables."""
        serving = True
        while True:
            await asyncio.sleep(node.membership.heartbeat_seconds / 2)
            fresh = node.lease_age < node.settings.lease_seconds / 2 and not node.ended.is_set()
            if fresh != serving:
                serving = fresh
                status = (
                    health_pb2.HealthCheckResponse.SERVING
                    if fresh
                    else health_pb2.HealthCheckResponse.NOT_SERVING
                )
                await self.health.set(SERVICE_NAME, status)
                log.warning("readiness changed", serving=fresh, lease_age_s=round(node.lease_age, 3))

    async def _sweep_idle_tables(self) -> None:
        """The one periodic task that drops tables idle for ``table_idle_seconds`` (no per-table timers)."""
        idle_limit = self.settings.table_idle_seconds or math.inf  # 0: never
        waiting_limit = self.settings.waiting_table_idle_seconds or None  # 0: as any table
        while True:
            await asyncio.sleep(self.settings.sweep_seconds)
            try:
                expired = self.registry.expire(idle_limit, waiting_idle_seconds=waiting_limit)
            except Exception:  # one bad sweep must not end the sweeping
                log.exception("idle table sweep failed")
                continue
            for table, idle in expired:
                log.info(
                    "table expired",
                    table_id=table.table_id,
                    status=pb.TableStatus.Name(table.status()),
                    sequence=table.sequence,
                    idle_s=round(idle, 3),
                )

    async def wait(self) -> None:
        await self.grpc.wait_for_termination()


async def serve(settings: Settings) -> None:
    server = Server(settings)
    # Before the start, which announces the port: a stop sent the moment a supervisor or a test sees it
    # must drain the server, not end it by the signal's default.
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await server.start()
    waits = [loop.create_task(stopping.wait())]
    if server.node is not None:
        waits.append(loop.create_task(server.node.ended.wait()))  # another process took this node's id
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for wait in waits:
        wait.cancel()
    await server.stop()


def tls_credentials(cert_path: str, key_path: str) -> grpc.ServerCredentials:
    """Server credentials from PEM files; a missing or unreadable file stops the server with its name."""
    try:
        cert = Path(cert_path).read_bytes()
        key = Path(key_path).read_bytes()
    except OSError as error:
        raise SystemExit(f"thousand-server: cannot read TLS file: {error}") from None
    return grpc.ssl_server_credentials([(key, cert)])


def tune_gc(threshold: int) -> None:
    """Collect garbage less often, and leave what start-up made out of the collections (0: leave gc as is).

    Why: with Python's default, a young collection every 700 net allocations, a busy server collected every
    two or three actions, and as the tables' games grew, full collections over the whole heap paused the
    event loop for 70 to 100 ms, which every action in flight then waited for (bench/server.py with 100
    tables: 0.5 s of collecting in 10 s, the p99 latency twice the p50). Almost everything an action
    allocates is freed by reference counting within the action; collections only find the rare cycles, so
    fewer of them lose nothing, and they cost less in all (45 ms instead of 510 in the same run, no pause
    above 30 ms). ``gc.freeze()`` moves the modules, descriptors and settings of start-up to a generation no
    collection looks at again.
    """
    if threshold <= 0:
        return
    gc.freeze()
    gc.set_threshold(threshold, 20, 10)


def main(argv: Sequence[str] | None = None) -> int:
    settings = parse_settings(argv)
    configure_logging(settings.log_format, settings.log_level)
    if settings.otlp_endpoint:
        tracing.configure_otlp(settings.otlp_endpoint, settings.node_id or socket.gethostname())
    tune_gc(settings.gc_threshold)
    try:
        asyncio.run(serve(settings))
    except StartError as error:
        log.error("cannot start", error=str(error))
        print(f"thousand-server: {error}", file=sys.stderr)
        return 1
    finally:
        tracing.shutdown()  # the spans still batched go out
    return 0


if __name__ == "__main__":
    sys.exit(main())
