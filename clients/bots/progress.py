"""How a match between bots goes, seen from the side: a spectator of the table says the scores as deals are
scored, and stops the match after a number of deals (players that never reach the goal, random ones, would
otherwise play on silently for ever).

The names of the seats for the standings come from the table itself (its seats' players and bots), so every
seat is named, not only the one a bot of this process plays.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from clients.cli.games import cli_game_of
from clients.connection import Connection
from clients.i18n import t
from clients.messages import SEAT_EVENTS, EventMessage
from clients.session import TableSession
from thousand.v1 import table_service_pb2 as pb

SAY_EVERY: Final = 2.0
"""Seconds between two progress lines (a line a deal would be thousands of lines)."""


def seat_names(table: pb.Table) -> list[str]:
    """Each seat's name: its player's (a bot client joins under its strategy's name), or a server bot's."""
    return [
        t("bot.server_bot", strategy=t("bot.strategy", strategy=s.strategy))
        if s.kind == pb.SEAT_KIND_BOT
        else (s.player_name or t("seat.numbered", seat=s.seat))
        for s in table.seats
    ]


@dataclass
class Progress:
    """Deals (rounds) scored so far and each seat's total after the last one."""

    deals: int = 0
    totals: list[int] = field(default_factory=list)
    finished: bool = False


def _total(cell: str) -> int:
    return int(cell.split(maxsplit=1)[0])


async def follow_match(
    connection: Connection,
    table_id: str,
    say: Callable[[str], None] | None,
    max_deals: int,
    names: Sequence[str],
) -> Progress:
    """Watch the table to the end of its game, or until ``max_deals`` deals are scored (0: no limit), saying
    the scores every :data:`SAY_EVERY` seconds."""
    progress = Progress()
    async with TableSession(connection) as session:
        await session.watch(table_id)
        scorer = cli_game_of(session.game).scorer(lambda: names)
        said: float | None = None
        async for item in session.stream(from_start=True):
            if not isinstance(item, EventMessage) or isinstance(item.event, SEAT_EVENTS):
                continue
            row = scorer.see(item.event, None)
            if row is None:
                continue
            progress.deals += 1
            progress.totals = [_total(c) for c in row.cells]
            if say is not None and (said is None or time.monotonic() - said >= SAY_EVERY):
                said = time.monotonic()
                scores = ", ".join(f"{n} {t}" for n, t in zip(names, progress.totals, strict=False))
                say(t("bot.after", deals=progress.deals, scores=scores))
            if max_deals and progress.deals >= max_deals:
                return progress
    progress.finished = True
    return progress
