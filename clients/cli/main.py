"""``thousand``: the terminal client of the Thousand server, for people.

    thousand tables                      list the tables: id, game, players, seats, status, changed rules
    thousand new --bots 2 --dark         create a table with server-run bots, sit down and play
    thousand new --game blagogo --players 4 --bots 3 --target 500    the same at a 1000 Blagogo table
    thousand join TABLE [--seat N]       take a free seat at a table (or yours again) and play
    thousand watch TABLE                 follow a table as a spectator
    thousand play [--players 3] [--bots] find people to play with (quick play), then play
    thousand rematch TABLE [--decline]   another game with the players of a finished table
    thousand leave TABLE                 give your seat up
    thousand login [--guest]             sign in (a guest, or the server's OpenID issuer by device flow)
    thousand whoami / logout             who you are signed in as / forget it on this machine
    thousand games                       your games, newest first: results and table ids (export, replay)
    thousand claim                       make the seats you took before signing in part of your history
    thousand new --rated --players 2     a rated table: signed-in players only, whose ratings it changes
    thousand leaderboard [--players 3]   a rating pool's leaderboard (--bots: the bots' pool)
    thousand profile [PLAYER]            a player's ratings and latest rated games (yours without PLAYER)
    thousand new --private               a table not listed to others; prints the invite code
    thousand join TABLE --invite CODE    take a seat at a private table

Every command takes ``--server HOST:PORT`` (default 127.0.0.1:50051, or $THOUSAND_SERVER; a cluster's nodes
as ``a:50051,b:50051``: a table is followed to whichever node serves it), ``--tls`` and ``--tls-ca``;
``new``, ``join`` and ``watch`` take ``--plain`` for the line mode (scripts, screen readers) instead of the
full-screen UI. The seats you take are kept on this machine (:mod:`clients.seats`): a closed terminal or a
crash loses nothing, ``thousand join TABLE`` takes you back to your seat.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

from clients.cli import accounts, quickplay_cli, ratings_cli
from clients.cli.games import cli_game_named, cli_game_of
from clients.cli.options import (
    build_parser,
    connection_from_args,
    default_name,
    language_of,
    rules_from_args,
    time_control_from_args,
)
from clients.cli.plain import PlainClient
from clients.cli.text import counted, table_line
from clients.errors import ServerError, error_words, seat_shown
from clients.games import table_rules
from clients.i18n import language_from_env, t, use
from clients.logins import LoginKeeper
from clients.seats import SeatKeeper
from clients.session import OPEN, TableSession, new_invite_code
from clients.table_calls import invite_attached
from engine import RulesError

__all__ = ["build_parser", "main", "rules_from_args"]

EXIT_ERROR: Final = 1
EXIT_USAGE: Final = 2


def _session(args: argparse.Namespace) -> TableSession:
    return TableSession(connection_from_args(args), keeper=SeatKeeper())


def _name(args: argparse.Namespace, session: TableSession) -> str:
    """The name to sit down with: the one given, else (signed in) the player's display name as last seen
    here, else the one last used with this server, else $USER."""
    if args.name:
        return str(args.name)
    login = LoginKeeper().find(session.connection.key) if session.connection.credential else None
    if login is not None and login.display_name:
        return login.display_name
    kept = session.keeper.last_name(session.connection.key) if session.keeper is not None else None
    return kept or default_name()


# --------------------------------------------------------------------------------------------------- commands


async def list_tables(args: argparse.Namespace, stdout: TextIO) -> int:
    async with _session(args) as session:
        tables = await session.list_tables(only_open_seats=args.open, limit=args.limit)
    if not tables:
        print(t("cli.no_tables"), file=stdout)
    for table in tables:
        print(table_line(table, table_rules(table)), file=stdout)
    return 0


async def new_table(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    try:
        rules = rules_from_args(args)
    except RulesError as error:
        print(t("cli.impossible_rules", error=str(error)), file=sys.stderr)
        return EXIT_USAGE
    bots = (0 if args.rated else rules.players - 1) if args.bots is None else args.bots
    if args.rated and (bots or args.seed is not None):
        print(t("cli.rated_people_only"), file=sys.stderr)
        return EXIT_USAGE
    if not 0 <= bots < rules.players:
        print(t("cli.bots_range", most=rules.players - 1), file=sys.stderr)
        return EXIT_USAGE
    if args.clock is not None and args.clock <= 0:
        print(t("cli.clock_positive"), file=sys.stderr)
        return EXIT_USAGE
    async with _session(args) as session:
        if args.rated and session.connection.credential is None:
            print(t("players.sign_in_first", address=session.connection.address), file=sys.stderr)
            return EXIT_ERROR
        strategy = args.strategy or cli_game_named(args.game).default_bot
        seats = [OPEN] * (rules.players - bots) + [strategy] * bots
        invite = new_invite_code() if args.private else ""
        table = await session.create_table(
            rules,
            seats,
            seed=args.seed,
            first_dealer=args.first_dealer,
            practice=args.seed is not None,
            time_control=time_control_from_args(args),
            unlisted=args.private,
            invite_code=invite,
            rated=args.rated,
        )
        seat = await session.join(table.table_id, name=_name(args, session), invite_code=invite)
        print(t("cli.table_created", table=table.table_id, seat=counted(seat)), file=stdout)
        if table.rated:
            print(t("cli.table_rated"), file=stdout)
        if invite:
            print(t("cli.table_private", invite=invite), file=stdout)
        waiting = table.open_seats - 1
        if waiting and invite:
            print(
                t("cli.waiting_players_invite", count=waiting, table=table.table_id, invite=invite),
                file=stdout,
                flush=True,
            )
        elif waiting:
            print(t("cli.waiting_players", count=waiting, table=table.table_id), file=stdout, flush=True)
        return await play(session, args.plain, stdin, stdout)


async def join_table(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    async with _session(args) as session:
        seat = await session.join(
            args.table, args.seat, _name(args, session), invite_code=args.invite
        )  # a seat of yours keeps its name
        if session.resumed:
            print(t("cli.back_in_seat", seat=counted(seat), table=args.table), file=stdout)
        else:
            print(t("cli.sit_in_seat", seat=counted(seat), table=args.table), file=stdout)
        return await play(session, args.plain, stdin, stdout)


async def watch_table(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    async with _session(args) as session:
        await session.watch(args.table)
        print(t("cli.watching_table", table=args.table), file=stdout)
        return await play(session, args.plain, stdin, stdout)


async def leave_table(args: argparse.Namespace, stdout: TextIO) -> int:
    async with _session(args) as session:
        assert session.keeper is not None
        kept = session.keeper.find(session.connection.key, args.table)
        if kept is None:
            print(t("cli.no_seat_held", table=args.table), file=sys.stderr)
            return EXIT_ERROR
        session.attach(args.table, kept.seat, kept.token)
        await session.leave()
        print(t("cli.left_seat", seat=counted(kept.seat), table=args.table), file=stdout)
    return 0


async def export_table(args: argparse.Namespace, stdout: TextIO) -> int:
    async with _session(args) as session:
        record = json.dumps(json.loads(await session.export(args.table)), ensure_ascii=False, indent=2)
    if args.out == "-":
        print(record, file=stdout)
    else:
        Path(args.out).write_text(record + "\n", encoding="utf-8")
        print(t("cli.wrote_record", table=args.table, path=args.out), file=stdout)
    return 0


async def play(session: TableSession, plain: bool, stdin: TextIO, stdout: TextIO) -> int:
    """Play (or watch) in the chosen mode. A player who stops before the end keeps the seat (its token is
    kept on this machine): ``thousand join TABLE`` takes them back to it, ``thousand leave TABLE`` gives it
    up."""
    try:
        if plain:
            return await PlainClient(session, stdin, stdout).run()
        module, _, name = cli_game_of(session.game).app.partition(":")
        app = getattr(importlib.import_module(module), name)(session)  # Textual only when it is wanted
        await app.run_async()
        return int(app.return_code or 0)
    finally:
        seat = session.seat
        if seat is not None and not session.finished:
            print(t("cli.seat_kept", seat=counted(seat), table=session.table_id), file=stdout)
            if session.invite_code:
                print(t("cli.table_invite_code", invite=session.invite_code), file=stdout)


async def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    try:
        if args.command not in ("login", "logout"):
            await accounts.renewed(args)
        match args.command:
            case "tables":
                return await list_tables(args, stdout)
            case "new":
                return await new_table(args, stdin, stdout)
            case "join":
                return await join_table(args, stdin, stdout)
            case "watch":
                return await watch_table(args, stdin, stdout)
            case "play":
                async with _session(args) as session:
                    name = _name(args, session)
                return await quickplay_cli.play_command(args, name, play, stdin, stdout)
            case "rematch":
                return await quickplay_cli.rematch_command(args, play, stdin, stdout)
            case "leave":
                return await leave_table(args, stdout)
            case "export":
                return await export_table(args, stdout)
            case "login":
                return await accounts.login(args, stdout)
            case "logout":
                return await accounts.logout(args, stdout)
            case "whoami":
                return await accounts.whoami(args, stdout)
            case "games":
                return await accounts.games(args, stdout)
            case "claim":
                return await accounts.claim(args, stdout)
            case "leaderboard":
                return await ratings_cli.leaderboard(args, stdout)
            case "profile":
                return await ratings_cli.profile(args, stdout)
    except ServerError as error:
        words = accounts.player_problem(error, connection_from_args(args, signed_in=False).address)
        if words is None and error.reason == "ALREADY_SEATED":  # in words in every language, with the seat
            words = t("error.ALREADY_SEATED", seat=seat_shown(error))
        if words is None and error.reason == "INVITE_INVALID":
            words = t("cli.invite_needed")
            if getattr(args, "invite", ""):
                words = t("cli.invite_wrong")
        reason = f" [{error.reason}]" if error.reason else ""
        print(f"thousand {args.command}: {words or error_words(error)}{reason}", file=sys.stderr)
        return EXIT_ERROR
    raise AssertionError(args.command)


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    use(language_of(argv) or language_from_env())
    args = build_parser().parse_args(invite_attached(sys.argv[1:] if argv is None else argv))
    try:
        return asyncio.run(run(args, stdin or sys.stdin, stdout or sys.stdout))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`thousand tables | head -1`): what it read was all it wanted. Standard output
        # goes nowhere from now on, so the interpreter's last flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
