"""Players in a cluster of two real server processes sharing PostgreSQL: a guest made on one node is known
on the other, a private table made on one is unlisted on both, and a ban made on one node is in force on
every node within the players' cache time (server.identity.credentials.CACHE_SECONDS)."""

from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path

import grpc
from grpc import aio

from server.identity.credentials import CACHE_SECONDS
from tests.cluster_harness import cluster
from tests.identity_harness import ADMIN_TOKEN, bearer
from tests.server_harness import error_info, run, thousand_table
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import admin_service_pb2_grpc as admin_grpc
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import player_service_pb2_grpc as player_grpc
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as table_grpc


def test_a_ban_made_on_one_node_is_in_force_on_every_node(tmp_path: Path, pg_url: str) -> None:
    token_file = tmp_path / "admin-token"
    token_file.write_text(ADMIN_TOKEN, encoding="utf-8")
    with cluster(tmp_path, pg_url, ["a", "b"], flags=("--admin-token-file", str(token_file))) as nodes:

        async def scenario() -> None:
            async with (
                aio.insecure_channel(nodes.address("a")) as on_a,
                aio.insecure_channel(nodes.address("b")) as on_b,
            ):
                players_a, players_b = (
                    player_grpc.PlayerServiceStub(on_a),
                    player_grpc.PlayerServiceStub(on_b),
                )
                tables_a, tables_b = table_grpc.TableServiceStub(on_a), table_grpc.TableServiceStub(on_b)
                created = await players_a.CreateGuest(player_pb.CreateGuestRequest(display_name="ann"))
                as_ann = bearer(created.player_token)
                me = await players_b.GetMe(player_pb.GetMeRequest(), metadata=as_ann)
                assert me.player.player_id == created.player.player_id

                private = thousand_table()
                private.unlisted = True
                private.invite_code = secrets.token_urlsafe(16)
                table = (await tables_a.CreateTable(private, metadata=as_ann)).table
                for stub in (tables_a, tables_b):
                    assert not (await stub.ListTables(pb.ListTablesRequest())).tables
                    mine = (await stub.ListTables(pb.ListTablesRequest(), metadata=as_ann)).tables
                    assert [t.table_id for t in mine] == [table.table_id]

                admin_b = admin_grpc.AdminServiceStub(on_b)
                ban = admin_pb.BanPlayerRequest(player_id=created.player.player_id, reason="cheating")
                await admin_b.BanPlayer(ban, metadata=bearer(ADMIN_TOKEN))
                deadline = time.monotonic() + CACHE_SECONDS + 5
                for node in (players_a, players_b):
                    while True:
                        try:
                            await node.GetMe(player_pb.GetMeRequest(), metadata=as_ann)
                        except aio.AioRpcError as error:
                            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
                            assert error_info(error).reason == "PLAYER_BANNED"
                            break
                        assert time.monotonic() < deadline, "the ban was not in force on every node in time"
                        await asyncio.sleep(0.2)

        run(scenario())
