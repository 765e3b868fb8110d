"""The web port as operators and browsers meet it: its metrics and log lines, its drain with streams open,
CORS off and on, the web client's static files, the health path, TLS and its settings."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import os
import signal
import ssl
import time
from collections.abc import Iterator
from contextlib import aclosing, suppress
from pathlib import Path

import pytest
from connectrpc.errors import ConnectError

from scripts.ports import free_port
from server.settings import parse_settings
from tests.conftest import Captured
from tests.live_server import LiveServer
from tests.server_harness import run, thousand_table
from tests.test_ops_metrics import metered, scrape
from tests.test_tls import make_certificate
from tests.web_harness import TRANSPORT_LABEL, WEB_TRANSPORTS, WebApi, http_request, web_client, web_server
from thousand.v1 import table_service_pb2 as pb

SERVICE = "thousand.v1.TableService"
API = f"/{SERVICE}"


# ---------------------------------------------------------------- metrics and logs


def test_web_calls_are_counted_in_grpc_server_metrics_by_transport() -> None:
    async def scenario() -> None:
        async with metered(web_port=free_port()) as (server, stub):
            url = f"http://127.0.0.1:{server.web_port}"
            finished = (await stub.CreateTable(thousand_table(3, bots=3))).table.table_id
            last = [m async for m in stub.StreamEvents(pb.StreamEventsRequest(table_id=finished))][
                -1
            ].sequence
            for kind in WEB_TRANSPORTS:
                async with web_client(url, kind) as client:
                    web = WebApi(client, kind)
                    await web.unary("CreateTable", thousand_table(3))
                    tail = pb.StreamEventsRequest(table_id=finished, after_sequence=last - 3)
                    watched = [m async for m in web.stream(tail)]  # the last 3 events, then the end
                    assert len(watched) == 3
                    with suppress(ConnectError):
                        await web.unary("GetTable", pb.GetTableRequest(table_id="nope"))
            m = await scrape(server)

            def of(name: str, method: str, transport: str, kind: str = "UNARY", **labels: str) -> float:
                return m.grpc(name, method, kind, transport=transport, **labels)

            assert of("grpc_server_handled_total", "CreateTable", "grpc", grpc_code="OK") == 1
            assert (
                of("grpc_server_handled_total", "StreamEvents", "grpc", "SERVER_STREAM", grpc_code="OK") == 1
            )
            assert of("grpc_server_handled_total", "ListTables", "connect") == 0
            assert of("grpc_server_started_total", "CreateTable", "connect") == 2  # binary and JSON
            assert of("grpc_server_started_total", "CreateTable", "grpc_web") == 1
            assert of("grpc_server_handled_total", "GetTable", "connect", grpc_code="NotFound") == 2
            assert of("grpc_server_handled_total", "GetTable", "grpc_web", grpc_code="NotFound") == 1
            stream = ("StreamEvents", "grpc_web", "SERVER_STREAM")
            assert of("grpc_server_handled_total", *stream, grpc_code="OK") == 1
            assert of("grpc_server_msg_sent_total", *stream) == 3
            assert of("grpc_server_handling_seconds_count", *stream) == 1
            assert m.has("grpc_server_started_total", grpc_method="ReclaimSeat", transport="grpc_web")
            assert of("grpc_server_started_total", "Play", "connect", "BIDI_STREAM") == 0
            assert m.value("thousand_tables_created_total") == 4

    run(scenario())


@pytest.mark.parametrize("kind", WEB_TRANSPORTS)
def test_a_web_call_logs_one_rpc_line_with_its_request_id_table_and_transport(
    kind: str,
    captured: Captured,
) -> None:
    async def scenario() -> str:
        async with web_server() as (_, _, url), web_client(url, kind) as client:
            web = WebApi(client, kind, request_id=f"req-{kind}")
            table_id: str = (await web.unary("CreateTable", thousand_table(3))).table.table_id
            web.request_id = f"missing-{kind}"
            with suppress(ConnectError):
                await web.unary("GetTable", pb.GetTableRequest(table_id="nope"))
            return table_id

    table_id = run(scenario())
    [created] = captured.find("rpc", grpc_method="CreateTable")
    assert created["request_id"] == f"req-{kind}" and created["table_id"] == table_id
    assert created["transport"] == TRANSPORT_LABEL[kind] and created["grpc_code"] == "OK"
    assert created["peer"].startswith("ipv4:127.0.0.1:")
    [table_line] = captured.find("table created")
    assert table_line["request_id"] == f"req-{kind}", "lines logged during the call carry its context"
    [missing] = captured.find("rpc", grpc_method="GetTable")
    assert missing["request_id"] == f"missing-{kind}" and missing["table_id"] == "nope"
    assert missing["grpc_code"] == "NotFound" and missing["error_reason"] == "TABLE_NOT_FOUND"
    assert missing["level"] == "info"


# ---------------------------------------------------------------- drain


def test_sigterm_ends_the_web_streams_cleanly_and_the_server_exits(tmp_path: Path) -> None:
    """Open streams over Connect and gRPC-Web end with OK (not a cut connection) as the server drains, and
    the process exits 0 well within its grace period."""
    web_port = free_port()
    server = LiveServer(
        port=free_port(),
        db=str(tmp_path / "t.db"),
        log=tmp_path / "server.log",
        args=("--web-port", str(web_port), "--shutdown-grace", "10"),
    )
    server.start()  # returns once the server says SERVING, which it says after its web port is up
    assert server.process is not None
    url = f"http://127.0.0.1:{web_port}"

    async def scenario() -> float:
        ended: list[str] = []

        async def watch(kind: str, table_id: str, opened: asyncio.Event) -> None:
            async with web_client(url, kind) as client:
                web = WebApi(client, kind)
                async with aclosing(web.stream(pb.StreamEventsRequest(table_id=table_id))) as messages:
                    async for _ in messages:
                        opened.set()
                ended.append(kind)  # the stream ended without an error

        async with web_client(url, "connect") as client:
            table_id = (
                await WebApi(client, "connect").unary("CreateTable", thousand_table(3))
            ).table.table_id
        opened = [asyncio.Event() for _ in WEB_TRANSPORTS]
        watchers = [
            asyncio.create_task(watch(k, table_id, o)) for k, o in zip(WEB_TRANSPORTS, opened, strict=True)
        ]
        await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 10)
        start = time.monotonic()
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGTERM)
        await asyncio.wait_for(asyncio.gather(*watchers), 10)
        assert sorted(ended) == sorted(WEB_TRANSPORTS)
        return time.monotonic() - start

    try:
        took = run(scenario())
        assert server.process.wait(timeout=10) == 0
    finally:
        server.stop()
    assert took < 5, f"the streams took {took:.1f} s to end: the drain did not end them"
    lines = [json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")]
    assert any(line["msg"] == "stopped" for line in lines)
    streams = [line for line in lines if line["msg"] == "rpc" and line.get("grpc_method") == "StreamEvents"]
    assert sorted(line["transport"] for line in streams) == ["connect", "connect", "grpc_web"]
    assert {line["grpc_code"] for line in streams} == {"OK"}


# ---------------------------------------------------------------- CORS


PREFLIGHT = {
    "origin": "http://localhost:5173",
    "access-control-request-method": "POST",
    "access-control-request-headers": "content-type,connect-protocol-version,x-seat-token",
}


def test_without_allowed_origins_there_is_no_cors() -> None:
    async def scenario() -> None:
        async with web_server() as (server, _, _):
            preflight = await http_request(server.web_port, "OPTIONS", f"{API}/ListTables", headers=PREFLIGHT)
            assert preflight.status == 403
            assert "access-control-allow-origin" not in preflight.headers
            call = await http_request(
                server.web_port,
                "POST",
                f"{API}/ListTables",
                b"{}",
                {"content-type": "application/json", "origin": PREFLIGHT["origin"]},
            )
            assert call.status == 200 and "access-control-allow-origin" not in call.headers

    run(scenario())


def test_an_allowed_origin_gets_cors_and_others_do_not() -> None:
    async def scenario() -> None:
        async with web_server(web_allowed_origins=("http://localhost:5173",)) as (server, _, _):
            port = server.web_port
            preflight = await http_request(port, "OPTIONS", f"{API}/SubmitAction", headers=PREFLIGHT)
            assert preflight.status == 204
            assert preflight.headers["access-control-allow-origin"] == "http://localhost:5173"
            allowed = preflight.headers["access-control-allow-headers"].split(", ")
            assert {"content-type", "connect-protocol-version", "x-seat-token", "x-grpc-web"} <= set(allowed)
            assert "POST" in preflight.headers["access-control-allow-methods"]
            call = await http_request(
                port,
                "POST",
                f"{API}/GetTable",
                b'{"tableId": "nope"}',
                {"content-type": "application/json", "origin": "http://localhost:5173"},
            )
            assert call.status == 404 and json.loads(call.body)["code"] == "not_found"
            assert call.headers["access-control-allow-origin"] == "http://localhost:5173"
            assert "grpc-status-details-bin" in call.headers["access-control-expose-headers"]
            other = {**PREFLIGHT, "origin": "https://elsewhere.example"}
            refused = await http_request(port, "OPTIONS", f"{API}/SubmitAction", headers=other)
            assert refused.status == 403 and "access-control-allow-origin" not in refused.headers

    run(scenario())


# ---------------------------------------------------------------- the web client's files


@pytest.fixture
def built(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>Thousand</title>" + "<p>lobby</p>" * 200)
    (root / "assets" / "app.js").write_text("console.log('thousand');\n" * 100)
    (root / "assets" / "tiny.css").write_text("body{margin:0}")
    (tmp_path / "secret.txt").write_text("outside the root")
    (root / "assets" / "link.txt").symlink_to(tmp_path / "secret.txt")
    yield root


def test_the_built_client_is_served_with_types_validators_and_gzip(built: Path) -> None:
    async def scenario() -> None:
        async with web_server(web_root=str(built)) as (server, _, _):
            port = server.web_port
            page = await http_request(port, "GET", "/")
            assert page.status == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
            assert page.body == (built / "index.html").read_bytes()
            assert page.headers["cache-control"] == "no-cache"
            again = await http_request(port, "GET", "/", headers={"if-none-match": page.headers["etag"]})
            assert again.status == 304 and again.body == b""
            script = await http_request(
                port, "GET", "/assets/app.js", headers={"accept-encoding": "gzip, br"}
            )
            assert script.headers["content-type"].startswith("text/javascript")
            assert script.headers["content-encoding"] == "gzip"
            assert gzip.decompress(script.body) == (built / "assets" / "app.js").read_bytes()
            tiny = await http_request(port, "GET", "/assets/tiny.css", headers={"accept-encoding": "gzip"})
            assert "content-encoding" not in tiny.headers and tiny.body == b"body{margin:0}"
            route = await http_request(port, "GET", "/table/abc123")
            assert route.status == 200 and route.body == page.body, "a client route is the page"
            head = await http_request(port, "HEAD", "/assets/app.js")
            assert head.status == 200 and head.body == b""
            for outside in (
                "/assets/missing.js",
                "/../secret.txt",
                "/assets/../../secret.txt",
                "/assets/link.txt",
            ):
                answer = await http_request(port, "GET", outside)
                assert answer.status == 404 and b"outside" not in answer.body, outside
            posted = await http_request(port, "POST", "/", b"x")
            assert posted.status == 405 and posted.headers["allow"] == "GET, HEAD"
            health = await http_request(port, "GET", "/healthz")
            assert health.status == 200 and health.body == b"SERVING\n"
            alone = await http_request(port, "GET", "/cluster.json")
            assert alone.status == 200 and alone.headers["content-type"] == "application/json"
            assert json.loads(alone.body) == {"web_endpoints": []}, "one server is no cluster"
            assert (await http_request(port, "POST", "/cluster.json", b"x")).status == 405

    run(scenario())


def test_without_a_built_client_every_page_says_how_to_build_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_server(web_root=str(tmp_path / "nothing")) as (server, _, _):
            page = await http_request(server.web_port, "GET", "/")
            assert page.status == 503 and page.headers["content-type"].startswith("text/html")
            text = page.body.decode()
            assert "make web" in text and "npm run build" in text and "--web-root" in text
            api = await http_request(
                server.web_port, "POST", f"{API}/ListTables", b"{}", {"content-type": "application/json"}
            )
            assert api.status == 200, "the API works without the client"

    run(scenario())


# ---------------------------------------------------------------- TLS and settings


def test_the_web_port_speaks_tls_when_the_grpc_port_does(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)

    def call(port: int) -> tuple[int, dict[str, object]]:
        context = ssl.create_default_context(cafile=str(cert))
        connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=10)
        try:
            connection.request("POST", f"{API}/ListTables", b"{}", {"content-type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    async def scenario() -> None:
        async with web_server(tls_cert=str(cert), tls_key=str(key)) as (server, _, _):
            assert await asyncio.to_thread(call, server.web_port) == (200, {})
            with pytest.raises(http.client.RemoteDisconnected):
                await http_request(server.web_port, "GET", "/healthz")  # plain HTTP is not answered

    run(scenario())


def test_web_settings_from_flags_and_environment(capsys: pytest.CaptureFixture[str]) -> None:
    defaults = parse_settings([], {})
    assert defaults.web_port == 0 and defaults.web_allowed_origins == ()
    assert defaults.web_root.endswith(os.path.join("clients", "web", "dist"))
    env = {"THOUSAND_WEB_PORT": "8080", "THOUSAND_WEB_ROOT": "/srv/web", "THOUSAND_WEB_ALLOWED_ORIGINS": "*"}
    from_env = parse_settings([], env)
    assert (from_env.web_port, from_env.web_root, from_env.web_allowed_origins) == (8080, "/srv/web", ("*",))
    flags = parse_settings(
        [
            "--web-port",
            "9000",
            "--web-allowed-origin",
            "https://a.example",
            "--web-allowed-origin",
            "http://b:8",
        ],
        env,
    )
    assert flags.web_port == 9000 and flags.web_allowed_origins == ("https://a.example", "http://b:8")
    for bad in (["--web-allowed-origin", "a.example"], ["--web-allowed-origin", "https://a.example/path"]):
        with pytest.raises(SystemExit):
            parse_settings(bad, {})
        assert "is not an origin" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_settings(["--port", "7000", "--web-port", "7000"], {})
    assert "--web-port must differ from --port" in capsys.readouterr().err
