"""The RatingService on the web port, for browsers' leaderboard and profile pages: Connect (binary and JSON)
and gRPC-Web run the gRPC port's own handlers, with the same answers and refusals (issue 26)."""

from __future__ import annotations

from typing import Any

import pytest
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType

from tests.ratings_harness import finished
from tests.server_harness import run
from tests.web_harness import WEB_TRANSPORTS, refusal, web_server
from thousand.v1 import rating_service_connect as rating_connect
from thousand.v1 import rating_service_pb2 as rating_pb
from thousand.v1 import table_service_pb2 as pb


def ratings_client(url: str, kind: str) -> rating_connect.RatingServiceClient:
    codec: Codec[Any, Any] = (
        google_protobuf_json_codec() if kind == "connect-json" else google_protobuf_binary_codec()
    )
    protocol = ProtocolType.GRPC_WEB if kind == "grpc-web" else ProtocolType.CONNECT
    return rating_connect.RatingServiceClient(url, protocol=protocol, codec=codec)


@pytest.mark.parametrize("kind", WEB_TRANSPORTS)
def test_a_browser_reads_a_leaderboard_and_a_profile(kind: str) -> None:
    async def scenario() -> None:
        async with web_server(rating_min_games=1) as (_, stub, url), ratings_client(url, kind) as client:
            request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, rated=True)
            request.rules.thousand.players = 2
            request.seats.add(kind=pb.SEAT_KIND_BOT, strategy="greedy")
            request.seats.add(kind=pb.SEAT_KIND_BOT, strategy="random")
            table = (await stub.CreateTable(request)).table
            await finished(stub, table.table_id)
            board = await client.get_leaderboard(
                rating_pb.GetLeaderboardRequest(game=pb.GAME_KIND_THOUSAND, players=2, bots=True)
            )
            assert board.pool.pool_id == "thousand-2-bots"
            assert {e.player_id for e in board.entries} == {"bot:greedy", "bot:random"}
            profile = await client.get_player_profile(
                rating_pb.GetPlayerProfileRequest(player_id="bot:random")
            )
            assert profile.display_name == "random" and profile.recent_games[0].table_id == table.table_id
            with pytest.raises(ConnectError) as caught:
                await client.get_leaderboard(rating_pb.GetLeaderboardRequest(players=2))
            refused = refusal(caught.value)
            assert (refused.code, refused.reason) == ("INVALID_ARGUMENT", "INVALID_ARGUMENT")
            assert refused.metadata == {"field": "game"}

    run(scenario())
