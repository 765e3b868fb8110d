"""Starting ``thousand-server`` as an operator meets it: a port another server holds fails the start in words
(gRPC's SO_REUSEPORT let a second server bind it too, and clients reached either at random), and ``--help``
shows every setting's default and environment variable."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.ports import free_port
from server.app import Server, StartError
from server.settings import Settings, parse_settings
from tests.live_server import ROOT, LiveServer, live_server


def test_a_second_server_on_a_taken_port_fails_its_start_in_words(tmp_path: Path) -> None:
    with live_server(tmp_path) as first:
        second = subprocess.run(
            [sys.executable, "-m", "server.app", "--host", "127.0.0.1", "--port", str(first.port)],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert second.returncode == 1, second.stderr
        assert f"thousand-server: cannot listen on 127.0.0.1:{first.port}: the port is taken" in second.stderr
        assert first.process is not None and first.process.poll() is None  # the first one serves on


def test_a_taken_web_port_fails_the_start_with_the_json_cannot_start_line(tmp_path: Path) -> None:
    """Issue #30, 6: the web port's bind failing is the same start error as the gRPC port's (one JSON
    `cannot start` line, exit 1), not a traceback ("Event loop is closed") from a server left running."""
    with live_server(tmp_path) as first:
        web_port = first.port  # taken (by the first server's gRPC port)
        second = subprocess.run(
            [
                *(sys.executable, "-m", "server.app", "--host", "127.0.0.1", "--port", "0"),
                *("--web-port", str(web_port), "--db", ":memory:", "--log-format", "json"),
            ],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert second.returncode == 1, second.stderr
    assert "Traceback" not in second.stderr and "Event loop is closed" not in second.stderr, second.stderr
    (line, said) = second.stderr.splitlines()
    logged = json.loads(line)
    assert logged["level"] == "error" and logged["msg"] == "cannot start"
    assert f"cannot listen on 127.0.0.1:{web_port} (the web port)" in logged["error"]
    assert said == f"thousand-server: {logged['error']}"


def test_the_live_harness_waits_for_serving_not_for_the_port(tmp_path: Path) -> None:
    """tests/live_server.py counts a server started once it answers its health check as SERVING, not once its
    port listens: a process that listens and never serves is a failed start, with its log."""
    listener = LiveServer(
        port=free_port(), db=":memory:", log=tmp_path / "server.log", module=("tests.port_only",)
    )
    with pytest.raises(RuntimeError, match="the server exited with 1") as failed:
        listener.start()
    assert "port_only: listening on" in str(failed.value)


def test_a_taken_port_is_a_start_error_in_process() -> None:
    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0))
        await server.start()
        try:
            with pytest.raises(StartError, match="the port is taken"):
                Server(Settings(host="127.0.0.1", port=server.port))
        finally:
            await server.stop(grace=0)

    asyncio.run(scenario())


def test_help_shows_each_settings_default_and_environment_variable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        parse_settings(["--help"], env={})
    text = " ".join(capsys.readouterr().out.split())
    flags = sorted(set(re.findall(r"(--[a-z][a-z-]+) [A-Z_{]", text)))
    assert "--port" in flags and "--tls-cert" in flags and len(flags) > 10
    for flag in flags:
        env = "THOUSAND_" + flag[2:].replace("-", "_").upper()
        if flag == "--web-allowed-origin":
            env += "S"  # a list: THOUSAND_WEB_ALLOWED_ORIGINS, as its help says
        assert re.search(rf"\[default: [^;\]]+; env {env}\]", text), flag
    assert "[default: 50051; env THOUSAND_PORT]" in text
    assert "[default: thousand.db; env THOUSAND_DB]" in text
    assert "[default: (none); env THOUSAND_TLS_CERT]" in text
