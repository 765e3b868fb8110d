"""Quick play on a cluster: one queue for three real server processes on one PostgreSQL. Players waiting on
any node are matched together, nobody is seated twice, nobody is left waiting, and a node killed while its
players wait loses none of them: they call again on another node and keep their places (clients/quickplay.py).
"""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from pathlib import Path

from clients.quickplay import Seated, quick_play, quick_play_request
from tests.cluster_harness import Cluster, cluster
from tests.server_harness import run


def seat_keys(results: list[Seated]) -> Counter[tuple[str, int]]:
    return Counter((r.table.table_id, r.seat) for r in results)


def check_nobody_twice(nodes: Cluster, results: list[Seated], tokens: list[str], players: int) -> None:
    """Each player at one seat of one table, each seat one player's, every table full, and the queue (in the
    cluster's database) empty: every ticket matched once."""
    assert [r.seat_token for r in results] == tokens
    seats = seat_keys(results)
    assert all(count == 1 for count in seats.values()), seats
    tables = Counter(r.table.table_id for r in results)
    assert len(tables) == len(results) // players
    assert set(tables.values()) == {players}
    waiting = nodes.rows("SELECT count(*) FROM {S}.quickplay_tickets WHERE match_id IS NULL")[0][0]
    assert waiting == 0
    matched = nodes.rows(
        "SELECT ticket_id, count(DISTINCT match_id) FROM {S}.quickplay_tickets GROUP BY ticket_id"
    )
    assert len(matched) == len(results) and all(count == 1 for _, count in matched)
    placed = nodes.rows("SELECT count(*) FROM {S}.quickplay_matches WHERE table_id IS NOT NULL")[0][0]
    assert placed == len(tables)


def test_twelve_players_on_three_nodes_sit_at_four_tables(tmp_path: Path, pg_url: str) -> None:
    """T-1: three players a table; twelve asking on three nodes make four full tables."""
    with cluster(tmp_path, pg_url, ["a", "b", "c"]) as nodes:
        names = ["a", "b", "c"]
        tokens = [secrets.token_urlsafe(32) for _ in range(12)]

        async def scenario() -> list[Seated]:
            asks = [
                quick_play(
                    nodes.addresses(names[i % 3]),
                    quick_play_request("thousand", 3, max_wait=60, seat_token=token, player_name=f"p{i}"),
                )
                for i, token in enumerate(tokens)
            ]
            return await asyncio.wait_for(asyncio.gather(*asks), 60)

        results = run(scenario())
        check_nobody_twice(nodes, results, tokens, 3)
        owners = nodes.owners()
        assert all(owners[r.table.table_id] in names for r in results)


def test_a_node_killed_while_players_wait_loses_none_of_them(tmp_path: Path, pg_url: str) -> None:
    """Three players wait on node a for a 4-player game (T-1: two to four players) when it is killed; they
    call again on b and c and keep their places; five more arrive there: two full tables, nobody twice."""
    with cluster(tmp_path, pg_url, ["a", "b", "c"]) as nodes:
        tokens = [secrets.token_urlsafe(32) for _ in range(8)]

        async def scenario() -> list[Seated]:
            def ask(i: int, first: str) -> asyncio.Task[Seated]:
                request = quick_play_request("thousand", 4, max_wait=120, seat_token=tokens[i])
                return asyncio.get_running_loop().create_task(quick_play(nodes.addresses(first), request))

            early = [ask(i, "a") for i in range(3)]
            for _ in range(100):  # all three wait in the queue
                waiting = nodes.rows("SELECT count(*) FROM {S}.quickplay_tickets WHERE match_id IS NULL")
                if waiting[0][0] == 3:
                    break
                await asyncio.sleep(0.1)
            first_seen = dict(nodes.rows("SELECT ticket_id, enqueue_time FROM {S}.quickplay_tickets"))
            nodes.nodes["a"].kill()
            await asyncio.sleep(1.0)
            late = [ask(i, "b" if i % 2 else "c") for i in range(3, 8)]
            results = await asyncio.wait_for(asyncio.gather(*early, *late), 90)
            kept = dict(nodes.rows("SELECT ticket_id, enqueue_time FROM {S}.quickplay_tickets"))
            assert all(kept[t] == at for t, at in first_seen.items())  # their places, not new ones
            return results

        results = run(scenario())
        check_nobody_twice(nodes, results, tokens, 4)
        for result in results:
            assert result.endpoint in (nodes.address("b"), nodes.address("c"))


def test_a_node_stopped_gracefully_keeps_its_players_places(tmp_path: Path, pg_url: str) -> None:
    """SIGTERM on node a while three wait there for a 4-player game (T-1): its streams end (TABLE_MOVING),
    their tickets stay, the clients call again on b with the same seat tokens; a fourth player makes the
    table."""
    with cluster(tmp_path, pg_url, ["a", "b"]) as nodes:
        tokens = [secrets.token_urlsafe(32) for _ in range(4)]

        async def scenario() -> list[Seated]:
            def ask(i: int, first: str) -> asyncio.Task[Seated]:
                request = quick_play_request("thousand", 4, max_wait=120, seat_token=tokens[i])
                return asyncio.get_running_loop().create_task(quick_play(nodes.addresses(first), request))

            early = [ask(i, "a") for i in range(3)]
            for _ in range(100):
                waiting = nodes.rows("SELECT count(*) FROM {S}.quickplay_tickets WHERE match_id IS NULL")
                if waiting[0][0] == 3:
                    break
                await asyncio.sleep(0.1)
            first_seen = dict(nodes.rows("SELECT ticket_id, enqueue_time FROM {S}.quickplay_tickets"))
            await asyncio.to_thread(nodes.nodes["a"].stop)
            assert len(nodes.rows("SELECT 1 FROM {S}.quickplay_tickets")) == 3  # the stop kept them
            results = await asyncio.wait_for(asyncio.gather(*early, ask(3, "b")), 60)
            kept = dict(nodes.rows("SELECT ticket_id, enqueue_time FROM {S}.quickplay_tickets"))
            assert all(kept[t] == at for t, at in first_seen.items())
            return results

        results = run(scenario())
        check_nobody_twice(nodes, results, tokens, 4)
        assert {r.endpoint for r in results} == {nodes.address("b")}
