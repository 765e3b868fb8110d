"""The PlayerService on the web port, for browsers: Connect (binary and JSON) and gRPC-Web run the gRPC
port's own handlers, with the same refusals; the player's `authorization` header is allowed by CORS."""

from __future__ import annotations

from typing import Any

import pytest
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType

from tests.server_harness import run
from tests.web_harness import WEB_TRANSPORTS, http_request, refusal, web_server
from thousand.v1 import player_service_connect as player_connect
from thousand.v1 import player_service_pb2 as player_pb

ORIGIN = "http://localhost:5173"


def players_client(url: str, kind: str) -> player_connect.PlayerServiceClient:
    codec: Codec[Any, Any] = (
        google_protobuf_json_codec() if kind == "connect-json" else google_protobuf_binary_codec()
    )
    protocol = ProtocolType.GRPC_WEB if kind == "grpc-web" else ProtocolType.CONNECT
    return player_connect.PlayerServiceClient(url, protocol=protocol, codec=codec)


@pytest.mark.parametrize("kind", WEB_TRANSPORTS)
def test_a_browser_creates_a_guest_and_is_refused_as_over_grpc(kind: str) -> None:
    async def scenario() -> None:
        async with web_server() as (_, _, url), players_client(url, kind) as client:
            options = await client.get_sign_in_options(player_pb.GetSignInOptionsRequest())
            assert options.guests
            created = await client.create_guest(player_pb.CreateGuestRequest(display_name="Ann", locale="pl"))
            headers = {"authorization": f"Bearer {created.player_token}"}
            me = await client.get_me(player_pb.GetMeRequest(), headers=headers)
            assert me.player == created.player
            games = await client.list_my_games(player_pb.ListMyGamesRequest(), headers=headers)
            assert not games.games
            with pytest.raises(ConnectError) as caught:
                await client.get_me(
                    player_pb.GetMeRequest(), headers={"authorization": "Bearer thp_" + "z" * 43}
                )
            refused = refusal(caught.value)
            assert (refused.code, refused.reason) == ("UNAUTHENTICATED", "PLAYER_TOKEN_INVALID")
            assert refused.metadata == {"problem": "unknown_token"}
            with pytest.raises(ConnectError) as caught:
                await client.update_me(player_pb.UpdateMeRequest(display_name=""), headers=headers)
            assert refusal(caught.value).metadata == {"field": "display_name"}

    run(scenario())


def test_a_page_of_an_allowed_origin_may_send_the_authorization_header() -> None:
    async def scenario() -> None:
        async with web_server(web_allowed_origins=(ORIGIN,)) as (server, _, _):
            preflight = await http_request(
                server.web_port,
                "OPTIONS",
                "/thousand.v1.PlayerService/GetMe",
                headers={
                    "origin": ORIGIN,
                    "access-control-request-method": "POST",
                    "access-control-request-headers": "content-type,authorization",
                },
            )
            assert preflight.status == 204
            assert "authorization" in preflight.headers["access-control-allow-headers"].split(", ")
            call = await http_request(
                server.web_port,
                "POST",
                "/thousand.v1.PlayerService/GetSignInOptions",
                b"{}",
                {"content-type": "application/json", "origin": ORIGIN},
            )
            assert call.status == 200 and call.headers["access-control-allow-origin"] == ORIGIN
            assert b'"guests":true' in call.body.replace(b" ", b"")
            admin = await http_request(
                server.web_port,
                "POST",
                "/thousand.v1.AdminService/ListAuditEntries",
                b"{}",
                {"content-type": "application/json"},
            )
            assert admin.status != 200  # operators use the gRPC port

    run(scenario())
