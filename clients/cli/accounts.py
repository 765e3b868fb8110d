"""The terminal client's player commands: ``thousand login``, ``logout``, ``whoami``, ``games`` and ``claim``
(docs/protocol.md, "Players").

``login`` signs the user in on one server and keeps the credential on this machine (:mod:`clients.logins`);
every later command to that server sends it, so the seats the user takes are their player's and follow them to
any device where they sign in. A guest's player token is the only key to a guest's history: ``whoami
--show-token`` prints it (to sign in elsewhere with ``login --token``), and ``logout`` warns before it is
forgotten. With an issuer named in the server's sign-in options, ``login`` uses the device authorization grant
(:mod:`clients.device_flow`): the person approves on the issuer's page, in any browser.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from dataclasses import replace
from datetime import datetime
from typing import Final, TextIO

from clients.cli.options import connection_from_args, default_name
from clients.connection import Connection
from clients.device_flow import DeviceFlow, DeviceFlowError
from clients.errors import ServerError
from clients.games import game_of_kind
from clients.logins import GUEST, OIDC, Login, LoginKeeper
from clients.players import PlayerClient
from clients.seats import SeatKeeper
from thousand.v1 import player_service_pb2 as player_pb

EXIT_ERROR: Final = 1
LOCALES: Final = ("en", "ru", "uk", "be", "pl")

_RESULT_WORDS: Final = {
    player_pb.GAME_RESULT_PLAYING: "playing",
    player_pb.GAME_RESULT_WON: "won",
    player_pb.GAME_RESULT_LOST: "lost",
    player_pb.GAME_RESULT_STOPPED: "stopped",
    player_pb.GAME_RESULT_UNKNOWN: "unknown (table removed)",
}
_CLAIM_WORDS: Final = {
    player_pb.CLAIM_STATUS_CLAIMED: "now yours",
    player_pb.CLAIM_STATUS_ALREADY_YOURS: "yours already",
    player_pb.CLAIM_STATUS_TABLE_NOT_FOUND: "the server no longer has this table",
    player_pb.CLAIM_STATUS_TOKEN_NOT_FOUND: "no seat of this table has this token",
    player_pb.CLAIM_STATUS_OTHER_PLAYER: "it belongs to another player",
}


def _fail(command: str, words: str) -> int:
    print(f"thousand {command}: {words}", file=sys.stderr)
    return EXIT_ERROR


def _kind_words(player: player_pb.Player) -> str:
    if player.kind == player_pb.PLAYER_KIND_OIDC:
        return f"signed in with {player.issuer}"
    return "guest player"


def _locale(args: argparse.Namespace) -> str:
    """The locale asked for, else the environment's language when it is one of ours, else none."""
    if args.locale is not None:
        return str(args.locale)
    language = (os.environ.get("LC_ALL") or os.environ.get("LANG") or "").split(".")[0].split("_")[0]
    return language if language in LOCALES else ""


async def login(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args, signed_in=False)
    keeper = LoginKeeper()
    before = keeper.find(connection.key)
    # A guest's token is the guest's only key: never dropped by a new login. A signed-in account may sign in
    # again (its token expires), but becoming a guest instead is a `logout` first, said so.
    replaced = before is not None and (before.kind == GUEST or (args.guest and not before.expired()))
    if before is not None and replaced and not args.token:
        what = "a guest" if before.kind == GUEST else f"with {before.issuer}"
        return _fail(
            "login",
            f"you are signed in on {connection.address} as {before.display_name} ({what}) already; "
            "`thousand logout` first to sign in as someone else",
        )
    if args.token:
        return await _login_with_token(connection, keeper, args.token, stdout)
    async with PlayerClient(connection) as players:
        options = await players.sign_in_options()
    providers = list(options.providers)
    if args.issuer:
        providers = [p for p in providers if p.issuer.rstrip("/") == args.issuer.rstrip("/")]
        if not providers:
            trusted = ", ".join(p.issuer for p in options.providers) or "none"
            return _fail("login", f"the server does not trust {args.issuer} (it trusts: {trusted})")
    if providers and not args.guest:
        return await _login_with_issuer(connection, keeper, providers[0], args, stdout)
    if not options.guests:
        return _fail("login", f"the server at {connection.address} makes no guest players")
    name = args.name or SeatKeeper().last_name(connection.key) or default_name()
    async with PlayerClient(connection) as players:
        created = await players.create_guest(name, _locale(args))
    player = created.player
    keeper.keep(Login(connection.key, GUEST, created.player_token, player.player_id, player.display_name))
    print(f"Signed in on {connection.address} as {player.display_name} (a guest player).", file=stdout)
    for line in (
        "Your games are kept for this player now, on every device where you sign in:",
        "  thousand whoami --show-token   shows its player token (keep it secret),",
        "  thousand login --token TOKEN   signs you in with it on another device.",
    ):
        print(line, file=stdout)
    return 0


async def _login_with_token(connection: Connection, keeper: LoginKeeper, token: str, stdout: TextIO) -> int:
    async with PlayerClient(_with(connection, token)) as players:
        player = await players.me()
    kind = OIDC if player.kind == player_pb.PLAYER_KIND_OIDC else GUEST
    keeper.keep(Login(connection.key, kind, token, player.player_id, player.display_name, player.issuer))
    print(f"Signed in on {connection.address} as {player.display_name} ({_kind_words(player)}).", file=stdout)
    return 0


async def _login_with_issuer(
    connection: Connection,
    keeper: LoginKeeper,
    provider: player_pb.IdentityProvider,
    args: argparse.Namespace,
    stdout: TextIO,
) -> int:
    flow = DeviceFlow(provider.issuer, args.client_id or provider.audience, resource=provider.audience)
    try:
        code = await asyncio.to_thread(flow.start)
        where = code.verification_uri_complete or code.verification_uri
        print(f"To sign in with {provider.issuer},", file=stdout)
        print("open this page in a browser, on any device:", file=stdout)
        print(f"  {where}", file=stdout)
        print(f"and enter the code  {code.user_code}  if it asks for one.", file=stdout)
        print("Waiting for your sign-in there (Ctrl+C to give up)...", file=stdout, flush=True)
        tokens = await flow.wait(code)
    except DeviceFlowError as error:
        return _fail("login", str(error))
    async with PlayerClient(_with(connection, tokens.credential)) as players:
        player = await players.me()
        if args.name and args.name != player.display_name:
            player = await players.update_me(display_name=args.name)  # the issuer's name was not wanted
        locale = _locale(args)
        if locale and not player.locale:
            player = await players.update_me(locale=locale)
    keeper.keep(
        Login(
            connection.key,
            OIDC,
            tokens.credential,
            player.player_id,
            player.display_name,
            player.issuer,
            tokens.expires,
            tokens.refresh_token,
            flow.client_id,
            provider.audience,
        )
    )
    until = ""
    if tokens.expires:
        until = f" until {datetime.fromtimestamp(tokens.expires).strftime('%H:%M')}"
    print(
        f"Signed in on {connection.address} as {player.display_name} (with {provider.issuer}){until}.",
        file=stdout,
    )
    return 0


RENEW_MARGIN: Final = 60.0
"""Seconds before its end an OIDC credential is renewed (a game's calls must not meet its expiry)."""


async def renewed(args: argparse.Namespace) -> None:
    """Renews the kept OIDC sign-in of the server with its refresh token when it is (about to be) expired,
    before a command sends it. A refused renewal leaves it as it is: the server then says it expired, and
    the words say to sign in again."""
    connection = connection_from_args(args, signed_in=False)
    keeper = LoginKeeper()
    login = keeper.find(connection.key)
    if login is None or login.kind != OIDC or not login.refresh_token:
        return
    if not login.expired(margin=RENEW_MARGIN):
        return
    flow = DeviceFlow(login.issuer, login.client_id or login.audience, resource=login.audience)
    try:
        tokens = await asyncio.to_thread(flow.refresh, login.refresh_token)
    except DeviceFlowError:
        return
    keeper.keep(
        replace(
            login,
            credential=tokens.credential,
            expires=tokens.expires,
            refresh_token=tokens.refresh_token,
        )
    )


def _with(connection: Connection, credential: str) -> Connection:
    return Connection(
        connection.address, connection.tls, connection.ca_file, connection.connect_timeout, credential
    )


async def logout(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args, signed_in=False)
    gone = LoginKeeper().forget(connection.key)
    if gone is None:
        print(f"You were not signed in on {connection.address}.", file=stdout)
        return 0
    print(
        f"Signed out of {connection.address} ({gone.display_name} is forgotten on this machine).", file=stdout
    )
    if gone.kind == GUEST:
        print("A guest is reached only with its player token: unless you kept it", file=stdout)
        print("(thousand whoami --show-token), `thousand login` starts a new player.", file=stdout)
    return 0


async def whoami(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    keeper = LoginKeeper()
    kept = keeper.find(connection.key)
    if connection.credential is None:
        print(f"Not signed in on {connection.address}: `thousand login` signs you in.", file=stdout)
        return EXIT_ERROR
    async with PlayerClient(connection) as players:
        player = await players.me()
    if kept is not None and kept.credential == connection.credential:
        keeper.keep(replace(kept, display_name=player.display_name))  # renamed elsewhere, maybe
    print(f"{player.display_name} ({_kind_words(player)}) on {connection.address}", file=stdout)
    print(f"  player id: {player.player_id}", file=stdout)
    print(f"  language:  {player.locale or 'not chosen'}", file=stdout)
    if kept is not None and kept.expires:
        print(f"  signed in until {datetime.fromtimestamp(kept.expires):%Y-%m-%d %H:%M}", file=stdout)
    if args.show_token:
        print(f"  player token (secret): {connection.credential}", file=stdout)
    return 0


GAMES_HEADER: Final = f"{'when':<16}  {'table':<12}  {'game':<12}  seat  result"


def game_line(game: player_pb.PlayerGame) -> str:
    """One game of the history, under :data:`GAMES_HEADER` (80 columns): when the seat was taken, the
    table's id (for ``thousand export``), which game, the seat, how it went (place and score once over)."""
    when = datetime.fromtimestamp(game.join_time.ToSeconds()).strftime("%Y-%m-%d %H:%M")
    result = _RESULT_WORDS.get(game.result, "unknown")
    if game.place:
        result = f"{result} (place {game.place}, {game.score} points)"
    title = game_of_kind(game.game).title
    return f"{when}  {game.table_id:<12}  {title:<12}  {game.seat:>4}  {result}"


async def games(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    if connection.credential is None:
        return _fail("games", f"you are not signed in on {connection.address}: `thousand login` first")
    async with PlayerClient(connection) as players:
        page = await players.games_page(args.limit, args.page or "")
    if not page.games:
        print("No games yet. Start one with: thousand new", file=stdout)
    else:
        print(GAMES_HEADER, file=stdout)
    for game in page.games:
        print(game_line(game), file=stdout)
    if page.games:
        print("A finished game's record (it replays exactly): thousand export TABLE", file=stdout)
    if page.next_page_token:
        print(f"Older games: thousand games --page {page.next_page_token}", file=stdout)
    return 0


async def claim(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    if connection.credential is None:
        return _fail("claim", f"you are not signed in on {connection.address}: `thousand login` first")
    seats = SeatKeeper().held(connection.key)
    if not seats:
        print(f"No seats of yours on {connection.address} are kept on this machine.", file=stdout)
        return 0
    async with PlayerClient(connection) as players:
        outcomes = await players.claim([(seat.table_id, seat.token) for seat in seats])
    claimed = 0
    for outcome in outcomes:
        claimed += outcome.status == player_pb.CLAIM_STATUS_CLAIMED
        words = _CLAIM_WORDS.get(outcome.status, "not claimed")
        print(f"table {outcome.table_id}, seat {outcome.seat}: {words}", file=stdout)
    seats_words = "1 seat" if claimed == 1 else f"{claimed} seats"
    print(f"{seats_words} joined your history; `thousand games` lists your games.", file=stdout)
    return 0


def player_problem(error: ServerError, address: str) -> str | None:
    """A refused credential in words, with what to do; None for any other refusal."""
    if error.reason == "PLAYER_TOKEN_INVALID":
        problem = error.metadata.get("problem", "")
        if problem == "expired":
            return f"your sign-in on {address} expired: `thousand login` again"
        if problem == "unknown_token":
            return f"the server at {address} no longer knows your player: `thousand logout`, then login"
        why = problem or error.message
        return f"the server at {address} refused your sign-in ({why}): `thousand login` again"
    if error.reason == "PLAYER_BANNED":
        return f"your player is banned on {address}: {error.message}"
    return None
