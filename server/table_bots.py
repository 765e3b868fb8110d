"""The loop that moves a table's server-run bots, and one bot's move: a part of :class:`server.table.Table`
kept apart so that the table's module holds the path of a change (decide, store, apply, publish) and the
streams and clock around it, and this one what paces the bots (:mod:`server.pacing`), retries a move the
store could not commit, and stops a table of bots only at the server's move limit.

Like the table's other parts it holds no pointer to the table: each function is given a :class:`BotMoves`,
the parts it reads (the core, the bots, the lock, the pacer, the store) and the table's steps it calls (store
a change, make it, stop the table, report), which the table makes when its loop starts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from server import bots as bot_pauses
from server.bots import Bots
from server.errors import ErrorReason, ServiceError
from server.pacing import BOTS_ONLY, PEOPLE, BotPacer
from server.store import Record, Store
from server.table_changes import BotMove, Change
from server.table_core import TableCore
from server.table_state import StopReason


@dataclass(frozen=True, slots=True)
class BotMoves:
    """What the bots' loop is given by its table."""

    core: TableCore
    bots: Bots
    lock: asyncio.Lock
    pacer: BotPacer
    store: Store | None
    commit: Callable[[list[Record]], Awaitable[None]]
    """Store a change's records (the table's; STORE_UNAVAILABLE or TABLE_MOVING when it cannot)."""
    make: Callable[[Change], None]
    """Apply a stored change and publish it (the table's)."""
    stop: Callable[[StopReason, str], Awaitable[None]]
    """Stop the table through its one path (the move limit)."""
    decided: Callable[[str, float], None]
    """Report a bot's decision: its strategy and the seconds it took."""
    applied: Callable[[Any, float], None]
    """Report an action applied: the action and the seconds from applying it to its publication."""


def _bot_pace(core: TableCore) -> float:
    """The least seconds a bot's move takes here: the table's bot pace where people play, else none."""
    control = core.time_control
    if control is None or all(state.bot for state in core.seats):
        return 0.0
    return control.bot_pace


async def play_bots(moves: BotMoves) -> None:
    """Move the bots, one move at a time under the lock, while a server-run bot must act. Each step (the
    move; applying it once stored) waits for its turn from the pacer (:mod:`server.pacing`); a move
    the store cannot commit is decided again after a pause, the pause doubling up to a bound (cut short
    when the database comes back from an outage)."""
    core, pacer = moves.core, moves.pacer
    retry = bot_pauses.STORE_RETRY_SECONDS
    while True:
        pace = _bot_pace(core)
        if pace > 0:
            await asyncio.sleep(pace)  # people follow the game; the move is decided after the pause
        kind = BOTS_ONLY if core.played_by_bots_only() else PEOPLE
        await pacer.turn(kind)
        async with moves.lock:
            seat = core.bot_to_act()
            if seat is None:
                return
            try:
                await move_bot(moves, seat, kind)
            except ServiceError as error:
                if error.reason is ErrorReason.TABLE_MOVING:
                    return  # another node plays the table now; this one drops it
                if error.reason is not ErrorReason.STORE_UNAVAILABLE:
                    raise
                failed = True  # the move was not made; it is decided again after a pause
            else:
                failed = False
        if failed:
            await _wait_to_retry(moves.store, retry)
            retry = min(retry * 2, bot_pauses.STORE_RETRY_MAX_SECONDS)
        else:
            retry = bot_pauses.STORE_RETRY_SECONDS
            if kind == BOTS_ONLY and pacer.move_delay > 0:
                await asyncio.sleep(pacer.move_delay)


async def _wait_to_retry(store: Store | None, pause: float) -> None:
    """The pause before a bot's move the store could not commit is decided again: shorter when the
    database comes back meanwhile (:meth:`server.store.Store.wait_to_retry`)."""
    if store is None:
        await asyncio.sleep(pause)
    else:
        await store.wait_to_retry(pause)


async def move_bot(moves: BotMoves, seat: int, kind: int = PEOPLE) -> None:
    """One move of a server-run bot (caller holds the lock): a searching bot thinks in a worker thread,
    so the server serves every other table meanwhile. Stored, then applied in a turn of its own: the
    commits of many tables' moves end together, and their applying would otherwise run back to back;
    ``kind``: the table's place in the pacer's queue."""
    core, bots = moves.core, moves.bots
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
    moves.decided(bots.strategy_of(seat, core.seats), time.perf_counter() - asked)
    change = core.decide(BotMove(seat, action))
    if change.refusal is not None:
        raise change.refusal
    if moves.store is not None:
        await moves.commit(change.records)
    await moves.pacer.turn_after_commit(kind)
    applied = time.perf_counter()
    moves.make(change)
    moves.applied(action, time.perf_counter() - applied)
    limit = moves.pacer.max_moves
    if 0 < limit <= core.decisions and not core.finished and core.played_by_bots_only():
        await moves.stop(
            StopReason.MOVE_LIMIT,
            f"stopped after {core.decisions} moves without the game ending: a table played by bots only"
            f" makes {limit} at most on this server",
        )
