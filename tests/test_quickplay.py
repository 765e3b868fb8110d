"""Quick play and rematches on one server (SQLite): the queue seats people together, bots fill after the
accepted wait, a cancel leaves the queue, a rematch needs everyone's yes (docs/protocol.md, "Quick play").
The cluster's queue is tests/test_quickplay_cluster.py's."""

from __future__ import annotations

import asyncio
import secrets
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import pytest
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.protocol import ProtocolType
from grpc import aio

from scripts.ports import free_port
from server.matchmaking.queue_store import SqliteQueueStore
from tests.identity_harness import ADMIN_TOKEN, Served, bearer, served
from tests.server_harness import error_info, run, token_md
from thousand.v1 import admin_service_pb2 as admin_pb
from thousand.v1 import matchmaking_connect as mm_connect
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import matchmaking_pb2_grpc as mm_grpc
from thousand.v1 import player_service_pb2 as player_pb
from thousand.v1 import table_service_pb2 as pb


def ask(token: str = "", **fields: object) -> mm.QuickPlayRequest:
    request = mm.QuickPlayRequest(
        game=pb.GAME_KIND_THOUSAND, players=3, seat_token=token or secrets.token_urlsafe(32)
    )
    for name, value in fields.items():
        if name == "max_wait":
            request.max_wait.FromSeconds(int(value))  # type: ignore[call-overload]
        else:
            setattr(request, name, value)
    return request


def stub(s: Served) -> mm_grpc.MatchmakingServiceAsyncStub:
    return mm_grpc.MatchmakingServiceStub(aio.insecure_channel(f"127.0.0.1:{s.server.port}"))


async def matched(call: aio.UnaryStreamCall[Any, mm.QuickPlayResponse]) -> tuple[mm.QuickPlayMatch, int]:
    """The stream's match, and how many waiting updates came before it."""
    waits = 0
    async for update in call:
        if update.HasField("matched"):
            return update.matched, waits
        waits += 1
    raise AssertionError("the stream ended without a match")


async def next_update(call: aio.UnaryStreamCall[Any, Any]) -> Any:
    """The stream's next message (it must have one)."""
    update = await call.read()
    assert update is not aio.EOF
    return update


def queued(s: Served) -> int:
    """Tickets waiting in the server's queue (read from its database)."""
    store = s.server.queue
    assert isinstance(store, SqliteQueueStore)
    counts, _ = store.pools(0)
    return sum(counts.values())


def test_three_players_asking_for_the_same_game_sit_at_one_table(tmp_path: Path) -> None:
    """T-1: a table of three; each player gets their own seat, taken with their own token."""

    async def scenario() -> None:
        async with served(tmp_path) as s:
            matchmaking = stub(s)
            tokens = [secrets.token_urlsafe(32) for _ in range(3)]
            results = await asyncio.gather(
                *(matched(matchmaking.QuickPlay(ask(t, player_name=f"p{i}"))) for i, t in enumerate(tokens))
            )
            tables = {m.table.table_id for m, _ in results}
            assert len(tables) == 1
            assert sorted(m.seat for m, _ in results) == [0, 1, 2]
            assert all(m.seat_token == t for (m, _), t in zip(results, tokens, strict=True))
            assert all(m.bots == 0 and not m.rated for m, _ in results)
            table = (await s.tables.GetTable(pb.GetTableRequest(table_id=tables.pop()))).table
            assert table.status == pb.TABLE_STATUS_PLAYING
            assert table.time_control.per_move.seconds == 60 and table.time_control.bank.seconds == 180
            for m, _ in results:  # each token is its seat's
                stream = s.tables.StreamEvents(
                    pb.StreamEventsRequest(table_id=table.table_id), metadata=token_md(m.seat_token)
                )
                first = await next_update(stream)
                assert first.HasField("snapshot")
                assert first.snapshot.view.thousand.viewer == m.seat
                stream.cancel()
            assert queued(s) == 0

    run(scenario())


def test_a_lone_player_who_allows_bots_gets_a_table_after_the_wait(tmp_path: Path) -> None:
    """A guest asking for a rated game is seated with two bots after its 2 s, and is told it is unrated."""

    async def scenario() -> None:
        async with served(tmp_path) as s:
            guest = await s.players.CreateGuest(player_pb.CreateGuestRequest(display_name="Ann"))
            started = asyncio.get_running_loop().time()
            call = stub(s).QuickPlay(
                ask(bots_may_fill=True, max_wait=2, rated=True), metadata=bearer(guest.player_token)
            )
            match, waits = await matched(call)
            elapsed = asyncio.get_running_loop().time() - started
            assert 2.0 <= elapsed < 6.0
            assert waits >= 1
            assert match.bots == 2 and not match.rated
            assert match.note == "2 bots fill the empty seats; the game is unrated"
            seats = match.table.seats
            assert [s.kind for s in seats].count(pb.SEAT_KIND_BOT) == 2
            assert seats[match.seat].player_name == "Ann"
            assert all(seat.strategy == "greedy" for seat in seats if seat.kind == pb.SEAT_KIND_BOT)
            games = await s.players.ListMyGames(
                player_pb.ListMyGamesRequest(), metadata=bearer(guest.player_token)
            )
            assert [g.table_id for g in games.games] == [match.table.table_id]

    run(scenario())


def test_without_bots_a_player_waits_sees_the_queue_and_can_cancel(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            matchmaking = stub(s)
            first = matchmaking.QuickPlay(ask(max_wait=30))
            update = await next_update(first)
            assert update.waiting.players_waiting == 1 and update.waiting.players_needed == 3
            second = matchmaking.QuickPlay(ask(max_wait=30))
            assert (await next_update(second)).waiting.players_waiting >= 1
            while (await next_update(second)).waiting.players_waiting != 2:
                pass
            assert queued(s) == 2
            first.cancel()  # closing the stream leaves the queue
            while (await next_update(second)).waiting.players_waiting != 1:
                pass
            assert queued(s) == 1
            second.cancel()
            for _ in range(50):
                if queued(s) == 0:
                    break
                await asyncio.sleep(0.1)
            assert queued(s) == 0

    run(scenario())


def test_without_bots_the_wait_ends_with_no_match(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            with pytest.raises(aio.AioRpcError) as raised:
                async for _ in stub(s).QuickPlay(ask(max_wait=1)):
                    pass
            assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert error_info(raised.value).reason == "QUICKPLAY_NO_MATCH"
            assert queued(s) == 0

    run(scenario())


def test_bad_requests_are_refused_with_their_field(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            matchmaking = stub(s)
            cases = [
                (ask(preset="speedy"), "QUICKPLAY_UNKNOWN_PRESET", "preset"),
                (ask(rated=True), "INVALID_ARGUMENT", "rated"),  # anonymous
                (ask(max_wait=601), "INVALID_ARGUMENT", "max_wait"),
                (ask(token="short"), "INVALID_ARGUMENT", "seat_token"),
                (mm.QuickPlayRequest(game=pb.GAME_KIND_THOUSAND, players=9), "INVALID_RULES", "players"),
                (mm.QuickPlayRequest(players=3), "INVALID_ARGUMENT", "game"),
            ]
            for request, reason, field in cases:
                with pytest.raises(aio.AioRpcError) as raised:
                    async for _ in matchmaking.QuickPlay(request):
                        pass
                info = error_info(raised.value)
                assert (info.reason, info.metadata["field"]) == (reason, field), request
            token = secrets.token_urlsafe(32)
            waiting = matchmaking.QuickPlay(ask(token, max_wait=30))
            await next_update(waiting)
            with pytest.raises(aio.AioRpcError) as raised:  # the same token for another game
                async for _ in matchmaking.QuickPlay(ask(token, max_wait=30, preset="dark")):
                    pass
            assert error_info(raised.value).reason == "QUICKPLAY_TICKET_MISMATCH"
            waiting.cancel()
            guest = await s.players.CreateGuest(player_pb.CreateGuestRequest(display_name="Bo"))
            mine = matchmaking.QuickPlay(ask(max_wait=30), metadata=bearer(guest.player_token))
            await next_update(mine)
            with pytest.raises(aio.AioRpcError) as raised:  # one place per player
                async for _ in matchmaking.QuickPlay(ask(max_wait=30), metadata=bearer(guest.player_token)):
                    pass
            assert error_info(raised.value).reason == "QUICKPLAY_ALREADY_WAITING"
            mine.cancel()

    run(scenario())


async def finished_table(s: Served) -> list[mm.QuickPlayMatch]:
    """Three players seated by quick play at a table the operator then closes (finished)."""
    matchmaking = stub(s)
    results = await asyncio.gather(*(matched(matchmaking.QuickPlay(ask())) for _ in range(3)))
    table_id = results[0][0].table.table_id
    await s.admin.CloseTable(
        admin_pb.CloseTableRequest(table_id=table_id, reason="rematch test"), metadata=bearer(ADMIN_TOKEN)
    )
    return [m for m, _ in results]


def test_a_rematch_seats_everyone_again_when_all_accept(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            old = await finished_table(s)
            matchmaking = stub(s)

            def accept(m: mm.QuickPlayMatch) -> Any:
                return matchmaking.Rematch(
                    mm.RematchRequest(table_id=m.table.table_id, accept=True), metadata=token_md(m.seat_token)
                )

            calls = [accept(old[0])]
            first = await next_update(calls[0])
            assert first.waiting.seats_needed == 3
            assert list(first.waiting.accepted_seats) == [old[0].seat]
            calls += [accept(m) for m in old[1:]]

            async def last(call: Any) -> mm.QuickPlayMatch:
                while True:
                    update = await call.read()
                    assert update is not aio.EOF, "no rematch"
                    if update.HasField("matched"):
                        return update.matched  # type: ignore[no-any-return]

            new = await asyncio.gather(*(last(c) for c in calls))
            assert len({m.table.table_id for m in new}) == 1
            assert new[0].table.table_id != old[0].table.table_id
            assert [m.seat for m in new] == [m.seat for m in old]
            table = (await s.tables.GetTable(pb.GetTableRequest(table_id=new[0].table.table_id))).table
            assert table.status == pb.TABLE_STATUS_PLAYING
            assert [seat.player_name for seat in table.seats] == [
                seat.player_name for seat in old[0].table.seats
            ]

    run(scenario())


def test_a_declined_rematch_ends_everyone_s_wait(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            old = await finished_table(s)
            matchmaking = stub(s)
            table_id = old[0].table.table_id
            waiting = matchmaking.Rematch(
                mm.RematchRequest(table_id=table_id, accept=True), metadata=token_md(old[0].seat_token)
            )
            assert (await next_update(waiting)).waiting.accepted_seats == [old[0].seat]
            with pytest.raises(aio.AioRpcError) as declined:
                async for _ in matchmaking.Rematch(
                    mm.RematchRequest(table_id=table_id, accept=False), metadata=token_md(old[1].seat_token)
                ):
                    pass
            assert error_info(declined.value).reason == "REMATCH_DECLINED"
            with pytest.raises(aio.AioRpcError) as ended:
                while True:
                    await next_update(waiting)
            assert error_info(ended.value).reason == "REMATCH_DECLINED"
            assert error_info(ended.value).metadata["why"] == "declined"
            with pytest.raises(aio.AioRpcError) as stranger:
                async for _ in matchmaking.Rematch(
                    mm.RematchRequest(table_id=table_id, accept=True), metadata=token_md("x" * 40)
                ):
                    pass
            assert error_info(stranger.value).reason == "SEAT_TOKEN_INVALID"

    run(scenario())


def test_the_metrics_count_waiting_players_matches_bot_fills_and_waits(tmp_path: Path) -> None:
    def scrape(port: int) -> dict[str, float]:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as page:
            lines = page.read().decode().splitlines()
        return {
            line.split()[0]: float(line.split()[1])
            for line in lines
            if line.startswith("thousand_quickplay_")
        }

    async def scenario() -> None:
        async with served(tmp_path, server_settings={"metrics_port": free_port()}) as s:
            port = s.server.metrics_port
            waiting = stub(s).QuickPlay(ask(max_wait=30))
            await next_update(waiting)
            for _ in range(50):
                if scrape(port)["thousand_quickplay_players_waiting"] == 1:
                    break
                await asyncio.sleep(0.1)
            assert scrape(port)["thousand_quickplay_players_waiting"] == 1
            waiting.cancel()
            await matched(stub(s).QuickPlay(ask(bots_may_fill=True, max_wait=1)))
            figures = scrape(port)
            assert figures["thousand_quickplay_matches_total"] == 1
            assert figures["thousand_quickplay_bot_fills_total"] == 1
            assert figures["thousand_quickplay_wait_seconds_count"] == 1
            assert 1.0 <= figures["thousand_quickplay_wait_seconds_sum"] < 5.0

    run(scenario())


def test_browsers_wait_in_the_same_queue_over_connect_and_grpc_web(tmp_path: Path) -> None:
    """The web port serves QuickPlay (Connect JSON, gRPC-Web binary): with a gRPC client, three players at
    one table (T-1)."""

    async def over_web(url: str, json: bool) -> mm.QuickPlayMatch:
        codec: Any = google_protobuf_json_codec() if json else google_protobuf_binary_codec()
        protocol = ProtocolType.CONNECT if json else ProtocolType.GRPC_WEB
        async with mm_connect.MatchmakingServiceClient(url, protocol=protocol, codec=codec) as client:
            async for update in client.quick_play(ask(max_wait=30)):
                if update.HasField("matched"):
                    return update.matched
        raise AssertionError("no match over the web port")

    async def scenario() -> None:
        async with served(tmp_path, server_settings={"web_port": free_port()}) as s:
            url = f"http://127.0.0.1:{s.server.web_port}"
            results = await asyncio.gather(
                over_web(url, json=True), over_web(url, json=False), matched(stub(s).QuickPlay(ask()))
            )
            web_json, web_binary, (grpc_match, _) = results
            assert web_json.table.table_id == web_binary.table.table_id == grpc_match.table.table_id
            assert sorted(m.seat for m in (web_json, web_binary, grpc_match)) == [0, 1, 2]

    run(scenario())


def test_signed_in_players_asking_for_a_rated_game_sit_at_a_rated_table(tmp_path: Path) -> None:
    """Two guests ask for rated 2-player Thousand (T-1): grouped (new players, ordinal 0 each, within the
    window of 3), seated at a rated table, their seats theirs."""

    async def scenario() -> None:
        async with served(tmp_path) as s:
            guests = [
                await s.players.CreateGuest(player_pb.CreateGuestRequest(display_name=n))
                for n in ("Ann", "Bob")
            ]
            results = await asyncio.gather(
                *(
                    matched(stub(s).QuickPlay(ask(players=2, rated=True), metadata=bearer(g.player_token)))
                    for g in guests
                )
            )
            (first, _), (second, _) = results
            assert first.table.table_id == second.table.table_id
            assert first.rated and first.note == "rated game"
            table = (await s.tables.GetTable(pb.GetTableRequest(table_id=first.table.table_id))).table
            assert table.rated and table.status == pb.TABLE_STATUS_PLAYING
            assert sorted(seat.player_name for seat in table.seats) == ["Ann", "Bob"]

    run(scenario())


def test_a_preset_and_the_same_exact_rules_are_one_pool_and_other_rules_another(tmp_path: Path) -> None:
    """The "standard" preset and exact rules equal to the defaults (T-1, two players) meet; a player asking
    for the golden preset waits apart."""

    async def scenario() -> None:
        async with served(tmp_path) as s:
            matchmaking = stub(s)
            golden = matchmaking.QuickPlay(ask(players=2, preset="golden", max_wait=30))
            assert (await next_update(golden)).waiting.players_waiting == 1
            exact = ask(players=2)
            exact.rules.thousand.players = 2
            results = await asyncio.gather(
                matched(matchmaking.QuickPlay(ask(players=2, preset="standard"))),
                matched(matchmaking.QuickPlay(exact)),
            )
            assert results[0][0].table.table_id == results[1][0].table.table_id
            assert (await next_update(golden)).waiting.players_waiting == 1  # still alone in its pool
            assert queued(s) == 1
            golden.cancel()

    run(scenario())
