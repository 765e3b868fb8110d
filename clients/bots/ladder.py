"""``thousand-bot ladder``: a bot on the server's ladder, connected until stopped; and ``--standings``.

The bot keeps its JoinLadder stream open (connecting again after a drop, with a pause that grows to a few
seconds) and plays every seat the stream assigns it with :func:`~clients.bots.sdk.run_bot`, its key as the
seat token, a new strategy object per table (the sets' tables play at once). When a set is over the stream
says its standings, and the bot prints them.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Final

from grpc import aio

from clients.bots.sdk import AnyStrategy, run_bot
from clients.connection import Connection
from clients.errors import ServerError
from clients.games import game_of
from clients.ladder import LadderClient
from clients.logins import LoginKeeper
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import table_service_pb2 as pb

RETRY_SECONDS: Final = 0.5
RETRY_MAX_SECONDS: Final = 5.0
GAME_KINDS: Final = {"thousand": pb.GAME_KIND_THOUSAND, "blagogo": pb.GAME_KIND_BLAGOGO}
Say = Callable[[str], None]


async def run_ladder(
    connection: Connection,
    key: str,
    strategy: Callable[[str], AnyStrategy],
    games: list[str],
    *,
    say: Say,
    as_json: bool = False,
    max_sets: int = 0,
    watch: Callable[[ladder_pb.JoinLadderResponse], None] | None = None,
) -> int:
    """Stay on the ladder, playing every seat assigned; ``strategy(game)`` makes a strategy for a table of
    that game. Returns after ``max_sets`` finished sets (0: never, until cancelled). ``watch`` sees every
    message of the stream first (a program following its bot's sets)."""
    connection = replace(connection, credential=key)
    seats: set[asyncio.Task[None]] = set()
    finished = 0
    pause = RETRY_SECONDS
    async with LadderClient(connection) as ladder:
        while True:
            try:
                async for message in ladder.join([GAME_KINDS[g] for g in games]):
                    pause = RETRY_SECONDS
                    if watch is not None:
                        watch(message)
                    kind = message.WhichOneof("kind")
                    if kind == "welcome":
                        pools = ", ".join(p.pool_id for p in message.welcome.pools)
                        per_move = message.welcome.per_move.ToMilliseconds() / 1000
                        name = message.welcome.display_name
                        say(f"on the ladder as {name} ({pools}; {per_move:g} s a move)")
                    elif kind == "assignment":
                        task = asyncio.create_task(_play(connection, key, strategy, message.assignment, say))
                        seats.add(task)
                        task.add_done_callback(seats.discard)
                    elif kind == "set_finished":
                        _print_set(message.set_finished, say, as_json)
                        finished += 1
                        if max_sets and finished >= max_sets:
                            for task in seats:
                                task.cancel()
                            return 0
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
                if not error.retryable:
                    say(f"the ladder refused: {error.reason}: {error.message}")
                    return 2
                say(f"connection lost ({error.message}); connecting again in {pause:.1f} s")
            await asyncio.sleep(pause)
            pause = min(pause * 2, RETRY_MAX_SECONDS)


async def _play(
    connection: Connection,
    key: str,
    strategy: Callable[[str], AnyStrategy],
    assignment: ladder_pb.LadderAssignment,
    say: Say,
) -> None:
    game = game_of(assignment.table).name
    table_id = assignment.table.table_id
    try:
        result = await run_bot(
            strategy(game),
            server=connection,
            table_id=table_id,
            seat=assignment.seat,
            seat_token=key,
            game=game,
            player_token=key,
        )
    except ServerError as error:
        say(f"table {table_id}: {error.reason}: {error.message}")
        return
    say(f"table {table_id} (set {assignment.set_id}, rotation {assignment.rotation}): over after "
        f"{result.decisions} decisions")  # fmt: skip


def _print_set(found: ladder_pb.LadderSet, say: Say, as_json: bool) -> None:
    if as_json:
        print(json.dumps(set_json(found)), flush=True)
        return
    marks = " (a member disconnected)" if found.disconnected else ""
    say(f"set {found.set_id} over{marks}, tables {', '.join(t.table_id for t in found.tables)}:")
    for r in sorted(found.results, key=lambda r: r.rank):
        say(f"  {r.rank}. {r.display_name}: {r.total_score} points, {r.timeouts} timeouts,"
            f" rating {r.before.ordinal:.2f} -> {r.after.ordinal:.2f}")  # fmt: skip


def set_json(found: ladder_pb.LadderSet) -> dict[str, object]:
    return {
        "set_id": found.set_id,
        "pool": found.pool.pool_id,
        "tables": [t.table_id for t in found.tables],
        "disconnected": found.disconnected,
        "results": [
            {
                "member": r.member_id,
                "name": r.display_name,
                "total": r.total_score,
                "rank": r.rank,
                "timeouts": r.timeouts,
                "ordinal": r.after.ordinal,
            }
            for r in found.results
        ],
    }


async def print_standings(connection: Connection, game: str, as_json: bool) -> int:
    async with LadderClient(connection) as ladder:
        found = await ladder.standings(GAME_KINDS[game])
    rows = [
        {
            "place": s.place,
            "member": s.member_id,
            "name": s.display_name,
            "reference": s.reference,
            "owner": s.owner_name,
            "mu": round(s.rating.mu, 3),
            "low": round(s.interval_low, 3),
            "high": round(s.interval_high, 3),
            "ordinal": round(s.rating.ordinal, 3),
            "sets": s.sets,
            "games": s.games,
            "connected": s.connected,
            "last_sets": [
                {"set_id": r.set_id, "tables": [t.table_id for t in r.tables]} for r in s.recent_sets
            ],
        }
        for s in found.standings
    ]
    if as_json:
        print(json.dumps({"pool": found.pool.pool_id, "standings": rows}), flush=True)
        return 0
    print(f"{found.pool.pool_id}: {len(rows)} members")
    print(f"{'#':>3} {'name':<20} {'mu':>7} {'interval':>17} {'sets':>5} {'games':>6}  last set's tables")
    for row in rows:
        name = str(row["name"]) + ("*" if row["reference"] else "")
        last = row["last_sets"]
        tables = ", ".join(last[0]["tables"]) if isinstance(last, list) and last else ""
        print(f"{row['place']:>3} {name:<20} {row['mu']:>7.2f} [{row['low']:>6.2f}, {row['high']:>6.2f}]"
              f" {row['sets']:>5} {row['games']:>6}  {tables}")  # fmt: skip
    print("* a reference bot, run by the server; interval: mu - 2 sigma to mu + 2 sigma")
    return 0


async def register(connection: Connection, name: str, as_json: bool) -> int:
    """Register a bot of the signed-in player (``--player-token``, else ``thousand login``'s) and print its
    key, which the server shows this once."""
    if not connection.credential:
        kept = LoginKeeper().find(connection.key)
        if kept is None:
            print("thousand-bot: sign in first (thousand login), or give --player-token", file=sys.stderr)
            return 2
        connection = replace(connection, credential=kept.credential)
    async with LadderClient(connection) as ladder:
        made = await ladder.register_bot(name)
    if as_json:
        print(json.dumps({"bot_id": made.bot.player_id, "name": made.bot.display_name, "key": made.key}))
    else:
        print(f"bot {made.bot.display_name} registered: {made.bot.player_id}")
        print(f"its key (shown this once; keep it secret): {made.key}")
        print(f"connect it: thousand-bot ladder --key {made.key} --strategy NAME|path.py:Class")
    return 0
