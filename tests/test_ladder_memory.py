"""The bots' ladder (issue 27) on a ``thousand-server --db :memory:`` process: its sets are rated.

The quick-play queue's store, whose connection the ladder's rows use, opened a SQLite ``:memory:`` database
of its own, so the ladder's ratings went to a database without the ratings' tables ("the ladder waits for
the database: no such table: ratings") and no set was ever rated. An in-memory server keeps one database.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from grpc import aio

from tests.live_server import live_server
from tests.server_harness import run
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import ladder_service_pb2_grpc as ladder_grpc
from thousand.v1 import table_service_pb2 as pb


def test_an_in_memory_server_rates_its_ladder_sets(tmp_path: Path) -> None:
    """Issue 27: a server process with ``--db :memory:`` and ``--ladder`` plays a set of its reference bots
    and rates it: the standings show every reference bot with one set of three games, and the log has no
    "waits for the database"."""
    flags = (
        *("--ladder", "--ladder-per-move", "0.5", "--ladder-reference-sets", "1"),
        *("--ladder-references", "thousand=random,greedy,heuristic", "--ladder-seed", "1"),
    )
    with live_server(tmp_path, ":memory:", *flags) as server:

        async def standings() -> dict[str, ladder_pb.LadderStanding]:
            async with aio.insecure_channel(server.address) as channel:
                ladder = ladder_grpc.LadderServiceStub(channel)
                request = ladder_pb.GetLadderStandingsRequest(game=pb.GAME_KIND_THOUSAND, players=3)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    rows = {r.display_name: r for r in (await ladder.GetLadderStandings(request)).standings}
                    if rows and all(r.sets >= 1 for r in rows.values()):
                        return rows
                    await asyncio.sleep(0.2)
            raise AssertionError(f"no ladder set rated within 60 s:\n{server.log.read_text()[-3000:]}")

        rows = run(standings())
        assert set(rows) == {"random", "greedy", "heuristic"}
        assert all(r.reference and r.games == 3 for r in rows.values())
    assert "waits for the database" not in server.log.read_text()
