"""The bots' ladder on a real server (issue 27): a registered bot's key never sits at people's tables.

A bot is a player of kind bot, signed in with its ``thb_`` key; it plays on the ladder only, so its key is
refused (BOT_NOT_ALLOWED, PERMISSION_DENIED, metadata ``where``) by JoinTable at a rated people's table and by
QuickPlay, and the table is as it was.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import grpc
from grpc import aio

from tests.identity_harness import bearer, served
from tests.ratings_harness import guests, rated_request
from tests.server_harness import expect_error, run
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import ladder_service_pb2_grpc as ladder_grpc
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import matchmaking_pb2_grpc as mm_grpc
from thousand.v1 import table_service_pb2 as pb


def test_a_bots_key_is_refused_at_rated_peoples_tables_and_in_quick_play(tmp_path: Path) -> None:
    """Issue 27 ("a bot never plays in people's pools"): JoinTable at a rated table and QuickPlay with a bot's
    key are BOT_NOT_ALLOWED; nothing changes at the table, whose seats its owner (a person) may still take."""

    async def body() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            (ann,) = await guests(address, "Ann")
            async with aio.insecure_channel(address) as channel:
                ladder = ladder_grpc.LadderServiceStub(channel)
                made = await ladder.RegisterBot(
                    ladder_pb.RegisterBotRequest(display_name="Ann's bot"), metadata=bearer(ann.player_token)
                )
                assert made.key.startswith("thb_")
                table = (await s.tables.CreateTable(rated_request(3))).table
                join = pb.JoinTableRequest(table_id=table.table_id)
                error = await expect_error(
                    s.tables.JoinTable(join, metadata=bearer(made.key)),
                    "BOT_NOT_ALLOWED",
                    grpc.StatusCode.PERMISSION_DENIED,
                )
                assert error.metadata["where"] == "rated_table"
                after = (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
                assert after.open_seats == 3 and after.sequence == table.sequence
                await s.tables.JoinTable(join, metadata=bearer(ann.player_token))  # its owner sits down

                matchmaking = mm_grpc.MatchmakingServiceStub(channel)
                ask = mm.QuickPlayRequest(
                    game=pb.GAME_KIND_THOUSAND, players=3, seat_token=secrets.token_urlsafe(32)
                )

                async def quick_play() -> None:
                    async for _ in matchmaking.QuickPlay(ask, metadata=bearer(made.key)):
                        raise AssertionError("a bot's key waited in the people's queue")

                error = await expect_error(quick_play(), "BOT_NOT_ALLOWED", grpc.StatusCode.PERMISSION_DENIED)
                assert error.metadata["where"] == "quick_play"

    run(body())
