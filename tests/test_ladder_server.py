"""The bots' ladder on a real server (issue 27): a registered bot's key never sits at people's tables.

A bot is a player of kind bot, signed in with its ``thb_`` key; it plays on the ladder only, so its key is
refused (BOT_NOT_ALLOWED, PERMISSION_DENIED, metadata ``where``) by JoinTable at a rated people's table and by
QuickPlay, and the table is as it was. End to end (in the test's process: real gRPC, a SQLite store, the SDK's
ladder loop as ``thousand-bot ladder`` runs it): two registered bots and a reference bot play one duplicate
set of three rotated tables at a short fixed clock, which is rated and shown in the standings; a bot that
disconnects mid-set is played on and its set marked.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import grpc
from grpc import aio

from bots.registry import STRATEGIES
from bots.strategy import StrategyOptions
from clients.bots.ladder import run_ladder
from clients.bots.sdk import AnyStrategy
from clients.connection import Connection
from tests.identity_harness import bearer, served
from tests.ratings_harness import guests, rated_request
from tests.server_harness import expect_error, run
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import ladder_service_pb2_grpc as ladder_grpc
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import matchmaking_pb2_grpc as mm_grpc
from thousand.v1 import table_service_pb2 as pb


def test_a_bots_key_is_refused_at_rated_peoples_tables_and_in_quick_play(tmp_path: Path) -> None:
    """Issue 27 ("a bot never plays in people's pools"): JoinTable at a rated table and QuickPlay with a bot's
    key are BOT_NOT_ALLOWED; nothing changes at the table, whose seats its owner (a person) may still take."""

    async def body() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            (ann,) = await guests(address, "Ann")
            async with aio.insecure_channel(address) as channel:
                ladder = ladder_grpc.LadderServiceStub(channel)
                made = await ladder.RegisterBot(
                    ladder_pb.RegisterBotRequest(display_name="Ann's bot"), metadata=bearer(ann.player_token)
                )
                assert made.key.startswith("thb_")
                table = (await s.tables.CreateTable(rated_request(3))).table
                join = pb.JoinTableRequest(table_id=table.table_id)
                error = await expect_error(
                    s.tables.JoinTable(join, metadata=bearer(made.key)),
                    "BOT_NOT_ALLOWED",
                    grpc.StatusCode.PERMISSION_DENIED,
                )
                assert error.metadata["where"] == "rated_table"
                after = (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
                assert after.open_seats == 3 and after.sequence == table.sequence
                await s.tables.JoinTable(join, metadata=bearer(ann.player_token))  # its owner sits down

                matchmaking = mm_grpc.MatchmakingServiceStub(channel)
                ask = mm.QuickPlayRequest(
                    game=pb.GAME_KIND_THOUSAND, players=3, seat_token=secrets.token_urlsafe(32)
                )

                async def quick_play() -> None:
                    async for _ in matchmaking.QuickPlay(ask, metadata=bearer(made.key)):
                        raise AssertionError("a bot's key waited in the people's queue")

                error = await expect_error(quick_play(), "BOT_NOT_ALLOWED", grpc.StatusCode.PERMISSION_DENIED)
                assert error.metadata["where"] == "quick_play"

    run(body())


def test_two_registered_bots_play_a_rated_duplicate_set_with_a_reference_bot(tmp_path: Path) -> None:
    """Issue 27 end to end: a player registers two bots, both connect with the SDK's ladder loop
    (``thousand-bot ladder``'s), and the scheduler seats them with the reference bot in one set of three
    tables, every member in every seat once (duplicate deals); the set is rated and the standings show both
    bots with an interval around their mu, one set and three games each."""

    async def body() -> None:
        settings = {
            "ladder": True,
            "ladder_per_move": 0.5,
            "ladder_references": "thousand=greedy blagogo=random",
            "ladder_reference_sets": 0,
            "ladder_seed": 1,
        }
        async with served(tmp_path, server_settings=settings) as s:
            address = f"127.0.0.1:{s.server.port}"
            (ann,) = await guests(address, "Ann")
            async with aio.insecure_channel(address) as channel:
                ladder = ladder_grpc.LadderServiceStub(channel)
                keys = [
                    (
                        await ladder.RegisterBot(
                            ladder_pb.RegisterBotRequest(display_name=name), metadata=bearer(ann.player_token)
                        )
                    ).key
                    for name in ("Alpha", "Beta")
                ]
                sets: list[ladder_pb.LadderSet] = []

                def watch(message: ladder_pb.JoinLadderResponse) -> None:
                    if message.HasField("set_finished"):
                        sets.append(message.set_finished)

                def greedy(game: str) -> AnyStrategy:
                    return STRATEGIES["greedy"](StrategyOptions())

                await asyncio.wait_for(
                    asyncio.gather(
                        *(
                            run_ladder(
                                Connection(address),
                                key,
                                greedy,
                                ["thousand"],
                                say=lambda _: None,
                                max_sets=1,
                                watch=watch,
                            )
                            for key in keys
                        )
                    ),
                    timeout=90,
                )
                assert len(sets) == 2 and sets[0].set_id == sets[1].set_id
                done = sets[0]
                assert len(done.tables) == 3 and not done.disconnected
                assert "bot:greedy" in done.members
                for seat in range(3):  # every member holds every seat (so every hand) once
                    assert sorted(t.seat_members[seat] for t in done.tables) == sorted(done.members)
                assert sorted(r.rank for r in done.results)[0] == 1
                standings = await ladder.GetLadderStandings(
                    ladder_pb.GetLadderStandingsRequest(game=pb.GAME_KIND_THOUSAND, players=3)
                )
                rows = {row.display_name: row for row in standings.standings}
                for name in ("Alpha", "Beta"):
                    row = rows[name]
                    assert not row.reference and row.owner_name == "Ann"
                    assert row.sets == 1 and row.games == 3
                    assert row.interval_low < row.rating.mu < row.interval_high
                    assert row.recent_sets[0].set_id == done.set_id
                assert rows["greedy"].reference

    run(body())


def test_a_bot_that_disconnects_mid_set_is_played_on_and_the_set_marked(tmp_path: Path) -> None:
    """Issue 27: a bot whose ladder stream closes after its seats were assigned is played by the server's
    bot on the turn clock (a fast one here) to the set's end; the set is rated and marked disconnected,
    naming that bot's result."""

    async def body() -> None:
        settings = {
            "ladder": True,
            # The leaver's every decision waits out the clock (BOT_PLAYS_TURN: the ladder's design), so a
            # short one: at 0.1 s its table took about a minute to end, beyond the wait below.
            "ladder_per_move": 0.02,
            "ladder_references": "thousand=greedy blagogo=random",
            "ladder_reference_sets": 0,
            "ladder_seed": 2,
        }
        async with served(tmp_path, server_settings=settings) as s:
            address = f"127.0.0.1:{s.server.port}"
            (ann,) = await guests(address, "Ann")
            async with aio.insecure_channel(address) as channel:
                ladder = ladder_grpc.LadderServiceStub(channel)
                made = [
                    await ladder.RegisterBot(
                        ladder_pb.RegisterBotRequest(display_name=name), metadata=bearer(ann.player_token)
                    )
                    for name in ("Stays", "Leaves")
                ]
                stay, leave = (m.key for m in made)
                bots = {m.bot.display_name: m.bot.player_id for m in made}
                sets: list[ladder_pb.LadderSet] = []
                assigned = asyncio.Event()

                def greedy(game: str) -> AnyStrategy:
                    return STRATEGIES["greedy"](StrategyOptions())

                def on_leaver(message: ladder_pb.JoinLadderResponse) -> None:
                    if message.HasField("assignment"):
                        assigned.set()

                def on_stayer(message: ladder_pb.JoinLadderResponse) -> None:
                    if message.HasField("set_finished"):
                        sets.append(message.set_finished)

                leaver = asyncio.create_task(
                    run_ladder(
                        Connection(address), leave, greedy, ["thousand"], say=lambda _: None, watch=on_leaver
                    )
                )
                stayer = asyncio.create_task(
                    run_ladder(
                        Connection(address),
                        stay,
                        greedy,
                        ["thousand"],
                        say=lambda _: None,
                        max_sets=1,
                        watch=on_stayer,
                    )
                )
                await asyncio.wait_for(assigned.wait(), timeout=20)
                leaver.cancel()  # its stream and its seats' streams close mid-game
                await asyncio.wait_for(stayer, timeout=90)
                (done,) = sets
                assert done.disconnected and len(done.tables) == 3
                results = {r.member_id: r for r in done.results}  # the stream's set names members by id
                assert results[bots["Leaves"]].disconnected and not results[bots["Stays"]].disconnected

    run(body())
