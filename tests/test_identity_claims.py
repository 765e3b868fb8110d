"""ClaimSeats written into the table's own log, and a guest's seats claimed by the account its player signs in
with (ClaimSeatsRequest.guest_player_token): a real server with its store, restarted on the same file, and a
real OpenID provider (npm oidc-provider on loopback, tests/oidc_harness.py) for the account."""

from __future__ import annotations

import secrets
from pathlib import Path

import grpc

from server.identity.oidc import Issuer
from tests.identity_harness import Served, bearer, served
from tests.oidc_harness import AUDIENCE, oidc_provider
from tests.server_harness import expect_error, run, thousand_table, token_md
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import table_service_pb2 as pb

Metadata = tuple[tuple[str, str], ...]


async def guest(s: Served, name: str) -> tuple[player_pb.CreateGuestResponse, Metadata]:
    created = await s.players.CreateGuest(player_pb.CreateGuestRequest(display_name=name))
    return created, bearer(created.player_token)


async def seats(s: Served, table_id: str) -> list[str]:
    table = (await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))).table
    return [seat.player_id for seat in table.seats]


async def my_tables(s: Served, metadata: Metadata) -> list[str]:
    games = (await s.players.ListMyGames(player_pb.ListMyGamesRequest(), metadata=metadata)).games
    return [g.table_id for g in games]


def test_a_guests_seats_are_claimed_by_the_account_they_sign_in_with(tmp_path: Path) -> None:
    db = str(tmp_path / "thousand.db")
    with oidc_provider(tmp_path, {"ann": []}) as provider:
        issuers = (Issuer(provider.issuer, AUDIENCE),)

        async def scenario() -> tuple[str, str, str]:
            async with served(tmp_path, db=db, issuers=issuers) as s:
                ann_guest, as_guest = await guest(s, "Ann")
                table_id = (await s.tables.CreateTable(thousand_table())).table.table_id
                joined = await s.tables.JoinTable(
                    pb.JoinTableRequest(table_id=table_id, seat=0), metadata=as_guest
                )
                as_account = bearer(provider.token("ann"))
                account = (await s.players.GetMe(player_pb.GetMeRequest(), metadata=as_account)).player
                claim = player_pb.SeatClaim(table_id=table_id, seat_token=joined.seat_token)

                # Without the guest's token the seat is another player's, as before.
                plain = player_pb.ClaimSeatsRequest(claims=[claim])
                outcome = (await s.players.ClaimSeats(plain, metadata=as_account)).outcomes[0]
                assert outcome.status == player_pb.CLAIM_STATUS_OTHER_PLAYER
                # A token of no guest is refused, and nothing is claimed.
                for bad in ("thp_" + secrets.token_urlsafe(32), "not-a-player-token", joined.seat_token):
                    request = player_pb.ClaimSeatsRequest(claims=[claim], guest_player_token=bad)
                    info = await expect_error(
                        s.players.ClaimSeats(request, metadata=as_account),
                        "PLAYER_TOKEN_INVALID",
                        grpc.StatusCode.UNAUTHENTICATED,
                    )
                    assert info.metadata["problem"] == "unknown_token"
                assert await seats(s, table_id) == [ann_guest.player.player_id, "", ""]

                # With it, the guest's seat is the account's: in the table's log, its history, its calls.
                proven = player_pb.ClaimSeatsRequest(
                    claims=[claim], guest_player_token=ann_guest.player_token
                )
                outcome = (await s.players.ClaimSeats(proven, metadata=as_account)).outcomes[0]
                assert (outcome.status, outcome.seat) == (player_pb.CLAIM_STATUS_CLAIMED, 0)
                assert await seats(s, table_id) == [account.player_id, "", ""]
                assert await my_tables(s, as_account) == [table_id]
                assert await my_tables(s, as_guest) == []
                again = (await s.players.ClaimSeats(proven, metadata=as_account)).outcomes[0]
                assert again.status == player_pb.CLAIM_STATUS_ALREADY_YOURS
                await expect_error(
                    s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id), metadata=as_account),
                    "ALREADY_SEATED",
                    grpc.StatusCode.FAILED_PRECONDITION,
                )
                # The account's credential alone names the seat; the guest's credential no longer acts there.
                reclaimed = await s.tables.ReclaimSeat(
                    pb.ReclaimSeatRequest(table_id=table_id), metadata=as_account
                )
                assert reclaimed.table.seats[0].player_id == account.player_id
                await expect_error(
                    s.tables.LeaveTable(
                        pb.LeaveTableRequest(table_id=table_id),
                        metadata=as_guest + token_md(joined.seat_token),
                    ),
                    "SEAT_RESERVED",
                    grpc.StatusCode.PERMISSION_DENIED,
                )

                # An anonymous seat claimed by a guest is in the table's log too.
                bob, as_bob = await guest(s, "Bob")
                anonymous = await s.tables.JoinTable(
                    pb.JoinTableRequest(table_id=table_id, player_name="Bob")
                )
                mine = player_pb.SeatClaim(table_id=table_id, seat_token=anonymous.seat_token)
                claimed = await s.players.ClaimSeats(
                    player_pb.ClaimSeatsRequest(claims=[mine]), metadata=as_bob
                )
                assert claimed.outcomes[0].status == player_pb.CLAIM_STATUS_CLAIMED
                assert await seats(s, table_id) == [account.player_id, bob.player.player_id, ""]
                return table_id, account.player_id, bob.player.player_id

        table_id, account_id, bob_id = run(scenario())

        async def restarted() -> None:
            async with served(tmp_path, db=db, issuers=issuers) as s:
                assert await seats(s, table_id) == [account_id, bob_id, ""]  # replayed from the log

        run(restarted())
