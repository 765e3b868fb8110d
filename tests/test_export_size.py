"""A game record over the wire, for a client with gRPC's default 4 MiB receive limit (the bug: a long fair
game's record was 5.6 MB, and tests/test_fair_deals.py's ExportTable failed with RESOURCE_EXHAUSTED in the
client).

The record grows with the game, about 360 bytes of compact JSON a move (events four fifths of it, a card
written as ``{"suit": "SUIT_…", "rank": "RANK_…"}``), and nothing bounds a game's length under that limit:
a table of bots only stops after ``bot_table_max_moves`` (50,000 by default: some 18 MB), a people's game
not at all (failed contracts take points away). So the contract streams it: StreamTableRecord sends the
record in parts of at most 1 MiB, whose concatenation is ExportTable's ``record_json``; ExportTable refuses a
record it cannot send in one message with RECORD_TOO_LARGE, naming StreamTableRecord, instead of the
client's unexplained RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import grpc
import pytest
from connectrpc.errors import ConnectError
from grpc import aio

from clients.cli.main import main as thousand_main
from codec import thousand as codec
from engine import Game, Rules
from server.export import record_of, replay
from server.service import EXPORT_MAX_BYTES, RECORD_PART_BYTES
from tests.in_process import serving
from tests.server_harness import game_record, record_parts
from tests.test_retries_and_export import reason_of
from tests.web_harness import WEB_TRANSPORTS, refusal, web_client, web_server
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

DEFAULT_CLIENT_LIMIT = 4 * 1024 * 1024
"""gRPC's default largest message a client receives (``grpc.max_receive_message_length``)."""
SHORT_MOVES = 2_000
"""A table of bots stopped after at most this many moves has a record of some 720 KB, under ExportTable's cap
whatever the game (a whole game of greedy bots has gone past 15,000 moves)."""
MOVES = 12_000
"""A table of bots only stopped after this many moves: a record of some 4.3 MB, well under the server's
default limit of 50,000 moves."""


async def finished_bot_table(stub: pb_grpc.TableServiceAsyncStub, strategy: str = "random") -> str:
    """A practice table of three bots, once the server finished (or stopped) it."""
    request = pb.CreateTableRequest(
        game=pb.GAME_KIND_THOUSAND,
        rules=pb.Rules(thousand=codec.rules_to_proto(Rules())),
        seats=[pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy=strategy)] * 3,
        practice=True,
    )
    table_id: str = (await stub.CreateTable(request)).table.table_id
    get = pb.GetTableRequest(table_id=table_id)
    while (await stub.GetTable(get)).table.status != pb.TABLE_STATUS_FINISHED:
        await asyncio.sleep(0.2)
    return table_id


def test_a_default_client_streams_the_record_of_a_table_stopped_at_the_move_limit(tmp_path: Path) -> None:
    """A record over 4 MiB reaches a default-configured client by StreamTableRecord, in parts of at most
    1 MiB, exactly the server's record, and replays; ExportTable refuses it with RECORD_TOO_LARGE.
    ``thousand export``, whose channel keeps gRPC's default receive limit too, writes it whole."""
    out = tmp_path / "game.json"

    async def scenario() -> None:
        async with serving(bot_table_max_moves=MOVES) as (server, stub):
            table_id = await finished_bot_table(stub)
            parts = await record_parts(stub, table_id)
            assert len(parts) > 1
            assert all(0 < len(part) <= RECORD_PART_BYTES for part in parts)
            joined = b"".join(parts)
            assert len(joined) > DEFAULT_CLIENT_LIMIT
            assert server.registry.store is not None
            stored = server.registry.store.get(table_id)
            assert stored is not None
            expected = json.dumps(record_of(stored), ensure_ascii=False, separators=(",", ":"))
            assert joined.decode() == expected
            record = json.loads(joined)
            assert record["finished"] is True
            game = replay(record)
            assert isinstance(game, Game)
            assert game.winner == record["winner"]
            engine_events = [event for event in record["events"] if "thousand" in event]
            assert len(game.events) == len(engine_events)
            assert len(record["actions"]) == MOVES

            with pytest.raises(aio.AioRpcError) as refused:
                await stub.ExportTable(pb.ExportTableRequest(table_id=table_id))
            code, reason, metadata = reason_of(refused.value)
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "RECORD_TOO_LARGE")
            assert metadata["bytes"] == str(len(joined))
            assert "StreamTableRecord" in (refused.value.details() or "")

            printed = io.StringIO()
            argv = ["export", table_id, "--server", f"127.0.0.1:{server.port}", "--out", str(out)]
            assert await asyncio.to_thread(thousand_main, argv, None, printed) == 0, printed.getvalue()
            assert json.loads(out.read_text(encoding="utf-8")) == record

    asyncio.run(asyncio.wait_for(scenario(), 300))


def test_a_short_games_stream_is_its_export() -> None:
    """Under the cap, ExportTable still answers, and StreamTableRecord's parts join to its record_json."""

    async def scenario() -> None:
        async with serving(bot_table_max_moves=SHORT_MOVES) as (_, stub):
            table_id = await finished_bot_table(stub, "greedy")
            exported = (await stub.ExportTable(pb.ExportTableRequest(table_id=table_id))).record_json
            assert 0 < len(exported.encode()) <= EXPORT_MAX_BYTES
            assert await game_record(stub, table_id) == exported

    asyncio.run(asyncio.wait_for(scenario(), 120))


def test_the_stream_refuses_as_export_does() -> None:
    """StreamTableRecord's refusals are ExportTable's: TABLE_NOT_FOUND, and INVALID_ARGUMENT without an id."""

    async def scenario() -> None:
        async with serving() as (_, stub):
            with pytest.raises(aio.AioRpcError) as missing:
                await record_parts(stub, "no-such-table")
            assert reason_of(missing.value)[:2] == (grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
            with pytest.raises(aio.AioRpcError) as empty:
                await record_parts(stub, "")
            assert reason_of(empty.value)[:2] == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")

    asyncio.run(asyncio.wait_for(scenario(), 60))


@pytest.mark.parametrize("kind", WEB_TRANSPORTS)
def test_the_web_port_streams_the_record_as_the_grpc_port_does(kind: str) -> None:
    """Over Connect (binary and JSON) and gRPC-Web, StreamTableRecord's parts join to ExportTable's
    record_json, and its refusal is the gRPC port's, code, ErrorInfo and message."""

    async def scenario() -> None:
        async with (
            web_server(bot_table_max_moves=SHORT_MOVES) as (_, stub, url),
            web_client(url, kind) as client,
        ):
            table_id = await finished_bot_table(stub, "greedy")
            exported = (await stub.ExportTable(pb.ExportTableRequest(table_id=table_id))).record_json
            request = pb.StreamTableRecordRequest(table_id=table_id)
            parts = [response.record_part async for response in client.stream_table_record(request)]
            assert b"".join(parts).decode() == exported
            missing = pb.StreamTableRecordRequest(table_id="no-such-table")
            with pytest.raises(aio.AioRpcError) as over_grpc:
                await record_parts(stub, "no-such-table")
            with pytest.raises(ConnectError) as over_web:
                _ = [response async for response in client.stream_table_record(missing)]
            assert refusal(over_web.value) == refusal(over_grpc.value)
            assert refusal(over_web.value).reason == "TABLE_NOT_FOUND"

    asyncio.run(asyncio.wait_for(scenario(), 120))
