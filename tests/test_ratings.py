"""Ratings (issue 26): a rated table's end changes its players' ratings, and any client recomputes the change.

Real server (in the test's process, real gRPC and a real SQLite store), real guests, games played to their
end by the bot SDK as those guests. The update a table's RatingsUpdated carries is recomputed here with the
``openskill`` package alone, from the table's own events (its GameOver standings and each seat's rating
before), and must equal what the server stored and serves. T-26 (the standings' places) and B-20 give the
ranks; a seat that forfeited on time (TIMEOUT_POLICY_FORFEIT) ranks last.
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest
from openskill.models import PlackettLuce

from clients.ratings import RatingClient, check_update
from engine import Rules
from server.creations import SeatSpec
from server.ratings.model import ranks
from server.registry import Registry
from server.table_state import RatingsUpdatedEvent
from tests.identity_harness import ADMIN_TOKEN, bearer, served
from tests.ratings_harness import events, finished, guests, play_as, rated_request
from tests.server_harness import expect_error, run
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import rating_service_pb2 as rating_pb
from thousand.v1 import rating_service_pb2_grpc as rating_grpc
from thousand.v1 import ratings_pb2 as ratings_pb
from thousand.v1 import table_service_pb2 as pb


def recomputed(update: ratings_pb.RatingsUpdated, places: dict[int, int]) -> list[tuple[int, float, float]]:
    """Each seat's rank, mu and sigma after the game, computed here: the ranks from the standings' places
    (forfeited seats last), the ratings with the package and the parameters the event names."""
    model = update.model
    assert model.name == "openskill.PlackettLuce"
    rater = PlackettLuce(
        mu=model.mu, sigma=model.sigma, beta=model.beta, kappa=model.kappa, tau=model.tau,
        limit_sigma=model.limit_sigma, balance=model.balance,
    )  # fmt: skip
    keys = {s.seat: (s.forfeited, places[s.seat]) for s in update.seats}
    seat_ranks = [1 + sum(1 for k in keys.values() if k < keys[s.seat]) for s in update.seats]
    teams = [[rater.create_rating([s.before.mu, s.before.sigma])] for s in update.seats]
    after = rater.rate(teams, ranks=[float(r) for r in seat_ranks])
    return [(r, t[0].mu, t[0].sigma) for r, t in zip(seat_ranks, after, strict=True)]


def game_over_places(found: list[pb.Event]) -> dict[int, int]:
    over = [
        e.thousand.game_over for e in found if e.HasField("thousand") and e.thousand.HasField("game_over")
    ]
    assert len(over) == 1
    return {s.seat: s.place for s in over[0].standings}


def assert_recomputes(update: ratings_pb.RatingsUpdated, places: dict[int, int]) -> None:
    assert not update.not_rated
    for seat, (rank, mu, sigma) in zip(update.seats, recomputed(update, places), strict=True):
        assert seat.rank == rank
        assert math.isclose(seat.after.mu, mu, abs_tol=1e-9), (seat, mu)
        assert math.isclose(seat.after.sigma, sigma, abs_tol=1e-9), (seat, sigma)
        assert seat.after.games == seat.before.games + 1
        assert math.isclose(seat.after.ordinal, seat.after.mu - 3 * seat.after.sigma, abs_tol=1e-9)
    assert check_update(update, places) == []  # the client library's own check agrees


def test_forfeited_seat_ranks_last_whatever_its_place() -> None:
    """A seat that forfeited on time ranks below every other, even with the best place (T-26 places)."""
    standings = [
        SimpleNamespace(seat=0, place=1),
        SimpleNamespace(seat=1, place=2),
        SimpleNamespace(seat=2, place=3),
    ]
    assert ranks(standings, [False, False, False]) == [1, 2, 3]
    assert ranks(standings, [True, False, False]) == [3, 1, 2]
    assert ranks(standings, [True, False, True]) == [2, 1, 3]
    tied = [
        SimpleNamespace(seat=0, place=1),
        SimpleNamespace(seat=1, place=1),
        SimpleNamespace(seat=2, place=3),
    ]
    assert ranks(tied, [False, False, False]) == [1, 1, 3]


def test_people_game_update_is_recomputed_from_the_events(tmp_path: Path) -> None:
    """Two guests play a rated game to its end: its last event is RatingsUpdated, recomputed here equal;
    the players' profiles and the pool's leaderboard serve the same numbers; a second game starts from the
    first's result (T-26 standings give the ranks)."""

    async def body() -> None:
        async with served(tmp_path, server_settings={"rating_min_games": 2}) as s:
            address = f"127.0.0.1:{s.server.port}"
            ann, bob = await guests(address, "Ann", "Bob")
            updates = []
            for _ in range(2):
                table = (await s.tables.CreateTable(rated_request(2))).table
                assert table.rated
                results = await play_as(address, table.table_id, [ann.player_token, bob.player_token])
                assert all(r.finished for r in results)
                done = await finished(s.tables, table.table_id)
                assert done.rated and done.stop_reason == pb.STOP_REASON_UNSPECIFIED
                found = await events(s.tables, table.table_id)
                assert found[-1].HasField("ratings_updated"), "the rated table's last event"
                update = found[-1].ratings_updated
                assert update.pool_id == "thousand-2"
                assert [s.player_id for s in update.seats] == [ann.player.player_id, bob.player.player_id]
                assert_recomputes(update, game_over_places(found))
                updates.append(update)
                exported = await s.tables.ExportTable(pb.ExportTableRequest(table_id=table.table_id))
                record = json.loads(exported.record_json)
                assert record["finished"] and "ratingsUpdated" in record["events"][-1]
            first, second = updates
            for before, after in zip(second.seats, first.seats, strict=True):
                assert before.before == after.after  # the second game starts where the first left off
            async with RatingClient(address) as ratings:
                board = await ratings.leaderboard_page(pb.GAME_KIND_THOUSAND, 2)
                assert board.min_games == 2 and board.pool.pool_id == "thousand-2"
                by_id = {e.player_id: e for e in board.entries}
                assert set(by_id) == {ann.player.player_id, bob.player.player_id}
                assert [e.place for e in board.entries] == [1, 2]
                assert board.entries[0].rating.ordinal >= board.entries[1].rating.ordinal
                for seat in second.seats:
                    assert by_id[seat.player_id].rating == seat.after
                profile = await ratings.profile(ann.player.player_id)
                assert profile.display_name == "Ann"
                (pool,) = profile.ratings
                assert pool.pool.pool_id == "thousand-2" and pool.rating == second.seats[0].after
                assert pool.place == by_id[ann.player.player_id].place
                assert [g.after for g in profile.recent_games] == [
                    second.seats[0].after,
                    first.seats[0].after,
                ]

    run(body())


def test_forfeit_on_time_ranks_last(tmp_path: Path) -> None:
    """A guest who never moves forfeits on time (TIMEOUT_POLICY_FORFEIT): the server's bot plays the seat to
    the end, and the update ranks it last, flagged forfeited, recomputed equal."""

    async def body() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            ann, bob = await guests(address, "Ann", "Bob")
            request = rated_request(2)
            request.time_control.per_move.FromSeconds(1)
            request.time_control.on_timeout = pb.TIMEOUT_POLICY_FORFEIT
            request.time_control.bot_pace.FromNanoseconds(0)
            table = (await s.tables.CreateTable(request)).table
            # Bob takes seat 1 and never acts; Ann plays seat 0 to the end.
            await s.tables.JoinTable(
                pb.JoinTableRequest(table_id=table.table_id, seat=1), metadata=bearer(bob.player_token)
            )
            from bots.registry import STRATEGIES  # noqa: PLC0415
            from bots.strategy import StrategyOptions  # noqa: PLC0415
            from clients.bots.sdk import run_bot  # noqa: PLC0415

            await run_bot(
                STRATEGIES["greedy"](StrategyOptions()), server=address, table_id=table.table_id, seat=0,
                player_token=ann.player_token,
            )  # fmt: skip
            await finished(s.tables, table.table_id)
            found = await events(s.tables, table.table_id)
            update = found[-1].ratings_updated
            forfeited = [s for s in update.seats if s.forfeited]
            assert [s.seat for s in forfeited] == [1]
            assert forfeited[0].rank == 2 and update.seats[0].rank == 1
            assert_recomputes(update, game_over_places(found))

    run(body())


def test_stopped_table_changes_no_rating(tmp_path: Path) -> None:
    """An operator closes a rated table mid-game: it ends with TableStopped, no RatingsUpdated, and nobody's
    rating changes (their profiles have none)."""

    async def body() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            ann, bob = await guests(address, "Ann", "Bob")
            table = (await s.tables.CreateTable(rated_request(2))).table
            for seat, guest in enumerate((ann, bob)):
                await s.tables.JoinTable(
                    pb.JoinTableRequest(table_id=table.table_id, seat=seat),
                    metadata=bearer(guest.player_token),
                )
            await s.admin.CloseTable(
                admin_pb.CloseTableRequest(table_id=table.table_id, reason="closed in a test"),
                metadata=bearer(ADMIN_TOKEN),
            )
            done = await finished(s.tables, table.table_id)
            assert done.stop_reason == pb.STOP_REASON_CLOSED_BY_OPERATOR
            found = await events(s.tables, table.table_id)
            assert found[-1].HasField("table_stopped")
            assert not any(e.HasField("ratings_updated") for e in found)
            async with RatingClient(address) as ratings:
                for guest in (ann, bob):
                    profile = await ratings.profile(guest.player.player_id)
                    assert list(profile.ratings) == [] and list(profile.recent_games) == []
                assert (await ratings.leaderboard_page(pb.GAME_KIND_THOUSAND, 2)).entries == ()

    run(body())


def test_rated_tables_admit_signed_in_players_once(tmp_path: Path) -> None:
    """An anonymous join to a rated table is refused (PLAYER_TOKEN_INVALID, problem missing), so is a
    player's second seat (ALREADY_SEATED); a seeded rated table, or one of people and bots, is refused at
    creation; nothing changes at the table."""

    async def body() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            (ann,) = await guests(address, "Ann")
            table = (await s.tables.CreateTable(rated_request(3))).table
            join = pb.JoinTableRequest(table_id=table.table_id)
            error = await expect_error(
                s.tables.JoinTable(join), "PLAYER_TOKEN_INVALID", grpc.StatusCode.UNAUTHENTICATED
            )
            assert error.metadata["problem"] == "missing"
            await s.tables.JoinTable(join, metadata=bearer(ann.player_token))
            error = await expect_error(
                s.tables.JoinTable(join, metadata=bearer(ann.player_token)),
                "ALREADY_SEATED",
                grpc.StatusCode.FAILED_PRECONDITION,
            )
            assert error.metadata["seat"] == "0"
            after = (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
            assert after.open_seats == 2 and after.sequence == 1
            seeded = rated_request(3)
            seeded.seed = 7
            seeded.practice = True
            mixed = rated_request(3)
            mixed.seats[2].CopyFrom(pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy"))
            for request in (seeded, mixed):
                error = await expect_error(
                    s.tables.CreateTable(request), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
                )
                assert error.metadata["field"] == "rated"

    run(body())


def blagogo_over_places(found: list[pb.Event]) -> dict[int, int]:
    over = [e.blagogo.game_over for e in found if e.HasField("blagogo") and e.blagogo.HasField("game_over")]
    assert len(over) == 1
    return {s.seat: s.place for s in over[0].standings}


@pytest.mark.parametrize(
    ("game", "strategies"),
    [(pb.GAME_KIND_THOUSAND, ("greedy", "random")), (pb.GAME_KIND_BLAGOGO, ("heuristic", "random"))],
)
def test_bots_pool_is_apart_from_people(
    tmp_path: Path, game: pb.GameKind.ValueType, strategies: tuple[str, str]
) -> None:
    """A rated table of bots only rates its strategies in its game's bots' pool ("thousand-2-bots",
    "blagogo-2-bots"), recomputed equal from GameOver's places (T-26, B-20); the people's pool of the same
    game stays empty; a bot's profile names its strategy."""
    name = "thousand" if game == pb.GAME_KIND_THOUSAND else "blagogo"

    async def body() -> None:
        async with served(tmp_path, server_settings={"rating_min_games": 1}) as s:
            address = f"127.0.0.1:{s.server.port}"
            request = pb.CreateTableRequest(game=game, rated=True)
            getattr(request.rules, name).players = 2
            for strategy in strategies:
                request.seats.add(kind=pb.SEAT_KIND_BOT, strategy=strategy)
            table = (await s.tables.CreateTable(request)).table
            done = await finished(s.tables, table.table_id)
            assert done.stop_reason == pb.STOP_REASON_UNSPECIFIED, "the bots' game ended by itself"
            found = await events(s.tables, table.table_id)
            update = found[-1].ratings_updated
            assert update.pool_id == f"{name}-2-bots"
            assert [s.player_id for s in update.seats] == [f"bot:{strategy}" for strategy in strategies]
            places = game_over_places(found) if name == "thousand" else blagogo_over_places(found)
            assert_recomputes(update, places)
            async with RatingClient(address) as ratings:
                bots = await ratings.leaderboard_page(game, 2, bots=True)
                assert {e.display_name for e in bots.entries} == set(strategies)
                assert (await ratings.leaderboard_page(game, 2)).entries == ()
                profile = await ratings.profile(f"bot:{strategies[0]}")
                assert profile.display_name == strategies[0] and profile.ratings[0].pool.bots
                assert profile.ratings[0].pool.game == game

    run(body())


def test_rating_service_refuses_bad_requests(tmp_path: Path) -> None:
    """Malformed requests are INVALID_ARGUMENT naming the field; an unknown player PLAYER_NOT_FOUND."""

    async def body() -> None:
        async with (
            served(tmp_path) as s,
            grpc.aio.insecure_channel(f"127.0.0.1:{s.server.port}") as channel,
        ):
            stub = rating_grpc.RatingServiceStub(channel)
            for request, field in (
                (rating_pb.GetLeaderboardRequest(players=3), "game"),
                (rating_pb.GetLeaderboardRequest(game=pb.GAME_KIND_THOUSAND, players=1), "players"),
                (
                    rating_pb.GetLeaderboardRequest(game=pb.GAME_KIND_THOUSAND, players=3, page_size=101),
                    "page_size",
                ),
                (
                    rating_pb.GetLeaderboardRequest(game=pb.GAME_KIND_THOUSAND, players=3, page_token="x!"),
                    "page_token",
                ),
            ):
                error = await expect_error(
                    stub.GetLeaderboard(request), "INVALID_ARGUMENT", grpc.StatusCode.INVALID_ARGUMENT
                )
                assert error.metadata["field"] == field
            await expect_error(
                stub.GetPlayerProfile(rating_pb.GetPlayerProfileRequest(player_id="nobody")),
                "PLAYER_NOT_FOUND",
                grpc.StatusCode.NOT_FOUND,
            )

    run(body())


def test_a_table_restored_before_its_update_was_stored_is_rated_then_once(tmp_path: Path) -> None:
    """The game's last action and the rating are two commits: a server that stopped between them (the state
    made here by taking the rating's commit out of the store: its record, its rows, the finish note) rates
    the table when it restores it, once, with the same numbers; restored again, it rates nothing more."""
    db = tmp_path / "thousand.db"

    async def first() -> tuple[str, ratings_pb.RatingsUpdated]:
        async with served(tmp_path, str(db)) as s:
            request = rated_request(2)
            request.seats[0].CopyFrom(pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="greedy"))
            request.seats[1].CopyFrom(pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy="random"))
            table = (await s.tables.CreateTable(request)).table
            await finished(s.tables, table.table_id)
            return table.table_id, (await events(s.tables, table.table_id))[-1].ratings_updated

    table_id, update = run(first())
    with sqlite3.connect(db) as connection:  # the server stopped before the rating's commit
        connection.execute("DELETE FROM records WHERE table_id = ? AND kind = 'rating'", (table_id,))
        connection.execute("DELETE FROM ratings")
        connection.execute("DELETE FROM rated_games")
        connection.execute(
            "UPDATE tables SET finished = 0, finish_time = NULL WHERE table_id = ?", (table_id,)
        )

    async def again() -> ratings_pb.RatingsUpdated:
        async with served(tmp_path, str(db)) as s:
            await finished(s.tables, table_id)
            found = await events(s.tables, table_id)
            assert [e.HasField("ratings_updated") for e in found].count(True) == 1
            return found[-1].ratings_updated

    assert run(again()) == update
    assert run(again()) == update  # restored once more: nothing to rate, nothing rated twice
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT player_id, games FROM ratings ORDER BY player_id").fetchall() == [
            ("bot:greedy", 1),
            ("bot:random", 1),
        ]


def test_a_rated_table_without_a_database_ends_not_rated() -> None:
    """A registry without a store (the table alone) has nowhere to keep ratings: the rated table still ends,
    its last event a RatingsUpdated whose not_rated says why, no seat rated."""

    async def body() -> None:
        registry = Registry()
        seats = [SeatSpec(bot=True, strategy="greedy"), SeatSpec(bot=True, strategy="random")]
        table = await registry.create(Rules(players=2), seats, None, None, rated=True)
        table.ensure_bots_running()
        for _ in range(1200):
            if table.finished:
                break
            await asyncio.sleep(0.05)
        assert table.finished and table.stopped is None
        last = table.log[-1]
        assert isinstance(last, RatingsUpdatedEvent)
        update = ratings_pb.RatingsUpdated.FromString(last.data)
        assert update.not_rated and not update.seats and update.pool_id == "thousand-2-bots"
        table.close_streams()

    run(body())
