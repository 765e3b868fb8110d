"""A player's "my games" page (PlayerService.ListMyGames), timed against the way it was read before.

Usage::

    python bench/my_games.py [--tables 20] [--moves 300] [--calls 30]

A SQLite store (a file, as ``--db`` keeps it) holds ``--tables`` games under way, ``--moves`` bot moves each
(a Thousand deal is about 25), all of them seats of one guest player. Each call reads the page of 20 newest
games, as the server's PlayerService does, two ways in the same run:

- **now** (:func:`server.identity.history.games_page`): the players' store's index of the player's seats,
  and one query of the tables' store for their finish times; a game under way costs nothing more;
- **before** (the reference, kept here as it was): the same index, then every game without a kept result
  read whole from the tables' store (the table's row and all its records) to learn that it is still being
  played, on every call.

Printed: the milliseconds per call of each, and their ratio; the last line is one JSON object.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as ``python bench/my_games.py``: measure the working tree's packages, not bench/ shadowing them.
_BENCH_DIR = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH_DIR]
sys.path.insert(0, str(_BENCH_DIR.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import secrets  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import engine  # noqa: E402
from server.creations import SeatSpec  # noqa: E402
from server.identity.history import games_page  # noqa: E402
from server.identity.store import PlayerStore  # noqa: E402
from server.identity.stores import open_player_store  # noqa: E402
from server.identity.values import PlayerSeat, secret_hash  # noqa: E402
from server.registry import Registry  # noqa: E402
from server.store import Store  # noqa: E402
from server.store_select import open_store  # noqa: E402

PAGE = 20


def before(players: PlayerStore, tables: Store, player_id: str) -> list[tuple[str, bool]]:
    """The page as it was read before: each game without a kept result read whole to see if it ended."""
    page = []
    for seat in players.seats(player_id, PAGE + 1)[:PAGE]:
        playing = True
        if seat.result is None:
            stored = tables.get(seat.table_id)
            playing = stored is not None and stored.finish_time is None
        page.append((seat.table_id, playing))
    return page


async def build(db: str, tables: int, moves: int) -> tuple[str, int]:
    """The games under way and the player's seats at them; the player's id and the records stored."""
    store = open_store(db)
    players = open_player_store(db)
    try:
        registry = Registry(store)
        player = players.create_guest("bench", "en", secret_hash(secrets.token_urlsafe(32)))
        records = 0
        for number in range(tables):
            seats = [SeatSpec(bot=True, strategy="greedy") for _ in range(3)]
            table = await registry.create(engine.Rules(), seats, 1_000 + number, 0)
            for _ in range(moves):
                seat = table.core.bot_to_act()
                if seat is None:
                    break
                await table.move_bot(seat)
            records += len(table.core.log)
            token_hash = secret_hash(secrets.token_urlsafe(32))
            players.add_seat(
                PlayerSeat(player.player_id, table.table_id, 0, token_hash, time.time(), "thousand")
            )
        return player.player_id, records
    finally:
        store.close()
        players.close()


def per_call(read: Callable[[], object], calls: int) -> float:
    """Milliseconds per call, the best of three rounds of ``calls``."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(calls):
            read()
        best = min(best, (time.perf_counter() - started) / calls)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20, help="games under way, each a seat of the player")
    parser.add_argument("--moves", type=int, default=300, help="bot moves played at each table")
    parser.add_argument("--calls", type=int, default=30, help="pages read per round (best of 3 rounds)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        db = str(Path(directory) / "thousand.db")
        player_id, events = asyncio.run(build(db, args.tables, args.moves))
        tables, players = open_store(db), open_player_store(db)
        try:
            now_page, _ = games_page(players, tables, player_id, PAGE, "")
            old_page = before(players, tables, player_id)
            assert [g.table_id for g in now_page] == [t for t, _ in old_page]  # the same page both ways
            now_ms = per_call(lambda: games_page(players, tables, player_id, PAGE, ""), args.calls)
            before_ms = per_call(lambda: before(players, tables, player_id), args.calls)
        finally:
            tables.close()
            players.close()
    print(f"{args.tables} games under way, {events} events in all ({args.moves} bot moves a table)")
    print(f"my games, before (each game's records read on every call): {before_ms:.2f} ms a page")
    print(f"my games, now (the finish times in one query):               {now_ms:.2f} ms a page")
    print(f"now takes {now_ms / before_ms:.3f} of the time before ({before_ms / now_ms:.1f} times faster)")
    figures = {
        "tables": args.tables,
        "moves": args.moves,
        "events": events,
        "before_ms": round(before_ms, 3),
        "now_ms": round(now_ms, 3),
        "ratio": round(now_ms / before_ms, 4),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
