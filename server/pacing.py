"""Bot work takes turns on the event loop, behind people's requests and fairly across tables.

Why: a server-run bot's move is CPU work on the one event loop. Each table's bots used to move as soon as
they could, so with many tables of bots every turn of the loop ran one move per table before it read the
network again: 300 tables of bots only pushed a bystander's p50 latency from 2.6 to 96 ms and slowed a
person's game threefold (issue 21).

How: before each step of bot work (choosing a move; applying it once stored) a table waits for its turn from
the server's one :class:`BotPacer`. The pacer grants one step per turn of the event loop, so between two bot
steps the loop always goes back to the network and runs every request that arrived: a person's request
waits for one bot step at most, never for a round of every table. Turns are granted first come, first
served (each table asks again after each step, so the tables take turns), tables where a person plays
before tables of bots only: a person's game against bots stays as fast as it can be, while tables of bots
only share what the loop has left. With nothing else to do, bots still move as fast as the loop turns.

An operator may also slow tables of bots only down to a pace (``move_delay``: the least time between two
moves at one such table); by default they are not slowed, so tournaments and tests stay fast. And a table
played by bots only may make at most ``max_moves`` moves: some games among bots never end (random bots
seldom finish a game of Thousand; a 1000 Blagogo round whose cards left are all dead goes on for ever), and
such a table would otherwise burn the server's CPU and grow its store for ever. The table then stops with a
clear final state (TableStopped, STOP_REASON_MOVE_LIMIT).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Final

DEFAULT_MAX_MOVES: Final = 50_000
"""Moves a table of bots only makes at most: some twenty times a whole game of bots (about 1,500 decisions
for three greedy Thousand bots, 60 deals; eight random 1000 Blagogo bots: about 1,000)."""
PEOPLE: Final = 0
"""A table where a person plays (a bot moves for itself or for a seat taken over): served first."""
BOTS_ONLY: Final = 1
"""A table whose every seat a bot plays."""


class BotPacer:
    """The server's queue of bot work; one step granted per turn of the event loop."""

    def __init__(self, move_delay: float = 0.0, max_moves: int = DEFAULT_MAX_MOVES) -> None:
        self.move_delay = move_delay
        """Seconds a table of bots only waits between two moves (0: none)."""
        self.max_moves = max_moves
        """Moves a table played by bots only makes before it is stopped (0: no limit)."""
        self._waiting: tuple[deque[asyncio.Future[None]], deque[asyncio.Future[None]]] = (deque(), deque())
        self._granting: asyncio.AbstractEventLoop | None = None
        """The loop a grant is scheduled on (a pacer may outlive a loop: tests run several)."""

    def waiting(self, kind: int) -> int:
        """Tables waiting for their turn, of ``kind`` (PEOPLE, BOTS_ONLY)."""
        return sum(1 for waiter in self._waiting[kind] if not waiter.done())

    async def turn(self, kind: int) -> None:
        """Return when this table may run one step of bot work (without awaiting anything in between)."""
        await self._queue(kind)  # a cancelled waiter is skipped by _grant

    async def turn_after_commit(self, kind: int) -> None:
        """:meth:`turn` for applying a move already stored: a cancellation while waiting (the server
        stopping) is held back until the turn comes, and raised at the caller's next ``await``, so that a
        stored move is always applied (as :meth:`server.store.Store.append` does for its commit)."""
        loop = asyncio.get_running_loop()
        waiter = _HeldTurn(loop=loop)  # its task's cancel() is refused: the task is woken by the turn alone
        self._enqueue(loop, kind, waiter)
        try:
            await waiter
        except asyncio.CancelledError:  # the cancellation, thrown in once the turn came: raised again later
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
                task.cancel()  # no future awaited now: raised at the caller's next await

    def _queue(self, kind: int) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._enqueue(loop, kind, waiter)
        return waiter

    def _enqueue(self, loop: asyncio.AbstractEventLoop, kind: int, waiter: asyncio.Future[None]) -> None:
        self._waiting[kind].append(waiter)
        if self._granting is not loop:
            self._granting = loop
            loop.call_soon(self._grant, loop)

    def _grant(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake the first waiting table; it runs in the next turn of the loop, and so does the next grant,
        after the network has been read again."""
        if self._granting is not loop:
            return  # superseded by a grant on another loop
        for queue in self._waiting:
            while queue:
                waiter = queue.popleft()
                if waiter.get_loop() is not loop:
                    continue  # left by a loop that is gone
                if not waiter.done():
                    waiter.set_result(None)
                    loop.call_soon(self._grant, loop)
                    return
        self._granting = None


class _HeldTurn(asyncio.Future[None]):
    """The turn a stored move waits for, which a cancellation does not take away.

    Its task's ``cancel()`` asks the future it awaits to cancel first; this one refuses, so the task stays
    queued and is woken when the turn is granted, with the cancellation thrown in then (asyncio's own
    behaviour for a future that cannot be cancelled). It replaces an ``asyncio.wait`` on a plain future
    (a second future and two callbacks for every bot move)."""

    def cancel(self, msg: object = None) -> bool:
        return False
