"""What a timeout does to a seat, and how fast the server's bots play where people sit (issue 18, bug 5): one
timeout handed the player's whole game to the bot, which played all its remaining deals in seconds.

Now a timed-out seat gets the bot for that one decision (the default policy) and is its player's again at
once; a seat taken over until its player returns (TIMEOUT_POLICY_BOT_PLAYS) is handed back when the
player's stream opens again; at a table with people, every bot move takes the table's bot pace; and the
policy and pace are part of the table's description, for every client to show."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest

from server.settings import parse_settings
from tests.in_process import serving
from tests.server_harness import expect_error
from tests.test_clocks import Watcher, clock_table, event_kind, my_turn
from thousand.v1 import table_service_pb2 as pb


def policy_table(
    per_move: float, policy: pb.TimeoutPolicy.ValueType = pb.TIMEOUT_POLICY_UNSPECIFIED
) -> pb.CreateTableRequest:
    """Thousand, seat 0 open, two greedy bots, a turn clock and ``policy`` (unset: the server's default)."""
    return clock_table(per_move, policy=policy)


def kinds(watcher: Watcher, start: int = 0) -> list[str]:
    return [m.event.WhichOneof("event") or "" for m in watcher.messages[start:] if m.HasField("event")]


def test_a_timeout_hands_the_bot_one_decision_and_the_seat_is_the_players_again() -> None:
    async def scenario() -> None:
        async with serving() as (server, stub):
            table = (await stub.CreateTable(policy_table(0.25))).table
            assert table.time_control.on_timeout == pb.TIMEOUT_POLICY_BOT_PLAYS_TURN  # the default, shown
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, player_name="ann"))
            seat, token = joined.seat, joined.seat_token
            watcher = Watcher(stub, table.table_id, token, None)
            first = await watcher.until(my_turn(seat))
            out = await watcher.until(event_kind("turn_timed_out"), start=first)
            assert watcher.messages[out].event.turn_timed_out.policy == pb.TIMEOUT_POLICY_BOT_PLAYS_TURN
            taken = await watcher.until(event_kind("seat_taken_over"), start=out)
            assert taken == out + 1 and watcher.messages[taken].event.seat_taken_over.one_turn
            back = await watcher.until(event_kind("seat_reclaimed"), start=out)
            # Between the takeover and the seat handed back: the bot's one move, and nothing else of the seat.
            between = watcher.messages[out + 2 : back]
            assert len(between) >= 1 and all(
                m.HasField("event") and m.event.HasField("thousand") for m in between
            )
            live = server.registry.get(table.table_id)
            assert not live.seats[seat].taken_over
            # The seat's next decision is its player's, with a clock of its own.
            mine = watcher.messages[await watcher.until(my_turn(seat), start=back)]
            assert mine.turn.HasField("deadline")
            described = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert not described.seats[seat].taken_over
            watcher.close()

    asyncio.run(scenario())


def test_an_absent_player_loses_moves_at_the_clocks_pace_never_the_whole_game() -> None:
    """The issue's game: nobody plays seat 0 of a table with a clock. Each of its decisions waits out the
    clock, so in two seconds a 0.2 s clock lets the bot make at most about ten of them."""

    async def scenario() -> None:
        async with serving() as (_server, stub):
            table = (await stub.CreateTable(policy_table(0.2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            await watcher.until(my_turn(joined.seat))
            started = time.monotonic()
            await asyncio.sleep(2.0)
            took = time.monotonic() - started
            timeouts = kinds(watcher).count("turn_timed_out")
            assert 3 <= timeouts <= took / 0.2 + 1, timeouts
            assert kinds(watcher).count("seat_reclaimed") >= timeouts - 1
            described = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert described.status == pb.TABLE_STATUS_PLAYING  # far from the end: a game is 100+ decisions
            watcher.close()

    asyncio.run(scenario())


def test_a_seat_taken_over_until_its_player_returns_is_handed_back_when_their_stream_opens() -> None:
    # A bot pace, as the command's default has: at pace 0 the three bots could finish the whole game in the
    # moment between the player's two streams (they did, now and then), and there is nothing to hand back.
    async def scenario() -> None:
        async with serving(bot_pace=0.05) as (server, stub):
            table = (await stub.CreateTable(policy_table(0.2, pb.TIMEOUT_POLICY_BOT_PLAYS))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            seat, token = joined.seat, joined.seat_token
            watcher = Watcher(stub, table.table_id, token, None)
            taken = await watcher.until(event_kind("seat_taken_over"))
            assert not watcher.messages[taken].event.seat_taken_over.one_turn
            watcher.close()  # the player's terminal closed
            live = server.registry.get(table.table_id)
            await asyncio.sleep(0.1)
            assert live.seats[seat].taken_over  # the bot plays on while they are away
            back = Watcher(stub, table.table_id, token, None)  # they come back: their stream opens
            await back.until(event_kind("seat_reclaimed"))
            assert not live.seats[seat].taken_over
            back.close()

    asyncio.run(scenario())


def test_bots_at_a_table_with_people_keep_the_tables_pace_and_alone_play_fast() -> None:
    async def scenario() -> None:
        async with serving(bot_pace=0.15) as (_server, stub):
            request = clock_table(0)  # no turn clock: the server's default pace
            table = (await stub.CreateTable(request)).table
            assert table.time_control.bot_pace.ToNanoseconds() == 150_000_000
            assert table.time_control.per_move.ToNanoseconds() == 0
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            started = time.monotonic()
            mine = watcher.messages[await watcher.until(my_turn(joined.seat))]
            assert not mine.turn.HasField("deadline")  # a pace is no clock
            # seat 0 deals first (first_dealer 0): seats 1 and 2 bid before seat 0's first turn
            bids = [
                m for m in watcher.messages if m.HasField("event") and m.event.thousand.HasField("bid_made")
            ]
            spoken = len(bids) + sum(
                1 for m in watcher.messages if m.HasField("event") and m.event.thousand.HasField("passed")
            )
            assert time.monotonic() - started >= 0.15 * spoken * 0.9
            watcher.close()
            # A table of bots only plays as fast as it can, whatever the pace.
            only_bots = pb.CreateTableRequest(
                game=pb.GAME_KIND_THOUSAND,
                seats=[pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")] * 3,
                seed=1,
            )
            only_bots.time_control.bot_pace.FromNanoseconds(1_000_000_000)
            fast = (await stub.CreateTable(only_bots)).table
            await asyncio.sleep(1.0)
            described = (await stub.GetTable(pb.GetTableRequest(table_id=fast.table_id))).table
            assert described.sequence > 50
            # A pace beyond 10 s is refused, naming the field.
            bad = clock_table(0)
            bad.time_control.bot_pace.seconds = 11
            await expect_error(stub.CreateTable(bad), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT)

    asyncio.run(scenario())


def test_a_one_turn_timeout_replays_to_the_same_events(tmp_path: Path) -> None:
    db = str(tmp_path / "turn.db")

    async def scenario() -> None:
        async with serving(db) as (server, stub):
            table = (await stub.CreateTable(policy_table(0.2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            await watcher.until(event_kind("seat_reclaimed"))
            live = server.registry.get(table.table_id)
            async with live.lock:
                log = list(live.log)
            watcher.close()
        async with serving(db) as (server, stub):
            restored = server.registry.get(table.table_id)
            assert restored.log[: len(log)] == log
            assert not restored.seats[joined.seat].taken_over or restored.seats[joined.seat].one_turn

    asyncio.run(scenario())


def test_the_server_takes_a_default_bot_pace() -> None:
    assert parse_settings([], {}).bot_pace == 1.0
    assert parse_settings(["--bot-pace", "0"], {}).bot_pace == 0.0
    assert parse_settings([], {"THOUSAND_BOT_PACE": "0.5"}).bot_pace == 0.5
    with pytest.raises(SystemExit):
        parse_settings(["--bot-pace", "11"], {})
