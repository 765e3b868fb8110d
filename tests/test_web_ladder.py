"""The web client's Bots page (issue 27), in Chromium: clients/web/test/browser/bots.test.ts against a real
``thousand-server --web-port --ladder`` whose ladder has played real sets.

Before the browser comes, two registered bots of two owners (guests Ann and Bob) connect with the SDK's
ladder loop (``clients.bots.ladder.run_ladder``, what ``thousand-bot ladder`` runs) for Thousand and 1000
Blagogo, and the server schedules them with its reference bots at a short fixed clock, until both games' pools
have rated sets with registered and reference bots; the bots then leave, so that the standings the browser
test compares with stay as they are. The screenshots go to ``artifacts/web/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

from grpc import aio

from bots.registry import make_blagogo_strategy, make_strategy
from clients.bots.ladder import run_ladder
from clients.bots.sdk import AnyStrategy
from clients.connection import Connection
from scripts.ports import free_port
from tests.identity_harness import bearer
from tests.live_server import LiveServer, live_server
from tests.ratings_harness import guests
from tests.test_web_client import CHROMIUM, run_node_test, wait_listening
from tests.web_build import WEB, built
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import ladder_service_pb2_grpc as ladder_grpc
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as table_grpc

LADDER = (
    "--ladder",
    "--ladder-per-move",
    "0.1",
    "--ladder-references",
    "thousand=random,greedy blagogo=random,heuristic",
    "--ladder-reference-sets",
    "0",
    "--ladder-seed",
    "1",
    # A set's game among random and greedy bots sometimes runs to many thousands of moves; under load one such
    # table outlasted settled()'s four minutes in a clean run. At this limit the ladder voids that set (as it
    # does any bots' table stopped at the limit) and the page still gets rated sets of both games.
    "--bot-table-max-moves",
    "4000",
)
BOTS = {"Alpha": "Ann", "Gamma": "Bob"}


@contextlib.contextmanager
def ladder_server(directory: Path, port: int) -> Iterator[LiveServer]:
    """A server with the ladder and the built client on its web port ``port``, once it listens. Its store is a
    file: the ladder rates on a connection of its own, which an in-memory SQLite database would not share
    (``:memory:`` with ``--ladder``: "no such table: ratings", every set left unrated)."""
    built()
    web = ("--web-port", str(port), "--web-root", str(WEB / "dist"), "--guests-per-hour", "0")
    with live_server(directory, str(directory / "thousand.db"), *web, *LADDER) as server:
        wait_listening(server, port)
        yield server


def strategy(game: str) -> AnyStrategy:
    return make_blagogo_strategy("heuristic") if game == "blagogo" else make_strategy("greedy")


def mixed(pool: ladder_pb.GetLadderStandingsResponse) -> bool:
    """Whether a pool's standings hold a reference bot and at least two registered ones."""
    return any(s.reference for s in pool.standings) and sum(not s.reference for s in pool.standings) >= 2


async def ladder_sets(address: str) -> None:
    """The registered bots on the ladder until both games' standings hold registered and reference bots."""
    owners = dict(zip(("Ann", "Bob"), await guests(address, "Ann", "Bob"), strict=True))
    async with aio.insecure_channel(address) as channel:
        ladder = ladder_grpc.LadderServiceStub(channel)
        keys = []
        for name, owner in BOTS.items():
            request = ladder_pb.RegisterBotRequest(display_name=name)
            keys.append((await ladder.RegisterBot(request, metadata=bearer(owners[owner].player_token))).key)
        playing = [
            asyncio.create_task(
                run_ladder(Connection(address), key, strategy, ["thousand", "blagogo"], say=lambda _: None)
            )
            for key in keys
        ]
        try:
            deadline = time.monotonic() + 240
            while True:
                assert time.monotonic() < deadline, "the ladder did not play sets of both games in time"
                await asyncio.sleep(1)
                pools = [
                    await ladder.GetLadderStandings(ladder_pb.GetLadderStandingsRequest(game=game, players=3))
                    for game in (pb.GAME_KIND_THOUSAND, pb.GAME_KIND_BLAGOGO)
                ]
                if all(map(mixed, pools)):
                    break
        finally:
            for task in playing:
                task.cancel()
            for task in playing:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        # A set under way when the bots left goes on (the server's bot plays their seats) and is rated at its
        # end: wait until no set is still playing, so the standings hold still for the browser.
        await settled(ladder, table_grpc.TableServiceStub(channel))


async def settled(
    ladder: ladder_grpc.LadderServiceAsyncStub, tables: table_grpc.TableServiceAsyncStub
) -> None:
    """Until every set begun is over and rated: no registered bot shown connected any more (the scheduler
    starts sets only with bots it sees connected, and a bot's presence outlives its stream by up to the
    ladder's FRESH_SECONDS: a set started then was rated while the browser read the page), no table of the
    server still playing, and the standings of both games the same in two looks (a quiet spell alone is no
    proof: under load one set's tables can take longer than any fixed pause, and a set rated while the browser
    reads the page fails its comparison)."""
    last, why = None, ""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        pools = [
            await ladder.GetLadderStandings(ladder_pb.GetLadderStandingsRequest(game=game, players=3))
            for game in (pb.GAME_KIND_THOUSAND, pb.GAME_KIND_BLAGOGO)
        ]
        now = [pool.SerializeToString(deterministic=True) for pool in pools]
        gone = not any(s.connected for pool in pools for s in pool.standings if not s.reference)
        still = await playing(tables)
        if now == last and gone and not still:
            return
        last, why = now, f"registered bots shown connected: {not gone}, tables playing: {still}"
        await asyncio.sleep(2)
    raise AssertionError(f"the ladder's standings kept changing after the bots left ({why})")


async def playing(tables: table_grpc.TableServiceAsyncStub) -> int:
    """How many of the server's tables are not over yet (every page of ListTables)."""
    count, token = 0, ""
    while True:
        page = await tables.ListTables(pb.ListTablesRequest(page_size=100, page_token=token))
        count += sum(t.status != pb.TABLE_STATUS_FINISHED for t in page.tables)
        token = page.next_page_token
        if not token:
            return count


def test_the_bots_page_shows_a_real_ladder_in_chromium(tmp_path: Path) -> None:
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: apt-get install chromium"
    port = free_port()
    with ladder_server(tmp_path, port) as server:
        asyncio.run(ladder_sets(server.address))
        run_node_test(
            WEB / "build" / "test" / "browser" / "bots.test.mjs",
            f"http://127.0.0.1:{port}",
            timeout=300,
            env={"BOT_OWNERS": ",".join(sorted(set(BOTS.values())))},
        )
