"""Issue 21, items 3 and 4: bots cannot starve people, and no table plays for ever.

Against a real in-process server: tables of bots only from one client load it while a bystander calls
GetTable and a person plays two bots; the figures are compared with the same measures taken moments before
with those tables held still (generous ratios: the machine may be busy). A table of bots that cannot end its
game is stopped at the server's move limit with a clear final state, which survives a restart.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path

import grpc

from clients.messages import EventMessage
from clients.session import TableSession
from server.settings import parse_settings
from tests.server_harness import expect_error, run, token_md
from tests.test_limits_requests import TwoClients, two_clients
from thousand.v1 import blagogo_rules_pb2 as bg_rules
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

BOT_TABLES = 40
HELD_SECONDS = 2.0
"""The tables of bots only wait this long after each move while the reference is measured: 20 moves a
second for the 40 of them, against the thousands they make running."""
P50_TIMES = 5
RATE_SHARE = 0.2
"""With the bots' tables running, the bystander's p50 stays under five times the reference's (plus 5 ms)
and the person keeps a fifth of the reference's rate. Measured in pairs on a 2-core machine made busy
(two busy loops and a clean run): with the pacer, the person kept 35-190 % and the p50 went up to 3.7
times; with every table moving as soon as it can (the pacer's turns made ``asyncio.sleep(0)``), the person
kept 2-8 % (1-4 decisions a second) and the p50 went 15-125 times up (143-1632 ms). The bounds sit between
the two: on a busy machine the bots' tables cost a paced person up to about two thirds of its rate."""


def bots_only(strategy: str = "random", seed: int = 11) -> pb.CreateTableRequest:
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy=strategy)] * 3
    return pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=seats, seed=seed)


async def bystander_p50(stub: pb_grpc.TableServiceAsyncStub, table_id: str, seconds: float) -> float:
    latencies = []
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        began = time.perf_counter()
        await stub.GetTable(pb.GetTableRequest(table_id=table_id))
        latencies.append(time.perf_counter() - began)
        await asyncio.sleep(0.005)
    return statistics.median(latencies)


async def person_rate(stub: pb_grpc.TableServiceAsyncStub, seconds: float) -> float:
    """Decisions a second of a person playing two greedy bots (the person answers at once)."""
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] + [
        pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")
    ] * 2
    table_id = (
        await stub.CreateTable(pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=seats))
    ).table.table_id
    token = (await stub.JoinTable(pb.JoinTableRequest(table_id=table_id))).seat_token
    decisions = 0
    ends = time.monotonic() + seconds
    stream = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=token_md(token))
    async for message in stream:
        if time.monotonic() >= ends:
            break
        if message.turn.HasField("seat") and message.turn.seat == 0 and message.turn.legal_actions:
            await stub.SubmitAction(
                pb.SubmitActionRequest(
                    table_id=table_id,
                    request_id=f"d{decisions}",
                    last_seen_sequence=message.sequence + len(message.more_events),
                    action=message.turn.legal_actions[0],
                ),
                metadata=token_md(token),
            )
            decisions += 1
    stream.cancel()
    return decisions / seconds


async def measure(c: TwoClients, bystander_table: str) -> tuple[float, float]:
    """The bystander's p50 latency and the person's rate, at once."""
    p50, rate = await asyncio.gather(bystander_p50(c.unix, bystander_table, 3.0), person_rate(c.unix, 3.0))
    return p50, rate


def test_tables_of_bots_do_not_starve_people() -> None:
    """Before: 300 tables of bots only pushed a bystander's p50 from 2.6 to 96 ms and slowed a person's game
    threefold. Now bot work takes turns behind people's requests: with 40 tables of bots only running, the
    bystander and the person stay within small factors of their speed with those tables held still
    (:data:`P50_TIMES`, :data:`RATE_SHARE`); without the pacer they are over ten times slower.

    The reference is measured in the same run, just before each loaded measurement, with the same tables
    held to a move every :data:`HELD_SECONDS` (the operator's ``bot_move_delay``, set on the live pacer):
    a shared machine's load comes and goes within seconds (in a busy clean run the person made 196
    decisions a second on the idle server, then 55-82 in all three loaded tries), so an idle figure taken
    once, before the tables exist, is no reference for the later ones."""

    async def scenario() -> None:
        async with two_clients(rate_limit=0, max_bot_tables=0, max_bot_tables_per_client=0) as c:
            bystander_table = (
                await c.unix.CreateTable(pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND))
            ).table
            pacer = c.server.registry.pacer
            for i in range(BOT_TABLES):
                await c.tcp.CreateTable(bots_only(seed=i))
            # Starvation is systematic (every bot table's move before each request), a shared machine's load
            # passing: the pairs are measured up to three times, and one good pair is enough.
            tries: list[str] = []
            for _ in range(3):
                pacer.move_delay = HELD_SECONDS
                await asyncio.sleep(0.3)  # each table makes the move it was at, then waits
                before = await bot_sequences(c)
                idle_p50, idle_rate = await measure(c, bystander_table.table_id)
                held_moves = events_between(before, await bot_sequences(c))
                pacer.move_delay = 0.0
                await asyncio.sleep(HELD_SECONDS + 0.3)  # every table woke, and plays as fast as it may
                before = await bot_sequences(c)
                loaded_p50, loaded_rate = await measure(c, bystander_table.table_id)
                moves = events_between(before, await bot_sequences(c))
                tries.append(
                    f"bystander p50 {idle_p50 * 1000:.1f} -> {loaded_p50 * 1000:.1f} ms, "
                    f"person {idle_rate:.0f} -> {loaded_rate:.0f} decisions/s, "
                    f"bots' events {held_moves} -> {moves}"
                )
                assert moves > 10 * max(held_moves, 1), tries  # the bots do play meanwhile, and were held
                if loaded_p50 < P50_TIMES * idle_p50 + 0.005 and loaded_rate > idle_rate * RATE_SHARE:
                    break
            else:
                raise AssertionError(f"people starved by the bots' tables: {tries}")

    run(scenario())


async def bot_sequences(c: TwoClients) -> dict[str, int]:
    """The sequence of every table of bots only still playing, by id; at least half of them play (random
    bots seldom end a game)."""
    tables = (await c.tcp.ListTables(pb.ListTablesRequest(page_size=100))).tables
    playing = {
        t.table_id: t.sequence
        for t in tables
        if t.status == pb.TABLE_STATUS_PLAYING and all(s.kind == pb.SEAT_KIND_BOT for s in t.seats)
    }
    assert len(playing) >= BOT_TABLES / 2, len(playing)
    return playing


def events_between(before: dict[str, int], after: dict[str, int]) -> int:
    """Events the tables of bots only playing at both times made in between."""
    return sum(after[t] - before[t] for t in after.keys() & before.keys())


def test_a_table_of_bots_that_never_ends_is_stopped_with_a_clear_final_state(tmp_path: Path) -> None:
    """Before: a table of bots whose game cannot end (three random Thousand bots seldom finish) played for
    ever. Now it stops at the move limit: TableStopped is its last event, its streams end, it is FINISHED
    with its stop_reason, no action is taken, it counts as finished in the quotas, and a restart keeps it."""
    db = str(tmp_path / "t.db")

    async def scenario() -> None:
        async with two_clients(db, bot_table_max_moves=300, max_bot_tables_per_client=1) as c:
            table_id = (await c.tcp.CreateTable(bots_only())).table.table_id
            events: list[pb.Event] = []
            async with asyncio.timeout(60):
                async for message in c.tcp.StreamEvents(pb.StreamEventsRequest(table_id=table_id)):
                    events.extend(e for e in (message.event, *message.more_events) if e.WhichOneof("event"))
            last = events[-1]
            assert last.HasField("table_stopped"), last
            assert last.table_stopped.reason == pb.STOP_REASON_MOVE_LIMIT
            assert "300" in last.table_stopped.message
            assert not any(e.HasField("thousand") and e.thousand.HasField("game_over") for e in events)
            table = (await c.tcp.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert table.status == pb.TABLE_STATUS_FINISHED
            assert table.stop_reason == pb.STOP_REASON_MOVE_LIMIT
            await asyncio.sleep(0.3)
            assert (
                await c.tcp.GetTable(pb.GetTableRequest(table_id=table_id))
            ).table.sequence == table.sequence
            record = json.loads(
                (await c.tcp.ExportTable(pb.ExportTableRequest(table_id=table_id))).record_json
            )  # a stopped table's record is there, and says why it stopped
            assert record["finished"] and record["winner"] is None and record["standings"] == []
            assert record["stopped"]["reason"] == "move_limit" and "300" in record["stopped"]["message"]
            assert len(record["events"]) == table.sequence
            await c.tcp.CreateTable(bots_only(seed=12))  # a stopped table no longer takes the client's share
            metrics = await c.metrics()
            assert metrics.value("thousand_tables_stopped_total", reason="move_limit") == 1
            async with TableSession(f"127.0.0.1:{c.server.port}") as session:  # the client library's stream
                await session.watch(table_id)
                async with asyncio.timeout(30):
                    items = [item async for item in session.stream(from_start=True)]
                assert session.finished and isinstance(items[-1], EventMessage)
        async with two_clients(db, bot_table_max_moves=300) as c:
            again = (await c.tcp.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert again.status == pb.TABLE_STATUS_FINISHED
            assert again.stop_reason == pb.STOP_REASON_MOVE_LIMIT
            assert again.sequence == table.sequence
            resumed = c.tcp.StreamEvents(
                pb.StreamEventsRequest(table_id=table_id, after_sequence=table.sequence - 1)
            )
            stopped = await resumed.read()
            assert isinstance(stopped, pb.StreamEventsResponse) and stopped.event.HasField("table_stopped")

    run(scenario())


def test_an_operator_paces_tables_of_bots_only() -> None:
    """--bot-move-delay: the least time between two moves at a table of bots only; a person's bots are not
    slowed."""

    async def scenario() -> None:
        async with two_clients(bot_move_delay=0.2) as c:
            table_id = (await c.tcp.CreateTable(bots_only())).table.table_id
            await asyncio.sleep(0.2)
            first = (await c.tcp.GetTable(pb.GetTableRequest(table_id=table_id))).table.sequence
            await asyncio.sleep(1.0)
            moved = (await c.tcp.GetTable(pb.GetTableRequest(table_id=table_id))).table.sequence - first
            assert moved < 30, moved  # about five moves, a few events each; unpaced: thousands
            rate = await person_rate(c.unix, 1.0)
            assert rate > 5, rate  # two bot moves between the person's decisions, unpaced

    run(scenario())


def test_move_limit_settings_from_flags() -> None:
    defaults = parse_settings([], {})
    assert defaults.bot_table_max_moves > 10_000 and defaults.bot_move_delay == 0
    settings = parse_settings(["--bot-move-delay", "0.5"], {"THOUSAND_BOT_TABLE_MAX_MOVES": "0"})
    assert settings.bot_move_delay == 0.5 and settings.bot_table_max_moves == 0


def test_a_game_that_cannot_end_is_refused_at_create_table() -> None:
    """Before: a 1000 Blagogo table of eight random bots with target 2147483647 was accepted and played
    about 700 events a second for ever. The engine's rules bound the target (engine.blagogo.rules
    MAX_TARGET, issue 20); the server refuses the table with the field named."""

    async def scenario() -> None:
        async with two_clients() as c:
            rules = pb.Rules(blagogo=bg_rules.BlagogoRules(players=8, target=2**31 - 1))
            seats = [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random")] * 8
            request = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, rules=rules, seats=seats)
            info = await expect_error(
                c.tcp.CreateTable(request), "INVALID_RULES", grpc.StatusCode.INVALID_ARGUMENT
            )
            assert info.metadata["field"] == "target"
            assert not (await c.tcp.ListTables(pb.ListTablesRequest())).tables

    run(scenario())
