"""The soak benchmark: many bot tables played to the end, one after another, for a while; errors and memory.

Usage::

    python bench/soak.py --seconds 60 [--tables 50] [--table-idle-seconds S] [--db :memory:|file]

The game server runs in its own process, started as an operator would (``python -m server.app --db :memory:
--rate-limit 0 --log-level warning``, output in a log file; ``--db file``: a new SQLite file beside the log,
whose size is reported); this process is the client. It keeps ``--tables`` tables going at once, each of
three server-side bot seats (strategy ``greedy``) watched by one spectator stream (StreamEvents without a
seat token); when a table's game ends, a new table takes its place, until ``--seconds`` have passed.

Errors (goal: 0) are every RPC error and every stream that ends without the game's end: its GameOver event,
or a snapshot showing the table finished. The server's resident set size is read once the first tables are
up, every tenth of the time after, and at the end (goal: flat once the tables' games have grown to their
usual length, a game or two into the soak). Actions per second is the sum of every table's sequence growth
(from CreateTable's reply to the last message its stream delivered) over the seconds.
``--table-idle-seconds`` is passed on to the server (how long a finished table stays in its memory). The
last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/soak.py``: use the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any, Final  # noqa: E402

import grpc  # noqa: E402
from grpc import aio  # noqa: E402

from bench import procs  # noqa: E402
from scripts.ports import free_port  # noqa: E402
from thousand.v1 import table_service_pb2 as pb  # noqa: E402
from thousand.v1 import table_service_pb2_grpc as pb_grpc  # noqa: E402

PLAYERS: Final = 3
STRATEGY: Final = "greedy"
CALL_TIMEOUT: Final = 30.0
"""Seconds a unary call may take before it counts as an error."""
FIRST_UP_TIMEOUT: Final = 60.0
"""Seconds the first tables get to deliver their first message before RSS is read."""
RSS_SAMPLES: Final = 10
"""How many times the server's RSS is read during the soak, evenly spaced, besides at its start and end."""


@dataclass(slots=True)
class Soak:
    """The client side's tallies."""

    stub: pb_grpc.TableServiceAsyncStub
    deadline: float
    errors: Counter[str] = field(default_factory=Counter)
    tables_started: int = 0
    tables_finished: int = 0
    actions: int = 0
    """Sequence growth summed over every table."""
    delivered: int = 0
    """Events the spectators were sent one by one (a stream that falls a queue behind is resynced by a
    snapshot instead, which skips events: sequence growth alone counts those as played and seen)."""
    resyncs: int = 0
    """Snapshots after a stream's first: each one skipped the events a lagging spectator missed."""
    cancelled_at_end: int = 0
    """Streams of unfinished tables that ended CANCELLED after the deadline: the soak's own cancellation."""
    up: asyncio.Event = field(default_factory=asyncio.Event)
    up_count: int = 0
    up_target: int = 0

    def _mark_up(self) -> None:
        self.up_count += 1
        if self.up_count >= self.up_target:
            self.up.set()

    async def one_table(self, first: bool) -> None:
        """Create one bot table and watch it to its end (or the deadline)."""
        seats = [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy=STRATEGY) for _ in range(PLAYERS)]
        try:
            created = await self.stub.CreateTable(
                pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=seats), timeout=CALL_TIMEOUT
            )
        except aio.AioRpcError as error:
            self.errors[f"CreateTable {error.code().name}"] += 1
            if first:
                self._mark_up()
            await asyncio.sleep(0.1)  # do not spin on a failing server
            return
        self.tables_started += 1
        table_id = created.table.table_id
        start_sequence = last_sequence = created.table.sequence
        over = created.table.status == pb.TABLE_STATUS_FINISHED
        waiting = first
        call = self.stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id))
        first_message = True
        try:
            remaining = self.deadline - time.monotonic()
            async with asyncio.timeout(max(0.0, remaining)):
                async for message in call:
                    if waiting:
                        waiting = False
                        self._mark_up()
                    last_sequence = max(last_sequence, message.sequence)
                    kind = message.WhichOneof("payload")
                    if kind == "snapshot":
                        over = over or message.snapshot.table.status == pb.TABLE_STATUS_FINISHED
                        self.resyncs += not first_message
                    elif kind == "event":
                        self.delivered += 1 + len(message.more_events)
                        over = over or message.event.thousand.HasField("game_over")
                    first_message = False
            if over:
                self.tables_finished += 1
            else:
                self.errors["stream ended before the game's end"] += 1
        except TimeoutError:
            call.cancel()  # the soak is over; this table was still playing: not an error
        except aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.CANCELLED and time.monotonic() >= self.deadline:
                # The soak's own cancellation at its end, when grpc reports it as the call's status rather
                # than as the task's CancelledError (the server ends its streams with OK, never CANCELLED).
                self.cancelled_at_end += 1
            else:
                self.errors[f"StreamEvents {error.code().name}"] += 1
        finally:
            if waiting:
                self._mark_up()
            self.actions += last_sequence - start_sequence

    async def lane(self) -> None:
        """One of the ``--tables`` lanes: a table, then the next when it finishes, until the deadline."""
        first = True
        while time.monotonic() < self.deadline:
            await self.one_table(first)
            first = False


async def _soak(args: argparse.Namespace, pid: int, port: int) -> dict[str, Any]:
    channel = aio.insecure_channel(f"{procs.HOST}:{port}")
    try:
        await asyncio.wait_for(channel.channel_ready(), 30)
        began = time.monotonic()
        soak = Soak(pb_grpc.TableServiceStub(channel), deadline=began + args.seconds, up_target=args.tables)
        lanes = [asyncio.create_task(soak.lane()) for _ in range(args.tables)]
        try:
            await asyncio.wait_for(soak.up.wait(), FIRST_UP_TIMEOUT)
        except TimeoutError:
            soak.errors["first tables not up in time"] += 1
        rss_start = procs.rss_bytes(pid)
        up_at = time.monotonic()
        samples: list[int] = []
        sampler = asyncio.create_task(_sample_rss(pid, soak.deadline, samples))
        # Bounded: every lane stops at the deadline (its stream times out then); a margin for the last calls.
        done, pending = await asyncio.wait(lanes, timeout=args.seconds + CALL_TIMEOUT + 5)
        sampler.cancel()
        for task in pending:
            task.cancel()
            soak.errors["lane did not stop in time"] += 1
        for task in done:
            if task.exception() is not None:
                soak.errors[f"client {type(task.exception()).__name__}"] += 1
        elapsed = time.monotonic() - began
        rss_end = procs.rss_bytes(pid)
        rss_half = samples[len(samples) // 2] if samples else rss_start
        return {
            "db": args.db,
            "seconds": round(elapsed, 2),
            "tables": args.tables,
            "tables_started": soak.tables_started,
            "tables_finished": soak.tables_finished,
            "streams_cancelled_at_end": soak.cancelled_at_end,
            "errors": sum(soak.errors.values()),
            "error_kinds": dict(soak.errors),
            "actions_per_s": round(soak.actions / elapsed, 1),
            "events_delivered_per_s": round(soak.delivered / elapsed, 1),
            "resyncs": soak.resyncs,
            "rss_start_bytes": rss_start,
            "rss_end_bytes": rss_end,
            "rss_growth_bytes": rss_end - rss_start,
            "rss_window_s": round(time.monotonic() - up_at, 2),
            "rss_samples_mib": [round(b / 2**20, 1) for b in samples],
            "rss_growth_second_half_bytes": rss_end - rss_half,
        }
    finally:
        await channel.close()


async def _sample_rss(pid: int, deadline: float, samples: list[int]) -> None:
    """The server's RSS every tenth of the remaining time until the deadline: the shape of its growth (a
    working set that fills up, then levels off, or a leak that keeps climbing)."""
    step = max(0.5, (deadline - time.monotonic()) / RSS_SAMPLES)
    while time.monotonic() < deadline:
        samples.append(procs.rss_bytes(pid))
        await asyncio.sleep(step)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/soak.py", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long tables are played")
    parser.add_argument("--tables", type=int, default=50, help="tables playing at once")
    parser.add_argument(
        "--table-idle-seconds", type=float, help="passed to the server (default: the server's own)"
    )
    parser.add_argument(
        "--db",
        default=":memory:",
        help="the server's store: :memory: (default), or file: a durable SQLite file beside the server's log",
    )
    parser.add_argument("--server-tree", help=procs.SERVER_TREE_HELP)
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.tables <= 0:
        parser.error("--seconds and --tables must be positive")
    with tempfile.TemporaryDirectory(prefix="soak-") as logs_dir:
        log = Path(logs_dir) / "server.log"
        port = free_port()
        db = str(Path(logs_dir) / "soak.db") if args.db == "file" else args.db
        argv_server = [*procs.server_argv(port, db), "--rate-limit", "0"]
        if args.table_idle_seconds is not None:
            argv_server += ["--table-idle-seconds", str(args.table_idle_seconds)]
        server = procs.start(argv_server, log, cwd=args.server_tree, quotas=False)
        try:
            procs.wait_for_port(port, server, log)
            result = asyncio.run(_soak(args, server.pid, port))
            if server.poll() is not None:
                result["errors"] += 1
                result["error_kinds"]["server exited"] = 1
        finally:
            procs.stop(server)
        server_log = log.read_text(errors="replace").strip()
        if args.db == "file":
            result["db_bytes"] = sum(f.stat().st_size for f in Path(logs_dir).glob("soak.db*"))
    print(
        f"soak: {result['tables']} tables at once for {result['seconds']} s (greedy bots, spectated),"
        f" store {args.db}"
    )
    print(f"  tables finished {result['tables_finished']} of {result['tables_started']} started")
    print(f"  errors          {result['errors']} {result['error_kinds'] or ''}")
    if result["streams_cancelled_at_end"]:
        print(
            f"  cancelled       {result['streams_cancelled_at_end']} streams at the end, by the soak itself"
        )
    print(f"  actions/s       {result['actions_per_s']} (sequence growth)")
    print(
        f"  delivered/s     {result['events_delivered_per_s']} events sent to the spectators one by one;"
        f" {result['resyncs']} resyncs by snapshot"
    )
    if "db_bytes" in result:
        print(f"  database file   {result['db_bytes'] / 2**20:.1f} MiB (with its WAL)")
    print(
        f"  server RSS      {result['rss_start_bytes'] / 2**20:.1f} MiB at start,"
        f" {result['rss_end_bytes'] / 2**20:.1f} MiB at end:"
        f" {result['rss_growth_bytes'] / 2**20:+.1f} MiB over {result['rss_window_s']} s"
        f" ({result['rss_growth_second_half_bytes'] / 2**20:+.1f} MiB over the second half)"
    )
    print(f"  server RSS, MiB {' '.join(str(m) for m in result['rss_samples_mib'])} (every tenth)")
    if server_log:
        print("  server log (warnings and errors):")
        for line in server_log.splitlines()[-10:]:
            print(f"    {line}")
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
