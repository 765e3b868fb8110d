"""A table another node has not published yet is described from its stored config (from_config in
server/description.py): a client that asks a non-owner right after CreateTable must still see a seeded table
as seeded and a fair one's commitment, or it checks the deals against the wrong promise (the Node client's
cluster test once took a seeded table for a fair one, and verified nothing at the end). Issue #32."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from grpc import aio

from server.app import Server
from server.description import from_config
from server.games import adapter_for_name
from server.settings import Settings
from server.store_select import open_store
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


def request(seed: int | None, game: pb.GameKind.ValueType = pb.GAME_KIND_THOUSAND) -> pb.CreateTableRequest:
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] + [
        pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random") for _ in range(2)
    ]
    made = pb.CreateTableRequest(game=game, seats=seats)
    if seed is not None:
        made.seed, made.practice = seed, True
    return made


@pytest.mark.parametrize(
    ("seed", "game"),
    [(3, pb.GAME_KIND_THOUSAND), (None, pb.GAME_KIND_THOUSAND), (None, pb.GAME_KIND_BLAGOGO)],
    ids=["seeded", "fair", "blagogo-fair"],
)
def test_a_table_described_from_its_config_says_what_its_owner_says(
    tmp_path: Path, seed: int | None, game: pb.GameKind.ValueType
) -> None:
    db = str(tmp_path / "t.db")

    async def created() -> pb.Table:
        server = Server(Settings(host="127.0.0.1", port=0, db=db))
        await server.start()
        try:
            async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                return (await pb_grpc.TableServiceStub(channel).CreateTable(request(seed, game))).table
        finally:
            await server.stop(grace=0.2)

    owner = asyncio.run(created())
    stored = open_store(db).get(owner.table_id)
    assert stored is not None
    described = from_config(
        owner.table_id,
        adapter_for_name(stored.config.game),
        stored.config,
        owner.open_seats,
        stored.create_time,
    )
    assert described.seeded == owner.seeded == (seed is not None)
    assert described.fairness == owner.fairness
    assert (described.fairness.commitment != "") == (seed is None)
    assert not described.fairness.secret  # never the secret before the game is over
    assert described.rules == owner.rules and described.game == owner.game
    assert described.time_control == owner.time_control and described.rated == owner.rated
    assert [(s.kind, s.strategy) for s in described.seats] == [(s.kind, s.strategy) for s in owner.seats]
    assert described.status == owner.status and described.open_seats == owner.open_seats
    assert described.create_time.ToMicroseconds() // 1000 == owner.create_time.ToMicroseconds() // 1000
