"""The bare gRPC floors the game server is measured against: an echo and the game's fan-out with no game.

The echo process (``bench/server.py --role echo``) serves both: ``Echo``, one unary method that returns the
request bytes as they came (no protobuf, no interceptor, no logging), and the fan-out's ``Act``, ``Watch``
and ``Play``, which send the game's pattern of stream messages for each act. A client process runs their
callers here: :func:`echo_caller` and :class:`FanoutTable`, measured like the game's tables.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from typing import Final

import grpc
from grpc import aio

from bench import procs
from bench.server_shared import DRAIN_SECONDS, MAX_ACTIONS_PER_TABLE, PLAYERS, ClientShared
from thousand.v1 import table_service_pb2 as pb

ECHO_SERVICE: Final = "bench.Echo"
ECHO_METHOD: Final = f"/{ECHO_SERVICE}/Echo"
FANOUT_METHOD: Final = f"/{ECHO_SERVICE}/Act"
FANOUT_STREAM_METHOD: Final = f"/{ECHO_SERVICE}/Watch"
FANOUT_PLAY_METHOD: Final = f"/{ECHO_SERVICE}/Play"
FANOUT_KEY: Final = 8
"""Bytes of a fan-out request that name its table (a ninth byte names the seat for Watch)."""


# ------------------------------------------------------------------------------------------- the echo process


async def echo(request: bytes, context: aio.ServicerContext[bytes, bytes]) -> bytes:
    return request


class FanoutStreams:
    """The fan-out floor's table: a sequence number and one queue of messages per seat's stream."""

    def __init__(self) -> None:
        self.sequence = 0
        self.owed = 0.0
        self.queues: list[asyncio.Queue[bytes]] = [asyncio.Queue() for _ in range(PLAYERS)]


class Fanout:
    """``--fanout``: the game's message pattern with no game.

    Act puts ``per_stream`` messages (on average: 1.7 is 2, 2, 1, ...) of ``size`` bytes on each of the
    table's three streams and returns the last one's sequence number; Watch streams one seat's messages.
    """

    def __init__(self, per_stream: float, size: int) -> None:
        self.per_stream = per_stream
        self.padding = b"x" * max(0, size - 8)
        self.tables: dict[bytes, FanoutStreams] = {}

    async def act(self, request: bytes, context: aio.ServicerContext[bytes, bytes]) -> bytes:
        table = self.tables.setdefault(request[:FANOUT_KEY], FanoutStreams())
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
        table = self.tables.setdefault(request[:FANOUT_KEY], FanoutStreams())
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
        table = self.tables.setdefault(first[:FANOUT_KEY], FanoutStreams())
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


async def serve_echo(port: int, fanout: Fanout) -> None:
    server = aio.server()
    # No (de)serializers: bytes in, bytes out.
    handlers: dict[str, grpc.RpcMethodHandler[bytes, bytes]] = {
        "Echo": grpc.unary_unary_rpc_method_handler(echo),
        "Act": grpc.unary_unary_rpc_method_handler(fanout.act),
        "Watch": grpc.unary_stream_rpc_method_handler(fanout.watch),
        "Play": grpc.stream_stream_rpc_method_handler(fanout.play),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(ECHO_SERVICE, handlers),))
    server.add_insecure_port(f"{procs.HOST}:{port}")
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the port opens: a stop at once still drains
        loop.add_signal_handler(sig, stopping.set)
    await server.start()
    await stopping.wait()
    await server.stop(0.5)


# ---------------------------------------------------------------------------------------------- the callers


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
        async for acted in shared.turns("fanout"):
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


async def echo_caller(shared: ClientShared, payload: bytes) -> None:
    call: aio.UnaryUnaryMultiCallable[bytes, bytes] = shared.channel(shared.args.echo_target).unary_unary(
        ECHO_METHOD
    )
    async for _ in shared.turns("echo"):
        shared.in_flight["echo"] += 1
        began = time.perf_counter()
        try:
            await call(payload)
        except aio.AioRpcError as error:
            shared.window.errors[f"echo {error.code().name}"] += 1
        else:
            shared.window.record(began, time.perf_counter())
        shared.in_flight["echo"] -= 1


def echo_payload() -> bytes:
    """A request of the size of a typical SubmitActionRequest."""
    request = pb.SubmitActionRequest(table_id="0123456789ab", request_id="1-123", last_seen_sequence=123)
    request.action.thousand.bid.value = 120
    return request.SerializeToString()
