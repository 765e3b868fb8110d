"""The cluster benchmark: the PostgreSQL store against the SQLite one, one node against two, and takeovers.

``python bench/cluster.py [--seconds 10] [--tables 24] [--lease 2]`` starts a throwaway PostgreSQL
(scripts/postgres.py) and real server processes on loopback, and measures:

- **Throughput**: tables of server bots (Thousand, greedy) play with no client in the loop, so every core
  the machine has goes to the servers and the database: actions stored per second with the SQLite store
  (one process), with PostgreSQL and one node, and with PostgreSQL and two nodes (the tables split between
  them), each over ``--seconds``; and the server processes' CPU per action (from /proc), the PostgreSQL
  processes' too. The SQLite run is the reference of the same run: ratios, not absolute figures, carry over
  to another machine.
- **Takeover**: two nodes with ``--lease`` seconds, 1, 10 and 100 (``--takeover-sizes``) live tables on node
  a; once they play (and each has ``--takeover-records`` records), a is SIGKILLed and the database is watched
  (every 10 ms) for each table's next stored record: the time from the kill to it, p50 and max (the goal:
  under 2 s with a 2 s lease); and the replay time per table node b logged when it claimed them (``table
  claimed``'s ``replay_ms``), against the records replayed: milliseconds per thousand records (a least-squares
  line through the origin) and the longest.
- **Replay against length, with and without snapshots** (``--snapshot-lengths``; bench/cluster_snapshots.py):
  tables of heuristic bots stopped at each of these lengths (moves) by a real server storing a snapshot every
  ``--snapshot-records``, then rebuilt here as a takeover rebuilds them, from every record and from the
  snapshot and the records after it: the read and the replay, in milliseconds.
- **Rebalance**: three nodes, ``--rebalance-tables`` tables waiting for a player spread evenly; each node in
  turn is stopped (SIGTERM: its tables go to the others) and started again; the time from the last start to
  every node holding within one of a fair share.

Everything talks to 127.0.0.1 only and stops by itself; the last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from grpc import aio

# Run as ``python bench/cluster.py``, Python puts bench/ first on sys.path, where bench/server.py would shadow
# the server package: the repository's root instead.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

from bench.cluster_snapshots import snapshot_replay  # noqa: E402
from bench.procs import (  # noqa: E402
    HOST,
    cpu_seconds,
    load_average,
    percentile,
    server_argv,
    start,
    stop,
    wait_for_port,
)
from scripts.ports import free_port  # noqa: E402
from scripts.postgres import Postgres, children  # noqa: E402
from thousand.v1 import table_service_pb2 as pb  # noqa: E402
from thousand.v1 import table_service_pb2_grpc as pb_grpc  # noqa: E402

BOT = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")


@dataclass
class Node:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"


@contextmanager
def nodes(workdir: Path, db: str, names: Sequence[str], lease: float) -> Iterator[list[Node]]:
    """Server processes on ``db``: one per name (cluster nodes for a PostgreSQL URL), stopped at the end."""
    with ExitStack() as stack:
        started = []
        for name in names:
            port = free_port()
            argv = [
                *server_argv(port, db),
                "--rate-limit",
                "0",
                "--log-level",
                "info",
                "--log-format",
                "json",
            ]
            if db.startswith("postgresql://"):
                argv += [
                    "--node-id",
                    name,
                    "--advertise-address",
                    f"{HOST}:{port}",
                    "--lease-seconds",
                    str(lease),
                    "--rebalance-seconds",  # the tables stay where they were made: a's, for the takeover
                    "0",
                ]
            log = workdir / f"{Path(db).name if not db.startswith('postgresql') else 'pg'}-{name}.log"
            process = start(argv, log, quotas=False)  # one client creates every table
            stack.callback(stop, process)
            wait_for_port(port, process, log, timeout=60)
            started.append(Node(name, port, process, log))
        yield started


async def create_tables(node: Node, count: int, seed: int) -> list[str]:
    async with aio.insecure_channel(node.address) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        made = []
        for i in range(count):
            request = pb.CreateTableRequest(
                game=pb.GAME_KIND_THOUSAND, seats=[BOT, BOT, BOT], seed=seed + i, first_dealer=0
            )
            made.append((await stub.CreateTable(request)).table.table_id)
        return made


def record_count(db: str) -> int:
    if db.startswith("postgresql://"):
        with psycopg.connect(db) as connection:
            row = connection.execute("SELECT count(*) FROM thousand.records").fetchone()
    else:
        with sqlite3.connect(db) as connection:
            row = connection.execute("SELECT count(*) FROM records").fetchone()
    assert row is not None
    return int(row[0])


def database_cpu(database: Postgres | None) -> float:
    if database is None or database.pid is None:
        return 0.0
    total = 0.0
    for pid in [database.pid, *children(database.pid)]:
        with contextlib.suppress(OSError):  # a backend that just ended
            total += cpu_seconds(pid)
    return total


def throughput(
    *,
    label: str,
    db: str,
    names: Sequence[str],
    tables: int,
    seconds: float,
    workdir: Path,
    database: Postgres | None,
) -> dict[str, Any]:
    """Actions per second and CPU per action of bot tables on ``len(names)`` server processes."""
    with nodes(workdir, db, names, lease=5.0) as running:
        for i, node in enumerate(running):  # the tables split between the nodes, each created on its own
            asyncio.run(create_tables(node, tables // len(running), seed=1000 * (i + 1)))
        time.sleep(1.0)  # under way
        before = (record_count(db), time.monotonic(), [cpu_seconds(n.process.pid) for n in running])
        db_before = database_cpu(database)
        time.sleep(seconds)
        after = (record_count(db), time.monotonic(), [cpu_seconds(n.process.pid) for n in running])
        db_after = database_cpu(database)
    actions = after[0] - before[0]
    elapsed = after[1] - before[1]
    server_cpu = sum(a - b for a, b in zip(after[2], before[2], strict=True))
    result = {
        "label": label,
        "processes": len(names),
        "actions": actions,
        "actions_per_s": round(actions / elapsed, 1),
        "server_cpu_ms_per_action": round(1000 * server_cpu / max(1, actions), 3),
        "database_cpu_ms_per_action": round(1000 * (db_after - db_before) / max(1, actions), 3),
    }
    print(
        f"{label:>22}: {result['actions_per_s']:8.1f} actions/s,"
        f" server CPU {result['server_cpu_ms_per_action']:.3f} ms/action,"
        f" database CPU {result['database_cpu_ms_per_action']:.3f} ms/action",
        flush=True,
    )
    return result


def takeover(url: str, tables: int, lease: float, workdir: Path, min_records: int = 0) -> dict[str, Any]:
    """SIGKILL the node owning every table (once each has ``min_records`` records); each table's time to its
    next stored record, and the replays."""
    with nodes(workdir, url, ["a", "b"], lease) as (a, b):
        asyncio.run(create_tables(a, tables, seed=5000))
        time.sleep(max(1.0, lease))  # under way, and b's view of a is fresh
        with psycopg.connect(url, autocommit=True) as watch:

            def counts() -> dict[str, int]:
                rows = watch.execute("SELECT table_id, next_number FROM thousand.tables WHERE NOT finished")
                return {t: int(n) for t, n in rows.fetchall()}

            while min_records and min(counts().values(), default=min_records) < min_records:
                time.sleep(0.2)  # long tables: the replay's share of the takeover

            a.process.kill()
            a.process.wait()
            killed = time.monotonic()
            at_kill = counts()
            moved: dict[str, float] = {}
            deadline = killed + 10 * lease + 20
            while len(moved) < len(at_kill) and time.monotonic() < deadline:
                for table_id, number in counts().items():
                    if table_id in at_kill and table_id not in moved and number > at_kill[table_id]:
                        moved[table_id] = time.monotonic() - killed
                time.sleep(0.01)
        time.sleep(0.5)  # b's log lines are written
    replays = [
        line
        for line in (json.loads(text) for text in b.log.read_text().splitlines() if text.startswith("{"))
        if line.get("msg") == "table claimed" and line.get("reason") == "takeover"
    ]
    times = sorted(moved.values())
    pairs = [(int(line["records"]), float(line["replay_ms"])) for line in replays]
    replay_ms = sorted(float(line["replay_ms"]) for line in replays)
    records = sorted(int(line["records"]) for line in replays)
    result = {
        "lease_s": lease,
        "tables": len(at_kill),
        "moved": len(moved),
        "takeover_p50_s": round(percentile(times, 0.5), 3) if times else None,
        "takeover_max_s": round(times[-1], 3) if times else None,
        "replay_p50_ms": round(percentile(replay_ms, 0.5), 2) if replay_ms else None,
        "replay_max_ms": round(replay_ms[-1], 2) if replay_ms else None,
        "replayed_records_p50": percentile(records, 0.5) if records else None,
        **replay_line(pairs),
    }
    result["records_at_kill_min"] = min(at_kill.values(), default=0)
    print(
        f"takeover with a {lease:g} s lease: {len(moved)}/{len(at_kill)} tables moved"
        f" (at least {result['records_at_kill_min']} records each);"
        " next event after the kill"
        f" p50 {result['takeover_p50_s']} s, max {result['takeover_max_s']} s; replay per table p50"
        f" {result['replay_p50_ms']} ms (max {result['replay_max_ms']} ms, ~{result['replayed_records_p50']}"
        " records)",
        flush=True,
    )
    return result


def replay_line(replays: list[tuple[int, float]]) -> dict[str, Any]:
    """Replay time against table length: ms per 1000 records (least squares through the origin)."""
    if not replays:
        return {}
    squares = sum(records * records for records, _ in replays)
    slope = sum(records * ms for records, ms in replays) / max(1, squares)
    longest = max(replays)
    return {
        "replay_ms_per_1000_records": round(slope * 1000, 2),
        "longest_replayed_records": longest[0],
        "longest_replay_ms": round(longest[1], 2),
    }


def rebalance(url: str, tables: int, lease: float, workdir: Path) -> dict[str, Any]:
    """A rolling restart of three nodes; seconds from the last restart to a fair spread."""
    names = ["a", "b", "c"]
    ports = {name: free_port() for name in names}

    def launch(name: str) -> subprocess.Popen[bytes]:
        argv = [
            *server_argv(ports[name], url),
            *("--rate-limit", "0", "--log-format", "json"),
            *("--node-id", name, "--advertise-address", f"{HOST}:{ports[name]}"),
            *("--lease-seconds", str(lease)),
        ]
        process = start(argv, workdir / f"rebalance-{name}.log", quotas=False)
        wait_for_port(ports[name], process, workdir / f"rebalance-{name}.log", timeout=60)
        return process

    processes = {name: launch(name) for name in names}
    try:

        async def create() -> None:
            open_seat = pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)
            for i in range(tables):
                address = f"{HOST}:{ports[names[i % 3]]}"
                async with aio.insecure_channel(address) as channel:
                    request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[open_seat, BOT, BOT])
                    await pb_grpc.TableServiceStub(channel).CreateTable(request)

        asyncio.run(create())
        for name in names:
            stop(processes[name])
            processes[name] = launch(name)
        restarted = time.monotonic()
        fair = math.ceil(tables / 3)
        with psycopg.connect(url, autocommit=True) as watch:
            spread: float | None = None
            while time.monotonic() - restarted < 120:
                rows = watch.execute(
                    "SELECT owner, count(*) FROM thousand.tables WHERE NOT finished GROUP BY owner"
                ).fetchall()
                loads = {str(owner): int(count) for owner, count in rows}
                if sorted(loads) == names and all(abs(c - tables / 3) < 1 + 1e-9 for c in loads.values()):
                    spread = time.monotonic() - restarted
                    break
                time.sleep(0.05)
    finally:
        for process in processes.values():
            stop(process)
    result = {"tables": tables, "fair_share": fair, "spread_s": None if spread is None else round(spread, 2)}
    print(f"rebalance after a rolling restart of 3 nodes, {tables} tables: fair in {result['spread_s']} s")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time of each throughput run")
    parser.add_argument("--tables", type=int, default=24, help="bot tables in each run")
    parser.add_argument("--lease", type=float, default=2.0, help="the takeover run's --lease-seconds")
    parser.add_argument(
        "--takeover-sizes", default="1,10,100", help="live tables on the killed node, one run each"
    )
    parser.add_argument(
        "--takeover-records", type=int, default=0, help="records every table has before the kill (0: any)"
    )
    parser.add_argument("--rebalance-tables", type=int, default=30, help="tables of the rebalance run")
    parser.add_argument("--skip-throughput", action="store_true", help="only the takeovers and the rebalance")
    parser.add_argument(
        "--snapshot-lengths", default="250,500,1000,2000", help="moves of the replay run's tables ('': none)"
    )
    parser.add_argument(
        "--snapshot-records", type=int, default=256, help="the replay run's --snapshot-records"
    )
    parser.add_argument(
        "--replay-only", action="store_true", help="only the replay run (no throughput, takeover, rebalance)"
    )
    args = parser.parse_args(argv)
    print(f"load average before: {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="thousand-bench-cluster-") as directory:
        workdir = Path(directory)
        database = Postgres(fsync=True)
        try:
            database.start()
            common = {"tables": args.tables, "seconds": args.seconds, "workdir": workdir}
            lengths = [int(n) for n in args.snapshot_lengths.split(",") if n]
            replays = snapshot_replay(
                database.create_database("snapshots"), workdir, lengths, args.snapshot_records
            )
            if args.replay_only:
                print(json.dumps({"replay": replays}))
                return 0
            runs = (
                []
                if args.skip_throughput
                else [
                    throughput(
                        label="sqlite, 1 process",
                        db=str(workdir / "bench.db"),
                        names=["a"],
                        database=None,
                        **common,
                    ),
                    throughput(
                        label="postgresql, 1 node",
                        db=database.create_database("one"),
                        names=["a"],
                        database=database,
                        **common,
                    ),
                    throughput(
                        label="postgresql, 2 nodes",
                        db=database.create_database("two"),
                        names=["a", "b"],
                        database=database,
                        **common,
                    ),
                ]
            )
            moved = [
                takeover(
                    database.create_database(f"takeover{size}"),
                    int(size),
                    args.lease,
                    workdir,
                    args.takeover_records,
                )
                for size in args.takeover_sizes.split(",")
            ]
            spread = rebalance(
                database.create_database("rebalance"), args.rebalance_tables, args.lease, workdir
            )
        finally:
            database.remove()
    for run in runs[1:]:
        reference = runs[0]
        run["cpu_ratio_to_sqlite"] = round(
            run["server_cpu_ms_per_action"] / max(1e-9, reference["server_cpu_ms_per_action"]), 2
        )
        run["throughput_ratio_to_sqlite"] = round(
            run["actions_per_s"] / max(1e-9, reference["actions_per_s"]), 2
        )
    print(f"load average after: {load_average()}", flush=True)
    print(json.dumps({"throughput": runs, "takeover": moved, "rebalance": spread, "replay": replays}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
