"""A cluster on loopback for the tests: several real ``thousand-server`` processes sharing one PostgreSQL
database (tests/conftest.py's), each a node with its own id and a short lease; and readings of the database
the nodes share (who owns what, the claims, the records)."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from scripts.ports import free_port
from scripts.postgres import Postgres
from server.cluster_db import LIVE_OWNER, LOCK_CLASS
from server.store_pg import SCHEMA
from tests.live_server import LiveServer

LEASE_SECONDS = 2.0
NO_CLIENT_QUOTAS = (
    "--max-tables-per-client",
    "0",
    "--max-bot-tables",
    "0",
    "--max-bot-tables-per-client",
    "0",
)
"""The tests' one client creates every table (dozens of bots only): the per-client and bot-only quotas are
lifted, unless a test's ``flags`` set them again (a later flag wins)."""


@dataclass
class Cluster:
    url: str
    nodes: dict[str, LiveServer]
    metrics_ports: dict[str, int]
    web_ports: dict[str, int]

    def web_address(self, name: str) -> str:
        return f"127.0.0.1:{self.web_ports[name]}"

    def metric(self, name: str, series: str) -> float:
        """One series' value in node ``name``'s /metrics (``series``: the name with its labels)."""
        with urllib.request.urlopen(
            f"http://127.0.0.1:{self.metrics_ports[name]}/metrics", timeout=10
        ) as page:
            for line in page.read().decode().splitlines():
                if line.startswith(series + " "):
                    return float(line.split()[-1])
        raise KeyError(series)

    def address(self, name: str) -> str:
        return self.nodes[name].address

    def addresses(self, first: str | None = None) -> str:
        """Every node's address, ``first``'s first: a client's ``--server`` for the cluster."""
        names = sorted(self.nodes, key=lambda n: (n != first, n))
        return ",".join(self.address(n) for n in names)

    def name_of(self, address: str) -> str:
        return next(name for name, node in self.nodes.items() if node.address == address)

    def rows(self, query: str, *params: object) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.url) as connection:
            return connection.execute(query.replace("{S}", SCHEMA), params).fetchall()

    def owners(self) -> dict[str, str | None]:
        """Table id -> the node the database says owns it."""
        return {t: o for t, o in self.rows("SELECT table_id, owner FROM {S}.tables")}

    def live(self) -> set[str]:
        """The nodes the cluster counts as serving (what placement and takeovers read: active, lock held)."""
        with psycopg.connect(self.url) as connection:
            rows = connection.execute(
                f"SELECT n.node_id FROM {SCHEMA}.nodes n WHERE {LIVE_OWNER}", {"lock_class": LOCK_CLASS}
            ).fetchall()
        return {str(node_id) for (node_id,) in rows}

    def wait_live(self, names: Sequence[str], timeout: float = 30) -> None:
        """Wait until nodes ``names`` have joined the cluster. A node's port accepts connections as soon as
        it is bound, before the node joins (calls queue until it serves): a test started then would find a
        node missing from the membership (least-loaded placement kept tables on the node asked)."""
        deadline = time.monotonic() + timeout
        while missing := set(names) - self.live():
            if time.monotonic() > deadline:
                raise RuntimeError(f"nodes {sorted(missing)} did not join within {timeout} s")
            time.sleep(0.05)

    def unfinished_by_owner(self) -> dict[str, int]:
        rows = self.rows("SELECT owner, count(*) FROM {S}.tables WHERE NOT finished GROUP BY owner")
        return {str(owner): int(count) for owner, count in rows if owner is not None}


@contextmanager
def cluster(
    directory: Path,
    url: str,
    names: Sequence[str],
    *,
    lease: float = LEASE_SECONDS,
    flags: Sequence[str] = (),
    web: bool = False,
    modules: Mapping[str, tuple[str, ...]] = {},
) -> Iterator[Cluster]:
    """Nodes ``names`` on free ports, serving the database at ``url``, given once every one has joined the
    cluster (:meth:`Cluster.wait_live`; not merely once its port listens); each stopped (SIGTERM, by its pid)
    at the end, or killed if it does not stop. ``modules``: what runs a node instead of ``server.app``
    (:attr:`tests.live_server.LiveServer.module`)."""
    with ExitStack() as stack:
        nodes: dict[str, LiveServer] = {}
        metrics_ports: dict[str, int] = {}
        web_ports: dict[str, int] = {}
        for name in names:
            port = free_port()
            metrics_ports[name] = free_port()
            web_flags = ("--web-port", str(web_ports.setdefault(name, free_port()))) if web else ()
            node = LiveServer(
                port=port,
                db=url,
                log=directory / f"node-{name}.log",
                args=(
                    *("--node-id", name, "--advertise-address", f"127.0.0.1:{port}"),
                    *("--lease-seconds", str(lease), "--metrics-port", str(metrics_ports[name])),
                    *web_flags,
                    *NO_CLIENT_QUOTAS,
                    *flags,
                ),
                module=modules.get(name, ("server.app",)),
            )
            node.start()
            stack.callback(node.stop)
            nodes[name] = node
        started = Cluster(url, nodes, metrics_ports, web_ports)
        started.wait_live(names)
        yield started


@contextmanager
def cluster_on_own_database(
    directory: Path, names: Sequence[str], *, lease: float = LEASE_SECONDS, flags: Sequence[str] = ()
) -> Iterator[tuple[Cluster, Postgres]]:
    """:func:`cluster` on a PostgreSQL of its own, for a test that crashes or restarts it (the session's is
    shared); removed, by its pid, at the end."""
    database = Postgres(fsync=False)
    try:
        database.start()
        url = database.create_database("cluster")
        with cluster(directory, url, names, lease=lease, flags=flags) as nodes:
            yield nodes, database
    finally:
        database.remove()
