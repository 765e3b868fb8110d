"""Ratings in the terminal client, as people use it: a real server process, the ``thousand`` command run as a
process per device. A rated table needs a signed-in player (``thousand new --rated`` says so before making
anything; ``thousand join`` at a rated table too); after two guests' rated game, ``thousand leaderboard``
lists them with their places and ratings, ``thousand profile`` shows a player's pool and latest game."""

from __future__ import annotations

import asyncio
from pathlib import Path

from grpc import aio

from tests.live_server import live_server
from tests.ratings_harness import events, finished, guests, play_as, rated_request
from tests.test_cli_players import Device
from thousand.v1 import ratings_pb2 as ratings_pb
from thousand.v1 import table_service_pb2_grpc as table_grpc


def test_leaderboard_and_profile_from_the_terminal(tmp_path: Path) -> None:
    with live_server(tmp_path, str(tmp_path / "thousand.db"), "--rating-min-games", "1") as server:
        device = Device(tmp_path / "device", server.address)

        refused = device.run("new", "--rated", "--players", "2", "--plain", ok=False)
        assert refused.returncode == 1 and "thousand login" in refused.stderr
        mixed = device.run("new", "--rated", "--players", "2", "--bots", "1", "--plain", ok=False)
        assert mixed.returncode == 2 and "--bots" in mixed.stderr  # usage: a rated table is of people only

        async def rated_game() -> tuple[list[str], list[str], str, ratings_pb.RatingsUpdated, str]:
            ann, bob = await guests(server.address, "Ann", "Bob")
            async with aio.insecure_channel(server.address) as channel:
                stub = table_grpc.TableServiceStub(channel)
                table = (await stub.CreateTable(rated_request(2))).table
                await play_as(server.address, table.table_id, [ann.player_token, bob.player_token])
                await finished(stub, table.table_id)
                update = (await events(stub, table.table_id))[-1].ratings_updated
                waiting = (await stub.CreateTable(rated_request(2))).table.table_id
            ids = [ann.player.player_id, bob.player.player_id]
            return ids, [ann.player_token, bob.player_token], table.table_id, update, waiting

        ids, tokens, table_id, update, waiting = asyncio.run(rated_game())
        # Anonymous, a join of a rated table asks the person to sign in (PLAYER_TOKEN_INVALID, missing).
        anonymous = device.run("join", waiting, "--plain", ok=False)
        assert anonymous.returncode == 1 and "thousand login" in anonymous.stderr
        assert "PLAYER_TOKEN_INVALID" in anonymous.stderr
        board = device.run("leaderboard", "--players", "2").stdout
        assert "Thousand, 2 players" in board
        for name, seat in zip(("Ann", "Bob"), update.seats, strict=True):
            line = next(line for line in board.splitlines() if name in line)
            assert line.strip().startswith(f"{1 if seat.rank == 1 else 2}.")
            assert f"{seat.after.ordinal:.2f}" in line and seat.player_id in line
        assert "thousand new --rated" in device.run("leaderboard", "--players", "3").stdout  # empty pool
        device.run("login", "--token", tokens[0])
        mine = device.run("profile").stdout
        assert f"Ann ({ids[0]})" in mine and "place" in mine and table_id in mine
        theirs = device.run("profile", ids[1]).stdout
        assert f"Bob ({ids[1]})" in theirs and f"{update.seats[1].after.ordinal:.2f}" in theirs
