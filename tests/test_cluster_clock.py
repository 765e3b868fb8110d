"""A takeover keeps the turn clock (issue #32): the seat to act at a table whose node died goes on with the
time it had left, not a fresh per-move time and bank at the node that takes the table over, and the time
nobody served the table (from the owner's death to the takeover) is given back, not charged. Real server
processes on one PostgreSQL; the owner SIGKILLed by its pid, or killed and started again alone.

The rule is the turn clock's (CreateTable.time_control: ``per_move`` plus the seat's bank, time beyond
``per_move`` drawn from the bank): each record carries when PostgreSQL stored it, the replay starts the
running decision's clock then, and the claim gives back the time from the owner's last sign of life (its
last heartbeat or record) to the table serving again."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from grpc import aio

from tests.cluster_harness import LEASE_SECONDS, Cluster, cluster
from tests.server_harness import run, thousand_table, token_md
from tests.test_cluster import stub
from thousand.v1 import table_service_pb2 as pb

PER_MOVE = 4.0
BANK = 20.0
THOUGHT = 6.0
"""How long the person has been on turn when the node dies: past per_move, 2 s into the bank."""
HEARTBEAT = LEASE_SECONDS / 4
SLACK = 0.6
"""For a loaded machine: a heartbeat thread scheduled late, a stream read after the claim."""


def clocked_table() -> pb.CreateTableRequest:
    """A practice table of Thousand: seat 0 a person's, two greedy bots; 4 s a move and a 20 s bank."""
    request = thousand_table(bots=2)
    request.time_control.per_move.FromNanoseconds(int(PER_MOVE * 1e9))
    request.time_control.bank.FromNanoseconds(int(BANK * 1e9))
    request.time_control.on_timeout = pb.TIMEOUT_POLICY_BOT_PLAYS_TURN
    return request


async def timed_turn(address: str, table_id: str, token: str, timeout: float = 30) -> tuple[pb.Turn, float]:
    """The seat's Turn, once it is the seat's and timed (the bots before it have moved), from the node at
    ``address`` (retried while it does not serve the table yet); with the time.time() it came."""
    node = stub(address)
    started = time.monotonic()
    while True:
        assert time.monotonic() - started < timeout, "no timed turn"
        try:
            request = pb.StreamEventsRequest(table_id=table_id)
            async for message in node.StreamEvents(request, metadata=token_md(token), timeout=10):
                if message.turn.legal_actions and message.turn.HasField("deadline"):
                    return message.turn, time.time()
                break
        except aio.AioRpcError:
            pass  # not served there yet (TABLE_ELSEWHERE, TABLE_MOVING)
        await asyncio.sleep(0.05)


def deadline(turn: pb.Turn) -> float:
    return turn.deadline.ToNanoseconds() / 1e9


async def seated_on_turn(nodes: Cluster, name: str) -> tuple[str, str, pb.Turn]:
    """A clocked table made on node ``name``, seat 0 taken; its first timed Turn for the seat."""
    node = stub(nodes.address(name))
    table_id = (await node.CreateTable(clocked_table())).table.table_id
    token = (await node.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0))).seat_token
    turn, _ = await timed_turn(nodes.address(name), table_id, token)
    assert turn.bank_remaining.ToNanoseconds() / 1e9 == BANK
    return table_id, token, turn


async def wait_until_thought(turn: pb.Turn) -> None:
    """Until the seat has been on turn THOUGHT seconds (its decision began per_move + bank before the
    deadline)."""
    began = deadline(turn) - PER_MOVE - BANK
    await asyncio.sleep(max(0.0, began + THOUGHT - time.time()))


def test_a_taken_over_table_keeps_the_seat_s_remaining_time(tmp_path: Path, pg_url: str) -> None:
    with cluster(tmp_path, pg_url, ["a", "b"], flags=("--rebalance-seconds", "0")) as nodes:
        run(taken_over_mid_turn(nodes))


async def taken_over_mid_turn(nodes: Cluster) -> None:
    table_id, token, before = await seated_on_turn(nodes, "a")
    await wait_until_thought(before)
    await asyncio.to_thread(nodes.nodes["a"].kill)
    killed = time.time()
    after, seen = await timed_turn(nodes.address("b"), table_id, token)
    assert nodes.owners()[table_id] == "b"
    ((claimed,),) = nodes.rows(
        "SELECT extract(epoch FROM claimed)::float8 FROM {S}.claims"
        " WHERE table_id = %s AND reason = 'takeover'",
        table_id,
    )
    # The deadline moved by the time nobody served the table: at least from the kill to the claim, at most
    # from a's last heartbeat before the kill to the Turn seen at b. A fresh clock would have moved it by
    # the THOUGHT seconds besides.
    moved = deadline(after) - deadline(before)
    assert moved >= claimed - killed - 0.1, (moved, claimed - killed)
    assert moved <= seen - killed + HEARTBEAT + SLACK, (moved, seen - killed)
    assert after.bank_remaining.ToNanoseconds() / 1e9 == BANK  # not charged yet: the decision is not made

    # The move now draws on the bank the time beyond per_move thought at both nodes (TimeControl.bank), not
    # the takeover's: what is left is what the deadline said was left.
    acted = time.time()
    request = pb.SubmitActionRequest(table_id=table_id, request_id="after", action=after.legal_actions[0])
    await stub(nodes.address("b")).SubmitAction(request, metadata=token_md(token), timeout=10)
    table = (await stub(nodes.address("b")).GetTable(pb.GetTableRequest(table_id=table_id))).table
    bank = table.seats[0].bank_remaining.ToNanoseconds() / 1e9
    assert abs(bank - (deadline(after) - acted)) < SLACK, (bank, deadline(after) - acted)
    assert bank < BANK - (THOUGHT - PER_MOVE) + SLACK


def test_a_node_started_again_keeps_its_seats_remaining_time(tmp_path: Path, pg_url: str) -> None:
    with cluster(tmp_path, pg_url, ["a"]) as nodes:
        run(restarted_mid_turn(nodes))


async def restarted_mid_turn(nodes: Cluster) -> None:
    table_id, token, before = await seated_on_turn(nodes, "a")
    await wait_until_thought(before)
    await asyncio.to_thread(nodes.nodes["a"].kill)
    killed = time.time()
    await asyncio.sleep(1.0)  # down a while: its table is served by nobody meanwhile
    await asyncio.to_thread(nodes.nodes["a"].start)
    after, seen = await timed_turn(nodes.address("a"), table_id, token)
    ((reason,),) = nodes.rows(
        "SELECT reason FROM {S}.claims WHERE table_id = %s ORDER BY epoch DESC LIMIT 1", table_id
    )
    assert reason == "restart"
    moved = deadline(after) - deadline(before)
    assert moved >= 1.0, moved
    assert moved <= seen - killed + HEARTBEAT + SLACK, (moved, seen - killed)
