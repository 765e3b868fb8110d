"""The capacity benchmark: the game server's memory per idle table, and the CPU it spends on idle tables.

Usage::

    python bench/capacity.py [--tables 2000] [--idle-seconds 5] [--connections seat] [--streams events]

The game server runs in its own process, started as an operator would (``python -m server.app --db :memory:
--log-level warning``, output in a log file); this process is the client. It creates ``--tables`` tables of
three open seats, joins every seat (so every game starts: the first deal is dealt and the first seat must
decide), then opens a StreamEvents stream for every seat and waits until each has received its snapshot.
Nobody acts: every table waits on its first decision, as tables of slow or absent players do.

The server's resident set size (``VmRSS`` in ``/proc/<pid>/status``) is read before the tables (after one
warm-up table), once the tables' connections are open, once the tables are created and joined, and once
every stream is open; ``bytes_per_table`` is the whole growth over the number of tables, and the readings
split it into connections, the tables themselves and their streams. Idle CPU is the
server's CPU time (``/proc/<pid>/task/*/stat``, every thread) over ``--idle-seconds`` of idleness, as a
percentage of one core, first with no table (the server's own floor) and then with every table streaming;
it is split between the Python threads, where the server's code runs, and gRPC core's own threads, whose
timers tick for every open connection whatever the server does (a bare grpc.aio server with as many idle
connections and streams spends the same). The target is judged on the Python threads. ``--connections
seat`` (default) gives every seat a connection of its own, as players on different machines have;
``shared`` puts every stream on one connection. ``--streams play`` opens a Play stream per seat instead of
StreamEvents (the client library's stream for a seat; it holds a reader of the seat's actions on the server
too). The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/capacity.py``: use the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import AsyncIterator, Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any, Final  # noqa: E402

import grpc  # noqa: E402
from grpc import aio  # noqa: E402

from bench import procs  # noqa: E402
from scripts.ports import free_port  # noqa: E402
from thousand.v1 import table_service_pb2 as pb  # noqa: E402
from thousand.v1 import table_service_pb2_grpc as pb_grpc  # noqa: E402

PLAYERS: Final = 3
TOKEN_METADATA: Final = "x-seat-token"
TARGET_BYTES_PER_TABLE: Final = 50 * 1024
"""The target: at most 50 KB of server memory per idle table with its three streams open."""
SETUP_CONCURRENCY: Final = 64
"""Calls in flight while tables are created, joined and streamed."""
SETTLE_SECONDS: Final = 1.0
"""A pause before each reading, so that whatever the last calls set in motion has finished."""
STREAM_TIMEOUT: Final = 120.0
"""How long every stream gets to deliver its snapshot."""


@dataclass(slots=True)
class Streams:
    """The open streams: how many have delivered their first message, and how many ended (none must)."""

    opening: asyncio.Semaphore
    """Streams waiting for their snapshot are at most SETUP_CONCURRENCY (see :meth:`Tables.stream_all`)."""
    first: int = 0
    messages: int = 0
    ended: int = 0
    end_codes: Counter[str] = field(default_factory=Counter)

    async def read(self, call: Any) -> None:
        waiting = True
        try:
            async for _ in call:
                self.messages += 1
                if waiting:
                    waiting = False
                    self.first += 1
                    self.opening.release()
        except aio.AioRpcError as error:
            self.end_codes[error.code().name] += 1
        else:
            self.end_codes["OK"] += 1
        finally:
            if waiting:
                self.opening.release()
        self.ended += 1


class Tables:
    """The client side: channels, seated tables and their streams."""

    def __init__(self, target: str, connections: str, kind: str = "events") -> None:
        self.target = target
        self.connections = connections
        self.kind = kind
        """``events``: a StreamEvents stream per seat; ``play``: a Play stream (as the client library's)."""
        self.quiet = asyncio.Event()
        """Never set: a Play stream's requests end with the benchmark."""
        self.channels: list[aio.Channel] = []
        self.seats: list[tuple[pb_grpc.TableServiceAsyncStub, str, tuple[tuple[str, str], ...]]] = []
        """(stub, table id, token metadata) per joined seat."""
        self.streams = Streams(asyncio.Semaphore(SETUP_CONCURRENCY))
        self.readers: list[asyncio.Task[None]] = []

    async def connect(self, tables: int) -> None:
        """Open the connections of ``tables`` more tables (three each, or the one shared); wait for them."""
        wanted = 1 if self.connections == "shared" else len(self.channels) + PLAYERS * tables
        new = []
        for _ in range(wanted - len(self.channels)):
            # A local subchannel pool: otherwise gRPC would share one connection between equal channels.
            channel = aio.insecure_channel(self.target, options=[("grpc.use_local_subchannel_pool", 1)])
            self.channels.append(channel)
            new.append(channel)
        limit = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def ready(channel: aio.Channel) -> None:
            async with limit:
                await asyncio.wait_for(channel.channel_ready(), STREAM_TIMEOUT)

        await asyncio.gather(*(ready(c) for c in new))

    async def open_table(self, index: int) -> None:
        """Create table ``index`` and join its seats, each over its own connection (``seat``)."""
        stubs: list[pb_grpc.TableServiceAsyncStub] = [
            pb_grpc.TableServiceStub(
                self.channels[0 if self.connections == "shared" else PLAYERS * index + seat]
            )
            for seat in range(PLAYERS)
        ]
        seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN) for _ in range(PLAYERS)]
        created = await stubs[0].CreateTable(
            pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=seats, seed=index, practice=True)
        )
        table_id = created.table.table_id
        for seat, stub in enumerate(stubs):
            joined = await stub.JoinTable(
                pb.JoinTableRequest(table_id=table_id, seat=seat, player_name=f"idle{seat}")
            )
            self.seats.append((stub, table_id, ((TOKEN_METADATA, joined.seat_token),)))

    async def open_tables(self, first: int, count: int) -> None:
        limit = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def one(index: int) -> None:
            async with limit:
                await self.open_table(index)

        await asyncio.gather(*(one(first + i) for i in range(count)))

    async def stream_all(self, timeout: float) -> None:
        """Open a stream for every joined seat not streaming yet; wait until each has its snapshot.

        At most SETUP_CONCURRENCY streams wait for their snapshot at a time: a burst of thousands of new calls
        overflows the gRPC core server's queue of calls the application has not picked up yet (its
        ``grpc.server.max_pending_requests``, 1000 by default), and the calls beyond it are cancelled.
        """
        deadline = time.monotonic() + timeout
        for stub, table_id, metadata in self.seats[len(self.readers) :]:
            await asyncio.wait_for(self.streams.opening.acquire(), max(0.0, deadline - time.monotonic()))
            if self.kind == "play":
                call: Any = stub.Play(self._play_requests(table_id), metadata=metadata)
            else:
                call = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=metadata)
            self.readers.append(asyncio.create_task(self.streams.read(call)))
        for _ in range(SETUP_CONCURRENCY):  # every stream has released its place: all have their snapshot
            await asyncio.wait_for(self.streams.opening.acquire(), max(0.0, deadline - time.monotonic()))
        for _ in range(SETUP_CONCURRENCY):
            self.streams.opening.release()
        if self.streams.ended:
            raise SystemExit(
                f"bench: streams ended before the tables were idle: {dict(self.streams.end_codes)}"
            )

    async def _play_requests(self, table_id: str) -> AsyncIterator[pb.PlayRequest]:
        start = pb.PlayRequest()
        start.start.table_id = table_id
        yield start
        await self.quiet.wait()

    async def close(self) -> None:
        for reader in self.readers:
            reader.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        await asyncio.gather(*(c.close() for c in self.channels), return_exceptions=True)


PYTHON_THREADS: Final = "python"
"""The name Python's threads have: the event loop, where all the server's code runs, and gRPC's poller."""


async def _idle_cpu(pid: int, seconds: float) -> tuple[float, float]:
    """The process's CPU use over ``seconds`` of idleness, in percent of one core: its Python threads, and
    the threads of gRPC core (timers and housekeeping of its connections)."""
    before = procs.thread_cpu_seconds(pid)
    began = time.monotonic()
    await asyncio.sleep(seconds)
    after = procs.thread_cpu_seconds(pid)
    elapsed = time.monotonic() - began
    python = after.get(PYTHON_THREADS, 0.0) - before.get(PYTHON_THREADS, 0.0)
    core = sum(after.values()) - sum(before.values()) - python
    return 100 * python / elapsed, 100 * core / elapsed


async def _measure(args: argparse.Namespace, pid: int, port: int) -> dict[str, Any]:
    tables = Tables(f"{procs.HOST}:{port}", args.connections, args.streams)
    n = args.tables
    rss: dict[str, int] = {}
    try:
        # Warm-up: the first table's one-off costs (imports, caches, gRPC's first calls) are the baseline's.
        await tables.connect(1)
        await tables.open_tables(0, 1)
        await tables.stream_all(STREAM_TIMEOUT)
        await asyncio.sleep(args.settle_seconds)
        rss["empty"] = procs.rss_bytes(pid)
        cpu_empty, core_empty = await _idle_cpu(pid, args.idle_seconds)

        began = time.monotonic()
        warm_connections = len(tables.channels)
        await tables.connect(n)
        await asyncio.sleep(args.settle_seconds)
        rss["connected"] = procs.rss_bytes(pid)
        await tables.open_tables(1, n)
        await asyncio.sleep(args.settle_seconds)
        rss["joined"] = procs.rss_bytes(pid)
        await tables.stream_all(STREAM_TIMEOUT)
        setup_s = time.monotonic() - began
        await asyncio.sleep(args.settle_seconds)
        rss["streaming"] = procs.rss_bytes(pid)
        cpu_idle, core_idle = await _idle_cpu(pid, args.idle_seconds)
        rss["after_idle"] = procs.rss_bytes(pid)
        if tables.streams.ended:
            raise SystemExit(
                f"bench: streams ended while the tables were idle: {dict(tables.streams.end_codes)}"
            )
    finally:
        await tables.close()

    per_table = (rss["streaming"] - rss["empty"]) / n
    connections = len(tables.channels) - warm_connections
    result: dict[str, Any] = {
        "tables": n,
        "connections": args.connections,
        "stream_kind": args.streams,
        "connections_opened": connections,
        "streams": PLAYERS * n,
        "idle_seconds": args.idle_seconds,
        **{f"rss_{name}_bytes": value for name, value in rss.items()},
        "bytes_per_table": round(per_table),
        "bytes_per_connection": round((rss["connected"] - rss["empty"]) / connections) if connections else 0,
        "bytes_per_table_state": round((rss["joined"] - rss["connected"]) / n),
        "bytes_per_stream": round((rss["streaming"] - rss["joined"]) / (PLAYERS * n)),
        "idle_cpu_percent": round(cpu_idle + core_idle, 2),
        "idle_cpu_python_percent": round(cpu_idle, 2),
        "idle_cpu_grpc_core_percent": round(core_idle, 2),
        "empty_idle_cpu_percent": round(cpu_empty + core_empty, 2),
        "empty_idle_cpu_python_percent": round(cpu_empty, 2),
        "setup_seconds": round(setup_s, 1),
        "bytes_per_table_target": TARGET_BYTES_PER_TABLE,
        "bytes_per_table_met": per_table <= TARGET_BYTES_PER_TABLE,
        # The server's own code runs on its Python threads; gRPC core's timers are the transport's.
        "idle_cpu_met": cpu_idle <= cpu_empty + _resolution(args.idle_seconds),
    }
    return result


def _resolution(seconds: float) -> float:
    """Two clock ticks over the interval, in percent: what /proc cannot tell from nothing."""
    return 100 * 2 / procs.CLOCK_TICKS / seconds


def _report(result: dict[str, Any], out: Callable[[str], None]) -> None:
    mib = 1024 * 1024
    n = result["tables"]

    def line(label: str, rss: int, note: str = "") -> None:
        out(f"  {label:<40}{rss / mib:9.1f} MiB   {note}".rstrip())

    out("")
    out(f"Game server memory (VmRSS), {n} idle tables, {result['streams']} streams:")
    line("empty server (one warm-up table)", result["rss_empty_bytes"])
    line(
        f"{result['connections_opened']} connection(s) open",
        result["rss_connected_bytes"],
        f"{result['bytes_per_connection'] / 1024:7.1f} KiB per connection",
    )
    line(
        f"{n} tables created and joined",
        result["rss_joined_bytes"],
        f"{result['bytes_per_table_state'] / 1024:7.1f} KiB per table",
    )
    line(
        "every seat streaming",
        result["rss_streaming_bytes"],
        f"{result['bytes_per_stream'] / 1024:7.1f} KiB per stream",
    )
    line(f"after {result['idle_seconds']:g} s idle", result["rss_after_idle_bytes"])
    verdict = "met" if result["bytes_per_table_met"] else "NOT met"
    out(
        f"  per idle table, all included            {result['bytes_per_table'] / 1024:9.1f} KiB"
        f"   (target at most {TARGET_BYTES_PER_TABLE // 1024} KB: {verdict})"
    )
    out(f"Game server CPU while idle ({result['idle_seconds']:g} s each, percent of one core):")
    out(f"  empty server                            {result['empty_idle_cpu_percent']:9.2f} %")
    label = f"{n} idle tables streaming"
    out(f"  {label:<40}{result['idle_cpu_percent']:9.2f} %")
    verdict = "met" if result["idle_cpu_met"] else "NOT met"
    out(
        f"    Python threads (the server's code)    {result['idle_cpu_python_percent']:9.2f} %"
        f"   (target none on idle tables: {verdict})"
    )
    out(f"    gRPC core threads (its own timers)    {result['idle_cpu_grpc_core_percent']:9.2f} %")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/capacity.py", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2000, help="idle tables to open (2000)")
    parser.add_argument("--idle-seconds", type=float, default=5.0, help="each idle CPU interval (5)")
    parser.add_argument("--connections", choices=("seat", "shared"), default="seat")
    parser.add_argument(
        "--streams",
        choices=("events", "play"),
        default="events",
        help="each seat's stream: StreamEvents (default), or Play (as the client library opens for a seat)",
    )
    parser.add_argument(
        "--settle-seconds", type=float, default=SETTLE_SECONDS, help="the pause before each reading (1)"
    )
    parser.add_argument("--logs", help="a directory for the server's log (kept); default a temporary one")
    parser.add_argument("--server-tree", help=procs.SERVER_TREE_HELP)
    args = parser.parse_args(argv)
    if args.tables <= 0 or args.idle_seconds <= 0:
        parser.error("--tables and --idle-seconds must be positive")
    result = _run(args, print)
    print(json.dumps(result, sort_keys=True))
    return 0


def _run(args: argparse.Namespace, out: Callable[[str], None]) -> dict[str, Any]:
    logs = Path(args.logs) if args.logs else Path(tempfile.mkdtemp(prefix="bench-capacity-"))
    logs.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server: subprocess.Popen[bytes] | None = None
    load_before = procs.load_average()
    out(f"{platform.python_implementation()} {platform.python_version()}, grpcio {grpc.__version__}")
    out(
        f"{args.tables} tables of {PLAYERS} open seats, every seat joined and streaming"
        f" ({args.connections} connections), nobody acting; load average before {load_before[0]:.2f}"
    )
    try:
        # One client process stands for thousands of players: the per-client rate limit (which would refuse
        # its 3,000th JoinTable in a burst, as it should for one real client) is off, as in bench/soak.py.
        argv = [*procs.server_argv(port), "--rate-limit", "0"]
        server = procs.start(argv, logs / "server.log", cwd=args.server_tree, quotas=False)
        procs.wait_for_port(port, server, logs / "server.log")
        result = asyncio.run(_measure(args, server.pid, port))
    finally:
        if server is not None:
            procs.stop(server)
    result["load_before"] = round(load_before[0], 2)
    result["load_after"] = round(procs.load_average()[0], 2)
    _report(result, out)
    out(
        f"set up in {result['setup_seconds']:.1f} s; load average {result['load_before']:.2f} before,"
        f" {result['load_after']:.2f} after"
    )
    if not args.logs:
        shutil.rmtree(logs, ignore_errors=True)
    return result


if __name__ == "__main__":
    sys.exit(main())
