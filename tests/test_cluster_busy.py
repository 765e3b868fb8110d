"""Heartbeats under load (issue #32, sixth finding): a node whose event loop is busy is slow, not dead.

Under load (load average 3 to 5 on 2 cores) nodes left SERVING when a heartbeat ran more than 1 s late. The
heartbeat runs on a thread of its own, on a connection of its own (server/membership.py), and readiness is
read from it: a loop kept busy, even past a whole lease at a time, must delay neither. Node a here is a real
server whose loop is blocked by bursts of engine work (tests/busy_node.py) longer than the lease, over and
over, while its tables of bots play: the others never declare it dead, it never leaves SERVING, and no table
moves (docs/operations.md, "Faults": "A busy node").
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.cluster_harness import LEASE_SECONDS, Cluster, cluster
from tests.server_harness import run
from tests.test_cluster import stub
from thousand.v1 import table_service_pb2 as pb

BLOCK_SECONDS = 1.5 * LEASE_SECONDS
"""Each burst blocks node a's loop for longer than a lease: a heartbeat on the loop would miss it."""
GAP_SECONDS = 1.0
"""The loop runs this long between two bursts (the tables play, requests are answered)."""
WATCHED_SECONDS = 20.0
"""How long the test watches: five bursts or so."""
TABLES = 4
SERVICE = "thousand.v1.TableService"


def test_a_node_whose_loop_is_blocked_past_its_lease_is_not_declared_dead_and_stays_serving(
    tmp_path: Path, pg_url: str
) -> None:
    busy = ("tests.busy_node", str(BLOCK_SECONDS), str(GAP_SECONDS))
    flags = ("--rebalance-seconds", "0")  # a's tables stay where they were made unless a is declared dead
    with cluster(tmp_path, pg_url, ["a", "b", "c"], flags=flags, modules={"a": busy}) as nodes:
        statuses = run(watch(nodes))
        stalled = nodes.metric("a", "thousand_event_loop_stalled_seconds_total")
    bursts = (tmp_path / "node-a.log").read_text().count("busy_node: loop blocked")
    assert bursts >= 3, bursts
    assert stalled >= 2 * BLOCK_SECONDS, stalled  # the loop really did not run, lease after lease
    assert statuses and set(statuses) == {health_pb2.HealthCheckResponse.SERVING}, statuses
    for name in ("a", "b", "c"):
        log = (tmp_path / f"node-{name}.log").read_text()
        assert "node declared dead" not in log, name
        assert "declared dead by the cluster" not in log, name
        assert "readiness changed" not in log, name


async def watch(nodes: Cluster) -> list[int]:
    """Tables of bots made on a; a's readiness asked every 0.2 s for WATCHED_SECONDS (each answer whenever
    a's loop gets to it); then what the database says: nobody dead, no table moved, every table played on."""
    a = stub(nodes.address("a"))
    bot = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")
    tables = []
    for seed in range(TABLES):
        request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[bot, bot, bot], seed=seed)
        tables.append((await a.CreateTable(request, timeout=30)).table.table_id)
    claims = nodes.rows("SELECT count(*) FROM {S}.claims")[0][0]
    records_before = dict(nodes.rows("SELECT table_id, next_number FROM {S}.tables"))
    statuses: list[int] = []
    async with aio.insecure_channel(nodes.address("a")) as channel:
        health: Any = health_pb2_grpc.HealthStub(channel)
        deadline = time.monotonic() + WATCHED_SECONDS
        while time.monotonic() < deadline:
            reply = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=30)
            statuses.append(reply.status)
            await asyncio.sleep(0.2)
    states = {n: (s, g) for n, s, g in nodes.rows("SELECT node_id, state, generation FROM {S}.nodes")}
    assert states == {name: ("active", 1) for name in ("a", "b", "c")}, states
    assert nodes.rows("SELECT count(*) FROM {S}.claims")[0][0] == claims
    assert {t: nodes.owners()[t] for t in tables} == {t: "a" for t in tables}
    records_after = dict(nodes.rows("SELECT table_id, next_number FROM {S}.tables"))
    assert all(records_after[t] > records_before[t] for t in tables), (records_before, records_after)
    return statuses
