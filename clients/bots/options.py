"""``thousand-bot``'s options, in the player's language (issue #29): every help text from the catalogues'
``bot.help_*`` messages, and argparse's own words (usage, the groups' titles, -h, the error line) as the
``thousand`` command says them (:class:`clients.cli.options.TranslatedParser`)."""

from __future__ import annotations

import argparse

from bots.registry import GAMES
from clients.cli.options import TranslatedParser
from clients.connection import DEFAULT_SERVER
from clients.i18n import t


def build_parser(known: str, known_blagogo: str, max_deals: int) -> argparse.ArgumentParser:
    """The commands and their options; ``known``: the strategies a name may be (Thousand's, Blagogo's)."""
    parser = TranslatedParser(prog="thousand-bot", description=t("bot.help_description"))
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser("play", help=t("bot.help_play"))
    play.add_argument("--table", help=t("bot.help_table"))
    play.add_argument("--seat", type=int, help=t("bot.help_seat"))
    play.add_argument("--name", default="", help=t("bot.help_name"))
    play.add_argument("--invite", default="", metavar="CODE", help=t("bot.help_invite"))
    play.add_argument("--against", default="greedy,greedy", help=t("bot.help_against"))
    play.add_argument("--bot-pace", type=float, default=0.0, metavar="SECONDS", help=t("bot.help_bot_pace"))

    ladder = commands.add_parser("ladder", help=t("bot.help_ladder"))
    ladder.add_argument("--key", default=None, help=t("bot.help_key"))
    ladder.add_argument("--standings", action="store_true", help=t("bot.help_standings"))
    ladder.add_argument("--max-sets", type=int, default=0, help=t("bot.help_max_sets"))

    registering = commands.add_parser("register", help=t("bot.help_register"))
    registering.add_argument("--name", required=True, help=t("bot.help_register_name"))
    registering.add_argument("--json", action="store_true", help=t("bot.help_json_object"))

    match = commands.add_parser("match", help=t("bot.help_match"))
    match.add_argument("--strategies", required=True, help=t("bot.help_strategies"))
    match.add_argument("--verbose", action="store_true", help=t("bot.help_verbose"))
    match.add_argument("--quiet", action="store_true", help=t("bot.help_quiet"))
    match.add_argument(
        "--max-deals", type=int, default=max_deals, help=t("bot.help_max_deals", max=max_deals)
    )

    tour = commands.add_parser("tournament", help=t("bot.help_tournament"))
    tour.add_argument("--strategies", required=True, help=t("bot.help_strategy_names"))
    tour.add_argument("--deals", "--rounds", type=int, default=100, help=t("bot.help_deals"))
    tour.add_argument(
        "--players", type=int, default=None, choices=range(2, 9), metavar="{2..8}",
        help=t("bot.help_players"),
    )  # fmt: skip
    tour.add_argument(
        "--turnover-limit", type=int, default=None,
        help=t("bot.help_turnovers"),
    )  # fmt: skip
    tour.add_argument("--games", type=int, default=0, help=t("bot.help_games"))
    tour.add_argument("--workers", type=int, default=1, help=t("bot.help_workers"))
    tour.add_argument("--quiet", action="store_true", help=t("bot.help_quiet"))

    for sub in (play, match, tour, ladder):
        sub.add_argument("--game", choices=GAMES, default="thousand", help=t("help.game", game="thousand"))
        sub.add_argument("--seed", type=int, help=t("bot.help_seed"))
        sub.add_argument("--budget-ms", type=int, default=50, help=t("bot.help_budget"))
        sub.add_argument("--json", action="store_true", help=t("bot.help_json"))
    for sub in (play, match, ladder, registering):
        sub.add_argument("--server", default=None, help=t("bot.help_server", server=DEFAULT_SERVER))
        sub.add_argument("--tls", action="store_true", help=t("help.tls"))
        sub.add_argument("--tls-ca", default=None, help=t("help.tls_ca"))
        sub.add_argument("--connect-timeout", type=float, default=None, help=t("bot.help_connect_timeout"))
        sub.add_argument("--player-token", default=None, metavar="TOKEN", help=t("bot.help_player_token"))
    for sub in (play, match):
        sub.add_argument("--target", type=int, default=1000, help=t("bot.help_target"))
        sub.add_argument("--turnover-limit", type=int, default=0, help=t("bot.help_turnovers"))
    strategy = t("bot.help_strategy", known=known, blagogo=known_blagogo)
    ladder.add_argument("--strategy", default=None, help=strategy)
    play.add_argument("--strategy", required=True, help=strategy)
    return parser
