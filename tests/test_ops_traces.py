"""OpenTelemetry traces (server/tracing.py): one trace from a client's action (its W3C ``traceparent``)
through the call, the table's action and the store's commit to the events queued to the streams; the
call's log lines carry its trace id; with tracing off nothing is recorded but the client's trace id is still
logged; and with an OTLP endpoint the server process exports its spans to a collector."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, format_span_id, format_trace_id

from scripts.ports import free_port
from server import tracing
from tests.conftest import Captured
from tests.live_server import ROOT
from tests.server_harness import Harness, harness, run, seated, thousand_table, token_md
from tests.web_harness import http_request, web_server
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Tracing on for the test, into the SDK's in-memory exporter; off again after."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    before = tracing.use(provider)
    try:
        yield exporter
    finally:
        tracing.use(before)
        provider.shutdown()


async def act_with_traceparent(h: Harness) -> str:
    """Seat three players and submit the first legal action of the seat to act, sent with TRACEPARENT."""
    table_id, joins = await seated(h, thousand_table(3))
    for seat, token in joins:
        call = h.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=token_md(token))
        async for message in call:
            if message.HasField("turn"):
                break
        call.cancel()
        if message.turn.seat == seat and message.turn.legal_actions:
            await h.stub.SubmitAction(
                pb.SubmitActionRequest(
                    table_id=table_id,
                    request_id="traced-1",
                    action=message.turn.legal_actions[0],
                ),
                metadata=(*token_md(token), ("traceparent", TRACEPARENT)),
            )
            return table_id
    raise AssertionError("no seat was to act")


def by_name(finished: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    (found,) = [s for s in finished if s.name == name]
    return found


def parent_of(child: ReadableSpan) -> str:
    assert child.parent is not None, child.name
    return format_span_id(child.parent.span_id)


def trace_of(span: ReadableSpan) -> str:
    assert span.context is not None
    return format_trace_id(span.context.trace_id)


def span_id(span: ReadableSpan) -> str:
    assert span.context is not None
    return format_span_id(span.context.span_id)


def test_one_trace_from_a_clients_action_through_the_store_to_the_events_sent(
    spans: InMemorySpanExporter, captured: Captured
) -> None:
    """Issue #30, 7."""
    table_id = run(act_with_traceparent_in_harness())
    finished = spans.get_finished_spans()
    traced = tuple(s for s in finished if trace_of(s) == CLIENT_TRACE)
    rpc = by_name(traced, "thousand.v1.TableService/SubmitAction")
    assert rpc.kind is SpanKind.SERVER and parent_of(rpc) == CLIENT_SPAN  # continues the client's trace
    assert rpc.attributes is not None and rpc.attributes["rpc.grpc.status_code"] == 0
    action = by_name(traced, "table.action")
    assert parent_of(action) == span_id(rpc)
    assert action.attributes is not None and action.attributes["thousand.table_id"] == table_id
    assert action.attributes["thousand.action"] in ("bid", "pass_bid")
    stored = by_name(traced, "store.append")
    assert parent_of(stored) == span_id(action)
    published = by_name(traced, "table.publish")
    assert parent_of(published) == span_id(action)
    assert published.attributes is not None and int(str(published.attributes["thousand.events"])) >= 1
    assert stored.end_time is not None and published.start_time is not None
    assert stored.end_time <= published.start_time  # stored before it is made and sent
    # every other call (CreateTable, JoinTable, StreamEvents) is a trace of its own, begun by the server
    calls = [s for s in finished if s.kind is SpanKind.SERVER]
    assert len({trace_of(s) for s in calls}) == len(calls) > 4
    # the call's log lines name its trace
    (line,) = captured.find("rpc", grpc_method="SubmitAction")
    assert line["trace_id"] == CLIENT_TRACE and line["table_id"] == table_id


async def act_with_traceparent_in_harness() -> str:
    async with harness() as h:
        return await act_with_traceparent(h)


def test_tracing_off_records_nothing_but_logs_the_clients_trace_id(captured: Captured) -> None:
    assert not tracing.enabled()
    exporter = InMemorySpanExporter()  # attached to nothing: tracing is off
    run(act_with_traceparent_in_harness())
    assert exporter.get_finished_spans() == ()
    (line,) = captured.find("rpc", grpc_method="SubmitAction")
    assert line["trace_id"] == CLIENT_TRACE
    joined = captured.find("rpc", grpc_method="JoinTable")
    assert joined and all("trace_id" not in j for j in joined)  # no traceparent, no tracing: no trace id


class _Collector(trace_service_pb2_grpc.TraceServiceServicer):
    """An OTLP/gRPC trace receiver: what a collector (the OpenTelemetry Collector, Jaeger, Tempo) takes."""

    def __init__(self) -> None:
        self.requests: list[trace_service_pb2.ExportTraceServiceRequest] = []

    def Export(  # noqa: N802 - the generated service's name
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: Any
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        self.requests.append(request)
        return trace_service_pb2.ExportTraceServiceResponse()


def test_the_server_exports_its_spans_by_otlp_when_an_endpoint_is_set() -> None:
    """--otlp-endpoint: the server process sends its spans to an OTLP/gRPC receiver (at the latest as it
    stops), as service thousand-server, continuing the client's trace."""
    collector = _Collector()
    receiver = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(collector, receiver)  # type: ignore[no-untyped-call]
    otlp_port = receiver.add_insecure_port("127.0.0.1:0")
    receiver.start()
    port = free_port()
    env = {**os.environ, "THOUSAND_LOG_FORMAT": "json"}
    env["THOUSAND_OTLP_ENDPOINT"] = f"http://127.0.0.1:{otlp_port}"
    argv = [sys.executable, "-m", "server.app", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if json.loads(line)["msg"] == "serving":
                break

        async def call() -> None:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.TableServiceStub(channel)
                await stub.ListTables(pb.ListTablesRequest(), metadata=(("traceparent", TRACEPARENT),))

        asyncio.run(call())
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        receiver.stop(0)
    assert process.returncode == 0
    exported = [
        (resource, span)
        for request in collector.requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    names = {span.name for _, span in exported}
    assert "thousand.v1.TableService/ListTables" in names
    (listed,) = [span for _, span in exported if span.name == "thousand.v1.TableService/ListTables"]
    assert listed.trace_id.hex() == CLIENT_TRACE
    service = {a.key: a.value.string_value for a in exported[0][0].resource.attributes}
    assert service["service.name"] == "thousand-server"


def test_a_browsers_traceparent_header_on_the_web_port_continues_its_trace(
    spans: InMemorySpanExporter, captured: Captured
) -> None:
    """The web port (Connect) reads the W3C header as the gRPC port reads the metadata."""

    async def scenario() -> int:
        async with web_server() as (server, _, _):
            response = await http_request(
                server.web_port,
                "POST",
                "/thousand.v1.TableService/ListTables",
                b"{}",
                {
                    "content-type": "application/json",
                    "connect-protocol-version": "1",
                    "traceparent": TRACEPARENT,
                },
            )
            return response.status

    assert run(scenario()) == 200
    listed = by_name(spans.get_finished_spans(), "thousand.v1.TableService/ListTables")
    assert trace_of(listed) == CLIENT_TRACE and parent_of(listed) == CLIENT_SPAN
    assert listed.attributes is not None and listed.attributes["thousand.transport"] == "connect"
    (line,) = captured.find("rpc", grpc_method="ListTables")
    assert line["trace_id"] == CLIENT_TRACE and line["transport"] == "connect"
