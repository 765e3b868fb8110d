"""A takeover's order (issue #32, "large takeovers trickle"): the survivor replays the tables people play
first (someone is waiting on them), then the bots' own, the shortest first, reading each batch of records
while the one before replays, and every table plays on. Real server processes on one PostgreSQL, the
owner SIGKILLed by its pid (docs/operations.md, "Faults")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.cluster_harness import Cluster, cluster
from tests.server_harness import run, thousand_table
from tests.test_cluster import stub, until
from thousand.v1 import table_service_pb2 as pb

FLAGS = ("--rebalance-seconds", "0", "--bot-move-delay", "0.01")
"""The tables stay on a, where they were made; bots play about a hundred moves a second per table."""
BOTS_TABLES = 3
PEOPLE_TABLES = 2
UNDER_WAY_RECORDS = 60
"""Records every table of bots has before the kill (far more than a people's table waiting for its seat)."""


def test_a_takeover_replays_the_people_s_tables_first_then_the_shortest(tmp_path: Path, pg_url: str) -> None:
    with cluster(tmp_path, pg_url, ["a", "b"], flags=FLAGS) as nodes:
        people, bots = run(kill_a_mid_game(nodes))
    claimed = [
        line
        for line in (json.loads(text) for text in (tmp_path / "node-b.log").read_text().splitlines() if text)
        if line.get("msg") == "table claimed" and line.get("reason") == "takeover"
    ]
    order = [line["table_id"] for line in claimed]
    assert sorted(order) == sorted(people + bots)
    assert set(order[:PEOPLE_TABLES]) == set(people), order
    records = [line["records"] for line in claimed[PEOPLE_TABLES:]]
    assert records == sorted(records), claimed


async def kill_a_mid_game(nodes: Cluster) -> tuple[list[str], list[str]]:
    a = stub(nodes.address("a"))
    bots = [(await a.CreateTable(thousand_table(bots=3))).table.table_id for _ in range(BOTS_TABLES)]
    people = []
    for _ in range(PEOPLE_TABLES):
        table_id = (await a.CreateTable(thousand_table(bots=2))).table.table_id
        await a.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0))
        people.append(table_id)

    async def under_way() -> bool:
        counts = dict(nodes.rows("SELECT table_id, next_number FROM {S}.tables"))
        return all(counts[t] >= UNDER_WAY_RECORDS for t in bots)

    await until(under_way, timeout=60)
    finished = {t for (t,) in nodes.rows("SELECT table_id FROM {S}.tables WHERE finished")}
    assert not finished & set(bots), "a table of bots finished before the kill"
    await asyncio.to_thread(nodes.nodes["a"].kill)

    async def all_on_b() -> bool:
        owners = nodes.owners()
        return all(owners[t] == "b" for t in people + bots)

    await until(all_on_b, timeout=30)
    # Every table plays on at b: the bots' tables move on, the people's answer their seat.
    before = dict(nodes.rows("SELECT table_id, next_number FROM {S}.tables"))

    async def bots_moved() -> bool:
        now = dict(nodes.rows("SELECT table_id, next_number FROM {S}.tables"))
        return all(now[t] > before[t] for t in bots)

    await until(bots_moved, timeout=30)
    b = stub(nodes.address("b"))
    for table_id in people:
        assert (await b.GetTable(pb.GetTableRequest(table_id=table_id))).table.endpoint == nodes.address("b")
    await asyncio.sleep(0.5)  # b's log lines are written
    return people, bots
