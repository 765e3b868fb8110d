"""Rebalancing where people play (issue #32): a table where a person is on turn does not move under them
(their action would be refused while it moves, and the new owner's turn clock would start their turn
afresh); it moves at its next safe point, right after the move that hands the turn on, and its clients
follow it there as on a takeover. And the operator's switch: ``thousand-cluster rebalancing pause`` stops
every node's rebalancing at once, ``resume`` lets it go on. Real server processes on one PostgreSQL
(docs/operations.md, "Rebalancing")."""

from __future__ import annotations

import asyncio
import functools
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from grpc import aio

from clients.errors import ServerError
from tests.cluster_harness import Cluster, cluster
from tests.server_harness import run, thousand_table, token_md
from tests.test_cluster import stub, until
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

REBALANCE = ("--rebalance-seconds", "0.2")
TABLES = 4
QUIET_SECONDS = 3.0
"""How long node b waits, empty, beside a's four tables whose person is on turn: fifteen rebalancing turns
(before, a gave b two of them within the first second)."""
FAIR_SECONDS = 30.0
"""Bound on the time from the people's moves to the fair share (a loaded machine's replays included)."""
RETRY_SECONDS = 30.0
RETRYABLE = ("TABLE_ELSEWHERE", "TABLE_MOVING", "STORE_UNAVAILABLE", "")


@dataclass
class Person:
    """Seat 0 of one table, played by a person: their stream follows the table wherever it goes."""

    table_id: str
    token: str
    stubs: dict[str, pb_grpc.TableServiceAsyncStub]
    address: str
    last: int = 0
    """The sequence of the last event seen."""
    legal: list[pb.Action] = field(default_factory=list)
    """Seat 0's legal actions when the last message said it is on turn, else empty."""
    served_by: list[str] = field(default_factory=list)
    """The address of every node whose stream delivered events, in order."""
    ends: list[str] = field(default_factory=list)
    """The reason each stream ended with."""
    faults: list[str] = field(default_factory=list)
    """Gaps and repeats: must stay empty."""
    acknowledged: list[tuple[str, int]] = field(default_factory=list)
    """(request id, sequence) of every move acknowledged."""

    def node(self, address: str | None = None) -> pb_grpc.TableServiceAsyncStub:
        self.address = address or self.address
        if self.address not in self.stubs:
            self.stubs[self.address] = stub(self.address)
        return self.stubs[self.address]

    async def follow(self) -> None:
        """The seat's events from the first, resumed after the last one seen where the table went (until
        cancelled)."""
        while True:
            after = self.last if self.last else None
            request = pb.StreamEventsRequest(table_id=self.table_id, after_sequence=after)
            try:
                async for message in self.node().StreamEvents(request, metadata=token_md(self.token)):
                    self._read(message)
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
                self.ends.append(error.reason)
                self.node(error.metadata.get("endpoint") or None)
            self.legal = []
            await asyncio.sleep(0.1)

    def _read(self, message: pb.StreamEventsResponse) -> None:
        if message.HasField("event"):
            if message.sequence != self.last + 1:
                self.faults.append(f"after {self.last} came {message.sequence}")
            self.last = max(self.last, message.sequence)
            if not self.served_by or self.served_by[-1] != self.address:
                self.served_by.append(self.address)
        elif message.HasField("snapshot"):
            self.last = max(self.last, message.sequence)
        if message.HasField("turn"):
            self.legal = list(message.turn.legal_actions)

    async def move(self, request_id: str) -> int:
        """Seat 0's first legal action, once on turn, sent where the table is (again, same request id, while
        it moves); the sequence acknowledged."""
        deadline = time.monotonic() + RETRY_SECONDS
        while not self.legal:
            assert time.monotonic() < deadline, "seat 0 never came on turn"
            await asyncio.sleep(0.05)
        request = pb.SubmitActionRequest(table_id=self.table_id, request_id=request_id, action=self.legal[0])
        while True:
            try:
                reply = await self.node().SubmitAction(request, metadata=token_md(self.token), timeout=10)
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
                assert error.reason in RETRYABLE and time.monotonic() < deadline, rpc_error.details()
                self.node(error.metadata.get("endpoint") or None)
                await asyncio.sleep(0.1)
                continue
            self.acknowledged.append((request_id, int(reply.sequence)))
            return int(reply.sequence)


def test_a_table_where_a_person_is_on_turn_moves_only_at_its_next_safe_point(
    tmp_path: Path, pg_url: str
) -> None:
    """Node a holds four tables, each waiting for its person (seat 0; two server bots): node b joins empty.
    While every person thinks, nothing moves (before: two tables moved to b at once). Once they play, the
    tables move, one at a time, right after a move, until each node holds two; every person's stream
    follows its table without a gap, every acknowledged move is stored once, and play goes on at b."""
    with cluster(tmp_path, pg_url, ["a"], flags=REBALANCE) as first, ExitStack() as later:
        tables = run(seat_people(first))

        def join_b() -> Cluster:
            second = later.enter_context(cluster(tmp_path, pg_url, ["b"], flags=REBALANCE))
            return Cluster(
                first.url,
                {**first.nodes, **second.nodes},
                {**first.metrics_ports, **second.metrics_ports},
                {},
            )

        nodes = run(play_through_a_rebalance(first, tables, join_b))
        assert nodes.metric("a", "thousand_cluster_tables_rebalanced_total") == 2
        assert nodes.metric("b", 'thousand_cluster_claims_total{reason="placed"}') == 2


async def seat_people(nodes: Cluster) -> dict[str, str]:
    """TABLES tables on node a, seat 0 taken by a person: table id -> seat token."""
    a = stub(nodes.address("a"))
    tokens = {}
    for _ in range(TABLES):
        table_id = (await a.CreateTable(thousand_table(bots=2))).table.table_id
        tokens[table_id] = (await a.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0))).seat_token
    return tokens


async def play_through_a_rebalance(
    first: Cluster, tokens: dict[str, str], join_b: Callable[[], Cluster]
) -> Cluster:
    """Node b joins once every person follows their table and is on turn there (before that, a table with
    no stream open and a bot on turn is nobody's and may move: on a loaded machine one did); the two nodes.
    """
    stubs: dict[str, pb_grpc.TableServiceAsyncStub] = {}
    people = [Person(t, token, stubs, first.address("a")) for t, token in tokens.items()]
    followers = [asyncio.create_task(person.follow()) for person in people]
    try:
        await until(lambda: _all_on_turn(people), timeout=RETRY_SECONDS)
        nodes = await asyncio.to_thread(join_b)
        await asyncio.sleep(QUIET_SECONDS)
        assert nodes.unfinished_by_owner() == {"a": TABLES}, "a table moved while its person was on turn"
        assert nodes.metric("a", "thousand_cluster_tables_rebalanced_total") == 0
        assert nodes.metric("a", "thousand_cluster_rebalance_waiting") == 1
        started = time.monotonic()
        moves = 0
        while nodes.unfinished_by_owner() != {"a": TABLES // 2, "b": TABLES // 2}:
            assert time.monotonic() - started < FAIR_SECONDS, nodes.unfinished_by_owner()
            for person in people:  # each person plays once their turn comes (the bots' moves between)
                if person.legal:
                    await person.move(f"m{moves}")
                    moves += 1
            await asyncio.sleep(0.05)
        print(f"fair share {time.monotonic() - started:.1f} s after the people started playing")
        owners = nodes.owners()
        moved = [person for person in people if owners[person.table_id] == "b"]
        assert len(moved) == TABLES // 2
        for person in moved:  # play goes on at b, where the person's stream followed the table
            await person.move("after")
            await until(functools.partial(_followed, person, nodes.address("b")), timeout=RETRY_SECONDS)
            assert person.served_by == [nodes.address("a"), nodes.address("b")], person.served_by
            assert "TABLE_MOVING" in person.ends, person.ends
    finally:
        for follower in followers:
            follower.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
    for person in people:
        assert person.faults == [], (person.table_id, person.faults)
        stored = nodes.rows(
            "SELECT text, count(*) FROM {S}.records WHERE table_id = %s AND seat = 0 AND kind = 'action'"
            " GROUP BY text",
            person.table_id,
        )
        counts = {str(text): int(count) for text, count in stored}
        assert all(counts.get(request_id) == 1 for request_id, _ in person.acknowledged), counts
    return nodes


async def _followed(person: Person, address: str) -> bool:
    """The person's stream has delivered events from ``address``."""
    return address in person.served_by


async def _all_on_turn(people: list[Person]) -> bool:
    return all(person.legal for person in people)


def admin(url: str, *args: str) -> str:
    """``thousand-cluster`` run as an operator would, in a process of its own; its output."""
    done = subprocess.run(
        [sys.executable, "-m", "server.cluster_admin", "--db", url, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_an_operator_pauses_rebalancing_in_the_whole_cluster_and_resumes_it(
    tmp_path: Path, pg_url: str
) -> None:
    """Paused, an empty node b joining a's four tables gets none (before the pause it would get two at
    once: nobody is on turn there, each waits for a player); resumed, the tables spread to two each."""
    with cluster(tmp_path, pg_url, ["a"], flags=REBALANCE) as first:
        run(_waiting_tables(first))
        assert admin(pg_url, "rebalancing", "pause").strip() == "rebalancing paused on every node"
        with cluster(tmp_path, pg_url, ["b"], flags=REBALANCE) as second:
            nodes = Cluster(
                first.url,
                {**first.nodes, **second.nodes},
                {**first.metrics_ports, **second.metrics_ports},
                {},
            )
            time.sleep(QUIET_SECONDS)
            assert nodes.unfinished_by_owner() == {"a": TABLES}
            assert nodes.metric("a", "thousand_cluster_rebalancing_paused") == 1
            status = admin(pg_url, "status").splitlines()
            rows = {line.split()[0]: line.split() for line in status[1:3]}
            assert rows["a"][1] == "active" and rows["a"][-1] == str(TABLES), status
            assert rows["b"][1] == "active" and rows["b"][-1] == "0", status
            assert status[-2:] == ["unfinished tables without an active owner: 0", "rebalancing: paused"]
            assert pg_url not in "\n".join(status)
            admin(pg_url, "rebalancing", "resume")
            deadline = time.monotonic() + FAIR_SECONDS
            while nodes.unfinished_by_owner() != {"a": TABLES // 2, "b": TABLES // 2}:
                assert time.monotonic() < deadline, nodes.unfinished_by_owner()
                time.sleep(0.1)
            assert nodes.metric("a", "thousand_cluster_rebalancing_paused") == 0
            assert admin(pg_url, "status").splitlines()[-1] == "rebalancing: on"


async def _waiting_tables(nodes: Cluster) -> None:
    """TABLES tables on node a, each waiting for a player in seat 0."""
    a = stub(nodes.address("a"))
    for _ in range(TABLES):
        await a.CreateTable(thousand_table(bots=2))
