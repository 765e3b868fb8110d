"""A rematch of a rated table (MatchmakingService.Rematch) is rated too, with the same rules and players,
while every seat is still a signed-in player's; otherwise (a seat rematching without its player credential)
it is unrated, as a rated table admits signed-in players only (server.ratings.admission)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from grpc import aio

from tests.identity_harness import ADMIN_TOKEN, Served, bearer, served
from tests.ratings_harness import guests, rated_request
from tests.server_harness import run, token_md
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import matchmaking_pb2_grpc as mm_grpc
from thousand.v1 import table_service_pb2 as pb


async def _closed_rated_table(s: Served, tokens: list[str]) -> tuple[pb.Table, list[str]]:
    """A rated table of three seats, each taken by one of the players (by credential), then closed by the
    operator (finished); with the seat tokens they sat with."""
    table = (await s.tables.CreateTable(rated_request(3))).table
    seat_tokens = []
    for seat, token in enumerate(tokens):
        joined = await s.tables.JoinTable(
            pb.JoinTableRequest(table_id=table.table_id, seat=seat), metadata=bearer(token)
        )
        seat_tokens.append(joined.seat_token)
    await s.admin.CloseTable(
        admin_pb.CloseTableRequest(table_id=table.table_id, reason="rematch test"),
        metadata=bearer(ADMIN_TOKEN),
    )
    return (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table, seat_tokens


async def _rematch(s: Served, table_id: str, metadata: list[Any]) -> pb.Table:
    """Every seat accepts (each with its ``metadata``); the new table as the server describes it."""
    matchmaking = mm_grpc.MatchmakingServiceStub(aio.insecure_channel(f"127.0.0.1:{s.server.port}"))

    async def accept(md: Any) -> mm.QuickPlayMatch:
        request = mm.RematchRequest(table_id=table_id, accept=True)
        async for update in matchmaking.Rematch(request, metadata=md):
            if update.HasField("matched"):
                return update.matched
        raise AssertionError("no rematch")

    new = await asyncio.wait_for(asyncio.gather(*(accept(md) for md in metadata)), 30)
    assert len({m.table.table_id for m in new}) == 1 and new[0].table.table_id != table_id
    return (await s.tables.GetTable(pb.GetTableRequest(table_id=new[0].table.table_id))).table


def test_a_rematch_of_a_rated_table_is_rated_with_the_same_rules_and_players(tmp_path: Path) -> None:
    """Rated tables (ratings' admission rules): three signed-in players rematch a rated table by their
    player credentials; the new table is rated, of the same game and rules, each player at their seat."""

    async def body() -> None:
        async with served(tmp_path) as s:
            people = await guests(f"127.0.0.1:{s.server.port}", "Ann", "Bob", "Cid")
            tokens = [p.player_token for p in people]
            old, _ = await _closed_rated_table(s, tokens)
            assert old.rated and old.status == pb.TABLE_STATUS_FINISHED
            new = await _rematch(s, old.table_id, [bearer(t) for t in tokens])
            assert new.rated
            assert new.game == old.game and new.rules == old.rules
            assert [seat.player_id for seat in new.seats] == [p.player.player_id for p in people]
            assert [seat.player_name for seat in new.seats] == [seat.player_name for seat in old.seats]

    run(body())


def test_a_rematch_of_a_rated_table_with_a_seat_not_signed_in_is_unrated(tmp_path: Path) -> None:
    """The same, but one seat rematches by its seat token alone (no player credential): that seat's player
    is unknown, so the new table cannot be rated; it is made unrated, with the same rules."""

    async def body() -> None:
        async with served(tmp_path) as s:
            people = await guests(f"127.0.0.1:{s.server.port}", "Ann", "Bob", "Cid")
            tokens = [p.player_token for p in people]
            old, seat_tokens = await _closed_rated_table(s, tokens)
            metadata = [bearer(tokens[0]), bearer(tokens[1]), token_md(seat_tokens[2])]
            new = await _rematch(s, old.table_id, metadata)
            assert not new.rated and new.rules == old.rules

    run(body())
