"""The web port's cost: server CPU per action over Connect and gRPC-Web, against native gRPC, in one run.

Usage::

    python bench/web.py --seconds 20 [--tables 20] [--rounds 2] [--transports grpc,connect,grpc-web]
                        [--rate 0] [--engine compiled|python]    (compiled: the default, as the image runs it)

One game server process (``python -m server.app --web-port …``, quiet, store in memory) serves both ports.
For each transport, a client process (this file with ``--role client``) opens ``--tables`` tables of three
open seats, joins every seat and plays each seat as a browser does: one StreamEvents stream per seat with
``batch_events``, and a SubmitAction call per action, with a seeded random legal action, whenever the
seat's stream says it is its turn (a table whose game ends is replaced). Native gRPC goes through grpc.aio's
stub on the gRPC port; the web transports through connectrpc's client (pyqwest, HTTP/1.1) on the web port,
with binary messages (``connect-json``: JSON ones).

The transports take turns in ``--rounds`` rounds, in an order reversed every other round (ABBA), so the
machine's noise falls on each alike. A slice starts once its client is set up (tables created, streams
open) and ends when it has played ``--seconds`` / (rounds × transports) seconds and its actions in flight
are answered; the server's CPU time (user + system, ``/proc``) over each slice is divided by the actions
played in it. The client's own CPU is not counted: the question is what the server pays per action on each
transport. The last line printed is one JSON object; ``<transport>_cpu_ratio`` is that transport's server
CPU per action over native gRPC's (the target for the web port: at most 1.2).

The cost per action depends on the pace: a busy event loop handles several calls per wake-up, so a client
that plays more slowly (the JSON one: its own JSON mapping is slow) makes each action look dearer. ``--rate``
paces every client alike, below what the slowest sustains, for a like-for-like comparison.
"""

from __future__ import annotations

import sys
from pathlib import Path

# As bench/server.py: run as ``python bench/web.py``, bench/ would come first on sys.path.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import AsyncIterator  # noqa: E402
from contextlib import aclosing  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any, Final, Protocol  # noqa: E402

from grpc import aio  # noqa: E402

from bench import procs  # noqa: E402
from scripts.ports import free_port  # noqa: E402

TRANSPORTS: Final = ("grpc", "connect", "grpc-web", "connect-json")
DEFAULT_TRANSPORTS: Final = "grpc,connect,grpc-web"


# ---------------------------------------------------------------- the client process


class Calls(Protocol):
    """What a seat does: stream its table, submit an action; and what setting a table up takes."""

    async def create(self) -> str: ...

    async def join(self, table_id: str) -> str: ...

    def stream(self, table_id: str, token: str) -> AsyncIterator[Any]: ...

    async def submit(self, table_id: str, token: str, request_id: str, last: int, action: Any) -> None: ...


def _pb() -> Any:
    from thousand.v1 import table_service_pb2  # noqa: PLC0415 - the parent process needs no protobuf

    return table_service_pb2


class GrpcCalls:
    def __init__(self, stub: Any) -> None:
        self.stub = stub
        self.pb = _pb()

    def create_request(self) -> Any:
        """Three open seats, fair deals (no seed: a table with open seats takes one only for practice)."""
        pb = self.pb
        return pb.CreateTableRequest(
            game=pb.GAME_KIND_THOUSAND, seats=[pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] * 3
        )

    async def create(self) -> str:
        return str((await self.stub.CreateTable(self.create_request())).table.table_id)

    async def join(self, table_id: str) -> str:
        return str((await self.stub.JoinTable(self.pb.JoinTableRequest(table_id=table_id))).seat_token)

    async def stream(self, table_id: str, token: str) -> AsyncIterator[Any]:
        request = self.pb.StreamEventsRequest(table_id=table_id, batch_events=True)
        call = self.stub.StreamEvents(request, metadata=(("x-seat-token", token),))
        try:
            async for message in call:
                yield message
        finally:
            call.cancel()

    async def submit(self, table_id: str, token: str, request_id: str, last: int, action: Any) -> None:
        request = self.pb.SubmitActionRequest(
            table_id=table_id, request_id=request_id, last_seen_sequence=last, action=action
        )
        await self.stub.SubmitAction(request, metadata=(("x-seat-token", token),))


class WebCalls(GrpcCalls):
    """The same calls through connectrpc's client: its methods take ``headers`` where gRPC's take metadata."""

    async def create(self) -> str:
        return str((await self.stub.create_table(self.create_request())).table.table_id)

    async def join(self, table_id: str) -> str:
        return str((await self.stub.join_table(self.pb.JoinTableRequest(table_id=table_id))).seat_token)

    async def stream(self, table_id: str, token: str) -> AsyncIterator[Any]:
        request = self.pb.StreamEventsRequest(table_id=table_id, batch_events=True)
        async with aclosing(self.stub.stream_events(request, headers={"x-seat-token": token})) as messages:
            async for message in messages:
                yield message

    async def submit(self, table_id: str, token: str, request_id: str, last: int, action: Any) -> None:
        request = self.pb.SubmitActionRequest(
            table_id=table_id, request_id=request_id, last_seen_sequence=last, action=action
        )
        await self.stub.submit_action(request, headers={"x-seat-token": token})


@dataclass
class Tally:
    actions: int = 0
    errors: int = 0
    ready: int = 0
    """Tables set up with their streams open (the first of each table only)."""
    in_flight: int = 0
    latencies: list[float] = field(default_factory=list)


@dataclass
class Player:
    """The client's tables, one after another per slot: three seats, each on its own stream, acting when
    their turn comes (once ``go`` is set, until ``stop`` is)."""

    calls: Calls
    tally: Tally
    rate: float = 0.0
    """Actions a second at most, over all the client's tables (0: as fast as they go)."""
    go: asyncio.Event = field(default_factory=asyncio.Event)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    _next: float = 0.0

    async def paced(self) -> None:
        """Wait for the action's slot: every transport can then be measured at the same pace."""
        if self.rate <= 0:
            return
        loop = asyncio.get_running_loop()
        self._next = max(self._next + 1 / self.rate, loop.time())
        await asyncio.sleep(self._next - loop.time())

    async def tables(self, seed: int) -> None:
        rng = random.Random(seed)
        first = True
        while not self.stop.is_set():
            table_id = await self.calls.create()
            tokens = [await self.calls.join(table_id) for _ in range(3)]
            opened = [asyncio.Event() for _ in tokens]
            seats = [
                asyncio.create_task(self.seat(table_id, i, t, opened[i], rng)) for i, t in enumerate(tokens)
            ]
            await asyncio.gather(*(o.wait() for o in opened))
            if first:
                self.tally.ready += 1
                first = False
            await asyncio.gather(*seats)

    async def seat(
        self, table_id: str, index: int, token: str, opened: asyncio.Event, rng: random.Random
    ) -> None:
        async with aclosing(self.calls.stream(table_id, token)) as messages:  # type: ignore[type-var]
            async for message in messages:
                opened.set()
                turn = message.turn
                if not (turn.HasField("seat") and turn.seat == index and turn.legal_actions):
                    continue
                await self.go.wait()
                await self.paced()
                if self.stop.is_set():
                    return
                last = message.sequence + len(message.more_events)
                started = time.perf_counter()
                self.tally.in_flight += 1
                try:
                    await self.calls.submit(
                        table_id, token, f"{index}-{last}", last, rng.choice(turn.legal_actions)
                    )
                except Exception:
                    self.tally.errors += 1  # counted: a benchmark reports its errors
                    return
                finally:
                    self.tally.in_flight -= 1
                self.tally.latencies.append(time.perf_counter() - started)
                self.tally.actions += 1


async def _client(args: argparse.Namespace) -> None:
    tally = Tally()
    calls: Calls
    if args.transport == "grpc":
        from thousand.v1 import table_service_pb2_grpc  # noqa: PLC0415

        channel = aio.insecure_channel(f"{procs.HOST}:{args.port}")
        calls = GrpcCalls(table_service_pb2_grpc.TableServiceStub(channel))
    else:
        from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec  # noqa: PLC0415
        from connectrpc.protocol import ProtocolType  # noqa: PLC0415

        from thousand.v1 import table_service_connect  # noqa: PLC0415

        json_codec = args.transport == "connect-json"
        calls = WebCalls(
            table_service_connect.TableServiceClient(
                f"http://{procs.HOST}:{args.port}",
                protocol=ProtocolType.GRPC_WEB if args.transport == "grpc-web" else ProtocolType.CONNECT,
                codec=google_protobuf_json_codec() if json_codec else google_protobuf_binary_codec(),
                send_compression=None,
            )
        )
    player = Player(calls, tally, args.rate)
    tables = [asyncio.create_task(player.tables(args.seed + i)) for i in range(args.tables)]
    deadline = time.monotonic() + 60
    while tally.ready < args.tables and time.monotonic() < deadline:
        failed = next((t for t in tables if t.done() and t.exception() is not None), None)
        if failed is not None:
            raise SystemExit(f"bench: a table could not be set up: {failed.exception()!r}")
        await asyncio.sleep(0.02)
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    player.go.set()
    await asyncio.sleep(args.seconds)
    player.stop.set()
    deadline = time.monotonic() + 10
    while tally.in_flight and time.monotonic() < deadline:  # the actions sent are answered
        await asyncio.sleep(0.01)
    latencies = sorted(tally.latencies)
    p50 = procs.percentile(latencies, 0.5) * 1000 if latencies else 0.0
    print(json.dumps({"actions": tally.actions, "errors": tally.errors, "p50_ms": round(p50, 3)}), flush=True)
    for task in tables:
        task.cancel()


# ---------------------------------------------------------------- the parent


@dataclass
class Side:
    transport: str
    actions: int = 0
    errors: int = 0
    server_cpu: float = 0.0
    seconds: float = 0.0
    p50_ms: list[float] = field(default_factory=list)

    @property
    def cpu_ms_per_action(self) -> float:
        return self.server_cpu * 1000 / self.actions if self.actions else float("nan")


def _slice(
    side: Side, args: argparse.Namespace, port: int, server_pid: int, *, seconds: float, logs: Path
) -> None:
    argv = [sys.executable, str(Path(__file__).resolve()), "--role", "client", "--transport", side.transport]
    argv += ["--port", str(port), "--tables", str(args.tables), "--seconds", str(seconds)]
    argv += ["--seed", str(args.seed), "--rate", str(args.rate)]
    with (logs / f"client-{side.transport}.log").open("ab") as errors:
        client = subprocess.Popen(
            argv, cwd=procs.ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors
        )
    assert client.stdin is not None and client.stdout is not None
    try:
        if client.stdout.readline().strip() != b"ready":
            raise SystemExit(f"bench: the {side.transport} client did not start; see {logs}")
        before, started = procs.cpu_seconds(server_pid), time.monotonic()
        client.stdin.write(b"go\n")
        client.stdin.flush()
        result = json.loads(client.stdout.readline())
        side.server_cpu += procs.cpu_seconds(server_pid) - before
        side.seconds += time.monotonic() - started
    finally:
        procs.stop(client)
    side.actions += result["actions"]
    side.errors += result["errors"]
    side.p50_ms.append(result["p50_ms"])


def _run(args: argparse.Namespace) -> dict[str, Any]:
    transports = [t.strip() for t in args.transports.split(",") if t.strip()]
    unknown = set(transports) - set(TRANSPORTS)
    if unknown or "grpc" not in transports:
        raise SystemExit(f"bench: --transports is a list of {', '.join(TRANSPORTS)} that includes grpc")
    sides = {t: Side(t) for t in transports}
    logs = Path(tempfile.mkdtemp(prefix="thousand-bench-web-"))
    place = procs.ServerPlace(args.engine, None, logs)
    place.check()
    grpc_port, web_port = free_port(), free_port()
    argv = [*procs.server_argv(grpc_port), "--web-port", str(web_port)]
    server = procs.start(argv, logs / "server.log", cwd=place.cwd, env=place.env)
    try:
        procs.wait_for_port(grpc_port, server, logs / "server.log")
        procs.wait_for_port(web_port, server, logs / "server.log")
        share = args.seconds / (args.rounds * len(transports))
        for round_index in range(args.rounds):
            order = transports if round_index % 2 == 0 else transports[::-1]
            for transport in order:
                port = grpc_port if transport == "grpc" else web_port
                _slice(sides[transport], args, port, server.pid, seconds=share, logs=logs)
    finally:
        procs.stop(server)
    grpc_side = sides["grpc"]
    result: dict[str, Any] = {
        "engine": args.engine,
        "tables": args.tables,
        "rounds": args.rounds,
        "rate": args.rate,
    }
    for name, side in sides.items():
        key = name.replace("-", "_")
        result[f"{key}_actions"] = side.actions
        result[f"{key}_errors"] = side.errors
        result[f"{key}_actions_per_s"] = round(side.actions / side.seconds, 1) if side.seconds else 0.0
        result[f"{key}_server_cpu_ms_per_action"] = round(side.cpu_ms_per_action, 4)
        result[f"{key}_p50_ms"] = round(sum(side.p50_ms) / len(side.p50_ms), 3)
        if name != "grpc":
            result[f"{key}_cpu_ratio"] = round(side.cpu_ms_per_action / grpc_side.cpu_ms_per_action, 3)
    result["logs"] = str(logs)
    return result


def _report(result: dict[str, Any], transports: list[str]) -> None:
    header = ("transport", "actions", "actions/s", "server CPU ms/action", "ratio", "p50 ms")
    print(f"{header[0]:<13} {header[1]:>8} {header[2]:>10} {header[3]:>21} {header[4]:>6} {header[5]:>7}")
    for name in transports:
        key = name.replace("-", "_")
        ratio = result.get(f"{key}_cpu_ratio", 1.0)
        print(
            f"{name:<13} {result[f'{key}_actions']:>8} {result[f'{key}_actions_per_s']:>10}"
            f" {result[f'{key}_server_cpu_ms_per_action']:>21} {ratio:>6} {result[f'{key}_p50_ms']:>7}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role", choices=("bench", "client"), default="bench", help=argparse.SUPPRESS)
    parser.add_argument("--transport", choices=TRANSPORTS, default="grpc", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time, over every slice")
    parser.add_argument("--tables", type=int, default=20, help="tables each client plays at once")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of one slice per transport")
    parser.add_argument("--transports", default=DEFAULT_TRANSPORTS, help=f"of {', '.join(TRANSPORTS)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="actions a second each client plays at most (0: as fast as it can); the server's cost per action"
        " depends on the pace (busier loops batch more work per wake-up), so compare transports at one pace"
        " that the slowest client sustains",
    )
    parser.add_argument(
        "--engine", choices=("compiled", "python"), default="compiled", help=procs.ENGINE_HELP
    )
    args = parser.parse_args(argv)
    if args.role == "client":
        asyncio.run(_client(args))
        return 0
    result = _run(args)
    _report(result, [t.strip() for t in args.transports.split(",") if t.strip()])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
