"""Durable tables: stored before acknowledged, rebuilt by replay after a restart or a SIGKILL, resumed by
clients with the same tokens and sequence numbers (T-35 makes the replay exact)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc import aio

from bots.strategy import greedy_player
from codec import thousand as codec
from engine import Game, events_for
from scripts.ports import free_port
from server.app import Server
from server.settings import Settings
from server.store_select import open_store
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc
from thousand.v1.thousand_actions_pb2 import ThousandAction
from thousand.v1.thousand_rules_pb2 import ThousandRules

ROOT = Path(__file__).resolve().parent.parent


def table_request(bots: int) -> pb.CreateTableRequest:
    seats = [pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)] * (3 - bots)
    seats += [pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy")] * bots
    return pb.CreateTableRequest(
        game=pb.GAME_KIND_THOUSAND, seats=seats, seed=11, practice=True, first_dealer=0
    )


async def play_turns(
    stub: pb_grpc.TableServiceAsyncStub,
    table_id: str,
    seat: int,
    token: str,
    *,
    turns: int | None,
    after: int | None,
    seen: list[pb.StreamEventsResponse],
) -> bool:
    """Play ``turns`` decisions of one seat (all of them when None); returns True when the game ended."""
    md = (("x-seat-token", token),)
    request = pb.StreamEventsRequest(table_id=table_id)
    if after is not None:
        request.after_sequence = after
    call = stub.StreamEvents(request, metadata=md)
    rng = random.Random(seat)
    acted = 0
    async for message in call:
        seen.append(message)
        if message.HasField("event") and message.event.thousand.HasField("game_over"):
            return True
        turn = message.turn
        if turn.HasField("seat") and turn.seat == seat and turn.HasField("view"):
            if turns is not None and acted >= turns:
                call.cancel()
                return False
            action = greedy_player(codec.view_from_proto(turn.view.thousand), rng)
            await stub.SubmitAction(
                pb.SubmitActionRequest(
                    table_id=table_id,
                    request_id=f"{seat}-{message.sequence}",
                    last_seen_sequence=message.sequence,
                    action=pb.Action(thousand=codec.action_to_proto(action)),
                ),
                metadata=md,
            )
            acted += 1
    return False


def test_restart_rebuilds_tables_with_the_same_sequence_and_tokens(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")

    async def scenario() -> None:
        server = Server(Settings(host="127.0.0.1", port=0, db=db))
        await server.start()
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = pb_grpc.TableServiceStub(channel)
            table = (await stub.CreateTable(table_request(bots=2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, player_name="ann"))
            seen: list[pb.StreamEventsResponse] = []
            await play_turns(
                stub, table.table_id, joined.seat, joined.seat_token, turns=5, after=None, seen=seen
            )
            before = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
        await server.stop(grace=0.2)

        restarted = Server(Settings(host="127.0.0.1", port=0, db=db))
        await restarted.start()
        async with aio.insecure_channel(f"127.0.0.1:{restarted.port}") as channel:
            stub = pb_grpc.TableServiceStub(channel)
            after = (await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert after.sequence == before.sequence
            assert [s.player_name for s in after.seats] == [s.player_name for s in before.seats]
            # The same token still acts for the same seat; the stream resumes exactly after what was seen.
            last = seen[-1].sequence
            rest: list[pb.StreamEventsResponse] = []
            ended = await play_turns(
                stub, table.table_id, joined.seat, joined.seat_token, turns=None, after=last, seen=rest
            )
            assert ended
            # Nothing was missed: the stream starts with the turn alone.
            assert rest[0].WhichOneof("payload") is None and rest[0].turn.seat == joined.seat
            events = [m.sequence for m in rest if m.WhichOneof("payload")]
            assert events == list(range(last + 1, rest[-1].sequence + 1))
        await restarted.stop(grace=0.2)

    asyncio.run(scenario())


def start_server(port: int, db: str) -> subprocess.Popen[bytes]:
    log = Path(db).with_suffix(".log").open("ab")  # a file, not a pipe nobody reads: the server never blocks
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "server.app", "--host", "127.0.0.1", "--port", str(port)),
            *("--db", db, "--bot-pace", "0"),
        ],
        cwd=ROOT,
        stdout=log,
        stderr=log,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(
                    process.stderr.read().decode() if process.stderr else "server died"
                ) from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


def test_sigkill_mid_game_then_restart_completes_the_same_game(tmp_path: Path) -> None:
    """SIGKILL the server process mid-game; restarted on the same database, the game completes, and the events
    the client saw equal an uninterrupted engine replay of the stored actions."""
    db = str(tmp_path / "k.db")
    port = free_port()
    seen: list[pb.StreamEventsResponse] = []

    async def first_half() -> tuple[str, int, str]:
        async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.TableServiceStub(channel)
            table = (await stub.CreateTable(table_request(bots=2))).table
            joined = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id))
            await play_turns(
                stub, table.table_id, joined.seat, joined.seat_token, turns=12, after=None, seen=seen
            )
            return table.table_id, joined.seat, joined.seat_token

    async def second_half(table_id: str, seat: int, token: str) -> None:
        async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.TableServiceStub(channel)
            for _ in range(50):  # the restarted server may still be replaying
                try:
                    await stub.GetTable(pb.GetTableRequest(table_id=table_id))
                    break
                except aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.UNAVAILABLE
                    await asyncio.sleep(0.1)
            ended = await play_turns(
                stub, table_id, seat, token, turns=None, after=seen[-1].sequence, seen=seen
            )
            assert ended

    process = start_server(port, db)
    try:
        table_id, seat, token = asyncio.run(first_half())
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        process = start_server(port, db)
        asyncio.run(second_half(table_id, seat, token))
    finally:
        process.kill()
        process.wait(timeout=10)

    sequences = [m.sequence for m in seen[1:] if m.WhichOneof("payload")]
    assert sequences == list(range(seen[0].sequence + 1, seen[-1].sequence + 1)), "no event lost or repeated"
    store = open_store(db)
    stored = store.get(table_id)
    assert stored is not None
    game = Game(
        codec.rules_from_proto(ThousandRules.FromString(stored.config.rules)),
        stored.config.seed,
        stored.config.first_dealer,
    )
    while game.is_chance_node:
        game.apply_chance()
    for record in stored.records:
        if record.kind == "action":
            game.apply(record.seat, codec.action_from_proto(ThousandAction.FromString(record.data)))
            while game.is_chance_node:
                game.apply_chance()
    assert game.is_over
    replayed = [codec.event_to_proto(e) for e in events_for(game, seat)]
    received = [m.event.thousand for m in seen if m.HasField("event") and m.event.HasField("thousand")]
    assert received == replayed[len(replayed) - len(received) :]
    assert received[-1].HasField("game_over")
