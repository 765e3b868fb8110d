"""Issue 26, quick play's rating window end to end: two signed-in players whose ratings are apart meet only
once their windows have widened enough (server.matchmaking.matching: a window starts at WINDOW_START
ordinal points and widens by WINDOW_GROWTH a second of waiting). Their ratings come from a real rated game
they played against each other (bots of the SDK playing as them); then both ask for rated 2-player
Thousand at once and the time they met is printed beside the time the window rule predicts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from server.matchmaking.matching import WINDOW_GROWTH, WINDOW_START
from tests.identity_harness import bearer, served
from tests.ratings_harness import finished, guests, play_as, rated_request
from tests.server_harness import run
from tests.test_quickplay import ask, matched, stub
from thousand.v1 import table_service_pb2 as pb


def test_players_whose_ratings_are_apart_meet_once_the_window_has_widened(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            ann, bob = await guests(address, "Ann", "Bob")
            table = (await s.tables.CreateTable(rated_request(2))).table
            results = await play_as(address, table.table_id, [ann.player_token, bob.player_token])
            assert all(r.finished for r in results)
            done = await finished(s.tables, table.table_id)
            assert done.rated and done.status == pb.TABLE_STATUS_FINISHED

            reader = s.server.rating_reader
            ordinals = [
                await asyncio.to_thread(reader.ordinal, "thousand", 2, g.player.player_id) for g in (ann, bob)
            ]
            assert None not in ordinals, ordinals
            apart = abs(float(ordinals[0]) - float(ordinals[1]))  # type: ignore[arg-type]
            assert apart > WINDOW_START + 1, f"ratings {ordinals} too close to need a wider window"
            predicted = (apart - WINDOW_START) / WINDOW_GROWTH

            asked = time.monotonic()
            calls = [
                stub(s).QuickPlay(
                    ask(players=2, rated=True, bots_may_fill=False, max_wait=300),
                    metadata=bearer(g.player_token),
                )
                for g in (ann, bob)
            ]
            (first, waits), (second, _) = await asyncio.gather(*(matched(c) for c in calls))
            met = time.monotonic() - asked
            print(
                f"ordinals {ordinals[0]:.2f} and {ordinals[1]:.2f} ({apart:.2f} apart): met after"
                f" {met:.1f} s, the window rule says {predicted:.1f} s; {waits} waiting updates"
            )
            assert first.table.table_id == second.table.table_id and first.rated
            assert met >= predicted - 1.0, "they met before their windows could hold both"
            assert met <= predicted + 10.0, "they waited well past the time their windows met"
            rematched = (await s.tables.GetTable(pb.GetTableRequest(table_id=first.table.table_id))).table
            assert rematched.rated and sorted(seat.player_name for seat in rematched.seats) == ["Ann", "Bob"]

    run(scenario())
