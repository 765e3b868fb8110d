"""Prometheus metrics read back over HTTP after whole games: the standard gRPC server metrics by name and
label values (unary and server-streaming calls, refusals, a cancelled stream) and the ``thousand_*`` game
metrics; no table id as a label value."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

import server.streams as streams_module
from codec import thousand as codec
from engine import Pass, Rules
from engine.actions import Shuffle
from engine.events import DealScored
from scripts.ports import free_port
from server.app import Server
from server.creations import SeatSpec
from server.metrics import Metrics
from server.registry import Registry
from server.settings import Settings
from server.telemetry import Telemetry
from tests.in_process import serving
from tests.server_harness import run, thousand_table, token_md
from tests.table_driving import bot_to_act, play_bot
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

SERVICE = "thousand.v1.TableService"
Labels = dict[str, str]


@dataclass
class Sample:
    name: str
    labels: Labels
    value: float


class Scrape:
    """One /metrics page, parsed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.types: dict[str, str] = {}
        self.samples: list[Sample] = []
        for family in text_string_to_metric_families(text):
            self.types[family.name] = family.type
            self.samples += [Sample(s.name, dict(s.labels), s.value) for s in family.samples]

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples named ``name`` whose labels include ``labels`` (0 if none)."""
        return sum(s.value for s in self.samples if s.name == name and labels.items() <= s.labels.items())

    def has(self, name: str, **labels: str) -> bool:
        return any(s.name == name and labels.items() <= s.labels.items() for s in self.samples)

    def grpc(self, name: str, method: str, kind: str = "UNARY", **labels: str) -> float:
        return self.value(name, grpc_type=kind, grpc_service=SERVICE, grpc_method=method, **labels)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text: str = response.read().decode()
        return text


@asynccontextmanager
async def metered(**settings: Any) -> AsyncIterator[tuple[Server, pb_grpc.TableServiceAsyncStub]]:
    """A server with its metrics served (:func:`tests.in_process.serving`)."""
    async with serving(metrics_port=free_port(), **settings) as pair:
        yield pair


async def scrape(server: Server) -> Scrape:
    assert server.metrics_port > 0
    return Scrape(await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.metrics_port}/metrics"))


def test_metrics_after_a_game_of_three_bots_with_a_spectator() -> None:
    async def scenario() -> None:
        async with metered() as (server, stub):
            table = (await stub.CreateTable(thousand_table(3, bots=3))).table
            tid = table.table_id
            watched = [m async for m in stub.StreamEvents(pb.StreamEventsRequest(table_id=tid))]
            # The stream ends with the game: its GameOver, or, had this in-process reader fallen more than a
            # queue behind the unpaced bots (a loaded machine), the resync snapshot of the finished table.
            last = watched[-1]
            assert last.event.thousand.HasField("game_over") or (
                last.HasField("snapshot") and last.snapshot.table.status == pb.TABLE_STATUS_FINISHED
            ), last
            await stub.GetTable(pb.GetTableRequest(table_id=tid))
            await stub.ListTables(pb.ListTablesRequest())
            with pytest.raises(aio.AioRpcError) as refused:
                await stub.GetTable(pb.GetTableRequest(table_id="nope"))
            assert refused.value.code() == grpc.StatusCode.NOT_FOUND
            pass_action = pb.Action(thousand=codec.action_to_proto(Pass()))
            with pytest.raises(aio.AioRpcError) as refused:
                await stub.SubmitAction(
                    pb.SubmitActionRequest(table_id=tid, request_id="r", action=pass_action)
                )
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            m = await scrape(server)
            played = server.registry.get(tid)

        # the standard gRPC server metrics
        assert m.grpc("grpc_server_started_total", "CreateTable") == 1
        assert m.grpc("grpc_server_handled_total", "CreateTable", grpc_code="OK") == 1
        assert m.grpc("grpc_server_started_total", "GetTable") == 2
        assert m.grpc("grpc_server_handled_total", "GetTable", grpc_code="OK") == 1
        assert m.grpc("grpc_server_handled_total", "GetTable", grpc_code="NotFound") == 1
        assert m.grpc("grpc_server_msg_received_total", "GetTable") == 2
        assert m.grpc("grpc_server_msg_sent_total", "GetTable") == 1
        assert m.grpc("grpc_server_handled_total", "ListTables", grpc_code="OK") == 1
        assert m.grpc("grpc_server_handled_total", "SubmitAction", grpc_code="PermissionDenied") == 1
        assert m.grpc("grpc_server_handling_seconds_count", "GetTable") == 2
        assert m.grpc("grpc_server_handling_seconds_bucket", "GetTable", le="+Inf") == 2
        # the server stream: started and handled once, ended OK, every message counted
        stream = "SERVER_STREAM"
        assert m.grpc("grpc_server_started_total", "StreamEvents", stream) == 1
        assert m.grpc("grpc_server_handled_total", "StreamEvents", stream, grpc_code="OK") == 1
        assert m.grpc("grpc_server_handled_total", "StreamEvents", stream) == 1
        assert m.grpc("grpc_server_handling_seconds_count", "StreamEvents", stream) == 1
        assert m.grpc("grpc_server_msg_received_total", "StreamEvents", stream) == 1
        assert m.grpc("grpc_server_msg_sent_total", "StreamEvents", stream) == len(watched)
        # every method of the contract has its series from the start
        assert m.has("grpc_server_started_total", grpc_method="JoinTable", grpc_type="UNARY")
        assert m.grpc("grpc_server_started_total", "JoinTable") == 0

        # the game
        applied = sum(1 for _, action in played.game.history if not isinstance(action, Shuffle))
        deals = sum(1 for e in played.log if isinstance(e, DealScored))
        assert applied > 50 and deals > 0
        game = {"game": "thousand"}
        assert m.value("thousand_tables", status="finished", **game) == 1
        assert m.value("thousand_tables", status="playing", **game) == 0
        assert m.value("thousand_tables", status="waiting", **game) == 0
        assert m.value("thousand_tables_created_total", **game) == 1
        assert m.value("thousand_seats_taken", kind="bot", **game) == 3
        assert m.value("thousand_seats_taken", kind="player", **game) == 0
        assert m.value("thousand_open_streams", **game) == 0
        assert m.value("thousand_actions_total", outcome="applied", **game) == applied
        assert m.value("thousand_actions_total", outcome="applied", kind="bid", **game) > 0
        assert m.value("thousand_actions_total", outcome="applied", kind="play_card", **game) > 0
        assert m.value("thousand_actions_total", outcome="rejected", kind="pass_bid", **game) == 1
        assert m.value("thousand_actions_rejected_total", reason="SPECTATOR_CANNOT_ACT", **game) == 1
        assert m.value("thousand_action_delivery_seconds_count", **game) == applied
        assert m.value("thousand_bot_decision_seconds_count", strategy="greedy") == applied
        assert m.value("thousand_deals_finished_total", **game) == deals
        assert m.value("thousand_games_finished_total", **game) == 1
        # the bots play faster than the stream is written: each resync is a snapshot in the stream
        resyncs = sum(1 for message in watched[1:] if message.HasField("snapshot"))
        assert m.value("thousand_stream_resyncs_total", **game) == resyncs
        assert m.value("thousand_stream_queued_messages", **game) == 0
        assert m.value("thousand_stream_queue_capacity_messages") == streams_module.STREAM_QUEUE_SIZE
        assert m.value("thousand_table_max_idle_seconds", waiting_on="bot", **game) == 0
        assert m.has("process_resident_memory_bytes")

        # naming: base units, _total counters, no _created series, and never a table id as a label
        for name, kind in m.types.items():
            assert name.startswith(("grpc_server_", "thousand_", "process_", "python_")), name
            if kind == "counter":
                assert all(s.name.endswith("_total") for s in m.samples if s.name.startswith(name))
        assert not any(s.name.endswith("_created") for s in m.samples)
        assert tid not in m.text
        for sample in m.samples:
            assert tid not in sample.labels.values()

    run(scenario())


def test_unary_handled_after_seats_and_a_cancelled_stream_is_counted_as_canceled() -> None:
    """People at a table: seats and open streams by audience; a stream the client cancels ends Canceled."""

    async def scenario() -> None:
        async with metered() as (server, stub):
            table = (await stub.CreateTable(thousand_table(3, bots=1))).table
            tid = table.table_id
            joined = [await stub.JoinTable(pb.JoinTableRequest(table_id=tid)) for _ in range(2)]
            own = stub.StreamEvents(
                pb.StreamEventsRequest(table_id=tid), metadata=token_md(joined[0].seat_token)
            )
            spectator = stub.StreamEvents(pb.StreamEventsRequest(table_id=tid))
            await anext(aiter(own))
            await anext(aiter(spectator))
            m = await scrape(server)
            assert m.value("thousand_open_streams", audience="seat") == 1
            assert m.value("thousand_open_streams", audience="spectator") == 1
            assert m.value("thousand_seats_taken", kind="player") == 2
            assert m.value("thousand_seats_taken", kind="bot") == 1
            assert m.value("thousand_tables", status="playing") == 1
            # who is to act has been idle a while: the table shows in the idle gauge for people
            played = server.registry.get(tid)
            waiting_on = "bot" if bot_to_act(played) is not None else "player"
            played.progress = time.time() - 120
            m = await scrape(server)
            assert m.value("thousand_table_max_idle_seconds", waiting_on=waiting_on) >= 120
            assert m.grpc("grpc_server_handled_total", "JoinTable", grpc_code="OK") == 2

            own.cancel()
            spectator.cancel()
            deadline = time.monotonic() + 5
            while True:
                m = await scrape(server)
                canceled = m.grpc(
                    "grpc_server_handled_total", "StreamEvents", "SERVER_STREAM", grpc_code="Canceled"
                )
                if canceled == 2 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert canceled == 2
            assert m.value("thousand_open_streams") == 0
            assert m.grpc("grpc_server_msg_sent_total", "StreamEvents", "SERVER_STREAM") >= 2
            for token in (j.seat_token for j in joined):
                assert token not in m.text

    run(scenario())


def test_a_lagging_stream_is_counted_when_resynchronized(monkeypatch: pytest.MonkeyPatch) -> None:
    """The resync counter and the queue gauges, read in the event loop's own thread (no HTTP)."""
    monkeypatch.setattr(streams_module, "STREAM_QUEUE_SIZE", 4)

    async def scenario() -> None:
        metrics = Metrics()
        telemetry = Telemetry(metrics.game)
        registry = Registry(None, telemetry)
        metrics.watch(registry, telemetry)
        table = await registry.create(
            Rules(), [SeatSpec(bot=True, strategy="greedy")] * 3, seed=3, first_dealer=0
        )
        stream = table.stream(None, None)
        assert pb.StreamEventsResponse.FromString(await anext(stream)).HasField("snapshot")
        for _ in range(3):
            seat = bot_to_act(table)
            assert seat is not None
            await play_bot(table, seat)
        m = Scrape(generate_latest(metrics.registry).decode())
        assert m.value("thousand_stream_queued_messages") == m.value("thousand_stream_queue_max_messages") > 0
        assert m.value("thousand_stream_queue_capacity_messages") == 4
        for _ in range(40):  # nobody reads: the queue overflows
            seat = bot_to_act(table)
            assert seat is not None
            await play_bot(table, seat)
        assert pb.StreamEventsResponse.FromString(await anext(stream)).HasField("snapshot")
        m = Scrape(generate_latest(metrics.registry).decode())
        assert m.value("thousand_stream_resyncs_total", game="thousand") == 1
        assert m.value("thousand_bot_decision_seconds_count", strategy="greedy") == 43
        await stream.aclose()

    run(scenario())


def test_no_metrics_port_means_no_metrics() -> None:
    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        try:
            assert server.metrics is None and server.metrics_port == 0
        finally:
            await server.stop(grace=0.1)

    run(scenario())


def test_health_watch_and_reflection_streams_are_counted() -> None:
    """A coroutine-style server stream (health Watch uses context.write) and a bidi stream (reflection)."""

    async def scenario() -> Scrape:
        async with metered() as (server, _), aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            health: Any = health_pb2_grpc.HealthStub(channel)
            watch = health.Watch(health_pb2.HealthCheckRequest(service=SERVICE))
            assert (await watch.read()).status == health_pb2.HealthCheckResponse.SERVING
            await server.health.enter_graceful_shutdown()
            assert (await watch.read()).status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()
            reflection: Any = reflection_pb2_grpc.ServerReflectionStub(channel)  # type: ignore[arg-type]
            call = reflection.ServerReflectionInfo()
            await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
            listed = await call.read()
            assert SERVICE in [s.name for s in listed.list_services_response.service]
            await call.done_writing()
            assert await call.code() == grpc.StatusCode.OK
            deadline = time.monotonic() + 30  # generous: the machine may be busy
            while True:
                m = await scrape(server)
                if m.value("grpc_server_handled_total", grpc_method="Watch") or time.monotonic() > deadline:
                    return m

    m = run(scenario())
    watch = {"grpc_type": "SERVER_STREAM", "grpc_service": "grpc.health.v1.Health", "grpc_method": "Watch"}
    assert m.value("grpc_server_handled_total", grpc_code="Canceled", **watch) == 1
    assert m.value("grpc_server_msg_sent_total", **watch) == 2
    assert m.value("grpc_server_msg_received_total", **watch) == 1
    bidi = {"grpc_type": "BIDI_STREAM", "grpc_method": "ServerReflectionInfo"}
    assert m.value("grpc_server_handled_total", grpc_code="OK", **bidi) == 1
    assert m.value("grpc_server_msg_received_total", **bidi) == 1
    assert m.value("grpc_server_msg_sent_total", **bidi) == 1
