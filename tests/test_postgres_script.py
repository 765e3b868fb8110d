"""scripts/postgres.py, the throwaway PostgreSQL server of the tests and benchmarks, as a person runs it:
it prints its URL, and stopping it (SIGTERM, as ``kill`` and supervisors do, or Ctrl-C) stops PostgreSQL too,
instead of leaving it running orphaned on the port."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import pytest

from scripts.ports import free_port
from tests.live_server import ROOT


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_stopping_the_script_stops_postgres(stop: signal.Signals) -> None:
    port = free_port()
    script = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "postgres.py"), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert script.stdout is not None
        url = script.stdout.readline().strip()
        assert url == f"postgresql://thousand@127.0.0.1:{port}/postgres", url
        assert listening(port)
        script.send_signal(stop)
        assert script.wait(timeout=60) == 0
        deadline = time.monotonic() + 10
        while listening(port):
            assert time.monotonic() < deadline, "PostgreSQL still listens after its script was stopped"
            time.sleep(0.1)
    finally:
        if script.poll() is None:
            script.kill()
            script.wait()
