"""A table's turn clock (a table created with a :class:`~server.time_control.TimeControl`).

While a seat played by a client must act, one asyncio timer (a ``TimerHandle``; none on a table without a
clock or while bots act) is armed at that decision's deadline, ``per_move`` plus the seat's bank. When it
fires the table's policy acts under the lock: a "timeout" record, then TurnTimedOut and SeatTakenOver, and the
server's bot plays the seat (its moves are ordinary "action" records): that one decision (the default), or
until a "reclaim" (ReclaimSeat, an action, the seat's stream opening, a new player in the seat), or,
forfeited, to the end. Time a decision takes beyond ``per_move`` is
taken from the seat's bank ("bank" record). Replaying the records yields the same events; the clock of the
seat to act then starts afresh, unless the store says when the record that began the decision was stored
(PostgreSQL's, read by a node taking the table over): then it goes on from then, and the node gives back the
time nobody served the table (:meth:`TurnClock.shift`), so that a takeover keeps the seat's remaining time.

The clock decides when; what a timeout does to the seat is the table core's (a TimeOut command, run by the
table's one path of change, :class:`server.table.Table`). The clock is told each frame of the table after a
change (:class:`~server.table_changes.Frame`) and keeps no pointer to the table: its timer calls the function
it was given when armed. Time the server was not running (stopped, or its event loop
blocked) is not the seat's: the table's :class:`~server.stalls.StallWatch` says how long that was since the
decision's clock started, and the clock runs out only once that time (and a grace to read what the seat sent
meanwhile) has passed too; the bank is charged for the seat's own time only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeAlias

from server.stalls import StallWatch
from server.store import Record
from server.table_changes import Frame
from server.time_control import TimeControl

Expired: TypeAlias = Callable[[tuple[int, int]], None]
"""Called when the running clock's timer goes off, with its key (decisions, seat)."""


class TurnClock:
    """The clock of the decision the table waits for, if a client's seat must act on a table with a clock."""

    __slots__ = (
        "_control",
        "_stalled_at_start",
        "_stalls",
        "_start",
        "deadline",
        "deadline_wall",
        "key",
        "recorded",
        "timer",
    )

    def __init__(self, control: TimeControl | None, stalls: StallWatch) -> None:
        self._control = control if control is not None and control.clocked else None
        self._stalls = stalls
        """The server's record of the time it did not run, which turn clocks give back."""
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
        self.recorded = False
        """The running clock started when a stored record says (a replay's), not when this process saw it."""
        self.timer: asyncio.TimerHandle | None = None
        """The one timer, armed at the running clock's deadline; None when no clock runs (or it was never
        armed: a table rebuilt by replay, or built off the server's loop)."""

    def runs_for(self, seat: int) -> bool:
        """Whether ``seat``'s clock is running (its Turn then carries a deadline and its bank)."""
        key = self.key
        return key is not None and key[1] == seat

    def update(self, frame: Frame, expired: Expired | None, started: float | None = None) -> None:
        """Start the clock of a new decision (or stop it), after a change; armed to call ``expired`` when it
        runs out (None: not armed, a table being rebuilt: :meth:`ensure_armed` arms it later). ``started``:
        when the decision began (Unix time: the stored time of the record that began it, on a replay);
        None: now."""
        if self._control is None:
            return
        seat = frame.to_act if frame.started else None
        if seat is not None and frame.seats[seat].played_by_bot:
            seat = None
        key = None if seat is None else (frame.decisions, seat)
        if key == self.key:
            return
        self.key = key
        self.cancel()
        if seat is not None:
            allowed = self._control.per_move + frame.seats[seat].bank
            wall = time.time()
            self.recorded = started is not None
            started = wall if started is None else started
            self._start = time.monotonic() - (wall - started)
            self._stalled_at_start = self._stalls.stalled()
            self.deadline = self._start + allowed
            self.deadline_wall = started + allowed
            if expired is not None:
                self._arm(0.0, expired)

    def shift(self, seconds: float) -> None:
        """Move a clock a replay started from a stored time (:attr:`recorded`) ``seconds`` later: from the
        database's clock to this process's, plus the time the table was served by nobody (its owner dead),
        which is not the seat's. Not armed yet (a table being taken over); a clock started now stays."""
        if self.key is None or not self.recorded:
            return
        self._start += seconds
        self.deadline += seconds
        self.deadline_wall += seconds

    def ensure_armed(self, expired: Expired) -> None:
        """Arm the running clock if it never was (a table rebuilt by replay: its clock starts afresh)."""
        if self.key is not None and self.timer is None:
            self._arm(0.0, expired)

    def rearm(self, least: float, expired: Expired) -> None:
        """Arm the timer again, at the deadline or in ``least`` seconds, whichever is later (it went off
        early, or its timeout could not be stored)."""
        self._arm(least, expired)

    def _arm(self, least: float, expired: Expired) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # built outside the server (a test, the exporter); the server arms it at start
            return
        self.cancel()
        key = self.key
        if key is None:
            return
        delay = max(least, self.left())
        self.timer = loop.call_at(loop.time() + delay, _fire, self, key, expired)

    def left(self) -> float:
        """Seconds until the running clock runs out: its deadline, plus what the server's stalls since it
        started gave back."""
        credit = self._stalls.credit(self._stalled_at_start)
        return self.deadline + credit - time.monotonic()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def bank_left(self, seat: int, bank: float) -> float | None:
        """The seat's bank after the decision it makes now, when the decision took time beyond per_move
        from it (to store with the decision: replay cannot time it); None when it took nothing."""
        if self._control is None or not self.runs_for(seat):
            return None
        own = time.monotonic() - self._start - (self._stalls.stalled() - self._stalled_at_start)
        over = own - self._control.per_move
        if over <= 0 or bank <= 0:
            return None
        return round(max(0.0, bank - over), 3)


def _fire(clock: TurnClock, key: tuple[int, int], expired: Expired) -> None:
    if clock.key == key:
        expired(key)


def clock_parts(records: list[Record]) -> list[list[Record]]:
    """A table's records cut for a replay (:meth:`server.table.Table.replay`): those before the last action
    at once, then each from it on alone, so that the replay sees which one began the running decision
    (each action makes a new decision; a reclaim, a join or a timeout after it may start or stop the clock
    again)."""
    tail = next((i for i in range(len(records) - 1, -1, -1) if records[i].kind == "action"), 0)
    return [records[:tail], *([record] for record in records[tail:])]
