"""The ``thousand`` command's options: the server and how to reach it, each game's rules (an option per
variant, built from the game's rules type), the clocks, and the commands' own.

Every option that names the server is read once, whether given before or after the command
(``thousand --server H:P tables`` and ``thousand tables --server H:P`` alike), and falls back on the
environment (:meth:`clients.connection.Connection.from_env`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import fields, replace
from enum import Enum
from typing import Any, Final, NoReturn

from clients.cli.games import CLI_GAMES, cli_game_named
from clients.cli.rules_text import label
from clients.cli.text import typed_index
from clients.connection import CONNECT_TIMEOUT, DEFAULT_SERVER, Connection
from clients.games import GameRules
from clients.i18n import LANGUAGES, NAMES, t
from clients.logins import LoginKeeper
from engine import RulesError
from thousand.v1 import table_service_pb2 as pb

GAMES: Final = tuple(entry.game.name for entry in CLI_GAMES)
POLICIES: Final = {
    "one-move": pb.TIMEOUT_POLICY_BOT_PLAYS_TURN,
    "until-back": pb.TIMEOUT_POLICY_BOT_PLAYS,
    "forfeit": pb.TIMEOUT_POLICY_FORFEIT,
}
"""``--on-timeout``: what the server does when a move's time runs out."""


def seat_number(text: str) -> int:
    """``--seat`` and ``--first-dealer``: a seat as people count them (1 is the first), as the wire's index;
    ``0`` is refused in words rather than taken for the wire's first seat."""
    try:
        index = typed_index(text, t("cli.seat_zero"))
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if index is None:
        raise argparse.ArgumentTypeError(t("cli.seat_not_a_number", text=text))
    return index


def _rule_fields(game: str) -> list[tuple[str, Any]]:
    """(name, default) of every rules field of the game but ``players`` (which ``--players`` sets)."""
    kind = cli_game_named(game).game.rules_type
    defaults = kind()
    return [(f.name, getattr(defaults, f.name)) for f in fields(kind) if f.name != "players"]


def _dest(game: str, name: str) -> str:
    return f"{game}_rule_{name}"


def add_rule_options(parser: argparse.ArgumentParser, game: str) -> None:
    group = parser.add_argument_group(t("help.rules_group", game=t(f"term.game_{game}"), name=game))
    for name, default in _rule_fields(game):
        flag = "--" + name.replace("_", "-")
        what = label(name)
        if isinstance(default, bool):
            group.add_argument(
                flag, dest=_dest(game, name), action=argparse.BooleanOptionalAction, default=None,
                help=t("help.rule_default", what=what, default=t("cli.yes") if default else t("cli.no")),
            )  # fmt: skip
        elif isinstance(default, Enum):
            group.add_argument(
                flag, dest=_dest(game, name), choices=[m.value for m in type(default)], default=None,
                help=t("help.rule_default", what=what, default=default.value),
            )  # fmt: skip
        else:
            group.add_argument(
                flag, dest=_dest(game, name), type=int, metavar="N", default=None,
                help=t("help.rule_default", what=what, default=str(default)),
            )  # fmt: skip


def _chosen(args: argparse.Namespace, game: str) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for name, default in _rule_fields(game):
        value = getattr(args, _dest(game, name), None)
        if value is None:
            continue
        chosen[name] = type(default)(value) if isinstance(default, Enum) else value
    return chosen


def rules_from_args(args: argparse.Namespace) -> GameRules:
    """The rules of ``--game``; RulesError for an impossible one, or for an option of another game."""
    game = getattr(args, "game", GAMES[0])
    for other in GAMES:
        if other == game:
            continue
        for name in _chosen(args, other):
            flag = "--" + name.replace("_", "-")
            raise RulesError(name, t("help.rule_of_other", flag=flag, other=other, game=game))
    rules: GameRules = cli_game_named(game).game.rules_type(players=args.players, **_chosen(args, game))
    return rules


def time_control_from_args(args: argparse.Namespace) -> pb.TimeControl | None:
    """The clocks ``new`` asks for; None to take the server's defaults (no turn clock, its bot pace)."""
    if args.clock is None and args.bot_pace is None:
        return None
    control = pb.TimeControl(on_timeout=POLICIES[args.on_timeout])
    if args.clock is not None:
        control.per_move.FromNanoseconds(round(args.clock * 1e9))
        control.bank.FromNanoseconds(round(args.time_bank * 1e9))
    if args.bot_pace is not None:
        control.bot_pace.FromNanoseconds(round(args.bot_pace * 1e9))
    return control


def connection_from_args(args: argparse.Namespace, *, signed_in: bool = True) -> Connection:
    """The server of the options (and the environment), with the user's credential when ``signed_in``:
    ``--player-token``, else $THOUSAND_PLAYER_TOKEN, else the login kept for that server
    (:mod:`clients.logins`, ``thousand login``); without any, the calls are anonymous."""
    given = getattr(args, "player_token", None) if signed_in else None
    connection = Connection.from_env(
        args.server,
        tls=True if args.tls else None,
        ca_file=args.tls_ca,
        connect_timeout=args.connect_timeout,
        credential=given,
        env=None if signed_in else {k: v for k, v in os.environ.items() if k != "THOUSAND_PLAYER_TOKEN"},
    )
    if signed_in and connection.credential is None:
        kept = LoginKeeper().find(connection.key)
        if kept is not None:
            connection = replace(connection, credential=kept.credential)
    return connection


def _connection_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """The server options; after the command they leave unset what was set before it (argparse.SUPPRESS)."""
    unset = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=unset,
        help=t("cli.help_lang", languages=", ".join(f"{code} ({NAMES[code]})" for code in LANGUAGES)),
    )  # fmt: skip
    parser.add_argument(
        "--server", metavar="HOST:PORT[,HOST:PORT...]", default=unset,
        help=t("help.server", server=DEFAULT_SERVER),
    )  # fmt: skip
    parser.add_argument(
        "--tls", action="store_true", default=unset or False,
        help=t("help.tls"),
    )  # fmt: skip
    parser.add_argument(
        "--tls-ca", metavar="PEM", default=unset,
        help=t("help.tls_ca"),
    )  # fmt: skip
    parser.add_argument(
        "--connect-timeout", metavar="SECONDS", type=float, default=unset,
        help=t("help.connect_timeout", seconds=CONNECT_TIMEOUT),
    )  # fmt: skip
    parser.add_argument(
        "--player-token", metavar="TOKEN", default=unset,
        help=t("help.player_token"),
    )  # fmt: skip


def language_of(argv: Sequence[str] | None) -> str | None:
    """The language ``--lang`` asks for, read before the parser is built (its help is in that language);
    None when not given. An unknown language is left to the parser, which names the known ones."""
    words = list(sys.argv[1:] if argv is None else argv)
    for i, word in enumerate(words):
        value = words[i + 1] if word == "--lang" and i + 1 < len(words) else word.removeprefix("--lang=")
        if (word == "--lang" or word.startswith("--lang=")) and value in LANGUAGES:
            return value
    return None


def default_name() -> str:
    """The name a seat is taken under when none is given: the login name, else "player" in the player's
    language (a process without USER, such as a container's root)."""
    return os.environ.get("USER") or os.environ.get("USERNAME") or t("cli.default_name")


class _Formatter(argparse.HelpFormatter):
    """argparse's help with its "usage:" in the player's language."""

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[argparse._MutuallyExclusiveGroup],
        prefix: str | None = None,
    ) -> None:
        super().add_usage(usage, actions, groups, t("help.usage") if prefix is None else prefix)


class TranslatedParser(argparse.ArgumentParser):
    """argparse in the player's language: its own words too (usage, the groups' titles, -h, the error line),
    which argparse takes from gettext's English otherwise. Its subcommands' parsers are of this class, and
    so must be the parents they copy options from (argparse groups those by title)."""

    def __init__(self, *, add_help: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(add_help=False, **kwargs)
        self._positionals.title = t("help.positionals")
        self._optionals.title = t("help.options")
        if add_help:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=t("help.help"))

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, t("help.error", prog=self.prog, message=message) + "\n")


def build_parser() -> argparse.ArgumentParser:
    server = TranslatedParser(add_help=False)
    _connection_options(server, top=False)
    play = TranslatedParser(add_help=False)
    play.add_argument("--plain", action="store_true", help=t("help.plain"))

    parser = TranslatedParser(
        prog="thousand",
        description=t("help.description"),
    )
    _connection_options(parser, top=True)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tables = commands.add_parser("tables", parents=[server], help=t("help.tables"))
    tables.add_argument("--open", action="store_true", help=t("help.open"))
    tables.add_argument("--limit", type=int, default=50, help=t("help.limit"))

    new = commands.add_parser("new", parents=[server, play], help=t("help.new"))
    new.add_argument("--game", choices=GAMES, default=GAMES[0], help=t("help.game", game=GAMES[0]))
    new.add_argument(
        "--players", type=int, default=3, choices=range(2, 9), metavar="N",
        help=t("help.players"),
    )  # fmt: skip
    new.add_argument(
        "--bots", type=int, default=None,
        help=t("help.bots"),
    )  # fmt: skip
    defaults = ", ".join(
        t("help.strategy_for", bot=e.default_bot, game=t(f"term.game_{e.game.name}")) for e in CLI_GAMES
    )
    new.add_argument("--strategy", default=None, help=t("help.strategy", defaults=defaults))
    new.add_argument(
        "--seed",
        type=int,
        default=None,
        help=t("help.seed"),
    )
    new.add_argument(
        "--first-dealer", type=seat_number, metavar="SEAT", default=None,
        help=t("help.first_dealer"),
    )  # fmt: skip
    new.add_argument("--name", default=None, help=t("help.name"))
    new.add_argument("--private", action="store_true", help=t("help.private"))
    new.add_argument("--rated", action="store_true", help=t("help.new_rated"))
    clocks = new.add_argument_group(t("help.clocks"))
    clocks.add_argument("--clock", type=float, metavar="SECONDS", help=t("help.clock"))
    clocks.add_argument(
        "--time-bank", type=float, metavar="SECONDS", default=0.0,
        help=t("help.time_bank"),
    )  # fmt: skip
    clocks.add_argument(
        "--on-timeout", choices=POLICIES, default="one-move",
        help=t("help.on_timeout"),
    )  # fmt: skip
    clocks.add_argument(
        "--bot-pace", type=float, metavar="SECONDS",
        help=t("help.bot_pace"),
    )  # fmt: skip
    for game in GAMES:
        add_rule_options(new, game)

    join = commands.add_parser("join", parents=[server, play], help=t("help.join"))
    join.add_argument("table", help=t("help.table"))
    join.add_argument("--seat", type=seat_number, metavar="SEAT", default=None, help=t("help.seat"))
    join.add_argument("--name", default=None, help=t("help.join_name"))
    join.add_argument("--invite", metavar="CODE", default="", help=t("help.invite"))

    quick = commands.add_parser("play", parents=[server, play], help=t("help.play"))
    quick.add_argument("--game", choices=GAMES, default=GAMES[0], help=t("help.game", game=GAMES[0]))
    quick.add_argument(
        "--players", type=int, default=3, choices=range(2, 9), metavar="N", help=t("help.play_players")
    )
    quick.add_argument("--preset", default="", help=t("help.preset"))
    quick.add_argument("--rated", action="store_true", help=t("help.rated"))
    quick.add_argument("--bots", action="store_true", help=t("help.allow_bots"))
    quick.add_argument("--wait", type=float, default=60.0, metavar="SECONDS", help=t("help.wait"))
    quick.add_argument("--name", default=None, help=t("help.name"))

    again = commands.add_parser("rematch", parents=[server, play], help=t("help.rematch"))
    again.add_argument("table", help=t("help.table_id"))
    again.add_argument("--decline", action="store_true", help=t("help.decline"))
    again.add_argument("--wait", type=float, default=60.0, metavar="SECONDS", help=t("help.wait"))

    watch = commands.add_parser("watch", parents=[server, play], help=t("help.watch"))
    watch.add_argument("table", help=t("help.table"))

    leave = commands.add_parser("leave", parents=[server], help=t("help.leave"))
    leave.add_argument("table", help=t("help.table_id"))

    export = commands.add_parser(
        "export",
        parents=[server],
        help=t("help.export"),
        description=t("help.export_description"),
    )
    export.add_argument("table", help=t("help.table"))
    export.add_argument("--out", default="-", help=t("help.out"))

    login = commands.add_parser(
        "login", parents=[server], help=t("help.login"), description=t("help.login_description")
    )
    login.add_argument("--guest", action="store_true", help=t("help.login_guest"))
    login.add_argument("--name", default=None, help=t("help.login_name"))
    login.add_argument(
        "--locale",
        choices=LANGUAGES,
        default=None,
        help=t("help.login_locale", languages=", ".join(LANGUAGES)),
    )
    login.add_argument("--issuer", default=None, help=t("help.login_issuer"))
    login.add_argument("--client-id", default=None, help=t("help.login_client_id"))
    login.add_argument("--token", default=None, help=t("help.login_token"))
    commands.add_parser("logout", parents=[server], help=t("help.logout"))
    whoami = commands.add_parser("whoami", parents=[server], help=t("help.whoami"))
    whoami.add_argument("--show-token", action="store_true", help=t("help.show_token"))
    games = commands.add_parser("games", parents=[server], help=t("help.games"))
    games.add_argument("--limit", type=int, default=20, help=t("help.games_limit"))
    games.add_argument("--page", default=None, help=t("help.games_page"))
    claim = commands.add_parser("claim", parents=[server], help=t("help.claim"))
    claim.add_argument("--guest-token", default=None, help=t("help.claim_guest_token"))
    board = commands.add_parser("leaderboard", parents=[server], help=t("help.leaderboard"))
    board.add_argument("--game", choices=GAMES, default=GAMES[0], help=t("help.game", game=GAMES[0]))
    board.add_argument(
        "--players", type=int, default=3, choices=range(2, 9), metavar="N",
        help=t("help.leaderboard_players"),
    )  # fmt: skip
    board.add_argument("--bots", action="store_true", help=t("help.leaderboard_bots"))
    board.add_argument("--limit", type=int, default=20, help=t("help.leaderboard_limit"))
    board.add_argument("--page", default=None, help=t("help.leaderboard_page"))
    profile = commands.add_parser("profile", parents=[server], help=t("help.profile"))
    profile.add_argument("player", nargs="?", default=None, help=t("help.profile_player"))
    return parser
