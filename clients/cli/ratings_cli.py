"""The terminal client's rating commands: ``thousand leaderboard`` (a pool's, page by page) and ``thousand
profile`` (a player's ratings per pool, their places and latest rated games; the signed-in player's without
an id). Ratings need no sign-in to read (docs/protocol.md, "Ratings")."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Final, TextIO

from clients.cli.games import cli_game_named
from clients.cli.options import connection_from_args
from clients.cli.text import counted
from clients.games import game_of_kind
from clients.i18n import t
from clients.players import PlayerClient
from clients.ratings import RatingClient
from thousand.v1 import rating_service_pb2 as rating_pb
from thousand.v1 import ratings_pb2 as ratings_pb

EXIT_ERROR: Final = 1


def rating_words(rating: ratings_pb.Rating) -> str:
    """A rating as a line shows it: the ordinal, then mu ± sigma and the games."""
    return t(
        "ratings.rating",
        ordinal=f"{rating.ordinal:.2f}",
        mu=f"{rating.mu:.2f}",
        sigma=f"{rating.sigma:.2f}",
        games=rating.games,
    )


def pool_words(pool: rating_pb.RatingPool) -> str:
    """A pool in words: the game, its players, people or bots."""
    title = t(f"term.game_{game_of_kind(pool.game).name}")
    return t("ratings.pool_bots" if pool.bots else "ratings.pool", game=title, players=pool.players)


async def leaderboard(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    async with RatingClient(connection) as ratings:
        page = await ratings.leaderboard_page(
            cli_game_named(args.game).game.kind,
            args.players,
            bots=args.bots,
            page_size=max(1, min(args.limit, 100)),
            page_token=args.page or "",
        )
    print(t("ratings.leaderboard_title", pool=pool_words(page.pool), games=page.min_games), file=stdout)
    if not page.entries:
        print(t("ratings.leaderboard_empty", games=page.min_games), file=stdout)
    for entry in page.entries:
        name = entry.display_name or entry.player_id
        print(f"{entry.place:>4}. {name:<24} {rating_words(entry.rating)}  [{entry.player_id}]", file=stdout)
    if page.next_page_token:
        print(t("ratings.leaderboard_more", page=page.next_page_token), file=stdout)
    return 0


async def profile(args: argparse.Namespace, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    player_id = args.player
    if player_id is None:
        if connection.credential is None:
            print(t("players.sign_in_first", address=connection.address), file=sys.stderr)
            return EXIT_ERROR
        async with PlayerClient(connection) as players:
            player_id = (await players.me()).player_id
    async with RatingClient(connection) as ratings:
        found = await ratings.profile(player_id)
    print(
        t("ratings.profile_title", name=found.display_name or found.player_id, id=found.player_id),
        file=stdout,
    )
    if not found.ratings:
        print(t("ratings.profile_none"), file=stdout)
    for pool in found.ratings:
        place = t("ratings.place", place=pool.place) if pool.place else t("ratings.unplaced")
        print(f"  {pool_words(pool.pool):<32} {rating_words(pool.rating)}  {place}", file=stdout)
    if found.recent_games:
        print(t("ratings.recent_title"), file=stdout)
    for game in found.recent_games:
        when = datetime.fromtimestamp(game.time.ToSeconds()).strftime("%Y-%m-%d %H:%M")
        change = game.after.ordinal - game.before.ordinal
        line = t("ratings.recent_line", rank=game.rank, seat=counted(game.seat), change=f"{change:+.2f}")
        print(f"  {when}  {game.table_id:<12}  {line}  {rating_words(game.after)}", file=stdout)
    return 0
