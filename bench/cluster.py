"""The cluster benchmark: the PostgreSQL store against the SQLite one, one node against two, and takeovers.

``python bench/cluster.py [--seconds 10] [--tables 24] [--lease 2]`` starts a throwaway PostgreSQL
(scripts/postgres.py) and real server processes on loopback, and measures:

- **Throughput**: tables of server bots (Thousand, greedy) play with no client in the loop, so every core
  the machine has goes to the servers and the database: actions stored per second with the SQLite store
  (one process), with PostgreSQL and one node, and with PostgreSQL and two nodes (the tables split between
  them), each over ``--seconds``; and the server processes' CPU per action (from /proc), the PostgreSQL
  processes' too. The SQLite run is the reference of the same run: ratios, not absolute figures, carry over
  to another machine.
- **Takeover**: two nodes with ``--lease`` seconds, the tables on node a; once they play, a is SIGKILLed and
  the database is watched (every 10 ms) for each table's next stored record: the time from the kill to it,
  p50 and max (the goal: under 2 s with a 2 s lease); and the replay time per table node b logged when it
  claimed them (``table claimed``'s ``replay_ms``), against the records replayed.

Everything talks to 127.0.0.1 only and stops by itself; the last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
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

from bench.procs import (  # noqa: E402
    HOST,
    cpu_seconds,
    free_port,
    load_average,
    percentile,
    server_argv,
    start,
    stop,
    wait_for_port,
)
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


def takeover(url: str, tables: int, lease: float, workdir: Path) -> dict[str, Any]:
    """SIGKILL the node owning every table; each table's time to its next stored record, and the replays."""
    with nodes(workdir, url, ["a", "b"], lease) as (a, b):
        asyncio.run(create_tables(a, tables, seed=5000))
        time.sleep(max(1.0, lease))  # under way, and b's view of a is fresh
        with psycopg.connect(url, autocommit=True) as watch:

            def counts() -> dict[str, int]:
                rows = watch.execute("SELECT table_id, next_number FROM thousand.tables WHERE NOT finished")
                return {t: int(n) for t, n in rows.fetchall()}

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
    }
    print(
        f"takeover with a {lease:g} s lease: {len(moved)}/{len(at_kill)} tables moved;"
        " next event after the kill"
        f" p50 {result['takeover_p50_s']} s, max {result['takeover_max_s']} s; replay per table p50"
        f" {result['replay_p50_ms']} ms (max {result['replay_max_ms']} ms, ~{result['replayed_records_p50']}"
        " records)",
        flush=True,
    )
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time of each throughput run")
    parser.add_argument("--tables", type=int, default=24, help="bot tables in each run")
    parser.add_argument("--lease", type=float, default=2.0, help="the takeover run's --lease-seconds")
    args = parser.parse_args(argv)
    print(f"load average before: {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="thousand-bench-cluster-") as directory:
        workdir = Path(directory)
        database = Postgres(fsync=True)
        try:
            database.start()
            common = {"tables": args.tables, "seconds": args.seconds, "workdir": workdir}
            runs = [
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
            moved = takeover(database.create_database("takeover"), args.tables, args.lease, workdir)
        finally:
            database.remove()
    reference = runs[0]
    for run in runs[1:]:
        run["cpu_ratio_to_sqlite"] = round(
            run["server_cpu_ms_per_action"] / max(1e-9, reference["server_cpu_ms_per_action"]), 2
        )
        run["throughput_ratio_to_sqlite"] = round(
            run["actions_per_s"] / max(1e-9, reference["actions_per_s"]), 2
        )
    print(f"load average after: {load_average()}", flush=True)
    print(json.dumps({"throughput": runs, "takeover": moved}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
