"""A table's turn clock (a table created with a :class:`~server.clock.TimeControl`).

While a seat played by a client must act, one asyncio timer (a ``TimerHandle``; none on a table without a
clock or while bots act) is armed at that decision's deadline, ``per_move`` plus the seat's bank. When it
fires the table's policy acts under the lock: a "timeout" record, then TurnTimedOut and SeatTakenOver, and the
server's bot plays the seat (its moves are ordinary "action" records): that one decision (the default), or
until a "reclaim" (ReclaimSeat, an action, the seat's stream opening, a new player in the seat), or,
forfeited, to the end. Time a decision takes beyond ``per_move`` is
taken from the seat's bank ("bank" record). Replaying the records yields the same events; the clock of the
seat to act then starts afresh.

The clock decides when; what a timeout does to the seat is the table's seating's
(:meth:`~server.seating.Seating.time_out`). Time the server was not running (stopped, or its event loop
blocked) is not the seat's: the table's :class:`~server.stalls.StallWatch` says how long that was since the
decision's clock started, and the clock runs out only once that time (and a grace to read what the seat sent
meanwhile) has passed too; the bank is charged for the seat's own time only.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from typing import TYPE_CHECKING

from server import bots
from server.errors import ServiceError
from server.store import Record

if TYPE_CHECKING:
    from server.table import AnyTable


class TurnClock:
    """The clock of the decision the table waits for, if a client's seat must act on a table with a clock."""

    __slots__ = (
        "_stalled_at_start",
        "_start",
        "_table",
        "_task",
        "deadline",
        "deadline_wall",
        "decisions",
        "key",
        "timer",
    )

    def __init__(self, table: AnyTable) -> None:
        self._table = table
        self.decisions = 0
        """Decisions applied so far: with the seat to act, it tells one decision's clock from the next."""
        self.key: tuple[int, int] | None = None
        """(decisions, seat) of the decision whose clock runs; None when no clock runs."""
        self._start = 0.0
        """time.monotonic() when the running decision's clock started."""
        self._stalled_at_start = 0.0
        """The stall watch's total (:meth:`StallWatch.stalled`) when it started."""
        self.deadline = 0.0
        """time.monotonic() when it runs out."""
        self.deadline_wall = 0.0
        """The same, as time.time(), for Turn.deadline."""
        self.timer: asyncio.TimerHandle | None = None
        """The one timer, armed at the running clock's deadline; None when no clock runs (or it was never
        armed: a table rebuilt by replay, or built off the server's loop)."""
        self._task: asyncio.Task[None] | None = None

    def runs_for(self, seat: int) -> bool:
        """Whether ``seat``'s clock is running (its Turn then carries a deadline and its bank)."""
        key = self.key
        return key is not None and key[1] == seat

    def _seat(self) -> int | None:
        """The seat whose clock runs: the seat to act, when the table has a clock and a client plays it."""
        table = self._table
        if not table.clocked or not table.started:
            return None
        seat: int | None = table.game.to_act
        if seat is None or table.seats[seat].played_by_bot:
            return None
        return seat

    def update(self) -> None:
        """Start the clock of a new decision (or stop it); called whenever the table changes."""
        seat = self._seat()
        key = None if seat is None else (self.decisions, seat)
        if key == self.key:
            return
        self.key = key
        self.cancel()
        if seat is not None:
            self._start_for(seat)

    def ensure_armed(self) -> None:
        """Arm the running clock if it never was (a table rebuilt by replay: its clock starts afresh)."""
        if self.key is not None and self.timer is None:
            self._start_for(self.key[1])

    def _start_for(self, seat: int) -> None:
        table = self._table
        per_move = table.time_control.per_move if table.time_control is not None else 0.0
        allowed = per_move + table.seats[seat].bank
        self._start = time.monotonic()
        self._stalled_at_start = table.stalls.stalled()
        self.deadline = self._start + allowed
        self.deadline_wall = time.time() + allowed
        self._arm()

    def _arm(self) -> None:
        """Arm the table's one timer at the running clock's deadline (not while replaying, nor off a loop)."""
        if self._table.replaying:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # built outside the server (a test, the exporter); the server arms it at start
            return
        self.cancel()
        delay = max(0.0, self._left())
        self.timer = loop.call_at(loop.time() + delay, self._fired)

    def _left(self) -> float:
        """Seconds until the running clock runs out: its deadline, plus what the server's stalls since it
        started gave back."""
        credit = self._table.stalls.credit(self._stalled_at_start)
        return self.deadline + credit - time.monotonic()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def stop(self) -> None:
        """The server is stopping: no timer, and a timeout being handled is cancelled."""
        self.cancel()
        if self._task is not None:
            self._task.cancel()

    def _fired(self) -> None:
        key = self.key
        if key is None:
            return
        # A context of its own, like the bots': the timeout's log lines carry no request.
        timeout = self._on_timeout(key)
        self._task = asyncio.get_running_loop().create_task(timeout, context=contextvars.Context())

    async def _on_timeout(self, key: tuple[int, int]) -> None:
        table = self._table
        async with table.lock:
            if key != self.key or table.time_control is None:
                return  # the seat acted (or was taken back) while the timer fired
            if self._left() > 0.001:  # early, or the server stalled meanwhile: not the seat's time
                self._arm()
                return
            seat = key[1]
            policy = table.time_control.policy
            try:
                await table.record(Record("timeout", seat, policy.value))
            except ServiceError:  # not stored, so not made: the clock fires again shortly
                loop = asyncio.get_running_loop()
                self.timer = loop.call_at(loop.time() + bots.STORE_RETRY_SECONDS, self._fired)
                return
            table.seating.time_out(seat, policy)
        table.ensure_bots_running()

    def bank_record(self, seat: int) -> Record | None:
        """The charge of a decision's time beyond per_move to the seat's bank, to store with the decision
        (replay cannot time it); None when the decision took nothing from the bank."""
        table = self._table
        if table.time_control is None or not self.runs_for(seat):
            return None
        own = time.monotonic() - self._start - (table.stalls.stalled() - self._stalled_at_start)
        over = own - table.time_control.per_move
        state = table.seats[seat]
        if over <= 0 or state.bank <= 0:
            return None
        left = round(max(0.0, state.bank - over), 3)
        return Record("bank", seat, f"{left:.3f}")
