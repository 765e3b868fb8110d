"""``thousand``: the terminal client of the Thousand server, for people.

    thousand tables                      list the tables: id, players, seats, status, changed rules
    thousand new --bots 2 --dark         create a table with server-run bots, sit down and play
    thousand new --game blagogo --players 4 --bots 3 --target 500    the same at a 1000 Blagogo table
    thousand join TABLE [--seat N]       take a free seat at a table and play
    thousand watch TABLE                 follow a table as a spectator

Every command takes ``--server HOST:PORT`` (default 127.0.0.1:50051, or $THOUSAND_SERVER); ``new``, ``join``
and ``watch`` take ``--plain`` for the line mode (scripts, screen readers) instead of the full-screen UI.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import fields
from enum import Enum
from pathlib import Path
from typing import Any, Final, TextIO

from clients.cli.text import table_line
from clients.errors import ServerError
from clients.games import BLAGOGO, GameRules, table_rules
from clients.session import DEFAULT_SERVER, OPEN, TableSession
from engine import Rules, RulesError
from engine.blagogo import BlagogoRules

GAMES: Final = ("thousand", "blagogo")
STRATEGIES: Final = ("random", "greedy")
"""Server-side bot strategies known today; any other name is passed through to the server as it is."""
DEFAULT_STRATEGY: Final = {"thousand": "greedy", "blagogo": "random"}
EXIT_ERROR: Final = 1
EXIT_USAGE: Final = 2


def _rule_fields(game: str = "thousand") -> list[tuple[str, Any]]:
    """(name, default) of every rules field of the game but ``players`` (which ``--players`` sets)."""
    kind: type[Rules] | type[BlagogoRules] = BlagogoRules if game == "blagogo" else Rules
    defaults = kind()
    return [(f.name, getattr(defaults, f.name)) for f in fields(kind) if f.name != "players"]


def _dest(game: str, name: str) -> str:
    return f"{'brule' if game == 'blagogo' else 'rule'}_{name}"


def _add_rule_options(parser: argparse.ArgumentParser, game: str = "thousand") -> None:
    title = "1000 Blagogo rules (with --game blagogo)" if game == "blagogo" else "Thousand rules"
    group = parser.add_argument_group(f"{title}: every variant of the specification; unset means its default")
    for name, default in _rule_fields(game):
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            group.add_argument(
                flag, dest=_dest(game, name), action=argparse.BooleanOptionalAction, default=None,
                help=f"default: {'on' if default else 'off'}",
            )  # fmt: skip
        elif isinstance(default, Enum):
            group.add_argument(
                flag, dest=_dest(game, name), choices=[m.value for m in type(default)], default=None,
                help=f"default: {default.value}",
            )  # fmt: skip
        else:
            group.add_argument(
                flag, dest=_dest(game, name), type=int, metavar="N", default=None, help=f"default: {default}"
            )


def _chosen(args: argparse.Namespace, game: str) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for name, default in _rule_fields(game):
        value = getattr(args, _dest(game, name), None)
        if value is None:
            continue
        chosen[name] = type(default)(value) if isinstance(default, Enum) else value
    return chosen


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The Thousand Rules the options ask for; RulesError names the first impossible one."""
    return Rules(players=args.players, **_chosen(args, "thousand"))


def blagogo_rules_from_args(args: argparse.Namespace) -> BlagogoRules:
    """The 1000 Blagogo rules the options ask for; RulesError names the first impossible one."""
    return BlagogoRules(players=args.players, **_chosen(args, "blagogo"))


def game_rules_from_args(args: argparse.Namespace) -> GameRules:
    """The rules of ``--game``; RulesError for an impossible one, or for an option of the other game."""
    game = getattr(args, "game", "thousand")
    other = "thousand" if game == "blagogo" else "blagogo"
    for name in _chosen(args, other):
        flag = "--" + name.replace("_", "-")
        raise RulesError(name, f"{flag} is a rule of {other}, not of {game}")
    return blagogo_rules_from_args(args) if game == "blagogo" else rules_from_args(args)


def build_parser() -> argparse.ArgumentParser:
    server = argparse.ArgumentParser(add_help=False)
    server.add_argument(
        "--server",
        metavar="HOST:PORT",
        default=os.environ.get("THOUSAND_SERVER", DEFAULT_SERVER),
        help=f"the game server (default {DEFAULT_SERVER}, or $THOUSAND_SERVER)",
    )
    play = argparse.ArgumentParser(add_help=False)
    play.add_argument("--plain", action="store_true", help="line mode for scripts and screen readers")

    parser = argparse.ArgumentParser(
        prog="thousand",
        description="Play Thousand on a game server: list tables, start one with bots, join, or watch.",
        parents=[server],
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tables = commands.add_parser("tables", parents=[server], help="list the tables")
    tables.add_argument("--open", action="store_true", help="only tables with a free seat")
    tables.add_argument("--limit", type=int, default=50, help="at most this many tables (default 50)")

    new = commands.add_parser(
        "new", parents=[server, play], help="create a table with bots, sit down and play"
    )
    new.add_argument("--game", choices=GAMES, default="thousand", help="default thousand")
    new.add_argument(
        "--players", type=int, default=3, choices=range(2, 9), metavar="N",
        help="Thousand 2 to 4, 1000 Blagogo 2 to 8 (default 3)",
    )  # fmt: skip
    new.add_argument("--bots", type=int, default=None, help="server-run bot seats (default: all but yours)")
    new.add_argument(
        "--strategy",
        default=None,
        help=f"the bots' strategy: {', '.join(STRATEGIES)} or any other the server knows "
        "(default: greedy for Thousand, random for 1000 Blagogo)",
    )
    new.add_argument(
        "--seed",
        type=int,
        default=None,
        help="a practice table dealt from this seed, marked seeded for everyone: whoever knows it knows"
        " every card (default: fair deals)",
    )
    new.add_argument(
        "--first-dealer", type=int, default=None, help="the first dealer's seat (default: drawn)"
    )
    new.add_argument("--name", default=_default_name(), help="your name at the table")
    _add_rule_options(new)
    _add_rule_options(new, "blagogo")

    join = commands.add_parser("join", parents=[server, play], help="take a seat at a table and play")
    join.add_argument("table", help="the table's id (see `thousand tables`)")
    join.add_argument("--seat", type=int, default=None, help="the seat to take (default: any free seat)")
    join.add_argument("--name", default=_default_name(), help="your name at the table")

    watch = commands.add_parser("watch", parents=[server, play], help="follow a table as a spectator")
    watch.add_argument("table", help="the table's id (see `thousand tables`)")

    export = commands.add_parser(
        "export",
        parents=[server],
        help="write a finished table's game record (JSON) that replays exactly",
        description="Write a finished table's game record (the JSON format of docs/protocol.md), fetched "
        "from the server (ExportTable). An operator can also read it from the server's database file with "
        "thousand-export, unfinished tables included.",
    )
    export.add_argument("table", help="the table's id (see `thousand tables`)")
    export.add_argument("--out", default="-", help="file to write ('-': standard output, the default)")
    return parser


def _default_name() -> str:
    return os.environ.get("USER") or os.environ.get("USERNAME") or "player"


# --------------------------------------------------------------------------------------------------- commands


async def list_tables(args: argparse.Namespace, stdout: TextIO) -> int:
    async with TableSession(args.server) as session:
        tables = await session.list_tables(only_open_seats=args.open, limit=args.limit)
    if not tables:
        print("No tables. Start one with: thousand new", file=stdout)
    for table in tables:
        print(table_line(table, table_rules(table)), file=stdout)
    return 0


async def new_table(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    try:
        rules = game_rules_from_args(args)
    except RulesError as error:
        print(f"thousand new: impossible rules: {error}", file=sys.stderr)
        return EXIT_USAGE
    bots = rules.players - 1 if args.bots is None else args.bots
    if not 0 <= bots < rules.players:
        print(f"thousand new: --bots must be 0 to {rules.players - 1}: one seat is yours", file=sys.stderr)
        return EXIT_USAGE
    strategy = args.strategy or DEFAULT_STRATEGY[args.game]
    seats = [OPEN] * (rules.players - bots) + [strategy] * bots
    async with TableSession(args.server) as session:
        table = await session.create_table(
            rules, seats, seed=args.seed, first_dealer=args.first_dealer, practice=args.seed is not None
        )
        seat = await session.join(table.table_id, name=args.name)
        print(f"Table {table.table_id} created; you sit in seat {seat}.", file=stdout)
        if table.open_seats > 1:
            print(
                f"Waiting for {table.open_seats - 1} more player(s): thousand join {table.table_id}",
                file=stdout,
            )
        return await play(session, args.plain, stdin, stdout)


async def join_table(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    async with TableSession(args.server) as session:
        seat = await session.join(args.table, args.seat, args.name)
        print(f"You sit in seat {seat} of table {args.table}.", file=stdout)
        return await play(session, args.plain, stdin, stdout)


async def watch_table(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    async with TableSession(args.server) as session:
        await session.watch(args.table)
        print(f"Watching table {args.table}.", file=stdout)
        return await play(session, args.plain, stdin, stdout)


async def export_table(args: argparse.Namespace, stdout: TextIO) -> int:
    async with TableSession(args.server) as session:
        record = json.dumps(json.loads(await session.export(args.table)), ensure_ascii=False, indent=2)
    if args.out == "-":
        print(record, file=stdout)
    else:
        Path(args.out).write_text(record + "\n", encoding="utf-8")
        print(f"Wrote the game record of table {args.table} to {args.out}.", file=stdout)
    return 0


async def play(session: TableSession, plain: bool, stdin: TextIO, stdout: TextIO) -> int:
    """Play (or watch) in the chosen mode; a player who stops before the end gives the seat up, so that they
    (or anyone) can take it again with ``thousand join TABLE --seat N`` and play on."""
    try:
        if session.table is not None and session.game is BLAGOGO:
            if plain:
                from clients.cli.blagogo_plain import BlagogoPlainClient  # noqa: PLC0415

                return await BlagogoPlainClient(session, stdin, stdout).run()
            from clients.cli.blagogo_tui import BlagogoApp  # noqa: PLC0415

            blagogo_app = BlagogoApp(session)
            await blagogo_app.run_async()
            return blagogo_app.return_code or 0
        if plain:
            from clients.cli.plain import PlainClient  # noqa: PLC0415 (the full-screen UI's imports are heavier)

            return await PlainClient(session, stdin, stdout).run()
        from clients.cli.tui import ThousandApp  # noqa: PLC0415

        app = ThousandApp(session)
        await app.run_async()
        return app.return_code or 0
    finally:
        seat = session.seat
        if seat is not None and not session.finished:
            with contextlib.suppress(ServerError, asyncio.TimeoutError):
                await asyncio.wait_for(session.leave(), timeout=5)
                again = f"thousand join {session.table_id} --seat {seat}"
                print(f"You left seat {seat}; take it again with: {again}", file=stdout)


async def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    try:
        match args.command:
            case "tables":
                return await list_tables(args, stdout)
            case "new":
                return await new_table(args, stdin, stdout)
            case "join":
                return await join_table(args, stdin, stdout)
            case "watch":
                return await watch_table(args, stdin, stdout)
            case "export":
                return await export_table(args, stdout)
    except ServerError as error:
        reason = f" [{error.reason}]" if error.reason else f" [{error.code.name}]"
        print(f"thousand {args.command}: {error.message}{reason}", file=sys.stderr)
        return EXIT_ERROR
    raise AssertionError(args.command)


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(run(args, stdin or sys.stdin, stdout or sys.stdout))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
