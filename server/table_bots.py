"""The loop that moves a table's server-run bots, and one bot's move: a part of :class:`server.table.Table`
kept apart so that the table's module holds the path of a change (decide, store, apply, publish) and the
streams and clock around it, and this one what paces the bots (:mod:`server.pacing`), retries a move the
store could not commit, and stops a table of bots only at the server's move limit. Each function is given
the table, and changes it through the table's one path (its ``_store``, then ``_make``).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from server import bots as bot_pauses
from server.errors import ErrorReason, ServiceError
from server.pacing import BOTS_ONLY, PEOPLE
from server.table_changes import BotMove
from server.table_state import StopReason

if TYPE_CHECKING:
    from server.table import Table


def _bot_pace(table: Table) -> float:
    """The least seconds a bot's move takes here: the table's bot pace where people play, else none."""
    control = table.core.time_control
    if control is None or all(state.bot for state in table.core.seats):
        return 0.0
    return control.bot_pace


async def play_bots(table: Table) -> None:
    """Move the bots, one move at a time under the lock, while a server-run bot must act. Each step (the
    move; applying it once stored) waits for its turn from the pacer (:mod:`server.pacing`); a move
    the store cannot commit is decided again after a pause, the pause doubling up to a bound (cut short
    when the database comes back from an outage)."""
    retry = bot_pauses.STORE_RETRY_SECONDS
    while True:
        pace = _bot_pace(table)
        if pace > 0:
            await asyncio.sleep(pace)  # people follow the game; the move is decided after the pause
        kind = BOTS_ONLY if table.played_by_bots_only() else PEOPLE
        await table.pacer.turn(kind)
        async with table.lock:
            seat = table.core.bot_to_act()
            if seat is None:
                return
            try:
                await table.move_bot(seat, kind)
            except ServiceError as error:
                if error.reason is ErrorReason.TABLE_MOVING:
                    return  # another node plays the table now; this one drops it
                if error.reason is not ErrorReason.STORE_UNAVAILABLE:
                    raise
                failed = True  # the move was not made; it is decided again after a pause
            else:
                failed = False
        if failed:
            await _wait_to_retry(table, retry)
            retry = min(retry * 2, bot_pauses.STORE_RETRY_MAX_SECONDS)
        else:
            retry = bot_pauses.STORE_RETRY_SECONDS
            if kind == BOTS_ONLY and table.pacer.move_delay > 0:
                await asyncio.sleep(table.pacer.move_delay)


async def _wait_to_retry(table: Table, pause: float) -> None:
    """The pause before a bot's move the store could not commit is decided again: shorter when the
    database comes back meanwhile (:meth:`server.store.Store.wait_to_retry`)."""
    if table.store is None:
        await asyncio.sleep(pause)
    else:
        await table.store.wait_to_retry(pause)


async def move_bot(table: Table, seat: int, kind: int = PEOPLE) -> None:
    """One move of a server-run bot (caller holds the lock): a searching bot thinks in a worker thread,
    so the server serves every other table meanwhile. Stored, then applied in a turn of its own: the
    commits of many tables' moves end together, and their applying would otherwise run back to back;
    ``kind``: the table's place in the pacer's queue."""
    core, bots = table.core, table.bots
    asked = time.perf_counter()
    bot_seat = core.seats[seat].bot
    # A bot's decision is due within the table's time per move, as a client's would be (its clock is not
    # run: a bot seat has no bank); without a turn clock, the strategy's own budget.
    control = core.time_control
    deadline = None if control is None or not control.clocked else time.monotonic() + control.per_move
    if bots.player(seat).searching:
        action = await asyncio.to_thread(bots.decide, core.game, seat, core.sequence, bot_seat, deadline)
    else:
        action = bots.decide(core.game, seat, core.sequence, bot_seat, deadline)
    table.telemetry.bot_decided(bots.strategy_of(seat, core.seats), time.perf_counter() - asked)
    change = core.decide(BotMove(seat, action))
    if change.refusal is not None:
        raise change.refusal
    if table.store is not None:
        await table._store(change.records)
    await table.pacer.turn_after_commit(kind)
    applied = time.perf_counter()
    table._make(change)
    table.telemetry.action_applied(table, action, time.perf_counter() - applied)
    limit = table.pacer.max_moves
    if 0 < limit <= core.decisions and not core.finished and table.played_by_bots_only():
        await table.stop(
            StopReason.MOVE_LIMIT,
            f"stopped after {core.decisions} moves without the game ending: a table played by bots only"
            f" makes {limit} at most on this server",
        )
