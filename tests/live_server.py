"""A real ``thousand-server`` process on loopback, for tests that drive it with clients in other languages
and tools (tests/test_node_client.py, tests/test_buf_walkthrough.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from scripts.ports import free_port
from server.probe import Tls, check
from server.service import SERVICE_NAME

ROOT = Path(__file__).resolve().parent.parent
POLL_SECONDS = 0.05
"""How often :meth:`LiveServer.start` asks whether the server is up yet."""


@dataclass
class LiveServer:
    """One server process; its log (JSON lines) goes to a file, never to a pipe nobody reads."""

    port: int
    db: str
    log: Path
    process: subprocess.Popen[bytes] | None = None
    args: tuple[str, ...] = ()
    """More ``thousand-server`` flags."""
    module: tuple[str, ...] = ("server.app",)
    """What ``python -m`` runs, with its own arguments before the server's flags (tests/busy_node.py)."""
    ca: Path | None = None
    """For a server run with ``--tls-cert``: the PEM certificates its certificate is checked against when
    :meth:`start` asks it whether it serves (its health is asked over TLS)."""
    server_name: str | None = None
    """The name that certificate is checked for, when it does not name 127.0.0.1."""

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> None:
        """Start the process and return once it answers the gRPC health check of the TableService as
        SERVING, which the server says last, once everything it starts is up (its port is bound before);
        a RuntimeError with its log if it exits first, or is not serving within ``timeout`` seconds."""
        if "--tls-cert" in self.args and self.ca is None:
            raise ValueError("a server run with --tls-cert is asked over TLS whether it serves: give ca")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    *(sys.executable, "-m", *self.module, "--host", "127.0.0.1", "--port", str(self.port)),
                    *("--db", self.db, "--log-format", "json", "--bot-pace", "0"),
                    *self.args,
                ],
                cwd=ROOT,
                stdout=log,
                stderr=log,
            )
        # Asked as the container image's probe asks (server.probe), a new channel each time: its first
        # connection attempt is made at once, not after a reused channel's reconnect backoff.
        probe = Tls(self.ca.read_bytes(), self.server_name or "") if self.ca is not None else None
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {self.process.returncode}:\n{self.log.read_text()}"
                )
            if check(self.address, SERVICE_NAME, min(left, 1.0), probe)[0]:
                return
            time.sleep(POLL_SECONDS)
        self.kill()
        raise RuntimeError(f"the server was not serving within {timeout} s:\n{self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no drain, no goodbye (what a crash looks like to clients)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def freeze(self) -> None:
        """SIGSTOP: the process stops where it is, its connections left open (a stalled machine)."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        """SIGCONT: it goes on as if nothing happened, however long it was frozen."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        """SIGTERM, a graceful drain; SIGKILL if it takes too long."""
        if self.process is None or self.process.poll() is not None:
            return
        self.thaw()  # a frozen process would not see the SIGTERM
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()


@contextmanager
def live_server(
    directory: Path, db: str = ":memory:", *args: str, ca: Path | None = None, server_name: str | None = None
) -> Iterator[LiveServer]:
    server = LiveServer(
        port=free_port(), db=db, log=directory / "server.log", args=args, ca=ca, server_name=server_name
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()
