"""Driving a server table's bots by hand in a test, one move at a time, instead of by its bots' loop."""

from __future__ import annotations

from typing import Any

from server.table import Table


def bot_to_act(table: Table) -> int | None:
    """The seat to act when a server-run bot plays it (a bot seat, or one taken over on time); else None."""
    return table.core.frame().bot_to_act


async def play_bot(table: Table, seat: int) -> None:
    """One move of the server-run bot of ``seat``, through the table's one path of change."""
    await table.move_bot(seat)


def next_move(table: Table, seat: int) -> Any:
    """The move the seat's bot makes now: the same on any node, after any restart."""
    core = table.core
    return table.bots.decide(core.game, seat, core.sequence, core.seats[seat].bot)
