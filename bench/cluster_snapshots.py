"""Replay time against a table's length, with and without snapshots (issue #32; server/snapshots.py): part of
bench/cluster.py (``--snapshot-lengths``).

For each length, a real server on the benchmark's PostgreSQL plays tables of three heuristic bots (a
strategy with memory, so the snapshot holds their beliefs too) until the pacer stops them at that many moves
(``--bot-table-max-moves``; a game that ends sooner is as long as it is), storing a snapshot every
``--snapshot-records``. The server is stopped; then this process rebuilds each table as a takeover does (the
store's ``get_many`` on a connection of its own, then ``Registry.adopt``) both ways: from every record, and
from its snapshot and the records after it. Each figure is the median of three tries, the read and the
replay apart.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

import psycopg
from grpc import aio

from bench.procs import HOST, server_argv, start, stop, wait_for_port
from scripts.ports import free_port
from server.registry import Registry
from server.store_pg import PostgresStore
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TABLES_PER_LENGTH = 2
TRIES = 3


def snapshot_replay(url: str, workdir: Path, lengths: list[int], every: int) -> list[dict[str, Any]]:
    """Per table: its records, and the median read and replay times from every record and from its
    snapshot (with how many records it replayed after the snapshot)."""
    tables: list[str] = []
    for length in lengths:
        tables += play(url, workdir, length, every)
    store = PostgresStore(url)
    figures = []
    try:
        for table_id in tables:
            whole = rebuild(store, table_id, snapshots=False)
            from_snapshot = rebuild(store, table_id, snapshots=True)
            figures.append(
                {"records": whole["replayed"], **_named(whole, "full"), **_named(from_snapshot, "snap")}
            )
            print(
                f"replay of {whole['replayed']} records: every record {whole['read_ms']} ms read +"
                f" {whole['replay_ms']} ms replay; snapshot + {from_snapshot['replayed']} records"
                f" {from_snapshot['read_ms']} ms + {from_snapshot['replay_ms']} ms",
                flush=True,
            )
    finally:
        store.close()
    return figures


def _named(figures: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {f"{prefix}_{key}": value for key, value in figures.items()}


def play(url: str, workdir: Path, length: int, every: int) -> list[str]:
    """TABLES_PER_LENGTH tables played by a server stopping them at ``length`` moves; their ids once all
    are over (the server stopped)."""
    port = free_port()
    argv = [
        *server_argv(port, url),
        *("--rate-limit", "0", "--log-format", "json", "--node-id", f"snap{length}"),
        *("--advertise-address", f"{HOST}:{port}", "--rebalance-seconds", "0"),
        *("--bot-table-max-moves", str(length), "--snapshot-records", str(every)),
    ]
    log = workdir / f"snapshots-{length}.log"
    process = start(argv, log, quotas=False)
    try:
        wait_for_port(port, process, log, timeout=60)
        made = asyncio.run(_create(f"{HOST}:{port}", length))
        deadline = time.monotonic() + 600
        with psycopg.connect(url, autocommit=True) as watch:
            while time.monotonic() < deadline:
                row = watch.execute(
                    "SELECT count(*) FROM thousand.tables WHERE finished AND table_id = ANY(%s)", (made,)
                ).fetchone()
                if row is not None and row[0] == len(made):
                    break
                time.sleep(0.2)
    finally:
        stop(process)
    return made


async def _create(address: str, seed: int) -> list[str]:
    bot = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="heuristic")
    async with aio.insecure_channel(address) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        return [
            (
                await stub.CreateTable(
                    pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[bot, bot, bot], seed=seed + i)
                )
            ).table.table_id
            for i in range(TABLES_PER_LENGTH)
        ]


def rebuild(store: PostgresStore, table_id: str, *, snapshots: bool) -> dict[str, Any]:
    """The median of TRIES rebuilds of the table as a takeover makes them: read (ms), replay (ms), and how
    many records were replayed."""
    reads, replays, replayed = [], [], 0
    for _ in range(TRIES):
        began = time.perf_counter()
        stored = store.get_many([table_id], snapshots=snapshots)[table_id]
        read = time.perf_counter()
        Registry(store).adopt(stored)
        reads.append((read - began) * 1000)
        replays.append((time.perf_counter() - read) * 1000)
        replayed = len(stored.records)
    return {
        "replayed": replayed,
        "read_ms": round(statistics.median(reads), 2),
        "replay_ms": round(statistics.median(replays), 2),
    }
