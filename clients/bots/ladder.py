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
from clients.errors import ServerError, error_words
from clients.games import game_of
from clients.i18n import t
from clients.ladder import LadderClient
from clients.logins import LoginKeeper
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import table_service_pb2 as pb

RETRY_SECONDS: Final = 0.5
RETRY_MAX_SECONDS: Final = 5.0
GAME_KINDS: Final = {"thousand": pb.GAME_KIND_THOUSAND, "blagogo": pb.GAME_KIND_BLAGOGO}
REFERENCE_PREFIX: Final = "bot:"
"""A reference bot's member id is its strategy's name after this (the ladder's protocol)."""
Say = Callable[[str], None]


def member_name(member_id: str, display_name: str) -> str:
    """A ladder member's name as the web client's Bots page writes it (``memberName`` in
    clients/web/src/ui/bots.ts, with the same catalogue keys): a registered bot's own name, a reference bot's
    strategy in the language's words, as a bot, capitalised ("Search bot", "Поисковый бот")."""
    if not member_id.startswith(REFERENCE_PREFIX):
        return display_name or member_id
    strategy = member_id.removeprefix(REFERENCE_PREFIX) or display_name
    name = t("web.bots.reference_name", name=t("bot.strategy", strategy=strategy))
    return name[:1].upper() + name[1:]


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
                        say(t("bot.ladder_welcome", name=name, pools=pools, seconds=per_move))
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
                    say(t("bot.ladder_refused", error=error_words(error)))
                    return 2
                say(t("bot.ladder_retry", error=error_words(error), seconds=pause))
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
        say(t("bot.ladder_table_refused", table=table_id, error=error_words(error)))
        return
    say(t("bot.ladder_table_over", table=table_id, set=assignment.set_id, rotation=assignment.rotation,
          decisions=result.decisions))  # fmt: skip


def _print_set(found: ladder_pb.LadderSet, say: Say, as_json: bool) -> None:
    if as_json:
        print(json.dumps(set_json(found)), flush=True)
        return
    tables = ", ".join(table.table_id for table in found.tables)
    disconnected = "yes" if found.disconnected else "no"
    say(t("bot.ladder_set_over", set=found.set_id, disconnected=disconnected, tables=tables))
    for r in sorted(found.results, key=lambda r: r.rank):
        before, after = _decimal(r.before.ordinal), _decimal(r.after.ordinal)
        name = member_name(r.member_id, r.display_name)
        say(t("bot.ladder_set_row", rank=r.rank, name=name, points=r.total_score, timeouts=r.timeouts,
              before=before, after=after))  # fmt: skip


def _decimal(value: float) -> str:
    """A rating as the language writes a number, two decimals (12,35 in Russian and Polish)."""
    return t("bot.decimal", value=round(value, 2))


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
    print(t("bot.standings_title", pool=found.pool.pool_id, members=len(rows)))
    place, name, mu, interval, sets, games, last_tables = t("bot.standings_columns").split("|")
    print(f"{place:>3} {name:<20} {mu:>7} {interval:>17} {sets:>5} {games:>6}  {last_tables}")
    for row in rows:
        name = member_name(str(row["member"]), str(row["name"])) + ("*" if row["reference"] else "")
        last = row["last_sets"]
        tables = ", ".join(last[0]["tables"]) if isinstance(last, list) and last else ""
        mu_text, low, high = (_decimal(float(str(row[k]))) for k in ("mu", "low", "high"))
        print(f"{row['place']:>3} {name:<20} {mu_text:>7} [{low:>6}; {high:>6}]"
              f" {row['sets']:>5} {row['games']:>6}  {tables}")  # fmt: skip
    print(t("bot.standings_note"))
    return 0


async def register(connection: Connection, name: str, as_json: bool) -> int:
    """Register a bot of the signed-in player (``--player-token``, else ``thousand login``'s) and print its
    key, which the server shows this once."""
    if not connection.credential:
        kept = LoginKeeper().find(connection.key)
        if kept is None:
            print(t("bot.sign_in_first"), file=sys.stderr)
            return 2
        connection = replace(connection, credential=kept.credential)
    async with LadderClient(connection) as ladder:
        made = await ladder.register_bot(name)
    if as_json:
        print(json.dumps({"bot_id": made.bot.player_id, "name": made.bot.display_name, "key": made.key}))
    else:
        print(t("bot.registered", name=made.bot.display_name, id=made.bot.player_id))
        print(t("bot.registered_key", secret=made.key))
        print(t("bot.registered_connect", secret=made.key))
    return 0
