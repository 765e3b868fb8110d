"""Fixtures shared by the suite: one real PostgreSQL server for the whole run (scripts/postgres.py), started
on first use and stopped by its pid at the end, with a fresh database for each test that asks for one; and
the process's log lines captured as JSON (``captured``)."""

from __future__ import annotations

import io
import itertools
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Before anything imports grpc: its fork handlers, run in a child forked while gRPC threads are busy, crashed
# the child (SIGSEGV before exec) when a test restarted PostgreSQL mid-game. The tests fork only to exec.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from scripts.postgres import Postgres
from server.logs import configure_logging, unconfigure_logging

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    # fsync off: the tests crash PostgreSQL's processes, never the machine, and a commit still waits for its
    # write-ahead log to reach the kernel (synchronous_commit stays on), which a process crash cannot lose;
    # waiting for the disk too would only slow a loaded machine's tests down.
    server = Postgres(fsync=False)
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture
def pg_url(postgres: Postgres) -> str:
    """The URL of a new, empty database on the session's PostgreSQL server."""
    return postgres.create_database(f"test_{next(_databases)}")


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store for each kind: a SQLite file, then a PostgreSQL database (``--db`` of either)."""
    if request.param == "sqlite":
        return str(tmp_path / "thousand.db")
    url: str = request.getfixturevalue("pg_url")
    return url


class Captured:
    def __init__(self) -> None:
        self.stream = io.StringIO()

    @property
    def text(self) -> str:
        return self.stream.getvalue()

    def lines(self) -> list[dict[str, Any]]:
        """Every line, parsed: each must be one JSON object."""
        parsed = []
        for line in self.text.splitlines():
            value = json.loads(line)
            assert isinstance(value, dict), line
            parsed.append(value)
        return parsed

    def find(self, msg: str, **fields: object) -> list[dict[str, Any]]:
        return [
            line
            for line in self.lines()
            if line["msg"] == msg and all(line.get(k) == v for k, v in fields.items())
        ]


@pytest.fixture
def captured() -> Iterator[Captured]:
    """The process's logs as JSON lines in memory, at debug level; the logging setup is restored after."""
    root = logging.getLogger()
    level = root.level
    capture = Captured()
    handler = configure_logging("json", "debug", stream=capture.stream)
    try:
        yield capture
    finally:
        unconfigure_logging(handler)
        root.setLevel(level)


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The tests read the clients' English unless they choose a language themselves (tests/test_i18n_*.py):
    a developer's own LANG (ru_RU.UTF-8, say) is not what the suite's commands and processes speak."""
    from clients.i18n import use  # noqa: PLC0415 (the fixture of every test: import when it runs)

    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)
    use("en")
    yield
    use("en")
