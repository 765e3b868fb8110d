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
import random  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import AsyncIterator, Callable, Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any, Final  # noqa: E402

import grpc  # noqa: E402
from grpc import aio  # noqa: E402

from bench import procs  # noqa: E402
from thousand.v1 import table_service_pb2 as pb  # noqa: E402
from thousand.v1 import table_service_pb2_grpc as pb_grpc  # noqa: E402

ECHO_SERVICE: Final = "bench.Echo"
ECHO_METHOD: Final = f"/{ECHO_SERVICE}/Echo"
TOKEN_METADATA: Final = "x-seat-token"
PLAYERS: Final = 3
SIDES: Final = ("game", "echo", "fanout")
FANOUT_METHOD: Final = f"/{ECHO_SERVICE}/Act"
FANOUT_STREAM_METHOD: Final = f"/{ECHO_SERVICE}/Watch"
FANOUT_PLAY_METHOD: Final = f"/{ECHO_SERVICE}/Play"
FANOUT_KEY: Final = 8
"""Bytes of a fan-out request that name its table (a ninth byte names the seat for Watch)."""
WARMUP_SECONDS: Final = 1.0
"""An unmeasured slice of each side first (shorter in a run shorter than 4 s): connections, caches and the
interpreters' specialisations warm."""
MIN_ROUND_SECONDS: Final = 1.0
MAX_ROUNDS: Final = 10
START_DELAY: Final = 0.1
"""Seconds between the controller's command and the slice's start, so every client starts at once."""
DRAIN_SECONDS: Final = 10.0
"""How long a client waits, after a slice, for its actions (calls) in flight to complete."""
SETUP_CONCURRENCY: Final = 32
"""Tables a client opens at once."""
MAX_ACTIONS_PER_TABLE: Final = 10_000_000
"""A bound on every actor's loop (the run's time limit ends it long before)."""


# ---------------------------------------------------------------------------------------------- echo server


async def _echo(request: bytes, context: aio.ServicerContext[bytes, bytes]) -> bytes:
    return request


class _FanoutTable:
    """The fan-out floor's table: a sequence number and one queue of messages per seat's stream."""

    def __init__(self) -> None:
        self.sequence = 0
        self.owed = 0.0
        self.queues: list[asyncio.Queue[bytes]] = [asyncio.Queue() for _ in range(PLAYERS)]


class _Fanout:
    """``--fanout``: the game's message pattern with no game.

    Act puts ``per_stream`` messages (on average: 1.7 is 2, 2, 1, ...) of ``size`` bytes on each of the
    table's three streams and returns the last one's sequence number; Watch streams one seat's messages.
    """

    def __init__(self, per_stream: float, size: int) -> None:
        self.per_stream = per_stream
        self.padding = b"x" * max(0, size - 8)
        self.tables: dict[bytes, _FanoutTable] = {}

    async def act(self, request: bytes, context: aio.ServicerContext[bytes, bytes]) -> bytes:
        table = self.tables.setdefault(request[:FANOUT_KEY], _FanoutTable())
        table.owed += self.per_stream
        count = max(1, round(table.owed))
        table.owed -= count
        for _ in range(count):
            table.sequence += 1
            message = table.sequence.to_bytes(8, "big") + self.padding
            for queue in table.queues:
                queue.put_nowait(message)
        return table.sequence.to_bytes(8, "big")

    async def watch(self, request: bytes, context: aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
        table = self.tables.setdefault(request[:FANOUT_KEY], _FanoutTable())
        queue = table.queues[request[FANOUT_KEY]]
        for _ in range(MAX_ACTIONS_PER_TABLE):
            yield await queue.get()

    async def play(
        self, requests: AsyncIterator[bytes], context: aio.ServicerContext[bytes, bytes]
    ) -> AsyncIterator[bytes]:
        """The Play shape: the first message names the table and seat; each later one is an act, which puts
        one message on each of the table's three streams (the game sends 3.0 per action over Play), read and
        fanned out by a task of the stream's own, as the game server does."""
        first = await anext(aiter(requests))
        table = self.tables.setdefault(first[:FANOUT_KEY], _FanoutTable())
        queue = table.queues[first[FANOUT_KEY]]

        async def read() -> None:
            async for _ in requests:
                table.sequence += 1
                message = table.sequence.to_bytes(8, "big") + self.padding
                for each in table.queues:
                    each.put_nowait(message)

        reader = asyncio.create_task(read())
        try:
            for _ in range(MAX_ACTIONS_PER_TABLE):
                yield await queue.get()
        finally:
            reader.cancel()


async def _serve_echo(port: int, fanout: _Fanout) -> None:
    server = aio.server()
    # No (de)serializers: bytes in, bytes out.
    handlers: dict[str, grpc.RpcMethodHandler[bytes, bytes]] = {
        "Echo": grpc.unary_unary_rpc_method_handler(_echo),
        "Act": grpc.unary_unary_rpc_method_handler(fanout.act),
        "Watch": grpc.unary_stream_rpc_method_handler(fanout.watch),
        "Play": grpc.stream_stream_rpc_method_handler(fanout.play),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(ECHO_SERVICE, handlers),))
    server.add_insecure_port(f"{procs.HOST}:{port}")
    await server.start()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    await server.stop(0.5)


# ---------------------------------------------------------------------------------------------- client


@dataclass(slots=True)
class Window:
    """What a client measured in one slice of one side."""

    start: float = 0.0
    end: float = 0.0
    latencies: list[float] = field(default_factory=list)
    """Seconds, of every action (call) that completed inside the window."""
    errors: Counter[str] = field(default_factory=Counter)
    messages: int = 0
    """Stream messages received while the game side ran."""

    def record(self, began: float, ended: float) -> None:
        if self.start <= ended < self.end:
            self.latencies.append(ended - began)


class ClientShared:
    """State every table and echo caller of one client process shares."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.deadline = time.monotonic() + args.lifetime
        self.running = {side: asyncio.Event() for side in SIDES}
        self.window = Window()
        self.in_flight = {side: 0 for side in SIDES}
        self.replaced = 0
        self._channels: list[aio.Channel] = []
        self._shared: dict[str, aio.Channel] = {}

    def channel(self, target: str) -> aio.Channel:
        """A channel of its own per caller (``--connections seat``) or one per target (``shared``)."""
        if self.args.connections == "shared" and target in self._shared:
            return self._shared[target]
        # A local subchannel pool: otherwise gRPC would share one connection between equal channels.
        channel = aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        self._channels.append(channel)
        self._shared.setdefault(target, channel)
        return channel

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self._channels), return_exceptions=True)


class GameTable:
    """One table: three joined seats, each streaming; a seat submits when its own Turn asks it to act."""

    def __init__(self, shared: ClientShared, index: int) -> None:
        self.shared = shared
        self.index = index
        self.rng = random.Random(f"{shared.args.seed}:{shared.args.client_index}:{index}")
        self.stubs: list[pb_grpc.TableServiceAsyncStub] = [
            pb_grpc.TableServiceStub(shared.channel(shared.args.target)) for _ in range(PLAYERS)
        ]
        self.table_id = ""
        self.tokens: list[tuple[tuple[str, str], ...]] = []
        self.seen = [0] * PLAYERS
        self.decision: tuple[int, int, list[pb.Action]] | None = None
        self.pending: list[tuple[int, float]] = []
        """(sequence the action's events end at, when it was submitted) of actions not yet seen by all."""
        self.wake = asyncio.Event()
        self.ended = False
        self.readers: list[asyncio.Task[None]] = []
        self.acted = 0
        self.use_play = shared.args.submit == "play"
        """Actions and updates on one Play stream per seat, instead of SubmitAction calls and StreamEvents."""
        self.feeds: list[asyncio.Queue[pb.PlayRequest | None]] = []
        self.submitted: float | None = None
        """When the Play action in flight was sent (its result not in yet)."""
        self.resulted = asyncio.Event()
        """Set when the Play action in flight has its result: one action in flight per table, as with
        SubmitAction (another seat's stream may show its Turn before the acting seat's has the result)."""

    async def open(self) -> None:
        """Create the table, join its seats (the game starts) and stream every seat."""
        stub = self.stubs[0]
        seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN) for _ in range(PLAYERS)]
        created = await stub.CreateTable(
            pb.CreateTableRequest(
                game=pb.GAME_KIND_THOUSAND, seats=seats, seed=self.rng.getrandbits(62), practice=True
            )
        )
        self.table_id = created.table.table_id
        self.tokens = []
        for seat in range(PLAYERS):
            joined = await self.stubs[seat].JoinTable(
                pb.JoinTableRequest(table_id=self.table_id, seat=seat, player_name=f"bench{seat}")
            )
            self.tokens.append(((TOKEN_METADATA, joined.seat_token),))
        self.seen = [0] * PLAYERS
        self.decision = None
        self.pending = []
        self.ended = False
        self.submitted = None
        self.feeds = [asyncio.Queue() for _ in range(PLAYERS)] if self.use_play else []
        self.readers = [asyncio.create_task(self._read(seat)) for seat in range(PLAYERS)]

    async def _read(self, seat: int) -> None:
        """Read one seat's stream to its end: its Play stream's updates and action results, or (``unary``) its
        StreamEvents messages."""
        call: Any
        if self.use_play:
            call = self.stubs[seat].Play(self._requests(seat), metadata=self.tokens[seat])
        else:
            batch = self.shared.args.batch_events
            request = pb.StreamEventsRequest(table_id=self.table_id, batch_events=batch)
            call = self.stubs[seat].StreamEvents(request, metadata=self.tokens[seat])
        try:
            async for message in call:
                if not self.use_play:
                    self._updated(seat, message)
                elif message.HasField("update"):
                    self._updated(seat, message.update)
                if self.use_play and message.HasField("result"):
                    self._resulted(message.result)
                if self.pending:
                    self._complete()
        except aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                kind = "play stream" if self.use_play else "stream"
                self.shared.window.errors[f"{kind} {error.code().name}"] += 1
        self.ended = True  # the game is over (or the stream failed): the table is replaced
        self.wake.set()
        self.resulted.set()

    def _updated(self, seat: int, message: pb.StreamEventsResponse) -> None:
        """One stream message: what the seat has seen, and its decision when the Turn asks it to act."""
        if self.shared.running["game"].is_set():
            self.shared.window.messages += 1
        last = message.sequence + len(message.more_events)  # a batch: the last event's number
        self.seen[seat] = last
        turn = message.turn
        if turn.HasField("seat") and turn.seat == seat and turn.legal_actions:
            self.decision = (seat, last, list(turn.legal_actions))
            self.wake.set()

    async def _requests(self, seat: int) -> AsyncIterator[pb.PlayRequest]:
        start = pb.PlayRequest()
        start.start.table_id = self.table_id
        yield start
        feed = self.feeds[seat]
        while (request := await feed.get()) is not None:
            yield request

    def _resulted(self, result: pb.ActionResult) -> None:
        began, self.submitted = self.submitted, None
        self.resulted.set()
        if began is None:
            self.shared.window.errors["play result without an action"] += 1
            return
        if result.HasField("refusal"):
            self.shared.in_flight["game"] -= 1
            self.shared.window.errors[f"play {result.refusal.reason}"] += 1
            self.ended = True  # the table's state is unknown now: start a fresh one
            self.wake.set()
            return
        self.pending.append((result.sequence, began))

    def _complete(self) -> None:
        """Record every pending action whose events every seat's stream has now received."""
        now = time.perf_counter()
        seen = min(self.seen)
        while self.pending and self.pending[0][0] <= seen:
            _, began = self.pending.pop(0)
            self.shared.window.record(began, now)
            self.shared.in_flight["game"] -= 1

    async def play(self) -> None:
        shared = self.shared
        first = shared.args.policy == "first"
        running = shared.running["game"]
        for _ in range(MAX_ACTIONS_PER_TABLE):
            if time.monotonic() >= shared.deadline:
                return
            try:
                await asyncio.wait_for(self.wake.wait(), timeout=1.0)
            except TimeoutError:
                continue
            self.wake.clear()
            if self.ended:
                try:
                    await self._replace()
                except aio.AioRpcError as error:
                    shared.window.errors[f"replace {error.code().name}"] += 1
                    await asyncio.sleep(0.1)
                    self.ended = True
                    self.wake.set()
                continue
            if self.decision is None:
                continue
            await running.wait()
            seat, sequence, legal = self.decision
            self.decision = None
            action = legal[0] if first else self.rng.choice(legal)
            self.acted += 1
            if self.use_play:
                play = pb.PlayRequest()
                play.action.request_id = f"{seat}-{self.acted}"
                play.action.last_seen_sequence = sequence
                play.action.action.CopyFrom(action)
                shared.in_flight["game"] += 1
                self.resulted.clear()
                self.submitted = time.perf_counter()
                self.feeds[seat].put_nowait(play)
                try:
                    await asyncio.wait_for(self.resulted.wait(), DRAIN_SECONDS)
                except TimeoutError:
                    shared.window.errors["play result TIMEOUT"] += 1
                    self.ended = True
                    self.wake.set()
                continue
            request = pb.SubmitActionRequest(
                table_id=self.table_id,
                request_id=f"{seat}-{self.acted}",
                last_seen_sequence=sequence,
                action=action,
            )
            shared.in_flight["game"] += 1
            began = time.perf_counter()
            try:
                response = await self.stubs[seat].SubmitAction(request, metadata=self.tokens[seat])
            except aio.AioRpcError as error:
                shared.in_flight["game"] -= 1
                shared.window.errors[f"submit {error.code().name}"] += 1
                self.ended = True  # the table's state is unknown now: start a fresh one
                self.wake.set()
                continue
            self.pending.append((response.sequence, began))
            self._complete()

    async def _replace(self) -> None:
        for feed in self.feeds:
            feed.put_nowait(None)
        if self.submitted is not None:
            self.submitted = None
            self.shared.in_flight["game"] -= 1
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        self.readers = []
        self.shared.in_flight["game"] -= len(self.pending)
        self.pending = []
        self.shared.replaced += 1
        await self.open()


class FanoutTable:
    """The fan-out floor's client side of one table: three streams, one Act in flight at a time."""

    def __init__(self, shared: ClientShared, index: int) -> None:
        self.shared = shared
        self.key = (shared.args.client_index << 32 | index).to_bytes(FANOUT_KEY, "big")
        channels = [shared.channel(shared.args.echo_target) for _ in range(PLAYERS)]
        self.acts: list[aio.UnaryUnaryMultiCallable[bytes, bytes]] = [
            c.unary_unary(FANOUT_METHOD) for c in channels
        ]
        self.watches: list[aio.UnaryStreamMultiCallable[bytes, bytes]] = [
            c.unary_stream(FANOUT_STREAM_METHOD) for c in channels
        ]
        self.plays: list[aio.StreamStreamMultiCallable[bytes, bytes]] = [
            c.stream_stream(FANOUT_PLAY_METHOD) for c in channels
        ]
        self.use_play = shared.args.submit == "play"
        """The Play shape (one message in on the acting seat's stream, one out on each stream per act)."""
        self.feeds: list[asyncio.Queue[bytes]] = [asyncio.Queue() for _ in range(PLAYERS)]
        self.sent = 0
        self.seen = [0] * PLAYERS
        self.arrived = asyncio.Event()
        self.readers: list[asyncio.Task[None]] = []

    def open(self) -> None:
        self.readers = [asyncio.create_task(self._read(seat)) for seat in range(PLAYERS)]

    async def _requests(self, seat: int) -> AsyncIterator[bytes]:
        yield self.key + bytes([seat])
        feed = self.feeds[seat]
        for _ in range(MAX_ACTIONS_PER_TABLE):
            yield await feed.get()

    async def _read(self, seat: int) -> None:
        opened = self.key + bytes([seat])
        call = self.plays[seat](self._requests(seat)) if self.use_play else self.watches[seat](opened)
        try:
            async for message in call:
                self.seen[seat] = int.from_bytes(message[:8], "big")
                self.arrived.set()
        except aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                self.shared.window.errors[f"fanout stream {error.code().name}"] += 1

    async def _act(self, seat: int) -> int:
        """One act from ``seat``; the sequence number every stream must reach."""
        if self.use_play:
            self.sent += 1
            self.feeds[seat].put_nowait(b"a")
            return self.sent
        return int.from_bytes(await self.acts[seat](self.key), "big")

    async def play(self) -> None:
        shared = self.shared
        running = shared.running["fanout"]
        for acted in range(MAX_ACTIONS_PER_TABLE):
            if time.monotonic() >= shared.deadline:
                return
            try:
                await asyncio.wait_for(running.wait(), timeout=1.0)
            except TimeoutError:
                continue
            shared.in_flight["fanout"] += 1
            began = time.perf_counter()
            try:
                last = await self._act(acted % PLAYERS)
                for _ in range(MAX_ACTIONS_PER_TABLE):
                    if min(self.seen) >= last:
                        break
                    self.arrived.clear()
                    await asyncio.wait_for(self.arrived.wait(), DRAIN_SECONDS)
            except (aio.AioRpcError, TimeoutError) as error:
                name = error.code().name if isinstance(error, aio.AioRpcError) else "TIMEOUT"
                shared.window.errors[f"fanout {name}"] += 1
            else:
                shared.window.record(began, time.perf_counter())
            shared.in_flight["fanout"] -= 1


async def _echo_caller(shared: ClientShared, payload: bytes) -> None:
    call: aio.UnaryUnaryMultiCallable[bytes, bytes] = shared.channel(shared.args.echo_target).unary_unary(
        ECHO_METHOD
    )
    running = shared.running["echo"]
    for _ in range(MAX_ACTIONS_PER_TABLE):
        if time.monotonic() >= shared.deadline:
            return
        try:
            await asyncio.wait_for(running.wait(), timeout=1.0)
        except TimeoutError:
            continue
        shared.in_flight["echo"] += 1
        began = time.perf_counter()
        try:
            await call(payload)
        except aio.AioRpcError as error:
            shared.window.errors[f"echo {error.code().name}"] += 1
        else:
            shared.window.record(began, time.perf_counter())
        shared.in_flight["echo"] -= 1


def _echo_payload() -> bytes:
    """A request of the size of a typical SubmitActionRequest."""
    request = pb.SubmitActionRequest(table_id="0123456789ab", request_id="1-123", last_seen_sequence=123)
    request.action.thousand.bid.value = 120
    return request.SerializeToString()


async def _run_client(args: argparse.Namespace) -> None:
    shared = ClientShared(args)
    loop = asyncio.get_running_loop()
    began = time.perf_counter()
    tables = [GameTable(shared, i) for i in range(args.tables)]
    limit = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def open_one(table: GameTable) -> None:
        async with limit:
            await table.open()

    await asyncio.gather(*(open_one(t) for t in tables))
    actors = [asyncio.create_task(t.play()) for t in tables]
    payload = _echo_payload()
    callers = [asyncio.create_task(_echo_caller(shared, payload)) for _ in range(args.tables)]
    fanouts = [FanoutTable(shared, i) for i in range(args.tables if args.fanout else 0)]
    for fanout in fanouts:
        fanout.open()
    callers += [asyncio.create_task(f.play()) for f in fanouts]
    _reply({"ready": True, "tables": len(tables), "setup_s": round(time.perf_counter() - began, 3)})
    try:
        for _ in range(10_000):
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line or time.monotonic() >= shared.deadline:
                break
            command = json.loads(line)
            if command["cmd"] == "quit":
                break
            _reply(await _slice(shared, command["side"], command["start"], command["end"]))
    finally:
        for task in [*actors, *callers]:
            task.cancel()
        readers = [r for t in tables for r in t.readers] + [r for f in fanouts for r in f.readers]
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*actors, *callers, *readers, return_exceptions=True)
        await shared.close()


async def _slice(shared: ClientShared, side: str, start: float, end: float) -> dict[str, Any]:
    """Run ``side`` from ``start`` to ``end`` (the monotonic clock every process shares), then drain it."""
    window = Window(start=time.perf_counter() + (start - time.monotonic()))
    window.end = window.start + (end - start)
    shared.window = window
    replaced = shared.replaced
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    shared.running[side].set()
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    shared.running[side].clear()
    drain_deadline = time.monotonic() + DRAIN_SECONDS
    for _ in range(int(DRAIN_SECONDS / 0.01)):
        if shared.in_flight[side] <= 0 or time.monotonic() >= drain_deadline:
            break
        await asyncio.sleep(0.01)
    return {
        "side": side,
        "latencies_ms": [round(s * 1000, 3) for s in window.latencies],
        "messages": window.messages,
        "errors": dict(window.errors),
        "replaced": shared.replaced - replaced,
        "undrained": shared.in_flight[side],
    }


def _reply(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------- controller


@dataclass(slots=True)
class Side:
    """One side's totals over its measured slices."""

    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    replaced: int = 0
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds per process name during the slices."""
    rates: list[float] = field(default_factory=list)
    messages: int = 0

    def per_second(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds else 0.0

    def cpu_percent(self, name: str) -> float:
        return 100 * self.cpu.get(name, 0.0) / self.seconds if self.seconds else 0.0


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
    game_port, echo_port = procs.free_port(), procs.free_port()
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
            profiler = _start_profiler(pids["server"], Path(args.profile), logs, native=args.native)
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
    result = _result(args, game, echo, rounds=rounds, load=(load_before[0], load_after[0]))
    _report(result, game, echo, out)
    if "fanout" in totals:
        result |= _fanout_result(args, totals["fanout"], game)
        _fanout_report(result, totals["fanout"], out)
    if args.profile:
        _print_profile(Path(args.profile), out)
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


def _result(
    args: argparse.Namespace,
    game: Side,
    echo: Side,
    *,
    rounds: int,
    load: tuple[float, float],
) -> dict[str, Any]:
    actions_per_s = game.per_second()
    echo_per_s = echo.per_second()
    p50, p99 = procs.percentile(game.latencies_ms, 0.5), procs.percentile(game.latencies_ms, 0.99)
    echo_p50, echo_p99 = procs.percentile(echo.latencies_ms, 0.5), procs.percentile(echo.latencies_ms, 0.99)
    game_client_cpu = sum(v for k, v in game.cpu.items() if k.startswith("client"))
    echo_client_cpu = sum(v for k, v in echo.cpu.items() if k.startswith("client"))
    actions = len(game.latencies_ms)
    calls = len(echo.latencies_ms)
    return {
        "tables": args.tables,
        "clients": args.clients,
        "connections": args.connections,
        "policy": args.policy,
        "submit": args.submit,
        "engine": args.engine,
        "batch_events": args.batch_events,
        "db": args.db,
        "rounds": rounds,
        "seconds": round(game.seconds, 3),
        "actions": actions,
        "actions_per_s": round(actions_per_s, 1),
        "p50_ms": round(p50, 3),
        "p90_ms": round(procs.percentile(game.latencies_ms, 0.9), 3),
        "p99_ms": round(p99, 3),
        "max_ms": round(max(game.latencies_ms, default=0.0), 3),
        "echo_calls": calls,
        "echo_calls_per_s": round(echo_per_s, 1),
        "echo_p50_ms": round(echo_p50, 3),
        "echo_p99_ms": round(echo_p99, 3),
        "throughput_ratio": round(actions_per_s / echo_per_s, 4) if echo_per_s else 0.0,
        "p99_ratio": round(p99 / echo_p99, 3) if echo_p99 else 0.0,
        "server_cpu_percent": round(game.cpu_percent("server"), 1),
        "client_cpu_percent": round(100 * game_client_cpu / game.seconds, 1) if game.seconds else 0.0,
        "echo_server_cpu_percent": round(echo.cpu_percent("echo"), 1),
        "echo_client_cpu_percent": round(100 * echo_client_cpu / echo.seconds, 1) if echo.seconds else 0.0,
        "server_cpu_ms_per_action": round(1000 * game.cpu.get("server", 0.0) / max(actions, 1), 4),
        "echo_server_cpu_ms_per_call": round(1000 * echo.cpu.get("echo", 0.0) / max(calls, 1), 4),
        "stream_messages_per_action": round(game.messages / max(actions, 1), 2),
        "tables_replaced": game.replaced,
        "errors": sum(game.errors.values()) + sum(echo.errors.values()),
        "load_before": round(load[0], 2),
        "load_after": round(load[1], 2),
    }


def _report(result: dict[str, Any], game: Side, echo: Side, out: Callable[[str], None]) -> None:
    out("")
    out(f"Game server, {game.seconds:.2f} s measured ({result['tables']} tables, one action in flight each):")
    out(f"  actions          {result['actions']:>10}   {result['actions_per_s']:>10,.1f} /s")
    out(
        f"  latency ms       p50 {result['p50_ms']:.2f}  p90 {result['p90_ms']:.2f}"
        f"  p99 {result['p99_ms']:.2f}  max {result['max_ms']:.2f}"
        "  (submit until every seat's stream has the events)"
    )
    out(
        f"  CPU              server {result['server_cpu_percent']:.0f}%"
        f"  ({result['server_cpu_ms_per_action']:.3f} ms per action),"
        f" client(s) {result['client_cpu_percent']:.0f}%"
    )
    out(
        f"  stream messages  {result['stream_messages_per_action']:>10.2f} per action (all seats);"
        f"  tables replaced (game over) {game.replaced}"
    )
    out(f"  actions/s by round {_spread(game.rates)}")
    out(f"Bare gRPC echo, {echo.seconds:.2f} s measured (the same number of unary calls in flight):")
    out(f"  calls            {result['echo_calls']:>10}   {result['echo_calls_per_s']:>10,.1f} /s")
    out(f"  latency ms       p50 {result['echo_p50_ms']:.2f}  p99 {result['echo_p99_ms']:.2f}")
    out(
        f"  CPU              echo server {result['echo_server_cpu_percent']:.0f}%"
        f"  ({result['echo_server_cpu_ms_per_call']:.3f} ms per call),"
        f" client(s) {result['echo_client_cpu_percent']:.0f}%"
    )
    out(f"  calls/s by round {_spread(echo.rates)}")
    out(
        f"throughput ratio (actions/s over echo calls/s) {result['throughput_ratio']:.3f};"
        f" p99 ratio {result['p99_ratio']:.2f}; load average {result['load_before']:.2f} before,"
        f" {result['load_after']:.2f} after"
    )
    errors = game.errors + echo.errors
    if errors:
        out(f"ERRORS: {dict(errors)}")


def _fanout_result(args: argparse.Namespace, fanout: Side, game: Side) -> dict[str, Any]:
    acts = len(fanout.latencies_ms)
    per_s = fanout.per_second()
    return {
        "fanout_messages_per_act": (
            PLAYERS if args.submit == "play" else round(PLAYERS * args.fanout_messages, 2)
        ),
        "fanout_message_bytes": args.fanout_bytes,
        "fanout_acts": acts,
        "fanout_acts_per_s": round(per_s, 1),
        "fanout_p50_ms": round(procs.percentile(fanout.latencies_ms, 0.5), 3),
        "fanout_p99_ms": round(procs.percentile(fanout.latencies_ms, 0.99), 3),
        "fanout_server_cpu_percent": round(fanout.cpu_percent("echo"), 1),
        "fanout_client_cpu_percent": round(
            100 * sum(v for k, v in fanout.cpu.items() if k.startswith("client")) / max(fanout.seconds, 1e-9),
            1,
        ),
        "fanout_server_cpu_ms_per_act": round(1000 * fanout.cpu.get("echo", 0.0) / max(acts, 1), 4),
        "fanout_throughput_ratio": round(game.per_second() / per_s, 4) if per_s else 0.0,
    }


def _fanout_report(result: dict[str, Any], fanout: Side, out: Callable[[str], None]) -> None:
    shape = "one message on a bidirectional stream" if result["submit"] == "play" else "one unary call"
    out(
        f"Bare gRPC fan-out, {fanout.seconds:.2f} s measured (an act: {shape} and"
        f" {result['fanout_messages_per_act']:g} stream messages of {result['fanout_message_bytes']} bytes):"
    )
    out(f"  acts             {result['fanout_acts']:>10}   {result['fanout_acts_per_s']:>10,.1f} /s")
    out(f"  latency ms       p50 {result['fanout_p50_ms']:.2f}  p99 {result['fanout_p99_ms']:.2f}")
    out(
        f"  CPU              server {result['fanout_server_cpu_percent']:.0f}%"
        f"  ({result['fanout_server_cpu_ms_per_act']:.3f} ms per act),"
        f" client(s) {result['fanout_client_cpu_percent']:.0f}%"
    )
    out(f"  acts/s by round {_spread(fanout.rates)}")
    out(f"fan-out throughput ratio (actions/s over fan-out acts/s) {result['fanout_throughput_ratio']:.3f}")


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"min {min(values):,.0f}  max {max(values):,.0f}  ({len(values)} slices)"


def _start_profiler(pid: int, path: Path, logs: Path, *, native: bool) -> subprocess.Popen[bytes] | None:
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(py_spy).exists():
        print("bench: py-spy is not installed (pip install py-spy); --profile is ignored", file=sys.stderr)
        return None
    argv = [py_spy, "record", "--pid", str(pid), "--rate", "250", "--format", "raw", "--output", str(path)]
    # --native reads C frames (gRPC's Cython, protobuf, system calls), which needs the process paused for
    # every sample; without it py-spy samples without stopping the server.
    argv.append("--native" if native else "--nonblocking")
    return procs.start(argv, logs / "py-spy.log")


IDLE_LEAVES: Final = ("epoll_wait", "EpollSelector.select", "Thread.run (threading.py")
"""Frames a waiting thread sits in: the event loop's select, and gRPC's poller thread (blocked in C)."""
COMPONENTS: Final = (
    ("server/", "server/*.py"),
    ("engine/", "engine/*.py"),
    ("thousand/", "generated protobuf code"),
    ("_message", "protobuf (upb, C)"),
    ("cygrpc", "gRPC core and its Cython layer"),
    ("grpc/", "grpc Python layer"),
    ("structlog/", "logging (structlog)"),
    ("logging/", "logging (stdlib)"),
    ("sqlite", "SQLite store"),
    ("asyncio/", "asyncio (Python)"),
    ("_asynciomodule", "asyncio (C)"),
    ("libpython", "CPython runtime"),
)


def _component(leaf: str) -> str:
    name, _, where = leaf.partition(" (")
    if name == "Handle._run":
        return "C called from the event loop: gRPC's Cython layer, system calls (--native tells)"
    if where.startswith("libc"):
        return f"system call or libc: {name}"
    for marker, component in COMPONENTS:
        if marker in where:
            return component
    return "other"


def _print_profile(path: Path, out: Callable[[str], None], top: int = 20) -> None:
    """Where the busy samples were: by component (of the innermost frame) and by function (inclusive)."""
    if not path.exists():
        out(f"no profile was written to {path}")
        return
    inclusive: Counter[str] = Counter()
    components: Counter[str] = Counter()
    busy = idle = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        if frames[-1].startswith(IDLE_LEAVES):
            idle += count
            continue
        busy += count
        components[_component(frames[-1])] += count
        for frame in {_short(f) for f in frames}:
            inclusive[frame] += count
    if not busy:
        out(f"the profile in {path} has no busy sample")
        return
    out(f"\nprofile of the game server ({busy} busy samples, {idle} waiting left out; {path}):")
    out("  by component of the innermost frame (without --native, C code counts as its Python caller):")
    for component, count in components.most_common(top):
        out(f"  {100 * count / busy:6.1f} %  {component}")
    out("  by function, inclusive (the project's code, and the event loop's callback runner):")
    shown = [
        (f, c)
        for f, c in inclusive.most_common()
        if (f.startswith(PROFILED) and not f.startswith("server/app.py")) or "Handle._run" in f
    ]
    for frame, count in shown[:top]:
        out(f"  {100 * count / busy:6.1f} %  {frame}")


PROFILED: Final = ("server/", "engine/")


def _short(frame: str) -> str:
    """``path/from/the/package.py:function`` (the line left out)."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").rpartition(":")[0] or where.rstrip(")")
    for marker in ("site-packages/", "lib/python3.11/"):
        if marker in where:
            where = where.split(marker, 1)[1]
    for marker in PROFILED:
        if f"/{marker}" in where:
            where = marker + where.split(f"/{marker}", 1)[1]
    return f"{where}:{name}"


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
        asyncio.run(_serve_echo(args.port, _Fanout(args.fanout_messages, args.fanout_bytes)))
        return 0
    if args.role == "client":
        asyncio.run(_run_client(args))
        return 0
    if args.seconds <= 0 or args.tables <= 0 or not 0 < args.clients <= args.tables:
        parser.error("--seconds and --tables must be positive, --clients between 1 and --tables")
    result = _run(args, print)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
