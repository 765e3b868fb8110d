"""Issue 25, claims in a cluster: a player who claims earlier anonymous seats on a node that does not own the
table gets them into the table's own log all the same. The node that took the claim tells the owner (NOTIFY
on the cluster's channel, "claimed:TABLE"); the owner writes a "player" record for each seat whose token a
player claimed and still holds it. Two real server processes on a real PostgreSQL (tests/cluster_harness.py):
the record is in the database's log, the owner describes the seat as the player's, and a node that takes
the table over replays it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from grpc import aio

from tests.cluster_harness import cluster
from tests.identity_harness import bearer
from tests.server_harness import run, thousand_table
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import player_service_pb2_grpc as player_grpc
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as table_grpc


def test_a_claim_made_on_a_node_that_does_not_own_the_table_reaches_its_log(
    tmp_path: Path, pg_url: str
) -> None:
    with cluster(tmp_path, pg_url, ["a", "b"]) as nodes:

        def player_records(table_id: str) -> list[tuple[int, str]]:
            rows = nodes.rows(
                "SELECT seat, text FROM {S}.records WHERE table_id = %s AND kind = 'player' ORDER BY number",
                table_id,
            )
            return [(int(seat), str(text)) for seat, text in rows]

        async def scenario() -> None:
            async with (
                aio.insecure_channel(nodes.address("a")) as on_a,
                aio.insecure_channel(nodes.address("b")) as on_b,
            ):
                channels = {"a": on_a, "b": on_b}
                tables_a = table_grpc.TableServiceStub(on_a)
                table = (await tables_a.CreateTable(thousand_table(players=3, bots=1))).table
                owner = str(nodes.owners()[table.table_id])
                other = "b" if owner == "a" else "a"
                at_owner = table_grpc.TableServiceStub(channels[owner])
                # Two anonymous seats, as a person plays before signing in.
                joined = [
                    await at_owner.JoinTable(pb.JoinTableRequest(table_id=table.table_id, player_name=n))
                    for n in ("ann", "anon")
                ]
                players_elsewhere = player_grpc.PlayerServiceStub(channels[other])
                made = await players_elsewhere.CreateGuest(player_pb.CreateGuestRequest(display_name="ann"))
                ann = made.player.player_id
                assert player_records(table.table_id) == []

                claim = player_pb.SeatClaim(table_id=table.table_id, seat_token=joined[0].seat_token)
                asked = time.monotonic()
                answer = await players_elsewhere.ClaimSeats(
                    player_pb.ClaimSeatsRequest(claims=[claim]), metadata=bearer(made.player_token)
                )
                assert answer.outcomes[0].status == player_pb.CLAIM_STATUS_CLAIMED
                seat = joined[0].seat
                while player_records(table.table_id) != [(seat, ann)]:
                    assert time.monotonic() - asked < 10, player_records(table.table_id)
                    await asyncio.sleep(0.05)
                print(f"claim in the owner's log {time.monotonic() - asked:.3f} s after ClaimSeats")
                described = (await at_owner.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
                assert [s.player_id for s in described.seats][seat] == ann
                assert described.seats[joined[1].seat].player_id == ""  # the unclaimed seat stays anonymous

                # The same claim again changes nothing: one record.
                await players_elsewhere.ClaimSeats(
                    player_pb.ClaimSeatsRequest(claims=[claim]), metadata=bearer(made.player_token)
                )
                await asyncio.sleep(1.0)
                assert player_records(table.table_id) == [(seat, ann)]

        run(scenario())
        owner = str(nodes.owners()[next(iter(nodes.owners()))])
        survivor = "b" if owner == "a" else "a"
        nodes.nodes[owner].kill()

        async def taken_over() -> None:
            """The node that takes the table over replays the claim from the log."""
            table_id = next(iter(nodes.owners()))
            async with aio.insecure_channel(nodes.address(survivor)) as channel:
                stub = table_grpc.TableServiceStub(channel)
                deadline = time.monotonic() + 30
                while nodes.owners()[table_id] != survivor:
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.2)
                while True:
                    described = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
                    if described.seats and described.endpoint == nodes.address(survivor):
                        break
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.2)
                assert sum(1 for s in described.seats if s.player_id) == 1

        run(taken_over())
