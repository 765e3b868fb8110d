"""The server benchmark: actions per second and latency through the real gRPC server, against a bare echo.

Usage::

    python bench/server.py --seconds 20 [--tables 100] [--clients 1] [--connections seat] [--policy random]
                           [--submit play|unary] [--fanout] [--profile FILE [--native]] [--server-tree DIR]

Three kinds of process, all on 127.0.0.1:

* the game server, started as an operator would (``python -m server.app --db :memory: --log-level warning``),
  its output in a log file;
* a bare ``grpc.aio`` echo server (this file with ``--role echo``): one unary method that returns the request
  bytes as they came, no protobuf, no interceptor, no logging: the floor any gRPC call of this shape pays;
* the client process(es) (this file with ``--role client``). Each opens its share of ``--tables`` tables
  of three open seats, joins every seat and opens one Play stream per seat (``--submit play``, the default:
  the seat's actions go in as messages on it, its updates and action results come out) or a StreamEvents
  stream per seat and a SubmitAction call per action (``--submit unary``). A seat acts when its own
  stream's Turn says so, with the first legal action the Turn lists (``--policy first``) or a seeded random
  one (``random``, the default: uniformly random play practically never finishes a game, so actions are
  counted, not games; a table whose game ends is replaced by a new one). Every table has one action in
  flight at a time, so ``--tables`` actions are in flight at once. An action's latency runs from submitting
  it until every seat's stream has received the last event it produced (the sequence number of its result,
  or the one SubmitAction returns). The echo side keeps the same number of unary calls in flight (one caller
  per table) on the same kind of connections; its latency is the call's round trip.

``--fanout`` adds a third side, in the echo's process: the game's message pattern with no game. With
``--submit play`` an act is one message on the acting seat's bidirectional stream, after which every one of
the table's three streams receives one message (the game sends 3.0 per action over Play); with ``unary``, one
unary call after which every stream receives ``--fanout-messages`` messages (1.7 on average, as the game sends
about 5.1 per action over its three seats without batching). Messages are ``--fanout-bytes`` long, and an
act's latency runs until all three streams have them: the floor gRPC sets for this server's shape, so that the
gap between it and the game is what the server's own code costs.

``--connections seat`` (default) gives every seat (every echo caller) a connection of its own, as players on
different machines have; ``shared`` multiplexes a client process's calls on one connection.

The sides alternate in several rounds (ABBA), so that the machine's noise falls on both alike; the
server, echo server and client CPU time of each side is read from ``/proc`` at the slice boundaries, which
says which process was the bottleneck. ``--profile FILE`` records the game server with py-spy (if installed)
during the measured rounds (it is idle during the echo's slices) and prints where its busy samples were;
``--native`` adds the C frames. The last line printed is one JSON object with the figures;
``throughput_ratio`` is actions/s over echo calls/s and ``p99_ratio`` the p99 latency over the echo's.

This file is the controller and every role's entry point. The echo process and the floors' callers are in
:mod:`bench.server_floors`, a client process in :mod:`bench.server_client` (its tables in
:mod:`bench.server_tables`, what they share in :mod:`bench.server_shared`), the figures in
:mod:`bench.server_report` and the py-spy summary in :mod:`bench.server_profile`.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/server.py``, Python puts bench/ first on sys.path, where this very file would shadow
# the ``server`` package; use the working tree's packages instead.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from typing import Any, Final  # noqa: E402

import grpc  # noqa: E402

from bench import procs  # noqa: E402
from bench.server_client import run_client  # noqa: E402
from bench.server_floors import Fanout, serve_echo  # noqa: E402
from bench.server_profile import print_profile, start_profiler  # noqa: E402
from bench.server_report import Side, report, report_fanout, summarize, summarize_fanout  # noqa: E402
from bench.server_shared import PLAYERS, SIDES  # noqa: E402
from scripts.ports import free_port  # noqa: E402

WARMUP_SECONDS: Final = 1.0
"""An unmeasured slice of each side first (shorter in a run shorter than 4 s): connections, caches and the
interpreters' specialisations warm."""
MIN_ROUND_SECONDS: Final = 1.0
MAX_ROUNDS: Final = 10
START_DELAY: Final = 0.1
"""Seconds between the controller's command and the slice's start, so every client starts at once."""


class Client:
    """A client process, commanded over its stdin and answering one JSON line per command on its stdout."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    def send(self, command: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"bench: a client process exited ({self.process.poll()}); see its log")
        message: dict[str, Any] = json.loads(line)
        return message


def _run(args: argparse.Namespace, out: Callable[[str], None]) -> dict[str, Any]:
    logs = Path(args.logs) if args.logs else Path(tempfile.mkdtemp(prefix="bench-server-"))
    logs.mkdir(parents=True, exist_ok=True)
    sides = SIDES if args.fanout else SIDES[:2]
    rounds = max(2, min(MAX_ROUNDS, int(args.seconds / (len(sides) * MIN_ROUND_SECONDS))))
    slice_seconds = args.seconds / (len(sides) * rounds)
    lifetime = args.seconds + 2 * WARMUP_SECONDS + 120 + args.tables * 0.5
    game_port, echo_port = free_port(), free_port()
    processes: dict[str, subprocess.Popen[bytes]] = {}
    load_after = load_before = procs.load_average()
    clients: list[Client] = []
    profiler: subprocess.Popen[bytes] | None = None
    try:
        place = procs.ServerPlace(args.engine, args.server_tree, logs)
        place.check()
        processes["server"] = procs.start(
            procs.server_argv(game_port, _db(args.db, logs)),
            logs / "server.log",
            place.cwd,
            place.env,
            quotas=False,
        )
        echo_argv = [
            *(sys.executable, str(Path(__file__)), "--role", "echo", "--port", str(echo_port)),
            *("--fanout-messages", str(args.fanout_messages), "--fanout-bytes", str(args.fanout_bytes)),
        ]
        processes["echo"] = procs.start(echo_argv, logs / "echo.log")
        procs.wait_for_port(game_port, processes["server"], logs / "server.log")
        procs.wait_for_port(echo_port, processes["echo"], logs / "echo.log")
        shares = [args.tables // args.clients + (i < args.tables % args.clients) for i in range(args.clients)]
        for index, share in enumerate(shares):
            argv = [
                *(sys.executable, str(Path(__file__)), "--role", "client", "--client-index", str(index)),
                *("--target", f"{procs.HOST}:{game_port}", "--echo-target", f"{procs.HOST}:{echo_port}"),
                *("--tables", str(share), "--connections", args.connections, "--policy", args.policy),
                *("--submit", args.submit),
                "--batch-events" if args.batch_events else "--no-batch-events",
                *("--seed", str(args.seed), "--lifetime", str(lifetime)),
                *(("--fanout",) if args.fanout else ()),
            ]
            with (logs / f"client{index}.log").open("wb") as err:
                client_process = subprocess.Popen(
                    argv, cwd=procs.ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True
                )
            clients.append(Client(client_process))
        setup = [c.receive() for c in clients]
        pids = {"server": processes["server"].pid, "echo": processes["echo"].pid}
        pids |= {f"client{i}": c.process.pid for i, c in enumerate(clients)}

        python = f"{platform.python_implementation()} {platform.python_version()}, grpcio {grpc.__version__}"
        out(python)
        out(
            f"{args.tables} tables of {PLAYERS} open seats"
            f" ({args.connections} connections, {args.policy} play,"
            f" {'Play streams' if args.submit == 'play' else 'SubmitAction calls and StreamEvents'},"
            f" {args.engine} engine,"
            f" {'batched' if args.batch_events else 'one event a message'})"
            f" in {args.clients} client process(es), set up in {max(s['setup_s'] for s in setup):.1f} s;"
            f" {rounds} round(s) of {slice_seconds:.2f} s per side, {' and '.join(sides)} alternating;"
            f" load average before {load_before[0]:.2f}"
        )
        out(f"logs in {logs}")

        totals = {side: Side() for side in sides}
        for side in sides:
            _measure(clients, pids, side, min(WARMUP_SECONDS, args.seconds / 4), Side())
        if args.profile:
            profiler = start_profiler(pids["server"], Path(args.profile), logs, native=args.native)
        for r in range(rounds):
            order = sides if r % 2 == 0 else sides[::-1]  # ABBA: a drift in speed favours neither side
            for side in order:
                _measure(clients, pids, side, slice_seconds, totals[side])
        if profiler is not None:
            profiler.send_signal(signal.SIGINT)  # py-spy writes its output when interrupted
            profiler.wait(30)
        load_after = procs.load_average()
    finally:
        for client in clients:
            if client.process.poll() is None:
                with contextlib.suppress(OSError):
                    client.send({"cmd": "quit"})
        for client in clients:
            try:
                client.process.wait(15)
            except subprocess.TimeoutExpired:
                client.process.kill()
                client.process.wait(5)
        if profiler is not None and profiler.poll() is None:
            profiler.kill()
            profiler.wait(5)
        for process in processes.values():
            procs.stop(process)

    game, echo = totals["game"], totals["echo"]
    result = summarize(args, game, echo, rounds=rounds, load=(load_before[0], load_after[0]))
    report(result, game, echo, out)
    if "fanout" in totals:
        result |= summarize_fanout(args, totals["fanout"], game)
        report_fanout(result, totals["fanout"], out)
    if args.profile:
        print_profile(Path(args.profile), out)
    if not args.logs and not any(t.errors for t in totals.values()):
        shutil.rmtree(logs, ignore_errors=True)
    return result


def _db(db: str, logs: Path) -> str:
    """``--db``: ``:memory:`` as it is, ``file`` a new SQLite file beside the logs, or a path as it is."""
    return str(logs / "bench.db") if db == "file" else db


def _measure(clients: Sequence[Client], pids: dict[str, int], side: str, seconds: float, tally: Side) -> None:
    start = time.monotonic() + START_DELAY
    end = start + seconds
    for client in clients:
        client.send({"cmd": "run", "side": side, "start": start, "end": end})
    time.sleep(max(0.0, start - time.monotonic()))
    cpu_before = {name: procs.cpu_seconds(pid) for name, pid in pids.items()}
    time.sleep(max(0.0, end - time.monotonic()))
    cpu_after = {name: procs.cpu_seconds(pid) for name, pid in pids.items()}
    replies = [c.receive() for c in clients]
    tally.seconds += seconds
    done = 0
    for reply in replies:
        tally.latencies_ms.extend(reply["latencies_ms"])
        tally.errors.update(reply["errors"])
        tally.replaced += reply["replaced"]
        tally.messages += reply["messages"]
        if reply["undrained"]:
            tally.errors["undrained"] += reply["undrained"]
        done += len(reply["latencies_ms"])
    tally.rates.append(done / seconds)
    for name in pids:
        tally.cpu[name] = tally.cpu.get(name, 0.0) + cpu_after[name] - cpu_before[name]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/server.py", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="total measured time, both sides (20)")
    parser.add_argument("--tables", type=int, default=100, help="tables played at once (100)")
    parser.add_argument("--clients", type=int, default=1, help="client processes sharing the tables (1)")
    parser.add_argument("--connections", choices=("seat", "shared"), default="seat")
    parser.add_argument("--policy", choices=("random", "first"), default="random")
    parser.add_argument(
        "--batch-events",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="streams opened with batch_events (default; a change's events in one message), as the project's "
        "clients open them; --no-batch-events: one event per message, as a client that does not ask",
    )
    parser.add_argument(
        "--submit",
        choices=("play", "unary"),
        default="play",
        help="play (default): each seat acts and streams on one Play call (its actions are messages on it); "
        "unary: each action a SubmitAction call, each seat a StreamEvents stream",
    )
    parser.add_argument(
        "--engine", choices=("compiled", "python"), default="compiled", help=procs.ENGINE_HELP
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--db",
        default=":memory:",
        help="the server's store: :memory: (default), or file: a durable SQLite file beside the logs",
    )
    parser.add_argument("--profile", help="record the game server with py-spy into this file (raw stacks)")
    parser.add_argument("--native", action="store_true", help="--profile with C frames (pauses the server)")
    parser.add_argument(
        "--fanout",
        action="store_true",
        help="also measure the game's message pattern in bare gRPC, the game's floor (see bench/README.md)",
    )
    parser.add_argument(
        "--fanout-messages",
        type=float,
        default=1.7,
        help="fan-out messages per stream per act, on average (1.7: the game's 5.1 per action over 3 seats)",
    )
    parser.add_argument("--fanout-bytes", type=int, default=100, help="bytes of a fan-out message (100)")
    parser.add_argument("--logs", help="a directory for the processes' logs (kept); default a temporary one")
    parser.add_argument("--server-tree", help=procs.SERVER_TREE_HELP)
    parser.add_argument("--role", choices=("controller", "echo", "client"), default="controller")
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--echo-target", help=argparse.SUPPRESS)
    parser.add_argument("--client-index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--lifetime", type=float, default=600.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role == "echo":
        asyncio.run(serve_echo(args.port, Fanout(args.fanout_messages, args.fanout_bytes)))
        return 0
    if args.role == "client":
        asyncio.run(run_client(args))
        return 0
    if args.seconds <= 0 or args.tables <= 0 or not 0 < args.clients <= args.tables:
        parser.error("--seconds and --tables must be positive, --clients between 1 and --tables")
    result = _run(args, print)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
