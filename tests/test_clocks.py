"""Turn clocks: the deadline on the Turn, a timeout played by the bot or forfeited, taking the seat back, the
time bank, and a restart in the middle of a running clock (replay yields the same events)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import grpc
import pytest
from grpc import aio

from tests.in_process import serving
from tests.server_harness import error_info, expect_error, token_md
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

Message = pb.StreamEventsResponse


def clock_table(
    per_move: float, *, bank: float = 0.0, policy: pb.TimeoutPolicy.ValueType = pb.TIMEOUT_POLICY_BOT_PLAYS
) -> pb.CreateTableRequest:
    """Thousand, seat 0 open and two greedy bots, with a turn clock (the bot plays a seat that timed out until
    it is taken back, unless ``policy`` says otherwise)."""
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)]
    seats += [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")] * 2
    request = pb.CreateTableRequest(
        game=pb.GAME_KIND_THOUSAND, seats=seats, seed=5, practice=True, first_dealer=0
    )
    request.time_control.per_move.FromNanoseconds(int(per_move * 1e9))
    request.time_control.bank.FromNanoseconds(int(bank * 1e9))
    request.time_control.on_timeout = policy
    return request


class Watcher:
    """A seat's stream read in the background; ``until`` waits for a message that matches."""

    def __init__(
        self, stub: pb_grpc.TableServiceAsyncStub, table_id: str, token: str, after: int | None
    ) -> None:
        request = pb.StreamEventsRequest(table_id=table_id)
        if after is not None:
            request.after_sequence = after
        self.call = stub.StreamEvents(request, metadata=token_md(token))
        self.messages: list[Message] = []
        self._new = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for message in self.call:
                self.messages.append(message)
                self._new.set()
        except grpc.aio.AioRpcError:
            pass

    async def until(self, match: Callable[[Message], bool], timeout: float = 30, start: int = 0) -> int:
        """The index of the first message from ``start`` on that matches."""
        deadline = time.monotonic() + timeout
        seen = start
        while True:
            for i in range(seen, len(self.messages)):
                if match(self.messages[i]):
                    return i
            seen = max(seen, len(self.messages))
            self._new.clear()
            remaining = deadline - time.monotonic()
            assert remaining > 0, "timed out waiting for a message"
            with suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), remaining)

    def close(self) -> None:
        self.call.cancel()


def my_turn(seat: int) -> Callable[[Message], bool]:
    return lambda m: m.turn.HasField("seat") and m.turn.seat == seat and m.turn.HasField("view")


def event_kind(kind: str) -> Callable[[Message], bool]:
    return lambda m: m.HasField("event") and m.event.WhichOneof("event") == kind


def deadline_of(message: Message) -> float:
    return message.turn.deadline.ToNanoseconds() / 1e9


async def act(
    stub: pb_grpc.TableServiceAsyncStub, table_id: str, token: str, message: Message, rid: str
) -> None:
    await stub.SubmitAction(
        pb.SubmitActionRequest(table_id=table_id, request_id=rid, action=message.turn.legal_actions[0]),
        metadata=token_md(token),
    )


def test_the_deadline_is_on_the_turn_and_the_bot_plays_on_timeout_until_the_seat_is_reclaimed() -> None:
    async def scenario() -> None:
        async with serving() as (_server, stub):
            table = (await stub.CreateTable(clock_table(0.3))).table
            assert table.time_control.per_move.ToNanoseconds() == 300_000_000
            assert table.time_control.on_timeout == pb.TIMEOUT_POLICY_BOT_PLAYS
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, player_name="ann"))
            seat, token = joined.seat, joined.seat_token
            watcher = Watcher(stub, table.table_id, token, None)
            first = await watcher.until(my_turn(seat))
            turn = watcher.messages[first]
            assert turn.turn.HasField("deadline")
            assert 0 < deadline_of(turn) - time.time() <= 0.35
            # Nobody acts: the time runs out, the policy acts, the bot plays the seat.
            out = await watcher.until(event_kind("turn_timed_out"), start=first)
            timed_out = watcher.messages[out].event.turn_timed_out
            assert (timed_out.seat, timed_out.policy) == (seat, pb.TIMEOUT_POLICY_BOT_PLAYS)
            assert time.time() >= deadline_of(turn) - 0.01
            taken = await watcher.until(event_kind("seat_taken_over"), start=out)
            assert taken == out + 1
            over = watcher.messages[taken].event
            assert over.HasField("seat_taken_over") and over.seat_taken_over.seat == seat
            assert not over.seat_taken_over.forfeited
            # The bot's move follows at once (an event of the seat's decision), and no later Turn of the
            # seat carries a deadline while the bot plays it.
            await watcher.until(lambda m: m.sequence > watcher.messages[taken].sequence, start=taken + 1)
            described = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert described.seats[seat].taken_over and not described.seats[seat].forfeited
            # Take the seat back: SeatReclaimed, and the next decision of the seat has a fresh clock.
            reclaimed = await stub.ReclaimSeat(
                pb.ReclaimSeatRequest(table_id=table.table_id), metadata=token_md(token)
            )
            assert not reclaimed.table.seats[seat].taken_over
            back = await watcher.until(event_kind("seat_reclaimed"), start=out)
            assert watcher.messages[back].event.seat_reclaimed.seat == seat
            mine = await watcher.until(my_turn(seat), start=back)
            assert watcher.messages[mine].turn.HasField("deadline")
            await act(stub, table.table_id, token, watcher.messages[mine], "r1")  # in time: no timeout
            # Reclaiming a seat that is not taken over does nothing.
            again = await stub.ReclaimSeat(
                pb.ReclaimSeatRequest(table_id=table.table_id), metadata=token_md(token)
            )
            assert again.table.sequence >= reclaimed.table.sequence
            watcher.close()

    asyncio.run(scenario())


def test_an_action_takes_the_seat_back() -> None:
    async def scenario() -> None:
        # A bot pace: at pace 0 the bots could come round to this seat again between the check and the late
        # action, which the new decision then accepted.
        async with serving(bot_pace=0.05) as (server, stub):
            table = (await stub.CreateTable(clock_table(0.2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            turn = await watcher.until(my_turn(joined.seat))
            out = await watcher.until(event_kind("seat_taken_over"), start=turn)
            # An action when the bot has already moved: refused as another seat's turn, the seat taken back.
            seq = watcher.messages[-1].sequence
            live = server.registry.get(table.table_id)
            deadline = time.monotonic() + 10  # the bot moves for the seat at the table's pace
            while True:
                async with live.lock:
                    if live.game.to_act != joined.seat:
                        break
                assert time.monotonic() < deadline, "the bot never moved for the seat"
                await asyncio.sleep(0.005)
            # Refused as another seat's turn (the bots move at a pace: they cannot come round to this seat in
            # the moment before the action arrives), or as the wrong action: the seat is taken back.
            with pytest.raises(aio.AioRpcError) as refused:
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        table_id=table.table_id,
                        request_id="late",
                        action=watcher.messages[turn].turn.legal_actions[0],
                    ),
                    metadata=token_md(joined.seat_token),
                )
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert error_info(refused.value).reason in ("NOT_YOUR_TURN", "ILLEGAL_ACTION")
            back = await watcher.until(event_kind("seat_reclaimed"), start=out)
            assert watcher.messages[back].sequence > seq - 1
            assert not live.seats[joined.seat].taken_over
            watcher.close()

    asyncio.run(scenario())


def test_forfeit_the_bot_plays_the_seat_to_the_end_and_it_cannot_be_taken_back() -> None:
    async def scenario() -> None:
        async with serving() as (_server, stub):
            table = (await stub.CreateTable(clock_table(0.2, policy=pb.TIMEOUT_POLICY_FORFEIT))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            md = token_md(joined.seat_token)
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            turn = await watcher.until(my_turn(joined.seat))
            out = await watcher.until(event_kind("turn_timed_out"), start=turn)
            assert watcher.messages[out].event.turn_timed_out.policy == pb.TIMEOUT_POLICY_FORFEIT
            taken = await watcher.until(event_kind("seat_taken_over"), start=out)
            assert watcher.messages[taken].event.seat_taken_over.forfeited
            described = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert described.seats[joined.seat].forfeited and described.seats[joined.seat].taken_over
            request = pb.ReclaimSeatRequest(table_id=table.table_id)
            await expect_error(
                stub.ReclaimSeat(request, metadata=md), "SEAT_FORFEITED", grpc.StatusCode.FAILED_PRECONDITION
            )
            action = pb.SubmitActionRequest(
                table_id=table.table_id,
                request_id="x",
                action=watcher.messages[turn].turn.legal_actions[0],
            )
            await expect_error(
                stub.SubmitAction(action, metadata=md), "SEAT_FORFEITED", grpc.StatusCode.FAILED_PRECONDITION
            )
            # Leaving does not free a forfeited seat: the bot keeps it.
            left = await stub.LeaveTable(pb.LeaveTableRequest(table_id=table.table_id), metadata=md)
            assert left.table.seats[joined.seat].taken and left.table.open_seats == 0
            watcher.close()

    asyncio.run(scenario())


def test_time_beyond_per_move_is_drawn_from_the_bank() -> None:
    async def scenario() -> None:
        async with serving() as (_server, stub):
            table = (await stub.CreateTable(clock_table(0.2, bank=2.0))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            mine = watcher.messages[await watcher.until(my_turn(joined.seat))]
            assert mine.turn.bank_remaining.ToNanoseconds() == 2_000_000_000
            assert 1.8 < deadline_of(mine) - time.time() <= 2.2
            await asyncio.sleep(0.5)  # 0.3 s beyond per_move
            await act(stub, table.table_id, joined.seat_token, mine, "slow")
            described = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            bank = described.seats[joined.seat].bank_remaining.ToNanoseconds() / 1e9
            assert 0.5 < bank <= 1.7
            watcher.close()

    asyncio.run(scenario())


def test_a_table_without_a_clock_arms_no_timer() -> None:
    async def scenario() -> None:
        async with serving() as (server, stub):
            request = clock_table(0)
            table = (await stub.CreateTable(request)).table
            assert not table.HasField("time_control")
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            mine = watcher.messages[await watcher.until(my_turn(joined.seat))]
            assert not mine.turn.HasField("deadline")
            assert server.registry.get(table.table_id).clock.timer is None
            watcher.close()
            bad = clock_table(0.1)
            bad.time_control.bank.seconds = -1
            await expect_error(stub.CreateTable(bad), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT)

    asyncio.run(scenario())


def test_a_restart_mid_clock_restarts_it_and_replay_yields_the_same_events(tmp_path: Path) -> None:
    db = str(tmp_path / "clock.db")

    async def scenario() -> None:
        async with serving(db) as (server, stub):
            table = (await stub.CreateTable(clock_table(0.3, bank=0.4))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            seat, token = joined.seat, joined.seat_token
            watcher = Watcher(stub, table.table_id, token, None)
            # One timeout, the bot's moves, the seat taken back, one slow move drawing on the bank.
            out = await watcher.until(event_kind("turn_timed_out"))
            await stub.ReclaimSeat(pb.ReclaimSeatRequest(table_id=table.table_id), metadata=token_md(token))
            back = await watcher.until(event_kind("seat_reclaimed"), start=out)
            mine_at = await watcher.until(my_turn(seat), start=back)
            mine = watcher.messages[mine_at]
            assert mine.turn.bank_remaining.ToNanoseconds() == 0  # the timeout spent the bank
            await act(stub, table.table_id, token, mine, "a1")
            # Stop while the seat's next clock runs (after the Turn just played: the bots may have moved
            # between the reclaim and that Turn).
            nxt = watcher.messages[await watcher.until(my_turn(seat), start=mine_at + 1)]
            assert nxt.sequence > mine.sequence and nxt.turn.HasField("deadline")
            live = server.registry.get(table.table_id)
            log_before = list(live.log)
            watcher.close()
        await asyncio.sleep(0.5)  # past the old deadline: only the restarted clock counts

        async with serving(db) as (server, stub):
            restored = server.registry.get(table.table_id)
            assert restored.log == log_before  # the same events, the same sequence numbers
            assert not restored.seats[seat].taken_over and restored.seats[seat].bank == 0
            started = time.time()
            watcher = Watcher(stub, table.table_id, token, len(log_before))
            first = watcher.messages[await watcher.until(lambda m: True)]
            assert first.turn.seat == seat and first.turn.HasField("deadline")
            assert deadline_of(first) >= started  # a fresh clock, not the one that ran before the restart
            out = await watcher.until(event_kind("turn_timed_out"))
            assert watcher.messages[out].sequence == len(log_before) + 1
            await watcher.until(lambda m: m.sequence > len(log_before) + 2)
            async with restored.lock:
                log_after = list(restored.log)
            watcher.close()

        async with serving(db) as (server, stub):
            assert server.registry.get(table.table_id).log[: len(log_after)] == log_after

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "policy", [pb.TIMEOUT_POLICY_BOT_PLAYS, pb.TIMEOUT_POLICY_FORFEIT, pb.TIMEOUT_POLICY_BOT_PLAYS_TURN]
)
def test_blagogo_seat_times_out_and_the_random_bot_plays(policy: pb.TimeoutPolicy.ValueType) -> None:
    async def scenario() -> None:
        async with serving() as (_server, stub):
            request = pb.CreateTableRequest(
                game=pb.GAME_KIND_BLAGOGO,
                seats=[
                    pb.SeatConfig(kind=pb.SEAT_KIND_OPEN),
                    pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random"),
                ],
                seed=3,
                practice=True,
            )
            request.time_control.per_move.FromNanoseconds(150_000_000)
            request.time_control.on_timeout = policy
            table = (await stub.CreateTable(request)).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            watcher = Watcher(stub, table.table_id, joined.seat_token, None)
            taken = await watcher.until(event_kind("seat_taken_over"))
            # The bot plays the seat's decision: a Blagogo event follows.
            await watcher.until(lambda m: m.HasField("event") and m.event.HasField("blagogo"), start=taken)
            watcher.close()

    asyncio.run(scenario())
