"""AdminService.HandSeatToBot: an operator gives a player's seat to the server's bot for the rest of the game.

Stored as a ``handover`` step in the table's own log with the operator and the reason, so a restarted server,
or the node that takes the table over in a cluster, rebuilds the seat as the bot's; the seat's player loses
it (their token and stream), nobody can take it back, and every client is told why (SeatTakenOver.reason).
Real server processes, real stores (SQLite, PostgreSQL), real gRPC calls.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
from grpc import aio

from codec import thousand as codec
from engine import Pass
from tests.cluster_harness import cluster
from tests.identity_harness import ADMIN_TOKEN, Served, bearer, served
from tests.server_harness import expect_error, run, thousand_table, token_md
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import admin_service_pb2_grpc as admin_grpc
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import player_service_pb2_grpc as player_grpc
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as table_grpc

OPERATOR = bearer(ADMIN_TOKEN)
HANDED = pb.TAKEOVER_REASON_OPERATOR_HANDOVER


def handover(
    table_id: str, seat: int = 0, reason: str = "left the game for good"
) -> admin_pb.HandSeatToBotRequest:
    return admin_pb.HandSeatToBotRequest(table_id=table_id, seat=seat, reason=reason)


async def next_message(
    call: aio.UnaryStreamCall[pb.StreamEventsRequest, pb.StreamEventsResponse],
) -> pb.StreamEventsResponse | None:
    """The stream's next message, None once it ended."""
    message = await call.read()
    if message is aio.EOF:
        return None
    assert isinstance(message, pb.StreamEventsResponse)
    return message


async def rest(
    call: aio.UnaryStreamCall[pb.StreamEventsRequest, pb.StreamEventsResponse],
) -> list[pb.StreamEventsResponse]:
    """What a stream sends until it ends (within 10 s)."""
    messages = []
    async with asyncio.timeout(10):
        while (message := await next_message(call)) is not None:
            messages.append(message)
    return messages


def handed_over(seat: pb.Seat) -> bool:
    return seat.taken_over and seat.forfeited and seat.takeover_reason == HANDED and not seat.player_id


async def seated(
    s: Served,
) -> tuple[str, pb.JoinTableResponse, pb.JoinTableResponse, tuple[tuple[str, str], ...]]:
    """A table of Ann (a guest, seat 0), Bea (anonymous, seat 1) and a greedy bot; Bea bids first (T-5)."""
    created = await s.players.CreateGuest(player_pb.CreateGuestRequest(display_name="Ann"))
    as_ann = bearer(created.player_token)
    table_id = (await s.tables.CreateTable(thousand_table(players=3, bots=1))).table.table_id
    ann = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0), metadata=as_ann)
    bea = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=1, player_name="Bea"))
    watching = s.tables.StreamEvents(pb.StreamEventsRequest(table_id=table_id))
    while (message := await next_message(watching)) is not None:  # until a person must act: the table waits
        if message.turn.HasField("seat") and message.turn.seat != 2:
            break
    watching.cancel()
    return table_id, ann, bea, as_ann


def test_an_operator_hands_a_seat_to_a_bot_stored_audited_and_replayed(tmp_path: Path) -> None:
    db = str(tmp_path / "thousand.db")

    async def scenario() -> str:
        async with served(tmp_path, db=db) as s:
            table_id, ann, bea, as_ann = await seated(s)
            before = await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))
            for metadata in ((), as_ann, bearer("not-the-operator-token-0123456789abcdef")):
                await expect_error(
                    s.admin.HandSeatToBot(handover(table_id), metadata=metadata),
                    "OPERATOR_REQUIRED",
                    grpc.StatusCode.PERMISSION_DENIED,
                )
            for request, reason, code in (
                (handover(table_id, reason=""), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT),
                (handover(table_id, seat=7), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT),
                (handover(table_id, seat=2), "SEAT_NOT_OPEN", grpc.StatusCode.FAILED_PRECONDITION),
                (handover("0123456789ab"), "TABLE_NOT_FOUND", grpc.StatusCode.NOT_FOUND),
            ):
                await expect_error(s.admin.HandSeatToBot(request, metadata=OPERATOR), reason, code)
            assert await s.tables.GetTable(pb.GetTableRequest(table_id=table_id)) == before

            ann_stream = s.tables.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=as_ann)
            watching = s.tables.StreamEvents(pb.StreamEventsRequest(table_id=table_id))
            assert (await next_message(ann_stream) or pb.StreamEventsResponse()).HasField("snapshot")
            assert (await next_message(watching) or pb.StreamEventsResponse()).HasField("snapshot")

            done = await s.admin.HandSeatToBot(handover(table_id), metadata=OPERATOR)
            assert handed_over(done.table.seats[0]), done.table.seats[0]
            assert done.table.seats[0].player_name == "Ann"  # who played it, for the record

            # Every watcher is told why; Ann's own stream ends (the seat is not hers any more).
            event = await next_message(watching)
            assert event is not None
            assert event.event.seat_taken_over == pb.SeatTakenOver(seat=0, forfeited=True, reason=HANDED)
            messages = await rest(ann_stream)  # told why, then the stream ends: the seat is not hers
            events = [m.event for m in messages if m.HasField("event")]
            assert [e.seat_taken_over for e in events] == [
                pb.SeatTakenOver(seat=0, forfeited=True, reason=HANDED)
            ]

            # Ann's token and credential act for nothing at this table now; nobody takes the seat back.
            for metadata in (token_md(ann.seat_token), as_ann):
                await expect_error(
                    s.tables.ReclaimSeat(pb.ReclaimSeatRequest(table_id=table_id), metadata=metadata),
                    "SEAT_TOKEN_INVALID",
                    grpc.StatusCode.UNAUTHENTICATED,
                )
            await expect_error(
                s.admin.HandSeatToBot(handover(table_id), metadata=OPERATOR),
                "SEAT_FORFEITED",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            await expect_error(
                s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0)),
                "TABLE_FULL",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            )
            # The game goes on: Bea passes when she must bid, and the bot plays seat 0 when its turn comes.
            action = pb.Action(thousand=codec.action_to_proto(Pass()))
            turns: list[int] = []
            while (message := await next_message(watching)) is not None:
                if not message.turn.HasField("seat"):
                    continue
                turns.append(message.turn.seat)
                if 0 in turns and turns[-1] != 0:
                    break
                if message.turn.seat == 1:
                    await s.tables.SubmitAction(
                        pb.SubmitActionRequest(
                            table_id=table_id, request_id=f"bea-{len(turns)}", action=action
                        ),
                        metadata=token_md(bea.seat_token),
                    )
            watching.cancel()
            assert turns[turns.index(0) + 1] != 0  # seat 0 decided by itself: the bot plays it

            entries = (
                await s.admin.ListAuditEntries(admin_pb.ListAuditEntriesRequest(), metadata=OPERATOR)
            ).entries
            assert [(e.action, e.operator, e.table_id, e.seat, e.reason) for e in entries] == [
                ("HandSeatToBot", "token", table_id, 0, "left the game for good")
            ]
            stored = s.server.registry.store
            assert stored is not None
            records = stored.get(table_id)
            assert records is not None
            kept = [
                (r.kind, r.seat, r.text, r.data) for r in records.records if r.kind in ("player", "handover")
            ]
            assert kept[0] == ("player", 0, ann.table.seats[0].player_id, b"")
            assert kept[1] == ("handover", 0, "token", b"left the game for good")
            return table_id

    table_id = run(scenario())

    async def restarted() -> None:
        async with served(tmp_path, db=db) as s:
            table = (await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert handed_over(table.seats[0]), table.seats[0]
            assert table.seats[1].player_name == "Bea" and not table.seats[1].taken_over

    run(restarted())


def test_a_handover_holds_when_another_node_takes_the_table_over(tmp_path: Path, pg_url: str) -> None:
    token_file = tmp_path / "admin-token"
    token_file.write_text(ADMIN_TOKEN, encoding="utf-8")
    with cluster(tmp_path, pg_url, ["a", "b"], flags=("--admin-token-file", str(token_file))) as nodes:

        async def scenario() -> None:
            async with aio.insecure_channel(nodes.address("a")) as on_a:
                created = await player_grpc.PlayerServiceStub(on_a).CreateGuest(
                    player_pb.CreateGuestRequest(display_name="Ann")
                )
                as_ann = bearer(created.player_token)
                made = await table_grpc.TableServiceStub(on_a).CreateTable(thousand_table(players=3, bots=1))
                table_id, owner = made.table.table_id, made.table.endpoint
            survivor = next(name for name in ("a", "b") if nodes.address(name) != owner)
            async with aio.insecure_channel(owner) as channel:
                tables = table_grpc.TableServiceStub(channel)
                ann = await tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0), metadata=as_ann)
                assert ann.table.seats[0].player_id == created.player.player_id
                await tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=1, player_name="Bea"))
                admin = admin_grpc.AdminServiceStub(channel)
                done = await admin.HandSeatToBot(handover(table_id), metadata=OPERATOR)
                assert handed_over(done.table.seats[0])
            nodes.nodes[nodes.name_of(owner)].kill()
            deadline = time.monotonic() + 60
            async with aio.insecure_channel(nodes.address(survivor)) as channel:
                tables = table_grpc.TableServiceStub(channel)
                while True:  # the survivor serves the table once it took it over and replayed its log
                    stream = tables.StreamEvents(pb.StreamEventsRequest(table_id=table_id, after_sequence=0))
                    try:
                        first = await next_message(stream)
                        break
                    except aio.AioRpcError as error:  # TABLE_ELSEWHERE, TABLE_MOVING meanwhile
                        assert error.code() != grpc.StatusCode.NOT_FOUND, error
                        assert time.monotonic() < deadline, "the table was not taken over in time"
                        await asyncio.sleep(0.3)
                table = (await tables.GetTable(pb.GetTableRequest(table_id=table_id))).table
                assert table.endpoint == nodes.address(survivor)
                assert handed_over(table.seats[0]), table.seats[0]
                assert table.seats[0].player_name == "Ann"
                overs = []
                message = first
                while message is not None:  # every event from the first, replayed by the survivor
                    if message.event.HasField("seat_taken_over"):
                        overs.append(message.event.seat_taken_over)
                    if message.sequence >= table.sequence:
                        break
                    message = await next_message(stream)
                stream.cancel()
                assert overs == [pb.SeatTakenOver(seat=0, forfeited=True, reason=HANDED)]
                # Ann's credential names no seat of hers there any more.
                await expect_error(
                    tables.ReclaimSeat(pb.ReclaimSeatRequest(table_id=table_id), metadata=as_ann),
                    "SEAT_TOKEN_INVALID",
                    grpc.StatusCode.UNAUTHENTICATED,
                )

        run(scenario())
