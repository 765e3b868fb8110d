"""A rolling restart as the log sees it (issue #30, 5): a cluster node drained under a player's Play stream
(its requests still open) and a StreamEvents stream writes no error and no "AbortError" warning: its
streams end with TABLE_MOVING, logged at info, and the tables move to the other node."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from grpc import aio

from tests.cluster_harness import cluster
from tests.server_harness import run, thousand_table, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc


async def streams_through_a_drain(address: str, stop_node: asyncio.Future[None]) -> None:
    """Seat three players on the node at ``address``, stream two seats (Play and StreamEvents), let the
    node be stopped, and see each stream end UNAVAILABLE."""
    async with aio.insecure_channel(address) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        table_id = (await stub.CreateTable(thousand_table())).table.table_id
        tokens = [(await stub.JoinTable(pb.JoinTableRequest(table_id=table_id))).seat_token for _ in range(3)]
        done = asyncio.Event()

        async def requests() -> AsyncIterator[pb.PlayRequest]:
            yield pb.PlayRequest(start=pb.PlayStart(table_id=table_id))
            await done.wait()  # the player's side stays open, as a player's does

        play = stub.Play(requests(), metadata=token_md(tokens[0]))
        events = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=token_md(tokens[1]))
        await play.read()
        await events.read()
        stop_node.set_result(None)
        for call in (play, events):
            with pytest.raises(aio.AioRpcError) as error:
                while await call.read() is not aio.EOF:
                    pass
            assert error.value.code() == grpc.StatusCode.UNAVAILABLE
        done.set()


def test_a_drained_nodes_log_has_no_error_and_no_abort_error(tmp_path: Path, pg_url: str) -> None:
    with cluster(tmp_path, pg_url, ["a", "b"]) as nodes:

        async def scenario() -> None:
            stop: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            streaming = asyncio.ensure_future(streams_through_a_drain(nodes.address("a"), stop))
            await stop
            await asyncio.to_thread(nodes.nodes["a"].stop)  # SIGTERM: the drain of a rolling restart
            await streaming

        run(scenario())
        text = (tmp_path / "node-a.log").read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert [line["msg"] for line in lines][-1] == "stopped"
    assert "AbortError" not in text
    loud = [line for line in lines if line["level"] in ("warning", "error")]
    assert not loud, loud
    moved = [line for line in lines if line["msg"] == "rpc" and line.get("error_reason") == "TABLE_MOVING"]
    assert {line["grpc_method"] for line in moved} == {"Play", "StreamEvents"}
    assert all(line["level"] == "info" and line["grpc_code"] == "Unavailable" for line in moved)
