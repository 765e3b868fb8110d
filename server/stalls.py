"""Time the server was not running: noticed by a heartbeat on the event loop, and given back to turn clocks.

Why: a turn clock is a deadline on the monotonic clock, which goes on while the process is stopped (SIGSTOP, a
paused VM or container, a machine swapping) or while the event loop is blocked. Without this, the clock of a
seat that had sent its action with 8 s left fired first thing after a 30 s freeze, before the action waiting
in the socket was read: the seat was timed out (or forfeited) for the server's own absence (issue 21).

How: a callback runs every :data:`BEAT_SECONDS`. When it runs more than :data:`STALL_SECONDS` late, the loop
did not run for that long: the lateness is added to :meth:`StallWatch.stalled`, a running total. A clock
notes the total when it starts; when it fires it adds what the total grew by since, plus
:data:`READ_GRACE_SECONDS` after a stall for the requests that arrived meanwhile to be read first, and fires
only once that credit has run out too. A stall still in progress when a clock fires (its heartbeat not yet
run) is counted as well.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Final

BEAT_SECONDS: Final = 0.1
STALL_SECONDS: Final = 0.25
"""A heartbeat this late means the loop did not run: shorter delays are the ordinary jitter of a busy loop."""
READ_GRACE_SECONDS: Final = 1.0
"""After a stall, a clock that ran out meanwhile waits this long more, so what the players sent during the
stall (queued in the sockets) is read and applied before any timeout."""


class StallWatch:
    """The event loop's heartbeat; ``on_stall`` is told each stall's seconds (metrics, a log line)."""

    def __init__(self, on_stall: Callable[[float], None] | None = None) -> None:
        self._on_stall = on_stall
        self._stalled = 0.0
        self.stalls = 0
        self._expected = 0.0
        """time.monotonic() when the next heartbeat is due; 0: not running."""
        self._handle: asyncio.TimerHandle | None = None

    @property
    def running(self) -> bool:
        return self._handle is not None

    def start(self) -> None:
        """Start the heartbeat on the running loop."""
        if self._handle is None:
            self._schedule(asyncio.get_running_loop())

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def stalled(self) -> float:
        """Seconds the loop has not run since the watch started, in all (a stall going on included)."""
        if self._handle is None:
            return self._stalled
        late = time.monotonic() - self._expected
        return self._stalled + (late if late > STALL_SECONDS else 0.0)

    def credit(self, since: float) -> float:
        """What a clock started when :meth:`stalled` was ``since`` gets back: the stalls since, plus the
        read grace if there was any."""
        stalled = self.stalled() - since
        return stalled + READ_GRACE_SECONDS if stalled > 0 else 0.0

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        self._expected = time.monotonic() + BEAT_SECONDS
        self._handle = loop.call_later(BEAT_SECONDS, self._beat, loop)

    def _beat(self, loop: asyncio.AbstractEventLoop) -> None:
        late = time.monotonic() - self._expected
        if late > STALL_SECONDS:
            self._stalled += late
            self.stalls += 1
            if self._on_stall is not None:
                self._on_stall(late)
        self._schedule(loop)
