"""The Python client library over Play: a seated TableSession streams over Play and sends its actions on it.

Checked: a whole game of the SDK's bot goes through Play without a single SubmitAction call (the server's
gRPC metrics count them); a refusal on the stream is the same ServerError SubmitAction's status gives; an
action whose stream is cut before its result falls back to SubmitAction with the same request_id and is
applied once; and against a server without Play (UNIMPLEMENTED) the session goes back to StreamEvents and
SubmitAction by itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest

from clients.bots.example import CautiousBot
from clients.bots.sdk import BotResult, run_bot
from clients.errors import ServerError
from clients.messages import EventMessage, Snapshot, StreamItem, Turn
from clients.session import TableSession
from clients.streams import PlayCall
from engine import Action, Bid, Rules, View
from scripts.ports import free_port
from server.app import Server
from tests.in_process import serving, without_play
from tests.server_harness import run
from tests.test_ops_metrics import Scrape, scrape
from thousand.v1 import table_service_pb2 as pb


async def bot_game(**settings: Any) -> tuple[BotResult, Scrape]:
    """The SDK's example bot plays a whole game against two server-side bots; the server's metrics after."""
    async with serving(metrics_port=free_port(), **settings) as (server, _):
        address = f"127.0.0.1:{server.port}"
        async with TableSession(address) as lobby:
            table = await lobby.create_table(
                Rules(), [None, "greedy", "greedy"], seed=8, practice=True, first_dealer=0
            )
        result = await asyncio.wait_for(
            run_bot(CautiousBot(), server=address, table_id=table.table_id), timeout=120
        )
        return result, await scrape(server)


def test_a_bot_plays_a_whole_game_over_play_without_a_submit_call() -> None:
    result, m = run(bot_game())
    assert result.finished and result.refused == 0 and result.decisions > 10
    assert m.grpc("grpc_server_started_total", "SubmitAction") == 0
    assert m.grpc("grpc_server_started_total", "StreamEvents", "SERVER_STREAM") == 0
    received = m.grpc("grpc_server_msg_received_total", "Play", "BIDI_STREAM")
    assert received == result.decisions + 1  # the start, then every decision


@asynccontextmanager
async def seated() -> AsyncIterator[tuple[Server, TableSession, pb.Table]]:
    """A server, and a session seated at a table of it with two server-side bots."""
    async with serving() as (server, _), TableSession(f"127.0.0.1:{server.port}") as session:
        table = await session.create_table(
            Rules(), [None, "greedy", "greedy"], seed=8, practice=True, first_dealer=0
        )
        await session.join(table.table_id)
        yield server, session, table


async def my_turn(session: TableSession, stream: AsyncIterator[StreamItem]) -> Turn[View, Action]:
    """Read ``stream`` on to the first Turn that asks the session's seat to act (the stream stays open)."""
    async for item in stream:
        turn = item.turn if isinstance(item, Snapshot | EventMessage) else None
        if turn is not None and turn.seat == session.seat and turn.legal_actions:
            return turn
    raise AssertionError("the stream ended before the seat's turn")


def test_a_refusal_on_the_stream_is_the_server_error_submit_action_gives() -> None:
    async def scenario() -> None:
        async with seated() as (_, session, _table):
            stream = session.stream()
            await my_turn(session, stream)
            with pytest.raises(ServerError) as caught:
                await session.submit(Bid(100))  # the auction opened at 100 already
            await stream.aclose()
            error = caught.value
            assert (error.code, error.reason, error.rule) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "ILLEGAL_ACTION",
                "BID_TOO_LOW",
            )
            assert error.message

    run(scenario())


def test_against_a_server_without_play_the_session_streams_and_submits_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_play(monkeypatch)

    result, m = run(bot_game())
    assert result.finished and result.refused == 0
    assert result.reconnects == 0  # going back to StreamEvents is not a lost connection
    assert m.grpc("grpc_server_started_total", "SubmitAction") == result.decisions


def test_an_action_whose_stream_drops_before_its_result_goes_to_submit_action_once() -> None:
    """The Play stream ends with the action sent and no result: the same request_id through SubmitAction."""

    async def scenario() -> None:
        async with seated() as (server, session, table):
            stream = session.stream()
            turn = await my_turn(session, stream)
            await stream.aclose()  # the bots wait for this seat now: the table stands still
            assert session._play is None
            play = session._play = PlayCall()  # a stream that will never answer
            submitting = asyncio.create_task(session.submit(turn.legal_actions[0], check=False))
            sent = await play._outgoing.get()
            assert sent is not None
            before = server.registry.get(table.table_id).sequence
            play.close()
            sequence = await asyncio.wait_for(submitting, 10)
            assert sequence > before
            again = await session._stub.SubmitAction(
                pb.SubmitActionRequest(
                    table_id=table.table_id, request_id=sent.action.request_id, action=sent.action.action
                ),
                metadata=session._metadata(),
            )
            assert again.sequence == sequence  # the same request_id: applied once

    run(scenario())


def test_a_rate_limited_action_is_sent_again_after_the_delay() -> None:
    """RATE_LIMITED applied nothing: the session sends the same request again once the server's RetryInfo
    delay has passed, and the bot plays its game to the end without a refusal."""
    result, m = run(bot_game(rate_limit=40.0, rate_burst=3.0))
    assert result.finished and result.refused == 0
    sent = m.grpc("grpc_server_msg_received_total", "Play", "BIDI_STREAM")
    assert sent > result.decisions + 1, "no action was sent again: the limit was never hit"
