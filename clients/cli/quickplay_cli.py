"""``thousand play`` and ``thousand rematch``: find people to play with (MatchmakingService), then play.

``play`` waits in the server's queue (clients/quickplay.py), saying how many wait and for how long, and
once a match seats the player it keeps the seat on this machine (:mod:`clients.seats`) and plays it as
``thousand join`` would: a closed terminal loses nothing, ``thousand join TABLE`` takes the player back.
Ctrl-C while waiting leaves the queue. ``rematch`` asks the players of a finished table (a seat kept here)
for another game; ``--decline`` says no for everyone.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Awaitable, Callable
from typing import TextIO

from clients.cli.options import connection_from_args
from clients.cli.text import counted
from clients.connection import Connection
from clients.errors import ServerError
from clients.fairness import new_client_seed
from clients.i18n import t
from clients.quickplay import Seated, Waiting, quick_play, quick_play_request, rematch
from clients.seats import KeptSeat, SeatKeeper
from clients.session import TableSession
from thousand.v1 import matchmaking_pb2 as mm


class _Progress:
    """Prints a waiting line when what it says changes (not every update the stream sends)."""

    def __init__(self, stdout: TextIO) -> None:
        self.stdout = stdout
        self._last: tuple[int, int] | None = None

    def waiting(self, update: Waiting) -> None:
        shown = (update.players_waiting, int(update.waited) // 10)
        if shown == self._last:
            return
        self._last = shown
        estimate = -1 if update.estimate is None else round(update.estimate)
        line = t(
            "cli.quickplay_waiting",
            waiting=update.players_waiting,
            needed=update.players_needed,
            waited=round(update.waited),
            estimate=estimate,
        )
        print(line, file=self.stdout, flush=True)

    def rematch(self, update: mm.RematchWaiting) -> None:
        line = t("cli.rematch_waiting", accepted=len(update.accepted_seats), needed=update.seats_needed)
        print(line, file=self.stdout, flush=True)


def announce(found: Seated, asked_rated: bool, stdout: TextIO) -> None:
    print(t("cli.quickplay_seated", seat=counted(found.seat), table=found.table.table_id), file=stdout)
    if found.bots:
        unrated = "yes" if asked_rated else "no"
        print(t("cli.quickplay_bots", count=found.bots, unrated=unrated), file=stdout, flush=True)


Player = Callable[[TableSession, bool, TextIO, TextIO], Awaitable[int]]
"""The commands' one way to play a seat (:func:`clients.cli.main.play`)."""


async def seat_and_play(
    connection: Connection,
    found: Seated,
    name: str,
    client_seed: str,
    how: tuple[Player, bool, TextIO, TextIO],
) -> int:
    """Keep the seat a match gave, take it up (JoinTable with its own token: the seat as it is) and play."""
    keeper = SeatKeeper()
    table_id = found.table.table_id
    keeper.keep(
        KeptSeat(connection.key, table_id, found.seat, found.seat_token, name, client_seed=client_seed)
    )
    async with TableSession(connection, keeper=keeper) as session:
        await session.join(table_id, found.seat, name)
        play, plain, stdin, stdout = how
        return await play(session, plain, stdin, stdout)


async def play_command(
    args: argparse.Namespace, name: str, play: Player, stdin: TextIO, stdout: TextIO
) -> int:
    connection = connection_from_args(args)
    request = quick_play_request(
        args.game,
        args.players,
        preset=args.preset,
        rated=args.rated,
        bots_may_fill=args.bots,
        max_wait=args.wait,
        player_name=name,
    )
    print(t("cli.quickplay_asking", game=t(f"term.game_{args.game}"), players=args.players), file=stdout)
    found = await quick_play(connection, request, _Progress(stdout).waiting)
    announce(found, args.rated, stdout)
    how = (play, bool(args.plain), stdin, stdout)
    return await seat_and_play(connection, found, name, request.client_seed, how)


async def rematch_command(args: argparse.Namespace, play: Player, stdin: TextIO, stdout: TextIO) -> int:
    connection = connection_from_args(args)
    kept = SeatKeeper().find(connection.key, args.table)
    if kept is None:
        print(t("cli.rematch_no_seat", table=args.table), file=sys.stderr)
        return 1
    seed, token = new_client_seed(), secrets.token_urlsafe(32)
    try:
        found = await rematch(
            connection,
            args.table,
            kept.token,
            accept=not args.decline,
            max_wait=args.wait,
            on_wait=_Progress(stdout).rematch,
            new_seat_token=token,
            client_seed=seed,
        )
    except ServerError as error:
        if args.decline and error.reason == "REMATCH_DECLINED":
            print(t("cli.rematch_declined", table=args.table), file=stdout)
            return 0
        raise
    announce(found, False, stdout)
    return await seat_and_play(connection, found, kept.name, seed, (play, bool(args.plain), stdin, stdout))
