"""Issue 21, item 6: a server freeze costs no one a turn. A real server process is stopped (SIGSTOP) while a
seat's action is on its way, for longer than the seat's whole time, then continued (SIGCONT): the action is
applied, the seat is not timed out, and its bank is not charged for the time the server was stopped."""

from __future__ import annotations

import asyncio
import os
import signal
import urllib.request
from pathlib import Path

from grpc import aio

from scripts.ports import free_port
from tests.live_server import LiveServer, live_server
from tests.server_harness import run, token_md
from tests.test_limits_streams import play_method
from tests.test_ops_metrics import Scrape
from tests.test_play import action, start
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

PER_MOVE = 1.0
BANK = 2.0
FROZEN = 4.5
"""Longer than PER_MOVE + BANK: before, the clock fired first thing after SIGCONT."""


async def freeze_while_acting(server: LiveServer, seed: int) -> tuple[pb.ActionResult, bool, float]:
    """One seat's action sent while the server is stopped: its result, whether any TurnTimedOut came, and
    the seat's bank afterwards."""
    assert server.process is not None
    async with aio.insecure_channel(server.address) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        request = pb.CreateTableRequest(game=pb.GAME_KIND_THOUSAND, seed=seed, first_dealer=0, practice=True)
        request.time_control.per_move.FromNanoseconds(int(PER_MOVE * 1e9))
        request.time_control.bank.FromNanoseconds(int(BANK * 1e9))
        table_id = (await stub.CreateTable(request)).table.table_id
        tokens = [(await stub.JoinTable(pb.JoinTableRequest(table_id=table_id))).seat_token for _ in range(3)]
        watch = stub.StreamEvents(pb.StreamEventsRequest(table_id=table_id))
        snapshot = await watch.read()
        watch.cancel()
        assert isinstance(snapshot, pb.StreamEventsResponse)
        seat = snapshot.turn.seat
        call = play_method(channel)(metadata=token_md(tokens[seat]))
        await call.write(start(table_id))
        first = await call.read()
        assert isinstance(first, pb.PlayResponse)
        chosen = first.update.turn.legal_actions[0]
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            await call.write(action("sent-while-stopped", chosen))
            await asyncio.sleep(FROZEN)
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        timed_out = False
        result = None
        async with asyncio.timeout(30):
            while result is None and isinstance(response := await call.read(), pb.PlayResponse):
                for event in (response.update.event, *response.update.more_events):
                    timed_out |= event.HasField("turn_timed_out")
                if response.HasField("result"):
                    result = response.result
        call.cancel()
        table = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
        bank = table.seats[seat].bank_remaining.ToNanoseconds() / 1e9
        assert result is not None
        return result, timed_out, bank


def test_a_freeze_of_the_server_costs_no_seat_its_turn(tmp_path: Path) -> None:
    metrics_port = free_port()
    with live_server(tmp_path, ":memory:", "--metrics-port", str(metrics_port)) as server:
        for seed in (1, 2):  # the race the issue saw went the clock's way most times, not always
            result, timed_out, bank = run(freeze_while_acting(server, seed))
            assert not result.HasField("refusal"), result.refusal
            assert result.request_id == "sent-while-stopped" and result.sequence > 0
            assert not timed_out
            assert bank > BANK - 0.5, bank  # the stop was not the seat's time
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as page:
            scrape = Scrape(page.read().decode())
    assert scrape.value("thousand_event_loop_stalls_total") >= 2
    assert scrape.value("thousand_event_loop_stalled_seconds_total") >= 2 * FROZEN - 1
