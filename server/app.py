"""``thousand-server``: the gRPC server process.

It serves the TableService with gRPC health checking and server reflection, and shuts down gracefully on
SIGTERM or SIGINT: health turns NOT_SERVING first (so load balancers stop sending), in-flight calls get a
grace period, and every stream is ended cleanly. With ``--web-port`` it serves the same service over Connect
and gRPC-Web, and the web client, to browsers (server/web.py); with ``--metrics-port`` it serves Prometheus
metrics over HTTP; it logs JSON lines (or a console format on a terminal). See docs/operations.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import re
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, NoReturn

import grpc
from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

import engine
from server.clock import MAX_BOT_PACE
from server.cluster import DEFAULT_LEASE_SECONDS, Node
from server.cluster_flags import add_cluster_arguments, node_settings
from server.cluster_metrics import ClusterCollector, StoreCollector
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError
from server.interceptors import GRPC_TRANSPORT, LoggingInterceptor, MetricsInterceptor
from server.logs import LOG_FORMATS, LOG_LEVELS, configure_logging, get_logger
from server.metrics import Metrics
from server.pacing import DEFAULT_MAX_MOVES, BotPacer
from server.quotas import (
    DEFAULT_MAX_BOT_TABLES,
    DEFAULT_MAX_BOT_TABLES_PER_CLIENT,
    DEFAULT_MAX_TABLES,
    DEFAULT_MAX_TABLES_PER_CLIENT,
    TableQuotas,
)
from server.ratelimit import RateLimiter
from server.registry import Registry
from server.service import SERVICE_NAME, TableService, generic_handler, method_handlers
from server.stalls import StallWatch
from server.store_pg import PostgresStore
from server.stores import open_store
from server.telemetry import Telemetry
from server.web import WebPort, valid_origin
from server.web_context import CONNECT, GRPC_WEB
from thousand.v1 import table_service_pb2 as pb

DEFAULT_PORT: Final = 50051
DEFAULT_DB: Final = "thousand.db"
SHUTDOWN_GRACE_SECONDS: Final = 5.0
TABLE_IDLE_SECONDS: Final = 86_400.0
WAITING_TABLE_IDLE_SECONDS: Final = 600.0
MAX_SWEEP_SECONDS: Final = 60.0
KEEPALIVE_SECONDS: Final = 120.0
KEEPALIVE_TIMEOUT_SECONDS: Final = 20.0
CLIENT_PING_SECONDS: Final = 10.0
"""The shortest interval between a client's keepalive pings that the server accepts."""
BOT_PACE_SECONDS: Final = 1.0
"""The ``thousand-server`` command's bot pace where people play (a person's quick move); a Settings' is 0."""
DEFAULT_WEB_ROOT: Final = str(Path(__file__).resolve().parent.parent / "clients" / "web" / "dist")
"""The web client's build output in a checkout (``make web``); an installed server is given its own."""
GC_THRESHOLD: Final = 50_000
"""Net allocations between two young garbage collections (Python's default: 700); see :func:`tune_gc`."""
log = get_logger("thousand.server")


class StartError(Exception):
    """The server cannot start as configured (its port is taken): said in words, and the process exits 1."""


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    db: str = ":memory:"
    """The store; the ``thousand-server`` command defaults to DEFAULT_DB, a file."""
    metrics_port: int = 0
    """The Prometheus exposition port (``/metrics``, on ``host``); 0: no metrics."""
    web_port: int = 0
    """The web port (on ``host``): the TableService over Connect and gRPC-Web, and the web client; 0: off."""
    web_root: str = DEFAULT_WEB_ROOT
    """The built web client's directory, served at ``/`` of the web port."""
    web_allowed_origins: tuple[str, ...] = ()
    """Origins (``https://host[:port]``, or ``*``) whose pages may call the web port's API (CORS); the
    web client served by the port itself needs none."""
    log_format: str = "auto"
    """``json``, ``console`` or ``auto`` (console on a terminal, JSON lines otherwise)."""
    log_level: str = "info"
    shutdown_grace: float = SHUTDOWN_GRACE_SECONDS
    """Seconds in-flight calls get to finish on SIGTERM (a pod's terminationGracePeriodSeconds exceeds it)."""
    max_tables: int = DEFAULT_MAX_TABLES
    """Unfinished tables the server holds at most; CreateTable beyond it is refused with TOO_MANY_TABLES."""
    max_tables_per_client: int = DEFAULT_MAX_TABLES_PER_CLIENT
    """Unfinished tables one client (its address) may have created (server.quotas); 0: no such limit."""
    max_bot_tables: int = DEFAULT_MAX_BOT_TABLES
    """Unfinished tables of bots only the server holds at most; 0: no such limit."""
    max_bot_tables_per_client: int = DEFAULT_MAX_BOT_TABLES_PER_CLIENT
    """Unfinished tables of bots only one client may have created; 0: no such limit."""
    bot_move_delay: float = 0.0
    """Seconds between two moves at a table of bots only (server.pacing); 0: as fast as their turns come."""
    bot_table_max_moves: int = DEFAULT_MAX_MOVES
    """Moves a table played by bots only makes before the server stops it (TableStopped); 0: no limit."""
    tls_cert: str = ""
    """PEM certificate chain file; with ``tls_key``, the server speaks TLS only."""
    tls_key: str = ""
    """PEM private key file of ``tls_cert``."""
    max_message_bytes: int = 64 * 1024
    """The largest request accepted; the biggest legitimate one (CreateTable) is well under 1 KiB."""
    rate_limit: float = 300.0
    """Requests a second one client may make of SubmitAction (per seat token), CreateTable and JoinTable
    (per peer host), sustained; 0: no limit. Beyond it: RATE_LIMITED with a RetryInfo delay."""
    rate_burst: float = 3000.0
    """Requests one client may make at once before ``rate_limit`` applies (a whole game's actions fit)."""
    table_idle_seconds: float = TABLE_IDLE_SECONDS
    """A table with no open stream and no event for this long is dropped from memory, finished or not (its
    stored records stay, for ``thousand-export``); 0: never."""
    waiting_table_idle_seconds: float = WAITING_TABLE_IDLE_SECONDS
    """The same for a table still waiting for players, much sooner: such a table costs memory and a slot of
    the quotas while nobody plays; 0: as ``table_idle_seconds``."""
    keepalive_seconds: float = KEEPALIVE_SECONDS
    """The server pings every connection this often and closes one whose peer does not answer within
    KEEPALIVE_TIMEOUT_SECONDS: a player whose machine vanished (no FIN ever comes) loses its stream, which
    frees it, instead of holding it until TCP gives up hours later. 0: no pings."""
    gc_threshold: int = GC_THRESHOLD
    """Net allocations between young garbage collections (:func:`tune_gc`); 0: Python's defaults."""
    node_id: str = ""
    """With a PostgreSQL ``db``: this node's name in the cluster ("": the advertised address)."""
    advertise_address: str = ""
    """host:port clients reach this node at ("": ``host`` and the port, or the host name when ``host`` is a
    wildcard)."""
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    """How long a node that stopped heartbeating keeps its tables before the others take them over."""
    placement: str = "local"
    """Where CreateTable puts a table: ``local`` (the node asked) or ``least-loaded``."""
    bot_pace: float = 0.0
    """Seconds a server-run bot takes at least over a move at a table with an open seat, for the tables that
    do not choose (TimeControl.bot_pace); the ``thousand-server`` command defaults to BOT_PACE_SECONDS."""

    @property
    def grpc_options(self) -> list[tuple[str, int]]:
        """The gRPC server's channel arguments: the message size limit and the keepalive policy."""
        options = [
            ("grpc.max_receive_message_length", self.max_message_bytes),
            # Clients may ping (to notice a dead server on a quiet stream) every CLIENT_PING_SECONDS, with or
            # without calls in flight: gRPC's default answers pings more frequent than 5 minutes with GOAWAY.
            ("grpc.http2.min_ping_interval_without_data_ms", int(CLIENT_PING_SECONDS * 1000)),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.max_pings_without_data", 0),
            # gRPC sets SO_REUSEPORT by default, so a second server on a taken port bound it too, logged
            # "serving", and clients reached either at random: without it, a taken port fails the start.
            ("grpc.so_reuseport", 0),
        ]
        if self.keepalive_seconds > 0:
            options += [
                ("grpc.keepalive_time_ms", int(self.keepalive_seconds * 1000)),
                ("grpc.keepalive_timeout_ms", int(KEEPALIVE_TIMEOUT_SECONDS * 1000)),
                # gRPC waits for a keepalive ping's answer for its ping timeout, not only keepalive_timeout:
                # with both set, a silent peer is let go after KEEPALIVE_TIMEOUT_SECONDS (measured in
                # tests/test_retries_and_export.py; with keepalive_timeout alone it was not, within 15 s).
                ("grpc.http2.ping_timeout_ms", int(KEEPALIVE_TIMEOUT_SECONDS * 1000)),
            ]
        return options

    @property
    def quotas(self) -> TableQuotas:
        return TableQuotas(
            self.max_tables, self.max_tables_per_client, self.max_bot_tables, self.max_bot_tables_per_client
        )

    @property
    def sweep_seconds(self) -> float:
        """How often idle tables are looked for: a quarter of the shortest idle time, at most a minute."""
        idle = [s for s in (self.table_idle_seconds, self.waiting_table_idle_seconds) if s > 0]
        return min(MAX_SWEEP_SECONDS, min(idle, default=0.0) / 4)


class Server:
    """A running server: the gRPC server, its health service and its tables."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.metrics = Metrics() if settings.metrics_port else None
        self.telemetry = Telemetry(self.metrics.game if self.metrics is not None else None)
        self.store = open_store(settings.db)
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
        self.health = health.aio.HealthServicer()
        self.draining = False
        if self.metrics is not None:
            self.metrics.watch(self.registry, self.telemetry)
        self.grpc = aio.server(
            interceptors=self._interceptors(GRPC_TRANSPORT),
            options=settings.grpc_options,
        )
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
                ),
                self.registry,
                self.store,
            )
            self.store.node_id = self.node.node_id
            self.registry.directory = self.node.directory
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
                max_message_bytes=settings.max_message_bytes,
                tls_cert=settings.tls_cert,
                tls_key=settings.tls_key,
                keepalive_seconds=settings.keepalive_seconds,
                keepalive_timeout=KEEPALIVE_TIMEOUT_SECONDS,
                serving=lambda: not self.draining,
            )
        self.web_port = 0
        self._sweeper: asyncio.Task[None] | None = None
        self._readiness: asyncio.Task[None] | None = None

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
                    f"cannot listen on {self.settings.host}:{self.settings.web_port} (the web port): "
                    f"{error.strerror or error}; choose another --web-port"
                )
        if self.metrics is not None:
            try:
                self.metrics_port = self.metrics.serve(host, self.settings.metrics_port)
            except OSError as error:
                await self._give_up(
                    f"cannot serve metrics on {self.settings.host}:{self.settings.metrics_port}: "
                    f"{error.strerror or error}; choose another --metrics-port"
                )
        for table in self.registry.all():
            table.ensure_bots_running()  # a restored table may be waiting for a bot's move
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
        self._end_streams()
        stopping = [self.grpc.stop(grace)]
        if self.web is not None:
            # The web port ends the streams once more after it stopped accepting: one that started meanwhile.
            stopping.append(self.web.stop(grace, self._end_streams))
        await asyncio.gather(*stopping)
        self.stalls.stop()
        self.store.close()  # commits what is still queued (bots cancelled mid-move) and stops its writer
        if self.node is not None:
            await self.node.stop()  # releases the tables, now that nothing more of them will be written
        if self.metrics is not None:
            self.metrics.close()
        log.info("stopped")

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
    await server.start()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
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


class SettingsHelpFormatter(argparse.HelpFormatter):
    """``--help`` shows each setting's default and environment variable (``THOUSAND_`` and the flag's name):
    an operator reads what runs when nothing is set, and how to set it in a container, without the guide."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not action.option_strings or action.default is argparse.SUPPRESS:
            return text
        default = action.default
        shown = f"{default:g}" if isinstance(default, float) else default
        if default in ("", None, []):
            shown = "(none)"
        named = re.search(r"\b(THOUSAND_[A-Z_]+)", text)  # a variable of its own name (a list, plural)
        variable = named.group(1) if named else f"THOUSAND_{action.dest.upper()}"
        return f"{text} [default: {shown}; env {variable}]".lstrip()


def parse_settings(argv: Sequence[str] | None = None, env: dict[str, str] | None = None) -> Settings:
    """Flags override the environment (THOUSAND_HOST, THOUSAND_PORT, THOUSAND_DB, THOUSAND_METRICS_PORT,
    THOUSAND_LOG_FORMAT, THOUSAND_LOG_LEVEL, THOUSAND_SHUTDOWN_GRACE, THOUSAND_TABLE_IDLE_SECONDS, ...)."""
    env = dict(os.environ) if env is None else env
    defaults = Settings()
    parser = argparse.ArgumentParser(
        prog="thousand-server",
        description="The gRPC game server of the 1000 family (Thousand, 1000 Blagogo). Every flag can be "
        "set by the environment variable shown beside it instead; a flag given wins. See docs/operations.md.",
        formatter_class=SettingsHelpFormatter,
    )
    parser.add_argument(
        "--host",
        default=env.get("THOUSAND_HOST", defaults.host),
        help="the address to listen on (0.0.0.0: every interface, as in containers)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env.get("THOUSAND_PORT", defaults.port)),
        help="the gRPC port (0: any free port, named in the `serving` log line); a taken one fails the start",
    )
    parser.add_argument(
        "--db",
        default=env.get("THOUSAND_DB", DEFAULT_DB),
        help="where tables are event-sourced: a SQLite file (':memory:' keeps nothing) or a PostgreSQL URL,"
        " postgresql://user@host:port/database, shared by the nodes of a cluster",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(env.get("THOUSAND_METRICS_PORT", defaults.metrics_port)),
        help="Prometheus metrics port, served over HTTP on --host at /metrics (0: off)",
    )
    parser.add_argument(
        "--web-port",
        type=int,
        default=int(env.get("THOUSAND_WEB_PORT", defaults.web_port)),
        help="serve the TableService over Connect and gRPC-Web, and the web client at /, over HTTP on --host"
        " (HTTPS with --tls-cert) on this port (0: off)",
    )
    parser.add_argument(
        "--web-root",
        default=env.get("THOUSAND_WEB_ROOT", defaults.web_root),
        help="the built web client served at / of the web port (default: clients/web/dist of the checkout)",
    )
    parser.add_argument(
        "--web-allowed-origin",
        action="append",
        metavar="ORIGIN",
        help="let pages from ORIGIN (https://host[:port], or *) call the web port's API (CORS); repeatable;"
        " THOUSAND_WEB_ALLOWED_ORIGINS: a comma-separated list. Default: none (the web client needs none)",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=env.get("THOUSAND_LOG_FORMAT", defaults.log_format),
        help="json lines, a readable console format, or auto: console on a terminal, else json",
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=env.get("THOUSAND_LOG_LEVEL", defaults.log_level),
        help="the least severe log lines written",
    )
    parser.add_argument(
        "--shutdown-grace",
        type=float,
        default=float(env.get("THOUSAND_SHUTDOWN_GRACE", defaults.shutdown_grace)),
        help="seconds in-flight calls get to finish on SIGTERM",
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=int(env.get("THOUSAND_MAX_TABLES", defaults.max_tables)),
        help="unfinished tables held at most; 0: no limit",
    )
    parser.add_argument(
        "--max-tables-per-client",
        type=int,
        default=int(env.get("THOUSAND_MAX_TABLES_PER_CLIENT", defaults.max_tables_per_client)),
        help="unfinished tables one client (peer address; IPv6: its /64) may have created; 0: no limit",
    )
    parser.add_argument(
        "--max-bot-tables",
        type=int,
        default=int(env.get("THOUSAND_MAX_BOT_TABLES", defaults.max_bot_tables)),
        help="unfinished tables whose every seat is a bot, held at most; 0: no limit",
    )
    parser.add_argument(
        "--max-bot-tables-per-client",
        type=int,
        default=int(env.get("THOUSAND_MAX_BOT_TABLES_PER_CLIENT", defaults.max_bot_tables_per_client)),
        help="unfinished tables of bots only one client may have created; 0: no limit",
    )
    parser.add_argument(
        "--bot-move-delay",
        type=float,
        default=float(env.get("THOUSAND_BOT_MOVE_DELAY", defaults.bot_move_delay)),
        help="seconds between two moves at a table of bots only; 0: as fast as their fair share allows",
    )
    parser.add_argument(
        "--bot-table-max-moves",
        type=int,
        default=int(env.get("THOUSAND_BOT_TABLE_MAX_MOVES", defaults.bot_table_max_moves)),
        help="moves a table played by bots only makes before the server stops it; 0: no limit",
    )
    parser.add_argument(
        "--max-message-bytes",
        type=int,
        default=int(env.get("THOUSAND_MAX_MESSAGE_BYTES", defaults.max_message_bytes)),
        help="the largest request accepted",
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        default=float(env.get("THOUSAND_RATE_LIMIT", defaults.rate_limit)),
        help="requests per second per client (SubmitAction per seat, CreateTable/JoinTable per host); 0: off",
    )
    parser.add_argument(
        "--rate-burst",
        type=float,
        default=float(env.get("THOUSAND_RATE_BURST", defaults.rate_burst)),
        help="requests a client may make at once before --rate-limit applies",
    )
    parser.add_argument(
        "--table-idle-seconds",
        type=float,
        default=float(env.get("THOUSAND_TABLE_IDLE_SECONDS", defaults.table_idle_seconds)),
        help="drop a table from memory after this long with no open stream and no action (its records stay);"
        " 0: never",
    )
    parser.add_argument(
        "--waiting-table-idle-seconds",
        type=float,
        default=float(env.get("THOUSAND_WAITING_TABLE_IDLE_SECONDS", defaults.waiting_table_idle_seconds)),
        help="the same, sooner, for a table still waiting for players; 0: as --table-idle-seconds",
    )
    parser.add_argument(
        "--keepalive-seconds",
        type=float,
        default=float(env.get("THOUSAND_KEEPALIVE_SECONDS", defaults.keepalive_seconds)),
        help="ping every connection this often; one that does not answer within "
        f"{KEEPALIVE_TIMEOUT_SECONDS:g} s is closed, ending its streams; 0: no pings",
    )
    parser.add_argument(
        "--gc-threshold",
        type=int,
        default=int(env.get("THOUSAND_GC_THRESHOLD", defaults.gc_threshold)),
        help="net allocations between young garbage collections (fewer, cheaper collections and no long"
        " pauses of the event loop: docs/operations.md); 0: Python's defaults",
    )
    parser.add_argument(
        "--bot-pace",
        type=float,
        default=float(env.get("THOUSAND_BOT_PACE", BOT_PACE_SECONDS)),
        help="seconds a server-run bot takes at least over each move at a table where people play (so they "
        "can follow; a table may choose its own, TimeControl.bot_pace); 0: as fast as it can",
    )
    parser.add_argument(
        "--tls-cert",
        default=env.get("THOUSAND_TLS_CERT", ""),
        help="PEM certificate chain; with --tls-key the server accepts TLS connections only",
    )
    parser.add_argument("--tls-key", default=env.get("THOUSAND_TLS_KEY", ""), help="PEM private key")
    add_cluster_arguments(parser, env, lease_seconds=defaults.lease_seconds, placement=defaults.placement)
    args = parser.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    if args.table_idle_seconds < 0 or args.waiting_table_idle_seconds < 0:
        parser.error("--table-idle-seconds and --waiting-table-idle-seconds must be 0 or positive")
    if not 0 <= args.bot_move_delay <= 3600:
        parser.error("--bot-move-delay must be 0 to 3600 seconds")
    limits = ("max_tables", "max_tables_per_client", "max_bot_tables", "max_bot_tables_per_client")
    for name in (*limits, "bot_table_max_moves"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be 0 (no limit) or positive")
    if args.keepalive_seconds != 0 and not 10 <= args.keepalive_seconds <= 86_400:
        parser.error("--keepalive-seconds must be 0 (no pings) or 10 to 86400")
    if not 0.5 <= args.lease_seconds <= 600:
        parser.error("--lease-seconds must be 0.5 to 600")
    if not 0 <= args.bot_pace <= MAX_BOT_PACE:
        parser.error(f"--bot-pace must be 0 to {MAX_BOT_PACE:g} seconds")
    if args.gc_threshold != 0 and not 700 <= args.gc_threshold <= 10_000_000:
        parser.error("--gc-threshold must be 0 (Python's defaults) or 700 to 10000000")
    origins = args.web_allowed_origin
    if origins is None:
        origins = [o.strip() for o in env.get("THOUSAND_WEB_ALLOWED_ORIGINS", "").split(",") if o.strip()]
    for origin in origins:
        if not valid_origin(origin):
            parser.error(f"--web-allowed-origin {origin!r} is not an origin: scheme://host[:port], or *")
    if args.web_port and args.web_port == args.port:
        parser.error("--web-port must differ from --port")
    return Settings(
        host=args.host,
        port=args.port,
        db=args.db,
        metrics_port=args.metrics_port,
        web_port=args.web_port,
        web_root=args.web_root,
        web_allowed_origins=tuple(origins),
        log_format=args.log_format,
        log_level=args.log_level,
        shutdown_grace=args.shutdown_grace,
        max_tables=args.max_tables,
        max_tables_per_client=args.max_tables_per_client,
        max_bot_tables=args.max_bot_tables,
        max_bot_tables_per_client=args.max_bot_tables_per_client,
        bot_move_delay=args.bot_move_delay,
        bot_table_max_moves=args.bot_table_max_moves,
        max_message_bytes=args.max_message_bytes,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        rate_limit=args.rate_limit,
        rate_burst=args.rate_burst,
        table_idle_seconds=args.table_idle_seconds,
        waiting_table_idle_seconds=args.waiting_table_idle_seconds,
        keepalive_seconds=args.keepalive_seconds,
        gc_threshold=args.gc_threshold,
        node_id=args.node_id,
        advertise_address=args.advertise_address,
        lease_seconds=args.lease_seconds,
        placement=args.placement,
        bot_pace=args.bot_pace,
    )


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
    tune_gc(settings.gc_threshold)
    try:
        asyncio.run(serve(settings))
    except StartError as error:
        log.error("cannot start", error=str(error))
        print(f"thousand-server: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
