"""Prometheus metrics: the standard gRPC server metrics and the game's ``thousand_*`` metrics.

Each :class:`Metrics` owns its own :class:`CollectorRegistry`, so several servers in one process (tests) never
clash. Labels are small closed sets (method, code, game, kind, outcome, reason, strategy, status): never a
table id, a seat token or a player name.

The gRPC metrics follow go-grpc-prometheus: ``grpc_code`` is the Go spelling of the status code (``OK``,
``NotFound``, ``Canceled``, …), ``grpc_type`` is ``UNARY``, ``SERVER_STREAM``, ``CLIENT_STREAM`` or
``BIDI_STREAM``; ``transport`` (our addition) is ``grpc``, ``connect`` or ``grpc_web``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

import server.streams as streams_module
from server.logs import get_logger
from server.pacing import BOTS_ONLY, PEOPLE
from server.process_metrics import MemoryLimitCollector, ScrapeWatch
from server.telemetry import GAMES, Telemetry, game_label, table_status

if TYPE_CHECKING:
    from server.registry import Registry

log = get_logger("thousand.metrics")

GRPC_HANDLING_BUCKETS: Final = (
    *(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    *(30.0, 60.0, 300.0, 900.0, 3600.0),  # server streams live as long as a game is watched
)
"""go-grpc-prometheus's default buckets, finer below 5 ms and longer for streams."""
FAST_BUCKETS: Final = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""For work done in one step on the event loop: applying an action, a bot's decision."""
COLLECT_TIMEOUT_SECONDS: Final = 2.0
TABLE_STATUSES: Final = ("waiting", "playing", "finished")


class GrpcMetrics:
    """The standard gRPC server metrics, fed by :class:`server.interceptors.MetricsInterceptor`.

    One family for every transport the TableService is served over, told apart by ``transport``: ``grpc``
    (the gRPC port), ``connect`` and ``grpc_web`` (the web port). A query that ignores the label (an error
    ratio, an alert) covers them all.
    """

    def __init__(self, registry: CollectorRegistry) -> None:
        labels = ("grpc_type", "grpc_service", "grpc_method", "transport")
        self.started = Counter(
            "grpc_server_started", "RPCs started on the server.", labels, registry=registry
        )
        self.handled = Counter(
            "grpc_server_handled",
            "RPCs completed on the server, whatever their status (streams: when the stream ends).",
            (*labels, "grpc_code"),
            registry=registry,
        )
        self.handling_seconds = Histogram(
            "grpc_server_handling_seconds",
            "Time from an RPC's start to its end on the server (streams: the stream's whole life).",
            labels,
            buckets=GRPC_HANDLING_BUCKETS,
            registry=registry,
        )
        self.msg_received = Counter(
            "grpc_server_msg_received", "Request messages received on the server.", labels, registry=registry
        )
        self.msg_sent = Counter(
            "grpc_server_msg_sent",
            "Response messages sent by the server (one per streamed message).",
            labels,
            registry=registry,
        )


class GameMetrics:
    """The ``thousand_*`` counters and histograms, fed by :class:`server.telemetry.Telemetry`."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.actions = Counter(
            "thousand_actions",
            "Actions by game, kind and outcome (applied, replayed: an idempotent retry, rejected).",
            ("game", "kind", "outcome"),
            registry=registry,
        )
        self.rejected = Counter(
            "thousand_actions_rejected",
            "Refused SubmitAction calls by their ErrorInfo reason.",
            ("game", "reason"),
            registry=registry,
        )
        self.delivery_seconds = Histogram(
            "thousand_action_delivery_seconds",
            "From applying an action until its events were serialized and queued to every open stream.",
            ("game",),
            buckets=FAST_BUCKETS,
            registry=registry,
        )
        self.resyncs = Counter(
            "thousand_stream_resyncs",
            "Snapshots sent to streams that fell behind (their queue overflowed) instead of the backlog.",
            ("game",),
            registry=registry,
        )
        self.deals_finished = Counter(
            "thousand_deals_finished",
            "Deals scored, by deal kind and outcome for the declarer.",
            ("game", "kind", "outcome"),
            registry=registry,
        )
        self.games_finished = Counter(
            "thousand_games_finished", "Games played to the end.", ("game",), registry=registry
        )
        self.rating_updates = Counter(
            "thousand_rating_updates",
            "Rated tables' updates stored, by outcome: rated, or not_rated (a seat without a known player).",
            ("game", "outcome"),
            registry=registry,
        )
        self.rating_update_seconds = Histogram(
            "thousand_rating_update_seconds",
            "A rating update, from reading the seats' players to the commit of the ratings with the event.",
            ("game",),
            buckets=FAST_BUCKETS,
            registry=registry,
        )
        self.tables_created = Counter(
            "thousand_tables_created", "Tables created.", ("game",), registry=registry
        )
        self.tables_stopped = Counter(
            "thousand_tables_stopped",
            "Tables the server stopped before their game ended (tables of bots only at the move limit).",
            ("game", "reason"),
            registry=registry,
        )
        self.loop_stalls = Counter(
            "thousand_event_loop_stalls",
            "Times the event loop did not run for 0.25 s or more (the process stopped, or the loop blocked).",
            registry=registry,
        )
        self.loop_stalled_seconds = Counter(
            "thousand_event_loop_stalled_seconds",
            "Seconds the event loop did not run, in stalls of 0.25 s or more; turn clocks get them back.",
            registry=registry,
        )
        self.limit_refusals = Counter(
            "thousand_limit_refusals",
            "Requests refused by one of the server's limits (docs/operations.md, Limits), by limit.",
            ("limit",),
            registry=registry,
        )
        self.bot_decision_seconds = Histogram(
            "thousand_bot_decision_seconds",
            "Time a server-run bot took to choose its action, by strategy.",
            ("strategy",),
            buckets=FAST_BUCKETS,
            registry=registry,
        )


@dataclass(slots=True)
class TableStats:
    """What the table gauges show, gathered in one pass over the tables."""

    tables: dict[tuple[str, str], int] = field(default_factory=dict)
    seats: dict[tuple[str, str], int] = field(default_factory=dict)
    streams: dict[tuple[str, str], int] = field(default_factory=dict)
    queued: dict[str, int] = field(default_factory=dict)
    deepest: dict[str, int] = field(default_factory=dict)
    idle: dict[tuple[str, str], float] = field(default_factory=dict)
    bot_turns: dict[str, int] = field(default_factory=dict)


def gather_table_stats(registry: Registry, telemetry: Telemetry, now: float) -> TableStats:
    stats = TableStats()
    stats.bot_turns = {
        "people": registry.pacer.waiting(PEOPLE),
        "bots_only": registry.pacer.waiting(BOTS_ONLY),
    }
    for game in GAMES:  # every series exists from the start, at zero
        for status in TABLE_STATUSES:
            stats.tables[game, status] = 0
        for kind in ("bot", "player"):
            stats.seats[game, kind] = 0
            stats.idle[game, kind] = 0.0
        for audience in ("seat", "spectator"):
            stats.streams[game, audience] = 0
        stats.queued[game] = 0
        stats.deepest[game] = 0
    for table in registry.all():
        game = game_label(table)
        status = table_status(table)
        stats.tables[game, status] += 1
        for seat in table.seats:
            if seat.taken:
                stats.seats[game, "bot" if seat.bot else "player"] += 1
        depths = table.stream_queue_depths()
        for seat_or_none, depth in depths:
            stats.streams[game, "spectator" if seat_or_none is None else "seat"] += 1
            stats.queued[game] += depth
            stats.deepest[game] = max(stats.deepest[game], depth)
        if status == "playing":
            to_act = table.game.to_act
            if to_act is not None:
                waiting_on = "bot" if table.seats[to_act].bot else "player"
                idle = max(0.0, now - telemetry.last_progress(table))
                stats.idle[game, waiting_on] = max(stats.idle[game, waiting_on], idle)
    return stats


class TableCollector(Collector):
    """Gauges read from the tables at scrape time, on the server's event loop (tables are not thread-safe)."""

    def __init__(self, registry: Registry, telemetry: Telemetry) -> None:
        self._registry = registry
        self._telemetry = telemetry
        self.loop: asyncio.AbstractEventLoop | None = None

    def _stats(self) -> TableStats | None:
        loop = self.loop
        if loop is None or not loop.is_running() or _in_loop_thread(loop):
            return gather_table_stats(self._registry, self._telemetry, time.time())

        async def gather() -> TableStats:
            return gather_table_stats(self._registry, self._telemetry, time.time())

        future = asyncio.run_coroutine_threadsafe(gather(), loop)
        try:
            return future.result(COLLECT_TIMEOUT_SECONDS)
        except FutureTimeout:
            future.cancel()
            log.warning(
                "table metrics skipped: the event loop did not answer", timeout_s=COLLECT_TIMEOUT_SECONDS
            )
            return None

    def describe(self) -> Iterable[Metric]:
        return list(self._families(TableStats()))

    def collect(self) -> Iterable[Metric]:
        stats = self._stats()
        return [] if stats is None else list(self._families(stats))

    @staticmethod
    def _families(stats: TableStats) -> Iterable[Metric]:
        tables = GaugeMetricFamily("thousand_tables", "Tables by game and status.", labels=("game", "status"))
        for (game, status), count in sorted(stats.tables.items()):
            tables.add_metric((game, status), count)
        yield tables
        seats = GaugeMetricFamily(
            "thousand_seats_taken",
            "Seats taken at all tables, by people and by bots.",
            labels=("game", "kind"),
        )
        for (game, kind), count in sorted(stats.seats.items()):
            seats.add_metric((game, kind), count)
        yield seats
        streams = GaugeMetricFamily(
            "thousand_open_streams",
            "Open StreamEvents calls, by audience (a seat's own stream, or a spectator's).",
            labels=("game", "audience"),
        )
        for (game, audience), count in sorted(stats.streams.items()):
            streams.add_metric((game, audience), count)
        yield streams
        queued = GaugeMetricFamily(
            "thousand_stream_queued_messages",
            "Messages waiting in all open streams' queues.",
            labels=("game",),
        )
        deepest = GaugeMetricFamily(
            "thousand_stream_queue_max_messages",
            "Messages waiting in the fullest open stream's queue.",
            labels=("game",),
        )
        for game in sorted(stats.queued):
            queued.add_metric((game,), stats.queued[game])
            deepest.add_metric((game,), stats.deepest[game])
        yield queued
        yield deepest
        capacity = GaugeMetricFamily(
            "thousand_stream_queue_capacity_messages",
            "A stream's queue bound: a stream that fills it is resynchronized by a snapshot.",
            value=streams_module.STREAM_QUEUE_SIZE,
        )
        yield capacity
        idle = GaugeMetricFamily(
            "thousand_table_max_idle_seconds",
            "Over playing tables, the longest time since a table's last event, by who is to act.",
            labels=("game", "waiting_on"),
        )
        for (game, waiting_on), seconds in sorted(stats.idle.items()):
            idle.add_metric((game, waiting_on), seconds)
        yield idle
        turns = GaugeMetricFamily(
            "thousand_bot_turns_waiting",
            "Tables whose bots wait for their turn on the event loop: tables with a person, or of bots only.",
            labels=("table",),
        )
        for kind, count in sorted(stats.bot_turns.items()):
            turns.add_metric((kind,), count)
        yield turns


def _in_loop_thread(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class Metrics:
    """One server's metrics: a registry of its own, the gRPC and game metrics, and the table gauges."""

    def __init__(self) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)  # process_cpu_seconds_total, process_resident_memory_bytes…
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.grpc = GrpcMetrics(self.registry)
        self.game = GameMetrics(self.registry)
        self.registry.register(MemoryLimitCollector())
        self.scrapes = ScrapeWatch()
        self.registry.register(self.scrapes)
        self.tables: TableCollector | None = None
        self._http: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def watch(self, registry: Registry, telemetry: Telemetry) -> None:
        self.tables = TableCollector(registry, telemetry)
        self.registry.register(self.tables)

    def serve(self, host: str, port: int) -> int:
        """Start the HTTP exposition (``/metrics``) in a daemon thread; returns the port."""
        if self.tables is not None:
            self.tables.loop = asyncio.get_running_loop()
        self._http, self._thread = start_http_server(port, addr=host, registry=self.registry)
        return int(self._http.server_port)

    def close(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
