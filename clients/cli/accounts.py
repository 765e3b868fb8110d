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
from clients.cli.text import counted
from clients.connection import Connection
from clients.device_flow import DeviceFlow, DeviceFlowError
from clients.errors import ServerError
from clients.games import game_of_kind
from clients.i18n import LANGUAGES, language_of, t
from clients.logins import GUEST, OIDC, Login, LoginKeeper
from clients.players import PlayerClient
from clients.seats import SeatKeeper
from thousand.v1 import player_service_pb2 as player_pb

EXIT_ERROR: Final = 1
LOCALES: Final = LANGUAGES
"""The locales a profile may have: the languages with a catalogue (clients/i18n)."""

_RESULT_KEYS: Final = {
    player_pb.GAME_RESULT_PLAYING: "players.result_playing",
    player_pb.GAME_RESULT_WON: "players.result_won",
    player_pb.GAME_RESULT_LOST: "players.result_lost",
    player_pb.GAME_RESULT_STOPPED: "players.result_stopped",
    player_pb.GAME_RESULT_UNKNOWN: "players.result_removed",
}
_CLAIM_KEYS: Final = {
    player_pb.CLAIM_STATUS_CLAIMED: "players.claim_claimed",
    player_pb.CLAIM_STATUS_ALREADY_YOURS: "players.claim_already_yours",
    player_pb.CLAIM_STATUS_TABLE_NOT_FOUND: "players.claim_table_not_found",
    player_pb.CLAIM_STATUS_TOKEN_NOT_FOUND: "players.claim_token_not_found",
    player_pb.CLAIM_STATUS_OTHER_PLAYER: "players.claim_other_player",
}


def _fail(command: str, words: str) -> int:
    print(f"thousand {command}: {words}", file=sys.stderr)
    return EXIT_ERROR


def _kind_words(player: player_pb.Player) -> str:
    if player.kind == player_pb.PLAYER_KIND_OIDC:
        return t("players.kind_oidc", issuer=player.issuer)
    return t("players.kind_guest")


def _locale(args: argparse.Namespace) -> str:
    """The profile's locale: the one asked for (``--locale``), else the language the client speaks
    (``--lang``), else the environment's when it is one of ours (as gettext reads it), else none."""
    if args.locale is not None:
        return str(args.locale)
    if getattr(args, "lang", None):
        return str(args.lang)
    env = os.environ
    tag = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    return language_of(tag) or ""


async def login(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args, signed_in=False)
    keeper = LoginKeeper()
    before = keeper.find(connection.key)
    # A guest's token is the guest's only key: never dropped by a new login. A signed-in account may sign in
    # again (its token expires), but becoming a guest instead is a `logout` first, said so.
    replaced = before is not None and (before.kind == GUEST or (args.guest and not before.expired()))
    if before is not None and replaced and not args.token:
        what = (
            t("players.as_guest") if before.kind == GUEST else t("players.with_issuer", issuer=before.issuer)
        )
        words = t("players.signed_in_already", address=connection.address, name=before.display_name, how=what)
        return _fail("login", words)
    if args.token:
        return await _login_with_token(connection, keeper, args.token, stdout)
    async with PlayerClient(connection) as players:
        options = await players.sign_in_options()
    providers = list(options.providers)
    if args.issuer:
        providers = [p for p in providers if p.issuer.rstrip("/") == args.issuer.rstrip("/")]
        if not providers:
            trusted = ", ".join(p.issuer for p in options.providers) or t("players.no_issuers")
            return _fail("login", t("players.issuer_untrusted", issuer=args.issuer, trusted=trusted))
    if providers and not args.guest:
        return await _login_with_issuer(connection, keeper, providers[0], args, stdout)
    if not options.guests:
        return _fail("login", t("players.no_guests", address=connection.address))
    name = args.name or SeatKeeper().last_name(connection.key) or default_name()
    async with PlayerClient(connection) as players:
        created = await players.create_guest(name, _locale(args))
    player = created.player
    keeper.keep(Login(connection.key, GUEST, created.player_token, player.player_id, player.display_name))
    how = t("players.as_guest")
    print(t("players.signed_in", address=connection.address, name=player.display_name, how=how), file=stdout)
    for key in ("players.guest_kept", "players.guest_show_token", "players.guest_login_token"):
        print(t(key), file=stdout)
    return 0


async def _login_with_token(connection: Connection, keeper: LoginKeeper, token: str, stdout: TextIO) -> int:
    async with PlayerClient(_with(connection, token)) as players:
        player = await players.me()
    kind = OIDC if player.kind == player_pb.PLAYER_KIND_OIDC else GUEST
    keeper.keep(Login(connection.key, kind, token, player.player_id, player.display_name, player.issuer))
    how = _kind_words(player)
    print(t("players.signed_in", address=connection.address, name=player.display_name, how=how), file=stdout)
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
        print(t("players.device_to_sign_in", issuer=provider.issuer), file=stdout)
        print(t("players.device_open_page"), file=stdout)
        print(f"  {where}", file=stdout)
        print(t("players.device_enter_code", code=code.user_code), file=stdout)
        print(t("players.device_waiting"), file=stdout, flush=True)
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
    how = t("players.with_issuer", issuer=provider.issuer)
    words = t("players.signed_in", address=connection.address, name=player.display_name, how=how)
    if tokens.expires:
        until = datetime.fromtimestamp(tokens.expires).strftime("%H:%M")
        words = t(
            "players.signed_in_until",
            address=connection.address,
            name=player.display_name,
            how=how,
            until=until,
        )
    print(words, file=stdout)
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
        print(t("players.not_signed_in_was", address=connection.address), file=stdout)
        return 0
    print(t("players.signed_out", address=connection.address, name=gone.display_name), file=stdout)
    if gone.kind == GUEST:
        print(t("players.guest_forgotten_1"), file=stdout)
        print(t("players.guest_forgotten_2"), file=stdout)
    return 0


async def whoami(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    keeper = LoginKeeper()
    kept = keeper.find(connection.key)
    if connection.credential is None:
        print(t("players.not_signed_in", address=connection.address), file=stdout)
        return EXIT_ERROR
    async with PlayerClient(connection) as players:
        player = await players.me()
    if kept is not None and kept.credential == connection.credential:
        keeper.keep(replace(kept, display_name=player.display_name))  # renamed elsewhere, maybe
    how = _kind_words(player)
    print(t("players.whoami", name=player.display_name, how=how, address=connection.address), file=stdout)
    print("  " + t("players.whoami_id", id=player.player_id), file=stdout)
    print("  " + t("players.whoami_locale", locale=player.locale or "none"), file=stdout)
    if kept is not None and kept.expires:
        until = f"{datetime.fromtimestamp(kept.expires):%Y-%m-%d %H:%M}"
        print("  " + t("players.whoami_until", until=until), file=stdout)
    if args.show_token:
        print("  " + t("players.whoami_token", token=connection.credential), file=stdout)
    return 0


def games_header() -> str:
    """The heading of :func:`game_line`'s columns, in the user's language."""
    return (
        f"{t('players.column_when'):<16}  {t('players.column_table'):<12}  {t('players.column_game'):<12}  "
        f"{t('players.column_seat'):>4}  {t('players.column_result')}"
    )


def game_line(game: player_pb.PlayerGame) -> str:
    """One game of the history, under :func:`games_header` (80 columns): when the seat was taken, the
    table's id (for ``thousand export``), which game, the seat, how it went (place and score once over)."""
    when = datetime.fromtimestamp(game.join_time.ToSeconds()).strftime("%Y-%m-%d %H:%M")
    result = t(_RESULT_KEYS.get(game.result, "players.result_unknown"))
    if game.place:
        result = t("players.result_placed", result=result, place=game.place, score=game.score)
    title = game_of_kind(game.game).title
    seat_width = max(4, len(t("players.column_seat")))
    return f"{when}  {game.table_id:<12}  {title:<12}  {counted(game.seat):>{seat_width}}  {result}"


async def games(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    if connection.credential is None:
        return _fail("games", t("players.sign_in_first", address=connection.address))
    async with PlayerClient(connection) as players:
        page = await players.games_page(args.limit, args.page or "")
    if not page.games:
        print(t("players.no_games"), file=stdout)
    else:
        print(games_header(), file=stdout)
    for game in page.games:
        print(game_line(game), file=stdout)
    if page.games:
        print(t("players.games_export"), file=stdout)
    if page.next_page_token:
        print(t("players.games_older", page=page.next_page_token), file=stdout)
    return 0


async def claim(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    if connection.credential is None:
        return _fail("claim", t("players.sign_in_first", address=connection.address))
    seats = SeatKeeper().held(connection.key)
    if not seats:
        print(t("players.no_seats_kept", address=connection.address), file=stdout)
        return 0
    async with PlayerClient(connection) as players:
        guest = args.guest_token or ""
        outcomes = await players.claim([(seat.table_id, seat.token) for seat in seats], guest)
    claimed = 0
    for outcome in outcomes:
        claimed += outcome.status == player_pb.CLAIM_STATUS_CLAIMED
        words = t(_CLAIM_KEYS.get(outcome.status, "players.claim_not_claimed"))
        line = t("players.claim_line", table=outcome.table_id, seat=counted(outcome.seat), words=words)
        print(line, file=stdout)
    print(t("players.claimed", count=claimed), file=stdout)
    return 0


def player_problem(error: ServerError, address: str) -> str | None:
    """A refused credential in words, with what to do; None for any other refusal."""
    if error.reason == "PLAYER_TOKEN_INVALID":
        problem = error.metadata.get("problem", "")
        if problem == "expired":
            return t("players.token_expired", address=address)
        if problem == "unknown_token":
            return t("players.token_unknown", address=address)
        if problem == "missing":  # a call that needs a player (JoinTable at a rated table)
            return t("players.sign_in_first", address=address)
        why = problem or error.message
        return t("players.token_refused", address=address, why=why)
    if error.reason == "PLAYER_BANNED":
        return t("players.banned", address=address, why=error.message)
    return None
