"""What an operator meets of the server: health, a graceful shutdown that completes open streams,
reflection (``buf curl``), settings from flags and the environment, and the garbage collector's tuning."""

from __future__ import annotations

import asyncio
import gc
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from server.app import Server, tune_gc
from server.settings import Settings, parse_settings
from tests.server_harness import harness, run, thousand_table
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


def test_health_serving_then_not_serving_on_shutdown() -> None:
    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            health: Any = health_pb2_grpc.HealthStub(channel)
            reply = await health.Check(health_pb2.HealthCheckRequest(service="thousand.v1.TableService"))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            await server.health.enter_graceful_shutdown()
            reply = await health.Check(health_pb2.HealthCheckRequest(service="thousand.v1.TableService"))
            assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
        await server.stop(grace=0.1)

    run(scenario())


BUF = Path(sys.executable).parent / "buf"


@pytest.mark.skipif(not BUF.exists() and shutil.which("buf") is None, reason="buf-bin is a dev dependency")
def test_buf_curl_lists_services_by_reflection_and_calls_list_tables() -> None:
    async def scenario() -> None:
        async with harness() as h:
            await h.stub.CreateTable(thousand_table(3))
            buf = str(BUF if BUF.exists() else shutil.which("buf"))
            listing = await _run(
                buf,
                "curl",
                "--protocol",
                "grpc",
                "--http2-prior-knowledge",
                "--list-services",
                f"http://{h.address}",
            )
            assert "thousand.v1.TableService" in listing
            reply = await _run(
                buf,
                "curl",
                "--protocol",
                "grpc",
                "--http2-prior-knowledge",
                "-d",
                "{}",
                f"http://{h.address}/thousand.v1.TableService/ListTables",
            )
            assert '"tables"' in reply and "GAME_KIND_THOUSAND" in reply

    run(scenario())


async def _run(*argv: str) -> str:
    process = await asyncio.create_subprocess_exec(*argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    return out.decode()


def test_streams_end_cleanly_on_graceful_shutdown() -> None:
    """SIGTERM-style shutdown: health goes NOT_SERVING and open streams complete with status OK."""

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = pb_grpc.TableServiceStub(channel)
            table = (await stub.CreateTable(thousand_table(3))).table
            call = stub.StreamEvents(pb.StreamEventsRequest(table_id=table.table_id))
            first = await anext(aiter(call))
            assert first.HasField("snapshot")
            await server.stop(grace=1.0)
            rest = [m async for m in call]
            assert rest == []
            assert await call.code() == grpc.StatusCode.OK

    run(scenario())


def test_settings_from_flags_and_environment() -> None:
    env = {"THOUSAND_PORT": "6000", "THOUSAND_HOST": "0.0.0.0", "THOUSAND_DB": "/tmp/t.db"}
    assert parse_settings([], env) == Settings(
        host="0.0.0.0", port=6000, db="/tmp/t.db", metrics_port=0, bot_pace=1.0
    )
    assert parse_settings(["--port", "7000", "--metrics-port", "9100"], env).port == 7000
    assert parse_settings([], {}).port == 50051


def test_garbage_collection_is_tuned_as_set() -> None:
    """--gc-threshold (THOUSAND_GC_THRESHOLD): young collections that rare, start-up frozen; 0: as it was."""
    assert parse_settings([], {}).gc_threshold == 50_000
    assert parse_settings([], {"THOUSAND_GC_THRESHOLD": "0"}).gc_threshold == 0
    assert parse_settings(["--gc-threshold", "9000"], {}).gc_threshold == 9000
    with pytest.raises(SystemExit):
        parse_settings(["--gc-threshold", "5"], {})
    before = gc.get_threshold()
    try:
        tune_gc(0)
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        tune_gc(9000)
        assert gc.get_threshold() == (9000, 20, 10)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
