"""The store's recovery probe (server/store_recovery.py): changes waiting to be retried share one probe of the
database and go on once it is back; a failure with the database reachable keeps its whole pause; a probe
that fails unexpectedly never fails the waiter. (tests/test_cluster_store_restart.py restarts a real
PostgreSQL under live tables.)"""

from __future__ import annotations

import asyncio
import threading
import time

from server.store_recovery import Recovery


class Database:
    """Whether the database answers, as a probe sees it; counts the probes and how many ran at once."""

    def __init__(self, up: bool) -> None:
        self.up = up
        self.probes = 0
        self.running = 0
        self.most_at_once = 0
        self._lock = threading.Lock()

    def reachable(self) -> bool:
        with self._lock:
            self.probes += 1
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        time.sleep(0.01)
        with self._lock:
            self.running -= 1
        return self.up


def test_waiters_share_one_probe_and_go_on_once_the_database_is_back() -> None:
    async def scenario() -> tuple[list[float], Database]:
        database = Database(up=False)
        recovery = Recovery(database.reachable, probe_seconds=0.05)
        started = time.monotonic()

        async def waiter() -> float:
            await recovery.wait(10.0)
            return time.monotonic() - started

        waiters = [asyncio.create_task(waiter()) for _ in range(20)]
        await asyncio.sleep(0.5)
        database.up = True
        return list(await asyncio.gather(*waiters)), database

    woke, database = asyncio.run(scenario())
    assert all(0.5 <= seconds < 1.5 for seconds in woke), woke  # after the return, long before the pause
    assert database.most_at_once == 1
    assert database.probes < 20  # one probe every 0.05 s for everyone, not one per waiter


def test_a_failure_with_the_database_reachable_keeps_the_whole_pause() -> None:
    async def scenario() -> float:
        recovery = Recovery(Database(up=True).reachable, probe_seconds=0.05)
        started = time.monotonic()
        await recovery.wait(0.4)
        return time.monotonic() - started

    assert asyncio.run(scenario()) >= 0.39


def test_a_probe_that_fails_unexpectedly_leaves_the_waiter_its_pause() -> None:
    def broken() -> bool:
        raise OSError("no route")

    async def scenario() -> float:
        recovery = Recovery(broken, probe_seconds=0.05)
        started = time.monotonic()
        await recovery.wait(0.3)
        return time.monotonic() - started

    assert asyncio.run(scenario()) >= 0.29
