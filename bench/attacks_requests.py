"""The attacks of single requests: ``freeze`` (a seat's action in flight while the server is stopped,
with a turn clock) and ``small`` (an unknown SeatKind, a long table id, a reused CreateTable
request_id, a 50 KB LayMelds)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Awaitable
from typing import Any

from grpc import aio

from bench import procs
from bench.attacks_shared import (
    OPEN,
    TOKEN,
    Figures,
    Run,
    code_of,
    play_action,
    play_call,
    reason_of,
    seated,
    start,
)
from thousand.v1 import blagogo_actions_pb2 as bg_pb
from thousand.v1 import blagogo_cards_pb2 as bg_cards
from thousand.v1 import cards_pb2
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

# ------------------------------------------------------------------------------------------------ 6 freeze


async def freeze(run: Run) -> Figures:
    """Issue: with a 10 s clock, SIGSTOP for 30 s one second after seat 0 sent its action: on SIGCONT the
    clock fired first and the seat was taken over. Here: 1 s a move and a 2 s bank, the action sent while
    the server is stopped, SIGCONT after 4.5 s; twice, since the race may go either way."""
    outcomes: list[str] = []
    banks: list[float] = []
    async with run.server() as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        for seed in (1, 2):
            request = pb.CreateTableRequest(
                game=pb.GAME_KIND_THOUSAND, seed=seed, first_dealer=0, practice=True
            )
            request.time_control.per_move.FromSeconds(1)
            request.time_control.bank.FromSeconds(2)
            table_id, tokens = await seated(stub, request)
            watch = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id))
            snapshot = await watch.read()
            assert isinstance(snapshot, pb.StreamEventsResponse)
            seat = snapshot.turn.seat
            watch.cancel()
            call = play_call(channel, tokens[seat])
            await call.write(start(table_id))
            first = await call.read()
            action = first.update.turn.legal_actions[0]
            os.kill(served.process.pid, signal.SIGSTOP)
            try:
                await call.write(play_action("frozen", action))
                await asyncio.sleep(4.5)
            finally:
                os.kill(served.process.pid, signal.SIGCONT)
            timed_out, outcome = False, "no result"
            async with asyncio.timeout(15):
                while isinstance(response := await call.read(), pb.PlayResponse):
                    update = response.update
                    for event in (update.event, *update.more_events):
                        timed_out |= event.HasField("turn_timed_out")
                    if response.HasField("result"):
                        result = response.result
                        outcome = result.refusal.reason if result.HasField("refusal") else "applied"
                        break
            call.cancel()
            outcomes.append(("timed out, then " if timed_out else "") + outcome)
            table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
            banks.append(round(table.seats[seat].bank_remaining.ToNanoseconds() / 1e9, 2))
    return {"the_seats_action": " / ".join(outcomes), "bank_left_of_2_s": banks}


# ------------------------------------------------------------------------------------------------- 7 small


async def timed(call: Awaitable[Any]) -> tuple[float, str]:
    """Milliseconds the call took, and how it ended."""
    began = time.perf_counter()
    try:
        await call
        outcome = "OK"
    except aio.AioRpcError as error:
        outcome = reason_of(error)
    return (time.perf_counter() - began) * 1000, outcome


async def small(run: Run) -> Figures:
    """Issue: SeatKind 3/99/-5 accepted as OPEN; a 4 KB table_id made the client see RESOURCE_EXHAUSTED; a
    reused CreateTable request_id with another request returned the first table; a 50 KB LayMelds cost 63 ms
    of the event loop."""
    async with run.server() as served, served.channel() as channel:
        stub = pb_grpc.TableServiceStub(channel)
        odd = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seats=[OPEN, OPEN, pb.SeatConfig(kind=99)])  # type: ignore[arg-type]
        _, seat_kind = await timed(stub.CreateTable(odd))
        long_id = "x" * 6000
        try:
            await stub.GetTable(pb.GetTableRequest(table_id=long_id))
            table_id_seen = "OK"
        except aio.AioRpcError as error:
            table_id_seen = f"{code_of(error)} ({len(error.details() or '')} chars)"
        first = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, request_id="same-id")
        other = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, request_id="same-id")
        made = (await stub.CreateTable(first)).table.table_id
        try:
            again = (await stub.CreateTable(other)).table
            reused = "the first table" if again.table_id == made else "another table"
        except aio.AioRpcError as error:
            reused = reason_of(error)
        blagogo = pb.CreateTableRequest(game=pb.GAME_KIND_BLAGOGO, seats=[OPEN, OPEN], seed=3, practice=True)
        table_id, tokens = await seated(stub, blagogo)
        card = bg_cards.BlagogoCard(rank=bg_cards.BLAGOGO_RANK_FIVE, suit=cards_pb2.SUIT_SPADES)
        melds = bg_pb.BlagogoAction.LayMelds(melds=[bg_pb.BlagogoMeldSpec(cards=[card])] * 5000)
        action = pb.Action(blagogo=bg_pb.BlagogoAction(lay_melds=melds))
        times = []
        outcome = ""
        for i in range(run.sized(10, least=3)):
            submit = pb.SubmitActionRequest(table_id=table_id, request_id=f"m{i}", action=action)
            elapsed, outcome = await timed(stub.SubmitAction(submit, metadata=((TOKEN, tokens[i % 2]),)))
            times.append(elapsed)
        return {
            "seat_kind_99": seat_kind,
            "table_id_6000_chars": table_id_seen,
            "request_id_reused": reused,
            f"lay_melds_{action.ByteSize() // 1000}kb_ms": round(procs.percentile(times, 0.5), 1),
            "lay_melds_outcome": outcome,
        }
