"""Players at the service layer: guests (and their flood refused), who am I, a player's games and claims of
old seats, private tables (unlisted, invite, reserved seats), and the AdminService with the operator token:
every call refused without it, each action audited, a banned player refused everywhere."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import grpc
from grpc import aio

from server.identity.values import Outcome
from tests.identity_harness import ADMIN_TOKEN, Served, bearer, served
from tests.server_harness import expect_error, run, thousand_table, token_md
from tests.test_rate_limits import retry_delay
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import table_service_pb2 as pb

OPERATOR = bearer(ADMIN_TOKEN)
Metadata = tuple[tuple[str, str], ...]


async def guest(s: Served, name: str) -> tuple[player_pb.Player, tuple[tuple[str, str], ...]]:
    created = await s.players.CreateGuest(player_pb.CreateGuestRequest(display_name=name, locale="en"))
    assert created.player_token.startswith("thp_") and len(created.player_token) > 40
    return created.player, bearer(created.player_token)


def player_count(s: Served) -> int:
    store = s.server.identity.store
    return len(store._query("SELECT player_id FROM {t}players"))  # the test reads the store itself


def test_a_guest_is_who_its_token_says_and_changes_its_name_and_locale(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            options = await s.players.GetSignInOptions(player_pb.GetSignInOptionsRequest())
            assert options.guests and not options.providers
            ann, as_ann = await guest(s, "  Ann  ")
            assert (ann.display_name, ann.locale, ann.kind) == ("Ann", "en", player_pb.PLAYER_KIND_GUEST)
            me = await s.players.GetMe(player_pb.GetMeRequest(), metadata=as_ann)
            assert me.player == ann
            updated = await s.players.UpdateMe(player_pb.UpdateMeRequest(locale="uk"), metadata=as_ann)
            assert (updated.player.display_name, updated.player.locale) == ("Ann", "uk")
            renamed = await s.players.UpdateMe(
                player_pb.UpdateMeRequest(display_name="Анна"), metadata=as_ann
            )
            assert (renamed.player.display_name, renamed.player.locale) == ("Анна", "uk")
            for bad, field in (
                (player_pb.UpdateMeRequest(display_name=""), "display_name"),
                (player_pb.UpdateMeRequest(display_name="x" * 65), "display_name"),
                (player_pb.UpdateMeRequest(display_name="a\x00b"), "display_name"),
                (player_pb.UpdateMeRequest(locale="english please"), "locale"),
            ):
                info = await expect_error(
                    s.players.UpdateMe(bad, metadata=as_ann),
                    "INVALID_ARGUMENT",
                    grpc.StatusCode.INVALID_ARGUMENT,
                )
                assert info.metadata["field"] == field
            assert (
                await s.players.GetMe(player_pb.GetMeRequest(), metadata=as_ann)
            ).player.display_name == "Анна"
            for metadata, problem in (
                ((), "missing"),
                (bearer("thp_" + secrets.token_urlsafe(32)), "unknown_token"),
                (bearer("a-seat-token-is-no-player-token"), "malformed"),
            ):
                info = await expect_error(
                    s.players.GetMe(player_pb.GetMeRequest(), metadata=metadata),
                    "PLAYER_TOKEN_INVALID",
                    grpc.StatusCode.UNAUTHENTICATED,
                )
                assert info.metadata["problem"] == problem
            # A bad credential is refused on the TableService too, an anonymous call is not.
            await expect_error(
                s.tables.ListTables(pb.ListTablesRequest(), metadata=bearer("thp_" + "y" * 43)),
                "PLAYER_TOKEN_INVALID",
                grpc.StatusCode.UNAUTHENTICATED,
            )
            await s.tables.ListTables(pb.ListTablesRequest())

    run(scenario())


def test_a_player_who_joins_without_a_name_sits_as_their_display_name(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            _, as_ann = await guest(s, "Анна")
            table = (await s.tables.CreateTable(thousand_table())).table
            joined = await s.tables.JoinTable(pb.JoinTableRequest(table_id=table.table_id), metadata=as_ann)
            assert joined.table.seats[joined.seat].player_name == "Анна"
            other = (await s.tables.CreateTable(thousand_table())).table  # one seat a player, per table
            named = await s.tables.JoinTable(
                pb.JoinTableRequest(table_id=other.table_id, player_name="Bea"), metadata=as_ann
            )
            assert named.table.seats[named.seat].player_name == "Bea"  # a name sent is the seat's name

    run(scenario())


def test_a_guest_flood_from_one_client_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path, guests_per_hour=30, guest_burst=5) as s:
            for number in range(5):
                await guest(s, f"flood {number}")
            assert player_count(s) == 5
            with_error = s.players.CreateGuest(player_pb.CreateGuestRequest(display_name="flood 6"))
            try:
                await with_error
                raise AssertionError("the sixth guest at once was created")
            except aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert 100 < retry_delay(error) <= 120  # 30 an hour: one every 2 minutes
            await expect_error(
                s.players.CreateGuest(player_pb.CreateGuestRequest(display_name="flood 7")),
                "RATE_LIMITED",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            )
            assert player_count(s) == 5

    run(scenario())


def test_no_guests_when_the_operator_says_so(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path, guests=False) as s:
            await expect_error(
                s.players.CreateGuest(player_pb.CreateGuestRequest(display_name="ann")),
                "GUESTS_DISABLED",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            assert not (await s.players.GetSignInOptions(player_pb.GetSignInOptionsRequest())).guests

    run(scenario())


def private_table(invite: str, reserved_for: str) -> pb.CreateTableRequest:
    request = thousand_table(players=3)
    request.unlisted = True
    request.invite_code = invite
    request.reservations.add(seat=1, player_id=reserved_for)
    return request


async def listed(s: Served, metadata: tuple[tuple[str, str], ...] = ()) -> dict[str, pb.Table]:
    tables = (await s.tables.ListTables(pb.ListTablesRequest(), metadata=metadata)).tables
    return {t.table_id: t for t in tables}


def test_a_private_table_is_listed_to_its_players_only_and_joined_with_its_invite(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            _, as_ann = await guest(s, "ann")
            bob, as_bob = await guest(s, "bob")
            _, as_cid = await guest(s, "cid")
            invite = secrets.token_urlsafe(16)
            for bad, reason, field in (
                (private_table("short", bob.player_id), "INVALID_ARGUMENT", "invite_code"),
                (private_table("a" * 20, bob.player_id), "INVALID_ARGUMENT", "invite_code"),
                (private_table(invite, "nobody"), "PLAYER_NOT_FOUND", ""),
            ):
                code = (
                    grpc.StatusCode.NOT_FOUND
                    if reason == "PLAYER_NOT_FOUND"
                    else grpc.StatusCode.INVALID_ARGUMENT
                )
                info = await expect_error(s.tables.CreateTable(bad, metadata=as_ann), reason, code)
                assert info.metadata.get("field", "") == field
            bot_seat = private_table(invite, bob.player_id)
            bot_seat.seats[1].CopyFrom(pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy"))
            await expect_error(
                s.tables.CreateTable(bot_seat, metadata=as_ann),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            assert await listed(s) == {}  # nothing refused was made

            public = (await s.tables.CreateTable(thousand_table())).table
            table = (await s.tables.CreateTable(private_table(invite, bob.player_id), metadata=as_ann)).table
            assert table.unlisted and table.invite_required and table.seats[1].reserved_for == bob.player_id
            assert set(await listed(s)) == {public.table_id}
            assert set(await listed(s, as_cid)) == {public.table_id}
            assert set(await listed(s, as_ann)) == {public.table_id, table.table_id}  # its creator
            shown = (await listed(s, as_bob))[table.table_id]  # the player a seat is held for
            assert shown.unlisted and shown.seats[1].reserved_for == bob.player_id
            got = (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert (
                got.invite_required and got.seats[1].reserved_for == bob.player_id
            )  # its id is enough to look

            join = pb.JoinTableRequest(table_id=table.table_id, player_name="x")
            await expect_error(s.tables.JoinTable(join), "INVITE_INVALID", grpc.StatusCode.PERMISSION_DENIED)
            join.invite_code = secrets.token_urlsafe(16)
            await expect_error(s.tables.JoinTable(join), "INVITE_INVALID", grpc.StatusCode.PERMISSION_DENIED)
            join.invite_code, join.seat = invite, 1
            await expect_error(s.tables.JoinTable(join), "SEAT_RESERVED", grpc.StatusCode.PERMISSION_DENIED)
            await expect_error(
                s.tables.JoinTable(join, metadata=as_cid), "SEAT_RESERVED", grpc.StatusCode.PERMISSION_DENIED
            )
            untouched = (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert untouched.open_seats == 3 and untouched.sequence == table.sequence

            held = pb.JoinTableRequest(table_id=table.table_id, player_name="bob")  # no invite, no seat
            assert (await s.tables.JoinTable(held, metadata=as_bob)).seat == 1
            invited = pb.JoinTableRequest(table_id=table.table_id, player_name="cid", invite_code=invite)
            assert (await s.tables.JoinTable(invited, metadata=as_cid)).seat == 0
            assert table.table_id in await listed(s, as_cid)  # a player seated there sees it now
            assert table.table_id not in await listed(s)

    run(scenario())


def test_my_games_newest_first_with_claimed_seats_and_an_operators_close(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            ann, as_ann = await guest(s, "ann")
            _, as_bob = await guest(s, "bob")
            first = (await s.tables.CreateTable(thousand_table(players=3, bots=2))).table
            await s.tables.JoinTable(
                pb.JoinTableRequest(table_id=first.table_id, player_name="ann"), metadata=as_ann
            )
            games = (await s.players.ListMyGames(player_pb.ListMyGamesRequest(), metadata=as_ann)).games
            assert [(g.table_id, g.seat, g.result, g.game) for g in games] == [
                (first.table_id, 0, player_pb.GAME_RESULT_PLAYING, pb.GAME_KIND_THOUSAND)
            ]

            # An anonymous seat, taken with a seat token, joins the history by a claim.
            second = (await s.tables.CreateTable(thousand_table(players=3))).table
            token = secrets.token_urlsafe(32)
            anonymous = pb.JoinTableRequest(
                table_id=second.table_id, player_name="ann", seat=2, seat_token=token
            )
            await s.tables.JoinTable(anonymous)
            claims = player_pb.ClaimSeatsRequest(
                claims=[
                    player_pb.SeatClaim(table_id=second.table_id, seat_token=token),
                    player_pb.SeatClaim(table_id=second.table_id, seat_token=secrets.token_urlsafe(32)),
                    player_pb.SeatClaim(table_id="000000000000", seat_token=token),
                ]
            )
            outcomes = (await s.players.ClaimSeats(claims, metadata=as_ann)).outcomes
            assert [(o.status, o.seat) for o in outcomes] == [
                (player_pb.CLAIM_STATUS_CLAIMED, 2),
                (player_pb.CLAIM_STATUS_TOKEN_NOT_FOUND, 0),
                (player_pb.CLAIM_STATUS_TABLE_NOT_FOUND, 0),
            ]
            again = player_pb.ClaimSeatsRequest(claims=claims.claims[:1])
            assert (await s.players.ClaimSeats(again, metadata=as_ann)).outcomes[0].status == (
                player_pb.CLAIM_STATUS_ALREADY_YOURS
            )
            assert (await s.players.ClaimSeats(again, metadata=as_bob)).outcomes[0].status == (
                player_pb.CLAIM_STATUS_OTHER_PLAYER
            )
            await expect_error(
                s.players.ClaimSeats(player_pb.ClaimSeatsRequest(), metadata=as_ann),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

            page = await s.players.ListMyGames(player_pb.ListMyGamesRequest(page_size=1), metadata=as_ann)
            assert [g.table_id for g in page.games] == [second.table_id] and page.next_page_token
            rest = await s.players.ListMyGames(
                player_pb.ListMyGamesRequest(page_size=1, page_token=page.next_page_token), metadata=as_ann
            )
            assert [g.table_id for g in rest.games] == [first.table_id] and not rest.next_page_token
            assert not (await s.players.ListMyGames(player_pb.ListMyGamesRequest(), metadata=as_bob)).games
            for bad, field in (
                (player_pb.ListMyGamesRequest(page_token="not-a-token"), "page_token"),
                (player_pb.ListMyGamesRequest(page_size=101), "page_size"),
            ):
                info = await expect_error(
                    s.players.ListMyGames(bad, metadata=as_ann),
                    "INVALID_ARGUMENT",
                    grpc.StatusCode.INVALID_ARGUMENT,
                )
                assert info.metadata["field"] == field

            close = admin_pb.CloseTableRequest(table_id=first.table_id, reason="the venue closes")
            closed = (await s.admin.CloseTable(close, metadata=OPERATOR)).table
            assert closed.status == pb.TABLE_STATUS_FINISHED
            assert closed.stop_reason == pb.STOP_REASON_CLOSED_BY_OPERATOR
            games = (await s.players.ListMyGames(player_pb.ListMyGamesRequest(), metadata=as_ann)).games
            assert {g.table_id: g.result for g in games} == {
                first.table_id: player_pb.GAME_RESULT_STOPPED,
                second.table_id: player_pb.GAME_RESULT_PLAYING,
            }
            await expect_error(
                s.admin.CloseTable(close, metadata=OPERATOR), "GAME_OVER", grpc.StatusCode.FAILED_PRECONDITION
            )
            found = await s.admin.GetPlayer(
                admin_pb.GetPlayerRequest(player_id=ann.player_id), metadata=OPERATOR
            )
            assert {g.table_id for g in found.recent_games} == {first.table_id, second.table_id}

            remove = admin_pb.RemovePlayerRequest(table_id=second.table_id, seat=2, reason="asked to")
            after = (await s.admin.RemovePlayer(remove, metadata=OPERATOR)).table
            assert not after.seats[2].taken
            await expect_error(
                s.tables.LeaveTable(pb.LeaveTableRequest(table_id=second.table_id), metadata=token_md(token)),
                "SEAT_TOKEN_INVALID",
                grpc.StatusCode.UNAUTHENTICATED,
            )
            entries = (
                await s.admin.ListAuditEntries(admin_pb.ListAuditEntriesRequest(), metadata=OPERATOR)
            ).entries
            assert [(e.action, e.operator, e.table_id, e.seat, e.reason) for e in entries] == [
                ("RemovePlayer", "token", second.table_id, 2, "asked to"),
                ("CloseTable", "token", first.table_id, -1, "the venue closes"),
            ]

    run(scenario())


def test_admin_calls_without_the_operator_credential_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            ann, as_ann = await guest(s, "ann")
            table = (await s.tables.CreateTable(thousand_table())).table
            calls = [
                (s.admin.CloseTable, admin_pb.CloseTableRequest(table_id=table.table_id, reason="r")),
                (
                    s.admin.RemovePlayer,
                    admin_pb.RemovePlayerRequest(table_id=table.table_id, seat=0, reason="r"),
                ),
                (s.admin.BanPlayer, admin_pb.BanPlayerRequest(player_id=ann.player_id, reason="r")),
                (s.admin.UnbanPlayer, admin_pb.UnbanPlayerRequest(player_id=ann.player_id, reason="r")),
                (s.admin.GetPlayer, admin_pb.GetPlayerRequest(player_id=ann.player_id)),
                (s.admin.ListAuditEntries, admin_pb.ListAuditEntriesRequest()),
            ]
            wrong = bearer("not-the-operator-token-but-long-enough-0123456789")
            for call, request in calls:
                for metadata in ((), as_ann, wrong, (("authorization", ADMIN_TOKEN),)):
                    await expect_error(
                        call(request, metadata=metadata),  # type: ignore[operator]
                        "OPERATOR_REQUIRED",
                        grpc.StatusCode.PERMISSION_DENIED,
                    )
            still = (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert still.status == pb.TABLE_STATUS_WAITING
            await s.players.GetMe(player_pb.GetMeRequest(), metadata=as_ann)  # not banned
            assert not (
                await s.admin.ListAuditEntries(admin_pb.ListAuditEntriesRequest(), metadata=OPERATOR)
            ).entries
            await expect_error(
                s.admin.BanPlayer(
                    admin_pb.BanPlayerRequest(player_id="nobody", reason="r"), metadata=OPERATOR
                ),
                "PLAYER_NOT_FOUND",
                grpc.StatusCode.NOT_FOUND,
            )
            await expect_error(
                s.admin.BanPlayer(admin_pb.BanPlayerRequest(player_id=ann.player_id), metadata=OPERATOR),
                "INVALID_ARGUMENT",
                grpc.StatusCode.INVALID_ARGUMENT,
            )

    run(scenario())


def test_a_banned_player_is_refused_everywhere_until_unbanned(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            ann, as_ann = await guest(s, "ann")
            table = (await s.tables.CreateTable(thousand_table())).table
            ban = admin_pb.BanPlayerRequest(player_id=ann.player_id, reason="cheating")
            banned = await s.admin.BanPlayer(ban, metadata=OPERATOR)
            assert banned.ban.reason == "cheating" and banned.ban.operator == "token"
            calls: list[Awaitable[object]] = [
                s.players.GetMe(player_pb.GetMeRequest(), metadata=as_ann),
                s.players.ListMyGames(player_pb.ListMyGamesRequest(), metadata=as_ann),
                s.tables.ListTables(pb.ListTablesRequest(), metadata=as_ann),
                s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id), metadata=as_ann),
                s.tables.CreateTable(thousand_table(), metadata=as_ann),
                s.tables.JoinTable(
                    pb.JoinTableRequest(table_id=table.table_id, player_name="ann"), metadata=as_ann
                ),
            ]
            for call in calls:
                info = await expect_error(call, "PLAYER_BANNED", grpc.StatusCode.PERMISSION_DENIED)
                assert info.metadata["until"] == ""
            stream = s.tables.StreamEvents(pb.StreamEventsRequest(table_id=table.table_id), metadata=as_ann)
            await expect_error(stream.read(), "PLAYER_BANNED", grpc.StatusCode.PERMISSION_DENIED)
            play = s.tables.Play(metadata=as_ann)
            await play.write(pb.PlayRequest(start=pb.PlayStart(table_id=table.table_id)))
            await expect_error(play.read(), "PLAYER_BANNED", grpc.StatusCode.PERMISSION_DENIED)
            assert len(await listed(s)) == 1  # nothing was created; anonymous calls go on
            found = await s.admin.GetPlayer(
                admin_pb.GetPlayerRequest(player_id=ann.player_id), metadata=OPERATOR
            )
            assert found.ban.reason == "cheating"
            await s.admin.UnbanPlayer(
                admin_pb.UnbanPlayerRequest(player_id=ann.player_id, reason="appeal"), metadata=OPERATOR
            )
            await s.players.GetMe(player_pb.GetMeRequest(), metadata=as_ann)
            entries = (
                await s.admin.ListAuditEntries(
                    admin_pb.ListAuditEntriesRequest(player_id=ann.player_id), metadata=OPERATOR
                )
            ).entries
            assert [e.action for e in entries] == ["UnbanPlayer", "BanPlayer"]

    run(scenario())


def test_claims_count_against_the_clients_request_rate(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path, server_settings={"rate_limit": 0.01, "rate_burst": 3}) as s:
            _, as_ann = await guest(s, "ann")
            claim = player_pb.SeatClaim(table_id="000000000000", seat_token=secrets.token_urlsafe(32))
            three = player_pb.ClaimSeatsRequest(claims=[claim] * 3)
            assert len((await s.players.ClaimSeats(three, metadata=as_ann)).outcomes) == 3
            one = player_pb.ClaimSeatsRequest(claims=[claim])
            await expect_error(
                s.players.ClaimSeats(one, metadata=as_ann), "RATE_LIMITED", grpc.StatusCode.RESOURCE_EXHAUSTED
            )

    run(scenario())


def test_a_private_tables_settings_are_stored_with_it_from_its_first_moment(tmp_path: Path) -> None:
    """The settings are in the table's own stored config, so the table is private before (and without) the
    players' store's row: unlisted and invite-only with that row gone, after a restart too; the invite code
    itself is stored nowhere, only its hash."""
    db = str(tmp_path / "thousand.db")
    invite = secrets.token_urlsafe(16)

    async def scenario() -> tuple[str, str, str]:
        async with served(tmp_path, db=db) as s:
            _, as_ann = await guest(s, "ann")
            bob, as_bob = await guest(s, "bob")
            table = (await s.tables.CreateTable(private_table(invite, bob.player_id), metadata=as_ann)).table
            store = s.server.registry.store
            assert store is not None
            kept = store.get(table.table_id)
            assert kept is not None and kept.config.privacy is not None
            privacy = kept.config.privacy
            assert privacy.unlisted and privacy.reservations == {1: bob.player_id}
            assert privacy.invite_hash and invite not in kept.config.to_json()
            s.server.identity.store._query("DELETE FROM {t}private_tables")  # the row's write never made
            await private_without_the_row(s, table.table_id, bob.player_id, as_bob)
            return table.table_id, bob.player_id, bob_token(as_bob)

    def bob_token(metadata: Metadata) -> str:
        return metadata[0][1].removeprefix("Bearer ")

    async def private_without_the_row(s: Served, table_id: str, bob_id: str, as_bob: Metadata) -> None:
        assert table_id not in await listed(s)
        shown = (await listed(s, as_bob))[table_id]  # the player a seat is held for sees it
        assert shown.unlisted and shown.invite_required and shown.seats[1].reserved_for == bob_id
        got = (await s.tables.GetTable(pb.GetTableRequest(table_id=table_id))).table
        assert got.unlisted and got.invite_required
        join = pb.JoinTableRequest(table_id=table_id, player_name="x")
        await expect_error(s.tables.JoinTable(join), "INVITE_INVALID", grpc.StatusCode.PERMISSION_DENIED)
        join.invite_code, join.seat = invite, 1
        await expect_error(s.tables.JoinTable(join), "SEAT_RESERVED", grpc.StatusCode.PERMISSION_DENIED)

    table_id, bob_id, token = run(scenario())

    async def restarted() -> None:
        async with served(tmp_path, db=db) as s:
            await private_without_the_row(s, table_id, bob_id, bearer(token))

    run(restarted())


def test_my_games_read_no_playing_tables_record_and_keep_a_finished_games_result(tmp_path: Path) -> None:
    """ "My games" reads a playing table's finish time, never its records (a page costs one query of the
    tables' store however many games are under way); a game that ends here has its result kept with the
    player's seat at once, from the table in memory (T-31 standings)."""

    async def scenario() -> None:
        async with served(tmp_path) as s:
            ann, as_ann = await guest(s, "ann")
            playing = []
            for _ in range(3):
                table_id = (await s.tables.CreateTable(thousand_table(players=3, bots=2))).table.table_id
                await s.tables.JoinTable(pb.JoinTableRequest(table_id=table_id), metadata=as_ann)
                playing.append(table_id)
            store = s.server.registry.store
            assert store is not None
            reads: list[str] = []
            real_get = store.get

            def counted_get(table_id: str, *, snapshots: bool = False) -> Any:
                reads.append(table_id)
                return real_get(table_id, snapshots=snapshots)

            store.get = counted_get  # type: ignore[method-assign]  # counts the real store's reads
            for _ in range(3):
                games = (await s.players.ListMyGames(player_pb.ListMyGamesRequest(), metadata=as_ann)).games
                assert {g.result for g in games} == {player_pb.GAME_RESULT_PLAYING}
            assert reads == []

            # A game played to its end here: Ann's seat forfeits on time, the bot plays it to the end.
            request = thousand_table(players=3, bots=2)
            request.time_control.per_move.FromMilliseconds(300)
            request.time_control.on_timeout = pb.TIMEOUT_POLICY_FORFEIT
            ended = (await s.tables.CreateTable(request)).table.table_id
            await s.tables.JoinTable(pb.JoinTableRequest(table_id=ended), metadata=as_ann)
            seats = s.server.identity.store.seats(ann.player_id, 10)
            deadline = asyncio.get_running_loop().time() + 120
            while next(seat for seat in seats if seat.table_id == ended).result is None:
                assert asyncio.get_running_loop().time() < deadline, "the game did not end in time"
                await asyncio.sleep(0.5)
                seats = s.server.identity.store.seats(ann.player_id, 10)
            kept = next(seat for seat in seats if seat.table_id == ended).result
            assert (
                kept is not None and kept.outcome in (Outcome.WON, Outcome.LOST) and kept.place in (1, 2, 3)
            )
            games = (await s.players.ListMyGames(player_pb.ListMyGamesRequest(), metadata=as_ann)).games
            assert games[0].table_id == ended and games[0].place == kept.place
            assert reads == []  # kept when it ended: not read back from the table's records
            exported = await s.tables.ExportTable(pb.ExportTableRequest(table_id=ended))
            seat_record = json.loads(exported.record_json)["seats"][0]
            assert seat_record["player_id"] == ann.player_id  # the 'player' step stored with the join

    run(scenario())
