"""A seeded chaos run of our own (issue #32): three nodes on one PostgreSQL with a 2 s lease; tables played
by an outside client that sends each move to a random node, follows TABLE_ELSEWHERE and TABLE_MOVING and
resends the same request until it is answered; spectators that follow each table wherever it goes; and,
meanwhile, a seeded sequence of faults: a node SIGKILLed and restarted, a node frozen past its lease and
woken, PostgreSQL crashed and restarted. Bounded to about a minute. Afterwards: no stream saw a gap or a
repeat, every acknowledged action is stored exactly once, at the sequence it was acknowledged with or
before what followed, and every table's records are numbered without a hole."""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from grpc import aio

from clients.errors import ServerError
from scripts.postgres import Postgres
from tests.cluster_harness import LEASE_SECONDS, Cluster, cluster_on_own_database
from tests.server_harness import run, thousand_table, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

SEED = 32
TABLES = 3
FAULTS = 4
FAULT_SPACING_SECONDS = 6.0
SETTLE_SECONDS = 4 * LEASE_SECONDS
T = TypeVar("T")
RETRY_SECONDS = 40.0
"""How long one request is resent before the run fails (a takeover, a restart: a few leases at most)."""


@dataclass
class Chaos:
    nodes: Cluster
    database: Postgres
    rng: random.Random
    stubs: dict[str, pb_grpc.TableServiceAsyncStub] = field(default_factory=dict)
    acknowledged: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    """table id -> (request_id, sequence) of every action acknowledged."""
    stream_faults: list[str] = field(default_factory=list)
    faults_done: list[str] = field(default_factory=list)
    playing: bool = True

    def stub(self, address: str | None = None) -> pb_grpc.TableServiceAsyncStub:
        address = address or self.nodes.address(self.rng.choice(sorted(self.nodes.nodes)))
        if address not in self.stubs:
            self.stubs[address] = pb_grpc.TableServiceStub(aio.insecure_channel(address))
        return self.stubs[address]

    async def call(self, make: Callable[[pb_grpc.TableServiceAsyncStub], Awaitable[T]]) -> T:
        """``make``'s call on a random node, sent again (to where an error points, or another random node)
        until it is answered with something other than a redirect or a retryable failure."""
        deadline = time.monotonic() + RETRY_SECONDS
        stub = self.stub()
        while True:
            try:
                return await make(stub)
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
                retryable = error.reason in ("TABLE_ELSEWHERE", "TABLE_MOVING", "STORE_UNAVAILABLE", "")
                if not retryable or time.monotonic() > deadline:
                    raise
                endpoint = error.metadata.get("endpoint")
                stub = self.stub(endpoint) if endpoint else self.stub()
                await asyncio.sleep(0.1 if endpoint else 0.25)


async def play(chaos: Chaos, table_id: str, token: str) -> None:
    """Seat 0's moves, each a request resent until answered; NOT_YOUR_TURN and ILLEGAL_ACTION (a Turn seen
    before a move landed) end that move, unacknowledged."""
    acknowledged = chaos.acknowledged.setdefault(table_id, [])
    move = 0
    while chaos.playing:

        async def turn(stub: pb_grpc.TableServiceAsyncStub) -> pb.Action | None:
            request = pb.StreamEventsRequest(table_id=table_id)
            async for snapshot in stub.StreamEvents(request, metadata=token_md(token), timeout=10):
                return snapshot.turn.legal_actions[0] if snapshot.turn.legal_actions else None
            return None

        action = await chaos.call(turn)
        if action is None:
            await asyncio.sleep(0.1)
            continue
        request = pb.SubmitActionRequest(table_id=table_id, request_id=f"m{move}", action=action)
        move += 1
        try:
            reply = await chaos.call(functools.partial(_submit, request=request, token=token))
        except aio.AioRpcError as refused:
            reason = ServerError.from_rpc(refused).reason
            assert reason in ("NOT_YOUR_TURN", "ILLEGAL_ACTION"), refused.details()
            continue
        acknowledged.append((request.request_id, reply.sequence))


async def _submit(
    stub: pb_grpc.TableServiceAsyncStub, *, request: pb.SubmitActionRequest, token: str
) -> pb.SubmitActionResponse:
    return await stub.SubmitAction(request, metadata=token_md(token), timeout=10)


async def spectate(chaos: Chaos, table_id: str) -> None:
    """Every event of the table, resumed after the last one seen on whichever node serves it (until
    cancelled)."""
    last = 0
    stub = chaos.stub()
    while True:
        request = pb.StreamEventsRequest(table_id=table_id, after_sequence=last)
        try:
            async for message in stub.StreamEvents(request):
                if not message.HasField("event"):
                    continue
                if message.sequence != last + 1:
                    chaos.stream_faults.append(f"{table_id}: after {last} came {message.sequence}")
                last = max(last, message.sequence)
        except aio.AioRpcError as rpc_error:
            endpoint = ServerError.from_rpc(rpc_error).metadata.get("endpoint")
            stub = chaos.stub(endpoint) if endpoint else chaos.stub()
        await asyncio.sleep(0.1)


async def faults(chaos: Chaos) -> None:
    """The seeded faults, one every FAULT_SPACING_SECONDS: each starts once the last is over."""
    names = sorted(chaos.nodes.nodes)
    for _ in range(FAULTS):
        await asyncio.sleep(FAULT_SPACING_SECONDS)
        kind = chaos.rng.choice(("kill", "freeze", "database"))
        name = chaos.rng.choice(names)
        node = chaos.nodes.nodes[name]
        if kind == "kill":
            node.kill()
            await asyncio.sleep(0.5)
            await asyncio.to_thread(node.start)
        elif kind == "freeze":
            node.freeze()
            await asyncio.sleep(1.5 * LEASE_SECONDS)
            node.thaw()
        else:
            await asyncio.to_thread(chaos.database.crash)
            await asyncio.to_thread(chaos.database.start)
        chaos.faults_done.append(kind if kind == "database" else f"{kind} {name}")


async def scenario(nodes: Cluster, database: Postgres) -> Chaos:
    chaos = Chaos(nodes, database, random.Random(SEED))
    tables = []
    for index in range(TABLES):
        node = chaos.stub(nodes.address(sorted(nodes.nodes)[index % len(nodes.nodes)]))
        table_id = (await node.CreateTable(thousand_table(bots=2))).table.table_id
        token = (await node.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0))).seat_token
        tables.append((table_id, token))
    players = [asyncio.ensure_future(play(chaos, t, token)) for t, token in tables]
    spectators = [asyncio.ensure_future(spectate(chaos, t)) for t, _ in tables]
    try:
        await faults(chaos)
        await asyncio.sleep(SETTLE_SECONDS)
    finally:
        chaos.playing = False
        try:
            await asyncio.wait_for(asyncio.gather(*players), timeout=RETRY_SECONDS + 20)
            await asyncio.sleep(LEASE_SECONDS)  # the spectators catch up with the last moves
        finally:
            for spectator in spectators:
                spectator.cancel()
            await asyncio.gather(*spectators, return_exceptions=True)
    return chaos


def test_a_seeded_run_of_kills_freezes_and_a_database_restart_loses_forks_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    with cluster_on_own_database(tmp_path, ["a", "b", "c"]) as (nodes, database):
        chaos = run(scenario(nodes, database))
        check(nodes, chaos)
    for name in ("a", "b", "c"):
        log = (tmp_path / f"node-{name}.log").read_text()
        assert "cluster turn failed" not in log and "Traceback" not in log, name


def check(nodes: Cluster, chaos: Chaos) -> None:
    print(f"faults: {chaos.faults_done}; acknowledged: {sum(map(len, chaos.acknowledged.values()))}")
    assert len(chaos.faults_done) == FAULTS
    assert not chaos.stream_faults, chaos.stream_faults
    for table_id, acknowledged in chaos.acknowledged.items():
        assert acknowledged, f"{table_id}: no move was acknowledged"
        stored = nodes.rows(
            "SELECT number, kind, text FROM {S}.records WHERE table_id = %s ORDER BY number", table_id
        )
        assert [number for number, _, _ in stored] == list(range(len(stored))), "a hole in the records"
        actions = [text for _, kind, text in stored if kind == "action" and text]
        for request_id, _ in acknowledged:
            count = actions.count(request_id)
            assert count == 1, f"{table_id}: {request_id} stored {count} times"
        sequences = [sequence for _, sequence in acknowledged]
        assert sequences == sorted(set(sequences)), f"{table_id}: acknowledged out of order: {sequences}"
