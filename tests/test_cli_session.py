"""clients.session.TableSession against an in-process server: whole games, typed errors, dropped connections
resumed with no event lost or repeated, retried actions applied once, and a lagging stream's resync."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest

import server.streams as streams_module
from bots.strategy import greedy_player
from clients.backoff import Backoff
from clients.errors import ServerError
from clients.games import THOUSAND
from clients.messages import ConnectionLost, EventMessage, Reconnected, Snapshot, StreamItem, Turn
from clients.session import OPEN, TableSession
from codec import thousand as codec
from engine import Bid, Game, Pass, Rules, view
from engine.events import GameOver
from tests.cli_harness import Proxy, run, serving
from thousand.v1 import table_service_pb2 as pb

FAST = Backoff(initial=0.05, maximum=0.5, give_up_after=30)
SHORT = Rules(barrel_at=0)  # the first to 1000 wins: greedy games end in a few dozen deals


async def play_greedy(
    session: TableSession,
    on_message: Callable[[StreamItem], Awaitable[None]] | None = None,
) -> list[StreamItem]:
    """Stream the seat from the table's first event and play the greedy strategy on each Turn's view."""
    rng = random.Random(0)
    items: list[StreamItem] = []
    async for item in session.stream(from_start=True):
        items.append(item)
        if on_message is not None:
            await on_message(item)
        turn = item.turn if isinstance(item, EventMessage | Snapshot) else None
        if turn is not None and turn.seat == session.seat and turn.view is not None:
            await session.submit(greedy_player(turn.view, rng))
    return items


def sequences(items: list[StreamItem]) -> list[int]:
    return [i.sequence for i in items if isinstance(i, EventMessage)]


def test_a_whole_game_against_two_bots() -> None:
    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            table = await session.create_table(
                SHORT, [OPEN, "greedy", "greedy"], seed=11, practice=True, first_dealer=0
            )
            assert THOUSAND.rules_of(table) == SHORT
            assert [s.kind for s in table.seats] == [pb.SEAT_KIND_OPEN, pb.SEAT_KIND_BOT, pb.SEAT_KIND_BOT]
            assert await session.join(table.table_id, name="Ann") == 0
            items = await asyncio.wait_for(play_greedy(session), timeout=60)
            final = await session.get_table()
            assert final.status == pb.TABLE_STATUS_FINISHED
            assert sequences(items) == list(range(1, final.sequence + 1))
            last = items[-1]
            assert isinstance(last, EventMessage) and isinstance(last.event, GameOver)
            assert session.finished and session.last_sequence == final.sequence
            listed = await session.list_tables()
            assert [t.table_id for t in listed] == [table.table_id]

    run(scenario())


async def refusal(call: Awaitable[object]) -> ServerError:
    with pytest.raises(ServerError) as caught:
        await call
    return caught.value


def test_server_errors_carry_reason_rule_and_message() -> None:
    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            error = await refusal(session.get_table("no-such-table"))
            assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
            assert "no-such-table" in error.message or error.message
            error = await refusal(session.create_table(SHORT, [OPEN, "genius", "greedy"]))
            assert error.reason == "UNKNOWN_STRATEGY"
            table = await session.create_table(
                Rules(), [OPEN, OPEN, "greedy"], seed=3, practice=True, first_dealer=0
            )
            await session.join(table.table_id, seat=0)
            error = await refusal(session.submit(Pass()))
            assert error.reason == "GAME_NOT_STARTED"
            async with TableSession(address, backoff=FAST) as other:
                await other.join(table.table_id)
                error = await refusal(other.join(table.table_id))
                assert error.reason == "TABLE_FULL"
                snapshot = await anext(aiter(other.stream()))
                assert isinstance(snapshot, Snapshot) and snapshot.turn is not None
                to_act = snapshot.turn.seat
                acting, waiting = (session, other) if to_act == 0 else (other, session)
                await acting.get_table()
                error = await refusal(waiting.submit(Pass(), check=False))
                assert error.reason == "NOT_YOUR_TURN"
                error = await refusal(acting.submit(Bid(100), check=False))
                assert (error.reason, error.rule) == ("ILLEGAL_ACTION", "BID_TOO_LOW")
                assert error.code == grpc.StatusCode.FAILED_PRECONDITION and error.message
                error = await refusal(acting.submit(Pass(), last_seen_sequence=1))
                assert error.reason == "STALE_SEQUENCE"
                assert not error.retryable

    run(scenario())


def test_a_dropped_connection_resumes_with_no_event_lost_or_repeated() -> None:
    """The connection is cut again and again mid-game; the stream resumes after the last sequence seen."""

    async def scenario() -> None:
        async with serving() as address:
            proxy = Proxy(address)
            await proxy.start()
            try:
                async with TableSession(proxy.address, backoff=FAST) as session:
                    table = await session.create_table(
                        SHORT, [OPEN, "greedy", "greedy"], seed=11, practice=True, first_dealer=0
                    )
                    await session.join(table.table_id)
                    seen = 0

                    async def cut_now_and_then(item: StreamItem) -> None:
                        nonlocal seen
                        if isinstance(item, EventMessage):
                            seen += 1
                            if seen % 150 == 0:
                                proxy.cut()
                            if seen % 450 == 0:  # the server is unreachable for a while
                                proxy.blocked = True
                                proxy.cut()
                                asyncio.get_running_loop().call_later(0.4, setattr, proxy, "blocked", False)

                    items = await asyncio.wait_for(play_greedy(session, cut_now_and_then), timeout=90)
                async with TableSession(address) as direct:
                    final = await direct.get_table(table.table_id)
                    direct.attach(table.table_id, after_sequence=0)
                    reference = [i async for i in direct.stream()]
            finally:
                await proxy.stop()
            assert proxy.cuts >= 3
            lost = [i for i in items if isinstance(i, ConnectionLost)]
            back = [i for i in items if isinstance(i, Reconnected)]
            assert len(lost) >= 3 and len(back) >= 3
            # Transport failures, no reason of the server's: UNAVAILABLE mostly; a cut that catches a Play
            # stream sending gets gRPC core's INTERNAL ("Internal error from Core").
            assert all(i.error.retryable for i in lost), [repr(i.error) for i in lost]
            assert any(i.error.code == grpc.StatusCode.UNAVAILABLE for i in lost)
            assert sequences(items) == list(range(1, final.sequence + 1))
            events = [i.event for i in items if isinstance(i, EventMessage)]
            spectator_events = [i.event for i in reference if isinstance(i, EventMessage)]
            assert len(events) == len(spectator_events) == final.sequence
            assert isinstance(events[-1], GameOver)

    run(scenario())


def test_an_action_is_retried_with_its_request_id_while_the_server_is_unreachable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario() -> None:
        async with serving() as address:
            proxy = Proxy(address)
            await proxy.start()
            try:
                async with TableSession(proxy.address, backoff=FAST) as session:
                    table = await session.create_table(
                        Rules(), [OPEN, "greedy", "greedy"], seed=4, practice=True, first_dealer=2
                    )
                    await session.join(table.table_id)
                    stream = session.stream()
                    first = await anext(stream)
                    assert isinstance(first, Snapshot) and first.turn is not None
                    assert first.turn.seat == session.seat and first.turn.view is not None
                    request_ids: list[str] = []
                    original = session._stub.SubmitAction

                    def recording(request: pb.SubmitActionRequest, **kwargs: Any) -> Any:
                        request_ids.append(request.request_id)
                        return original(request, **kwargs)

                    monkeypatch.setattr(session._stub, "SubmitAction", recording)
                    proxy.blocked = True
                    proxy.cut()
                    asyncio.get_running_loop().call_later(0.5, setattr, proxy, "blocked", False)
                    sequence = await session.submit(greedy_player(first.turn.view, random.Random(0)))
                    await stream.aclose()
                    assert len(request_ids) >= 2 and len(set(request_ids)) == 1
                    after = await session.get_table()
                    assert after.sequence >= sequence > first.sequence
            finally:
                await proxy.stop()

    run(scenario())


def test_a_lagging_stream_resumes_instead_of_skipping_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server resyncs a lagging stream with a snapshot; the session fetches the skipped events instead."""
    monkeypatch.setattr(streams_module, "STREAM_QUEUE_SIZE", 4)

    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as player:
            table = await player.create_table(
                SHORT, [OPEN, "greedy", "greedy"], seed=11, practice=True, first_dealer=0
            )
            await player.join(table.table_id)
            async with TableSession(address, backoff=FAST) as spectator:
                await spectator.watch(table.table_id)
                watched: list[StreamItem] = []

                async def watch() -> None:
                    async for item in spectator.stream():
                        watched.append(item)
                        await asyncio.sleep(0.002 if len(watched) < 300 else 0)

                await asyncio.wait_for(asyncio.gather(play_greedy(player), watch()), timeout=90)
            final = await player.get_table()
            assert isinstance(watched[0], Snapshot)
            assert not any(isinstance(i, Snapshot) for i in watched[1:])
            start = watched[0].sequence
            assert sequences(watched) == list(range(start + 1, final.sequence + 1))

    run(scenario())


def test_a_turn_decodes_its_seat_actions_view_and_deadline() -> None:
    """The server has no turn clock yet; a Turn with a deadline decodes to the time left."""
    game = Game(Rules(), 1)
    game.apply_chance()
    seat = game.to_act
    assert seat is not None
    message = pb.Turn(seat=seat)
    message.legal_actions.extend(pb.Action(thousand=codec.action_to_proto(a)) for a in game.legal_actions())
    message.view.thousand.CopyFrom(codec.view_to_proto(view(game, seat)))
    message.deadline.FromDatetime(datetime.now(UTC) + timedelta(seconds=30))
    turn = THOUSAND.decode_turn(message)
    assert turn.seat == seat and turn.legal_actions == game.legal_actions()
    assert turn.view == view(game, seat)
    left = turn.seconds_left()
    assert left is not None and 28 < left <= 30
    assert THOUSAND.decode_turn(pb.Turn()) == Turn(seat=None)
