"""A game record over the wire: ExportTable answers one message, which a client with gRPC's default
4 MiB receive limit must be able to read (the bug: a long fair game's record was 5.6 MB, and
tests/test_fair_deals.py's ExportTable failed with RESOURCE_EXHAUSTED in the client).

The record grows with the game, about 360 bytes of compact JSON a move (events four fifths of it, a card
written as ``{"suit": "SUIT_…", "rank": "RANK_…"}``), and nothing bounds a game's length under that limit:
a table of bots only stops after ``bot_table_max_moves`` (50,000 by default: some 18 MB), a people's game
not at all (failed contracts take points away). No encoding of the documented format fits every game in
one message; the fix is in the contract (a streamed export). Until then this test is a strict xfail: it
reproduces the failure deterministically and fails (XPASS) once the contract is fixed, to be un-marked.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc import aio

from codec import thousand as codec
from engine import Rules
from tests.in_process import serving
from thousand.v1 import table_service_pb2 as pb

DEFAULT_CLIENT_LIMIT = 4 * 1024 * 1024
"""gRPC's default largest message a client receives (``grpc.max_receive_message_length``)."""
MOVES = 12_000
"""A table of bots only stopped after this many moves: a record of some 4.3 MB, well under the server's
default limit of 50,000 moves."""


@pytest.mark.xfail(
    strict=True,
    raises=aio.AioRpcError,
    reason="a whole game's record is one ExportTable message; a long game's exceeds a default client's "
    "4 MiB (the contract needs a streamed export)",
)
def test_a_default_client_exports_a_table_stopped_at_the_move_limit() -> None:
    async def scenario() -> None:
        async with serving(bot_table_max_moves=MOVES) as (_, stub):
            request = pb.CreateTableRequest(
                game=pb.GAME_KIND_THOUSAND,
                rules=pb.Rules(thousand=codec.rules_to_proto(Rules())),
                seats=[pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random")] * 3,
                practice=True,
            )
            table_id = (await stub.CreateTable(request)).table.table_id
            get = pb.GetTableRequest(table_id=table_id)
            while (await stub.GetTable(get)).table.status != pb.TABLE_STATUS_FINISHED:
                await asyncio.sleep(0.2)
            try:
                exported = await stub.ExportTable(pb.ExportTableRequest(table_id=table_id))
            except aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                raise
            assert len(exported.record_json.encode()) < DEFAULT_CLIENT_LIMIT

    asyncio.run(asyncio.wait_for(scenario(), 300))
