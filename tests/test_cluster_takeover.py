"""A node dies mid-game and nothing is lost: three server processes, one PostgreSQL database, two dozen seeded
tables (most played by server bots, some by SDK bots from outside that must follow redirects); once every
table is well under way the node that owns the most is SIGKILLed. Every game finishes; every stream (read
raw, resumed by sequence on whichever node serves the table) has no gap and no repeat; every record equals an
uninterrupted single-server run of the same seeds (bot tables), or has every server bot's move equal to the
one an uninterrupted server would have made (tables with an SDK seat); epochs only grow; no record number is
stored twice."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

from grpc import aio

from bots.registry import make_blagogo_strategy, make_strategy
from clients.bots.sdk import BotResult, run_bot
from clients.errors import ServerError
from clients.routing import Route
from clients.streams import unbatched
from server.creations import SeatSpec
from server.games import adapter_for_name
from server.registry import Registry
from server.store import StoredTable
from server.store_pg import PostgresStore
from server.store_select import open_store
from server.table import Table
from server.table_state import SeatState
from tests.cluster_harness import Cluster, cluster
from tests.server_harness import run
from tests.table_driving import bot_to_act, next_move, play_bot
from thousand.v1 import blagogo_rules_pb2 as blagogo_pb
from thousand.v1 import table_service_pb2 as pb

GREEDY = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")
UNDER_WAY_RECORDS = 40
"""Records every table has when the node is killed (a Thousand game has about 1200, Blagogo's here 260)."""
GAME_TIMEOUT = 240.0


@dataclass
class Followed:
    """What a raw spectator stream of one table delivered, across every node that served it."""

    table_id: str
    arrivals: list[tuple[int, float]] = field(default_factory=list)
    """(sequence, time.monotonic()) of each event."""
    faults: list[str] = field(default_factory=list)
    """Gaps and repeats seen: must stay empty."""
    resumes: int = 0


def requests() -> list[pb.CreateTableRequest]:
    """The tables: 8 Thousand and 12 Blagogo tables of server bots, 2 of each with an SDK seat (seat 0).

    Short games, so that the test stays short on a small machine: Thousand's run to 1000 points (about 1200
    moves), Blagogo's here to 300 (about 260)."""
    made: list[pb.CreateTableRequest] = []
    for i in range(24):
        request = pb.CreateTableRequest(seed=7_000 + i, first_dealer=0, request_id=f"takeover-{i}")
        sdk = i >= 20
        if i < 8 or i in (20, 21):
            request.game = pb.GAME_KIND_THOUSAND
            bot = GREEDY
        else:
            request.game = pb.GAME_KIND_BLAGOGO
            request.rules.blagogo.CopyFrom(blagogo_pb.BlagogoRules(target=300))
            bot = pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random")
        request.seats.extend([pb.SeatConfig(kind=pb.SEAT_KIND_OPEN) if sdk else bot, bot, bot])
        request.practice = sdk  # a seeded table with an open seat is a practice table (its cards are known)
        made.append(request)
    return made


async def follow(route: Route, followed: Followed) -> None:
    """Every event of the table from the first, as a spectator, checking each message's sequence against the
    last one seen, resuming with after_sequence wherever the table went."""
    last = 0
    while True:
        request = pb.StreamEventsRequest(table_id=followed.table_id, after_sequence=last, batch_events=True)
        try:
            async for batch in route.stub.StreamEvents(request, timeout=GAME_TIMEOUT):
                for message in unbatched(batch):
                    if not message.HasField("event"):
                        continue
                    if message.sequence != last + 1:
                        followed.faults.append(f"after {last}: {message.sequence}")
                    last = max(last, message.sequence)
                    followed.arrivals.append((message.sequence, time.monotonic()))
            table = (await route.stub.GetTable(pb.GetTableRequest(table_id=followed.table_id))).table
            if table.status == pb.TABLE_STATUS_FINISHED and table.sequence == last:
                return
        except aio.AioRpcError as rpc_error:
            delay = route.follow(ServerError.from_rpc(rpc_error))
            await asyncio.sleep(0.05 if delay is None else delay)
        followed.resumes += 1


def reference_records(stored: StoredTable) -> list[tuple[str, int, str, bytes]]:
    """The records of the same table played start to end on one server that never stopped."""

    async def play() -> list[tuple[str, int, str, bytes]]:
        store = open_store(":memory:")
        config = stored.config
        adapter = adapter_for_name(config.game)
        table = await Registry(store).create(
            adapter.rules_from_bytes(config.rules),
            [SeatSpec(bot=bot, strategy=strategy) for bot, strategy in config.seats],
            config.seed,
            config.first_dealer,
        )
        while (seat := bot_to_act(table)) is not None:
            await play_bot(table, seat)
        again = store.get(table.table_id)
        assert again is not None
        return [(r.kind, r.seat, r.text, r.data) for r in again.records]

    return run(play())


def bot_moves_as_uninterrupted(stored: StoredTable) -> int:
    """Replay the table's records one by one; before each server bot's move, check it is the move the bot
    makes from that state. Returns how many were checked."""
    config = stored.config
    adapter = adapter_for_name(config.game)
    table: Table = Table(
        stored.table_id,
        serial=stored.serial,
        adapter=adapter,
        rules=adapter.rules_from_bytes(config.rules),
        seats=[SeatState(bot=bot, strategy=strategy) for bot, strategy in config.seats],
        seed=config.seed,
        first_dealer=config.first_dealer,
    )
    checked = 0
    for record in stored.records:
        if record.kind == "action" and bot_to_act(table) == record.seat:
            assert adapter.action_to_bytes(next_move(table, record.seat)) == record.data
            checked += 1
        table.replay([record])
    assert table.finished
    return checked


def test_a_killed_node_s_tables_are_taken_over_and_every_game_finishes_as_uninterrupted(
    tmp_path: Path, pg_url: str
) -> None:
    with cluster(tmp_path, pg_url, ["a", "b", "c"]) as nodes:
        outcome = run(scenario(nodes))
        check_store(nodes, outcome)


@dataclass
class Outcome:
    table_ids: list[str]
    followed: dict[str, Followed]
    bots: list[BotResult]
    killed: str
    killed_tables: list[str]
    kill_time: float


async def scenario(nodes: Cluster) -> Outcome:
    names = sorted(nodes.nodes)
    table_ids: list[str] = []
    sdk_tables: list[tuple[str, str, pb.GameKind.ValueType]] = []
    for i, request in enumerate(requests()):
        at = names[i % len(names)]  # created on every node in turn: each owns a third
        route = Route(nodes.address(at))
        table = (await route.stub.CreateTable(request)).table
        await route.close()
        assert table.endpoint == nodes.address(at)
        table_ids.append(table.table_id)
        if request.seats[0].kind == pb.SEAT_KIND_OPEN:
            elsewhere = names[(i + 1) % len(names)]  # the SDK bot first asks a node that does not own it
            sdk_tables.append((table.table_id, nodes.addresses(first=elsewhere), request.game))
    followed = {t: Followed(t) for t in table_ids}
    routes = [Route(nodes.addresses(first=names[i % len(names)])) for i in range(len(table_ids))]
    watchers = [
        asyncio.create_task(follow(route, followed[t])) for route, t in zip(routes, table_ids, strict=True)
    ]
    bots = [
        asyncio.create_task(
            run_bot(
                make_strategy("greedy") if game == pb.GAME_KIND_THOUSAND else make_blagogo_strategy("random"),
                server=server,
                table_id=t,
                name="sdk",
            )
        )
        for t, server, game in sdk_tables
    ]
    deadline = time.monotonic() + GAME_TIMEOUT
    while True:  # well under way: every table has its first few dozen records
        (least,) = nodes.rows("SELECT min(next_number) FROM {S}.tables")[0]
        if least >= UNDER_WAY_RECORDS:
            break
        assert time.monotonic() < deadline, f"the tables did not get under way ({least} records)"
        await asyncio.sleep(0.1)
    loads = nodes.unfinished_by_owner()
    killed = max(loads, key=lambda name: loads[name])
    unfinished = {t for (t,) in nodes.rows("SELECT table_id FROM {S}.tables WHERE NOT finished")}
    killed_tables = [t for t, owner in nodes.owners().items() if owner == killed and t in unfinished]
    assert len(killed_tables) >= 4, loads
    nodes.nodes[killed].kill()
    kill_time = time.monotonic()
    # A table may have written its last event between the query and the kill: it needs no taking over. A
    # killed node writes nothing more, and a survivor claims nothing before the lease runs out.
    still = {t for (t,) in nodes.rows("SELECT table_id FROM {S}.tables WHERE NOT finished")}
    killed_tables = [t for t in killed_tables if t in still]
    results = await asyncio.wait_for(asyncio.gather(*bots), GAME_TIMEOUT)
    await asyncio.wait_for(asyncio.gather(*watchers), GAME_TIMEOUT)
    for route in routes:
        await route.close()
    return Outcome(table_ids, followed, list(results), killed, killed_tables, kill_time)


def check_store(nodes: Cluster, outcome: Outcome) -> None:
    # Every game finished, each stream whole: no gap, no repeat, from event 1 to the last.
    for table_id, followed in outcome.followed.items():
        assert not followed.faults, (table_id, followed.faults)
        sequences = [s for s, _ in followed.arrivals]
        assert sequences == list(range(1, len(sequences) + 1)), table_id
    assert all(result.finished for result in outcome.bots)
    assert nodes.rows("SELECT count(*) FROM {S}.tables WHERE NOT finished") == [(0,)]
    # The killed node's tables were taken over by the survivors, and went on: the next event came.
    takeovers = nodes.rows("SELECT table_id, node_id FROM {S}.claims WHERE reason = 'takeover'")
    assert {t for t, _ in takeovers} >= set(outcome.killed_tables)
    assert outcome.killed not in {n for _, n in takeovers}
    # At least four of them were mid-game when their node died, and played on to the end elsewhere (every
    # follower reached the end, checked above): their events went on after the kill.
    mid_game = [
        t
        for t in outcome.killed_tables
        if any(at > outcome.kill_time for _, at in outcome.followed[t].arrivals)
    ]
    assert len(mid_game) >= 4, mid_game
    # Epochs only grow: each table's claims, in the order they were made, have rising epochs.
    claims = nodes.rows("SELECT table_id, epoch FROM {S}.claims ORDER BY table_id, claimed, epoch")
    by_table: dict[str, list[int]] = {}
    for table_id, epoch in claims:
        by_table.setdefault(table_id, []).append(int(epoch))
    for table_id, epochs in by_table.items():
        assert epochs == sorted(set(epochs)), (table_id, epochs)
    # No record number stored twice; each table's numbers run 0, 1, 2, ... and match its count.
    assert nodes.rows("SELECT table_id, number FROM {S}.records GROUP BY 1, 2 HAVING count(*) > 1") == []
    gaps = nodes.rows(
        "SELECT r.table_id FROM {S}.records r JOIN {S}.tables t USING (table_id)"
        " GROUP BY r.table_id, t.next_number"
        " HAVING max(r.number) + 1 <> count(*) OR count(*) <> t.next_number"
    )
    assert gaps == []
    # The records equal an uninterrupted single server's.
    store = PostgresStore(nodes.url)
    try:
        checked = 0
        for table_id in outcome.table_ids:
            stored = store.get(table_id)
            assert stored is not None
            if all(bot for bot, _ in stored.config.seats):
                records = [(r.kind, r.seat, r.text, r.data) for r in stored.records]
                assert records == reference_records(stored), table_id
            else:
                checked += bot_moves_as_uninterrupted(stored)
        assert checked > 100
    finally:
        store.close()
