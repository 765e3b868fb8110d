"""A game table of the server benchmark: three joined seats, each streaming, playing as fast as it answers.

A seat acts when its own stream's Turn says so, with the first legal action the Turn lists (``--policy
first``) or a seeded random one; every table has one action in flight at a time. An action's latency runs
from submitting it until every seat's stream has received the last event it produced. A table whose game
ends (or whose state is unknown after an error) is replaced by a new one.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import grpc
from grpc import aio

from bench.server_shared import DRAIN_SECONDS, MAX_ACTIONS_PER_TABLE, PLAYERS, ClientShared
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TOKEN_METADATA: Final = "x-seat-token"


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
