"""A seat taken by a player is the player's: its seat token beside another player's credential is refused
(SEAT_RESERVED), and a banned player's seat token alone is refused (PLAYER_BANNED), on every call acting as
or watching from a seat; nothing changes at the table. Real server, real store, real gRPC calls."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc

from codec import thousand as codec
from engine import Pass
from tests.identity_harness import ADMIN_TOKEN, Served, bearer, served
from tests.server_harness import expect_error, run, thousand_table, token_md
from tests.test_play import action, start
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import table_service_pb2 as pb

OPERATOR = bearer(ADMIN_TOKEN)
Metadata = tuple[tuple[str, str], ...]


async def guest(s: Served, name: str) -> tuple[player_pb.Player, Metadata]:
    created = await s.players.CreateGuest(player_pb.CreateGuestRequest(display_name=name, locale="en"))
    return created.player, bearer(created.player_token)


def seat_calls(s: Served, table_id: str, metadata: Metadata) -> list[Callable[[], Awaitable[object]]]:
    """Every unary call that acts as a seat, made with ``metadata``."""
    action = pb.Action(thousand=codec.action_to_proto(Pass()))
    return [
        lambda: s.tables.SubmitAction(
            pb.SubmitActionRequest(table_id=table_id, request_id="r1", action=action), metadata=metadata
        ),
        lambda: s.tables.ReclaimSeat(pb.ReclaimSeatRequest(table_id=table_id), metadata=metadata),
        lambda: s.tables.LeaveTable(pb.LeaveTableRequest(table_id=table_id), metadata=metadata),
    ]


async def refused_everywhere(
    s: Served, table_id: str, metadata: Metadata, reason: str, code: grpc.StatusCode
) -> None:
    for call in seat_calls(s, table_id, metadata):
        await expect_error(call(), reason, code)
    stream = s.tables.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=metadata)
    await expect_error(stream.read(), reason, code)
    play = s.tables.Play(metadata=metadata)
    await play.write(pb.PlayRequest(start=pb.PlayStart(table_id=table_id)))
    await expect_error(play.read(), reason, code)


async def watches(s: Served, table_id: str, metadata: Metadata) -> None:
    """The seat's stream starts (its first message arrives)."""
    stream = s.tables.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=metadata)
    assert await stream.read() is not grpc.aio.EOF
    stream.cancel()


def test_a_players_seat_token_is_refused_beside_another_players_credential(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            _, as_ann = await guest(s, "Ann")
            _, as_bob = await guest(s, "Bob")
            table_id = (await s.tables.CreateTable(thousand_table())).table.table_id
            ann = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id), metadata=as_ann)
            bob = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id), metadata=as_bob)
            anonymous = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, player_name="Cy"))
            before = await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))
            # Bob holds Ann's seat token: refused, whatever the call, and the table is as it was.
            stolen = as_bob + token_md(ann.seat_token)
            info = await expect_error(
                seat_calls(s, table_id, stolen)[0](), "SEAT_RESERVED", grpc.StatusCode.PERMISSION_DENIED
            )
            assert info.metadata["field"] == "x-seat-token"
            await refused_everywhere(s, table_id, stolen, "SEAT_RESERVED", grpc.StatusCode.PERMISSION_DENIED)
            assert await s.tables.GetTable(pb.GetTableRequest(table_id=table_id)) == before
            # His own seat, an anonymous seat's token, and Ann's token sent by nobody signed in still work.
            await watches(s, table_id, as_bob + token_md(bob.seat_token))
            await watches(s, table_id, as_bob + token_md(anonymous.seat_token))
            await watches(s, table_id, token_md(ann.seat_token))
            await watches(s, table_id, as_ann + token_md(ann.seat_token))

    run(scenario())


def test_a_banned_players_seat_token_alone_is_refused_until_unbanned(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            ann_player, as_ann = await guest(s, "Ann")
            table_id = (await s.tables.CreateTable(thousand_table())).table.table_id
            ann = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id), metadata=as_ann)
            anonymous = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, player_name="Cy"))
            await watches(s, table_id, token_md(ann.seat_token))  # remembered as Ann's seat before the ban
            await s.admin.BanPlayer(
                admin_pb.BanPlayerRequest(player_id=ann_player.player_id, reason="cheating"),
                metadata=OPERATOR,
            )
            before = await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))
            await refused_everywhere(
                s, table_id, token_md(ann.seat_token), "PLAYER_BANNED", grpc.StatusCode.PERMISSION_DENIED
            )
            assert await s.tables.GetTable(pb.GetTableRequest(table_id=table_id)) == before
            await watches(s, table_id, token_md(anonymous.seat_token))  # the others play on
            await s.admin.UnbanPlayer(
                admin_pb.UnbanPlayerRequest(player_id=ann_player.player_id, reason="appeal"),
                metadata=OPERATOR,
            )
            await watches(s, table_id, token_md(ann.seat_token))

    run(scenario())


async def first_message(s: Served, table_id: str, metadata: Metadata) -> pb.StreamEventsResponse:
    stream = s.tables.StreamEvents(pb.StreamEventsRequest(table_id=table_id), metadata=metadata)
    message = await stream.read()
    stream.cancel()
    assert isinstance(message, pb.StreamEventsResponse)
    return message


def test_a_player_comes_back_to_their_seat_from_another_device_without_its_token(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            _, as_ann = await guest(s, "Ann")
            _, as_bob = await guest(s, "Bob")
            _, as_dan = await guest(s, "Dan")
            table_id = (await s.tables.CreateTable(thousand_table())).table.table_id
            ann = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=2), metadata=as_ann)
            await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0), metadata=as_bob)
            await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=1, player_name="Cy"))
            # Another device: Ann's credential alone sees her seat's stream, as her seat token does.
            by_token = await first_message(s, table_id, token_md(ann.seat_token))
            by_credential = await first_message(s, table_id, as_ann)
            spectators = await first_message(s, table_id, ())
            assert by_credential == by_token != spectators
            assert await first_message(s, table_id, as_dan) == spectators  # no seat here: a spectator
            # Dealer 0, seat 1 opened with the forced 100: seat 2 (Ann) acts, by her credential alone.
            assert by_credential.turn.seat == 2
            action = pb.Action(thousand=codec.action_to_proto(Pass()))
            submit = pb.SubmitActionRequest(table_id=table_id, request_id="r1", action=action)
            await expect_error(
                s.tables.SubmitAction(submit, metadata=as_bob),
                "NOT_YOUR_TURN",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            await expect_error(
                s.tables.SubmitAction(submit, metadata=as_dan),
                "SEAT_TOKEN_INVALID",
                grpc.StatusCode.UNAUTHENTICATED,
            )
            done = await s.tables.SubmitAction(submit, metadata=as_ann)
            assert done.sequence > 0
            again = await s.tables.SubmitAction(submit, metadata=token_md(ann.seat_token))
            assert again.sequence == done.sequence  # the same request, whichever way the seat is named
            left = await s.tables.LeaveTable(pb.LeaveTableRequest(table_id=table_id), metadata=as_ann)
            assert not left.table.seats[2].player_name  # she left by her credential
            await expect_error(
                s.tables.SubmitAction(submit, metadata=as_ann),
                "SEAT_TOKEN_INVALID",
                grpc.StatusCode.UNAUTHENTICATED,
            )

    run(scenario())


def test_a_player_with_two_seats_names_the_one_meant_by_its_token(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            _, as_ann = await guest(s, "Ann")
            table_id = (await s.tables.CreateTable(thousand_table())).table.table_id
            first = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id), metadata=as_ann)
            # A second seat of hers: taken anonymously, then claimed (a second join is ALREADY_SEATED).
            anonymous = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, player_name="Ann"))
            claim = player_pb.SeatClaim(table_id=table_id, seat_token=anonymous.seat_token)
            claimed = await s.players.ClaimSeats(player_pb.ClaimSeatsRequest(claims=[claim]), metadata=as_ann)
            assert claimed.outcomes[0].status == player_pb.CLAIM_STATUS_CLAIMED
            before = await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))
            info = await expect_error(
                s.tables.LeaveTable(pb.LeaveTableRequest(table_id=table_id), metadata=as_ann),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            assert info.metadata["field"] == "x-seat-token"
            assert await s.tables.GetTable(pb.GetTableRequest(table_id=table_id)) == before
            left = await s.tables.LeaveTable(
                pb.LeaveTableRequest(table_id=table_id), metadata=as_ann + token_md(first.seat_token)
            )
            assert not left.table.seats[first.seat].player_name

    run(scenario())


async def first_result(play: grpc.aio.StreamStreamCall[pb.PlayRequest, pb.PlayResponse]) -> pb.ActionResult:
    async for response in play:
        if response.HasField("result"):
            return response.result
    raise AssertionError("the stream ended without a result")


def test_a_play_stream_acts_for_the_players_seat_by_their_credential_alone(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            _, as_ann = await guest(s, "Ann")
            table_id = (await s.tables.CreateTable(thousand_table())).table.table_id
            await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=2), metadata=as_ann)
            for seat in (0, 1):
                await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=seat, player_name="x"))
            play = s.tables.Play(metadata=as_ann)
            await play.write(start(table_id))
            await play.write(action("p1", pb.Action(thousand=codec.action_to_proto(Pass()))))
            result = await first_result(play)
            assert result.request_id == "p1" and result.sequence > 0, result
            assert not result.HasField("refusal")
            play.cancel()
            watched = await first_message(s, table_id, ())
            assert watched.turn.seat == 0  # Ann (seat 2) passed: seat 0 acts now

    run(scenario())


def test_a_second_join_by_a_player_at_the_same_table_is_already_seated(tmp_path: Path) -> None:
    """One seat a player at a table: a second JoinTable (another device, no seat token) names the seat they
    have (metadata ``seat``) and changes nothing; the seat's player is in the table's description."""

    async def scenario() -> None:
        async with served(tmp_path) as s:
            ann, as_ann = await guest(s, "Ann")
            table_id = (await s.tables.CreateTable(thousand_table())).table.table_id
            first = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=1), metadata=as_ann)
            assert first.table.seats[1].player_id == ann.player_id
            before = await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))
            for request in (
                pb.JoinTableRequest(table_id=table_id),
                pb.JoinTableRequest(table_id=table_id, seat=2, player_name="Ann again"),
            ):
                info = await expect_error(
                    s.tables.JoinTable(request, metadata=as_ann),
                    "ALREADY_SEATED",
                    grpc.StatusCode.FAILED_PRECONDITION,
                )
                assert info.metadata["seat"] == "1"
            assert await s.tables.GetTable(pb.GetTableRequest(table_id=table_id)) == before
            # The client's retry of its own join (same seat token) is still the same seat, not a refusal.
            again = await s.tables.JoinTable(
                pb.JoinTableRequest(table_id=table_id, seat_token=first.seat_token), metadata=as_ann
            )
            assert again.seat == 1
            # Anonymous players may sit twice, as always.
            for _ in range(2):
                await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id, player_name="anon"))
            table = (await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))).table
            assert [seat.player_id for seat in table.seats] == ["", ann.player_id, ""]

    run(scenario())
