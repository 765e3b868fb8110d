"""A real ``thousand-server`` process on loopback, for tests that drive it with clients in other languages
and tools (tests/test_node_client.py, tests/test_buf_walkthrough.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> None:
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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {self.process.returncode}:\n{self.log.read_text()}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the server did not listen within {timeout} s:\n{self.log.read_text()}")

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
def live_server(directory: Path, db: str = ":memory:", *args: str) -> Iterator[LiveServer]:
    server = LiveServer(port=free_port(), db=db, log=directory / "server.log", args=args)
    server.start()
    try:
        yield server
    finally:
        server.stop()
