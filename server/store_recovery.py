"""What the changes a store could not commit wait on before they are tried again: the database's return.

When PostgreSQL restarts, recovers from a crash or fails over, every table of bots on a node has a move it
could not store, each waiting a pause that doubles on every failure (:mod:`server.table`). Left to those
pauses, a table whose database was away eight seconds would wait up to seven more after it came back, and a
thousand tables would each try the database on its own schedule meanwhile. Instead they share one probe (a
connection made and closed, every PROBE_SECONDS, while the database cannot be reached) and all go on once it
answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

from server.logs import get_logger

PROBE_SECONDS: Final = 0.5
"""How often a store whose database cannot be reached tries to connect, while a change waits to be retried."""
log = get_logger("thousand.store")


class Recovery:
    """What the changes waiting to be retried share: one probe of the database at a time, every
    PROBE_SECONDS while it cannot be reached, instead of each table trying again on its own schedule (a
    thousand tables' retries against a recovering database), and every waiter woken once it is back.

    A failure with the database reachable (a full disk, a refused statement) is no outage: the first probe
    finds it so, and the waiters keep their whole pause, as their backoff intends."""

    def __init__(self, reachable: Callable[[], bool], probe_seconds: float = PROBE_SECONDS) -> None:
        self._reachable = reachable
        self.probe_seconds = probe_seconds
        self._prober: asyncio.Task[bool] | None = None

    async def wait(self, pause: float) -> None:
        """Wait ``pause``, or until the database comes back from an outage (whichever is first)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + pause
        prober = self._prober
        if prober is None or prober.done():
            prober = self._prober = loop.create_task(self._probe())
        try:
            came_back = await asyncio.wait_for(asyncio.shield(prober), pause)
        except TimeoutError:
            return
        except Exception:  # a probe that failed unexpectedly: the pause stands, the waiter goes on
            log.exception("database probe failed")
            came_back = False
        if not came_back:
            await asyncio.sleep(max(0.0, deadline - loop.time()))

    async def _probe(self) -> bool:
        """True once the database, found unreachable, accepts connections again; False when the first probe
        finds it reachable."""
        down = False
        while not await asyncio.to_thread(self._reachable):
            if not down:
                log.warning("database unreachable: probing until it is back")
            down = True
            await asyncio.sleep(self.probe_seconds)
        if down:
            log.info("database reachable again")
        return down
