"""Two rated games of one player ending at once on two nodes of one PostgreSQL both count (issue 26): no
lost update. Real server processes (a cluster of two), real PostgreSQL, real guests playing through the bot
SDK; the test holds the player's rating row (an uncommitted insert of the initial rating, as a first game
would make it) until both games are over and both nodes' updates wait for it, then lets go: the updates
run one after the other, the second starting from the first's result, and the player has two games."""

from __future__ import annotations

import asyncio
import math
import time
from pathlib import Path

import psycopg
from grpc import aio

from server.ratings.model import MU, SIGMA
from server.store_pg import SCHEMA
from tests.cluster_harness import cluster
from tests.ratings_harness import events, finished, guests, play_as, rated_request
from tests.server_harness import run
from thousand.v1 import table_service_pb2_grpc as table_grpc

WAIT_SECONDS = 120.0


def waiting_locks(url: str) -> int:
    """Lock requests not granted in the database now (transactions waiting for another's rows)."""
    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()
        assert row is not None
        return int(row[0])


def test_two_games_of_one_player_ending_at_once_on_two_nodes_both_count(tmp_path: Path, pg_url: str) -> None:
    with cluster(tmp_path, pg_url, ["a", "b"]) as nodes:
        on_a, on_b = nodes.address("a"), nodes.address("b")

        async def scenario() -> None:
            pat, quinn, rae = await guests(on_a, "Pat", "Quinn", "Rae")
            pat_id = pat.player.player_id
            async with aio.insecure_channel(on_a) as channel_a, aio.insecure_channel(on_b) as channel_b:
                stub_a, stub_b = (
                    table_grpc.TableServiceStub(channel_a),
                    table_grpc.TableServiceStub(channel_b),
                )
                # One table on each node (CreateTable places a table on the node asked).
                first = (await stub_a.CreateTable(rated_request(2))).table
                second = (await stub_b.CreateTable(rated_request(2))).table
                assert {first.endpoint, second.endpoint} == {on_a, on_b}
                holder = await psycopg.AsyncConnection.connect(pg_url)
                try:
                    await holder.execute(
                        f"INSERT INTO {SCHEMA}.ratings"
                        " (pool_id, player_id, mu, sigma, ordinal, games, update_time)"
                        " VALUES ('thousand-2', %s, %s, %s, %s, 0, 0)",
                        (pat_id, MU, SIGMA, MU - 3 * SIGMA),
                    )  # uncommitted: both nodes' updates of Pat wait for it
                    games = [
                        asyncio.create_task(
                            play_as(on_a, first.table_id, [pat.player_token, quinn.player_token])
                        ),
                        asyncio.create_task(
                            play_as(on_b, second.table_id, [rae.player_token, pat.player_token])
                        ),
                    ]
                    deadline = time.monotonic() + WAIT_SECONDS
                    while await asyncio.to_thread(waiting_locks, pg_url) < 2:
                        assert time.monotonic() < deadline, "both games' updates never waited at once"
                        assert not any(g.done() and g.exception() for g in games), [
                            g.exception() for g in games if g.done()
                        ]
                        await asyncio.sleep(0.2)
                    await holder.commit()  # both updates were in their transactions at once: let them go
                finally:
                    await holder.close()
                await asyncio.gather(*games)
                await finished(stub_a, first.table_id)
                await finished(stub_b, second.table_id)
                updates = [
                    (await events(stub_a, first.table_id))[-1].ratings_updated,
                    (await events(stub_b, second.table_id))[-1].ratings_updated,
                ]
            pats = [next(s for s in update.seats if s.player_id == pat_id) for update in updates]
            earlier, later = sorted(pats, key=lambda s: s.before.games)
            assert (earlier.before.games, later.before.games) == (0, 1)
            assert later.before == earlier.after, "the second update starts from the first's result"
            rows = nodes.rows(
                "SELECT mu, sigma, games FROM {S}.ratings WHERE pool_id = 'thousand-2' AND player_id = %s",
                pat_id,
            )
            ((mu, sigma, played),) = rows
            assert played == 2
            assert math.isclose(mu, later.after.mu) and math.isclose(sigma, later.after.sigma)
            rated = nodes.rows("SELECT count(*) FROM {S}.rated_games WHERE player_id = %s", pat_id)
            assert rated == [(2,)]

        run(scenario())
