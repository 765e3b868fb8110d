"""Tables spread out again: a node holding two or more unfinished tables more than the least loaded live
node hands it one, then waits ``--rebalance-seconds`` before the next.

Takeovers and restarts leave the tables where they fell: a restarted or woken node comes back empty, and
after a rolling restart the last node restarted holds none while the first holds most. Placement only
helps new tables. So every node, on its own, compares its unfinished tables with the least loaded live
node's (one query), and when it holds at least two more it gives that node one table: the largest gap
closes first, each move narrows it by two, and the nodes stop once every load is within one of the others'
(the fair share, total divided by nodes, rounded either way).

A table moves only between actions: under its lock (no action, bot move or clock timeout half done), and
among the candidates first one that nobody uses right now (no stream open, no bot moving), so that the
fewest people see it move. **A table where a person is on turn does not move under them** (their seat's
stream open, or a turn clock timing them): they may be about to act (their action would be refused while
the table moves and be sent again; their clock runs on through the move, at the new owner). When every
candidate waits for a person, the node picks one and moves it at its next safe point instead: right after
the next change that hands the turn on (that person's action, a timeout), under the lock that change
held, once the loads still call for it. Its streams end with TABLE_MOVING and its clients follow it as on a
takeover; the target, woken by NOTIFY, replays it. The pace is gentle by design: one table per node per
interval, and none while the node's view of the cluster is unsteady (a lease after any outage of its own,
as for declaring nodes dead), so that rebalancing never competes with a takeover.

The operator's controls: ``--rebalance-seconds`` (the pace; 0: never), and a switch for the whole cluster at
once, read before every move, that needs no restart (a restart would itself move tables):
``thousand-cluster rebalancing pause`` and ``resume`` (:mod:`server.cluster_admin`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

import psycopg

from server.directory import ClusterDirectory
from server.errors import ServiceError
from server.logs import get_logger
from server.registry import Registry
from server.table import Table

DEFAULT_REBALANCE_SECONDS: Final = 1.0
"""The default pause between two tables a node gives away (``--rebalance-seconds``; 0: never)."""
WAIT_SECONDS: Final = 60.0
"""How long a table chosen while a person was on turn waits for its safe point before the node may choose
another (a player who left their turn to the clock, or walked away)."""
log = get_logger("thousand.cluster")


@dataclass(frozen=True, slots=True)
class Waiting:
    """A table chosen to move once the person on turn there has acted."""

    table_id: str
    moves: int
    """The table's decisions when it was chosen: it moves after a change past them."""
    since: float
    """time.monotonic() when it was chosen."""


class Rebalancer:
    """Node ``node_id``'s side of spreading the tables: which to give away, to whom, when."""

    def __init__(
        self,
        node_id: str,
        registry: Registry,
        directory: ClusterDirectory,
        *,
        hand_off: Callable[[Table, str], Awaitable[bool]],
        on_moved: Callable[[], None],
    ) -> None:
        self.node_id = node_id
        self.registry = registry
        self.directory = directory
        self.hand_off = hand_off
        self.on_moved = on_moved
        """Called for every table given away (the node counts them for its metrics)."""
        self.paused = False
        """An operator paused rebalancing in the whole cluster (``thousand-cluster rebalancing pause``), as
        last read."""
        self.waiting: Waiting | None = None
        """The table waiting for its safe point, if any (one at a time: the pace stays one per interval)."""
        self._moving: set[asyncio.Task[None]] = set()

    async def turn(self) -> bool:
        """Give one table to the least loaded live node when this one holds two or more tables more; True
        when one moved. A table where a person is on turn is only marked to move at its safe point."""
        self._forget_stale_waiting()
        target = await self._target()
        if target is None:
            return False
        table = self._candidate()
        if table is None:
            return False
        if table.person_playing():
            if self.waiting is None:
                self.waiting = Waiting(table.table_id, table.moves, time.monotonic())
                log.info("table to rebalance once its turn is played", table_id=table.table_id)
            return False
        async with table.lock:
            if table.finished or self.registry.find(table.table_id) is not table or table.person_playing():
                return False
            return await self._move(table, target)

    def changed(self, table: Table) -> None:
        """The table changed (under its lock, after the change was stored): when it is the waiting one and
        the turn moved on, this is its safe point; it moves as soon as that change lets go of the lock."""
        waiting = self.waiting
        if waiting is None or waiting.table_id != table.table_id or table.moves == waiting.moves:
            return
        self.waiting = None
        task = asyncio.get_running_loop().create_task(self._at_safe_point(table))
        self._moving.add(task)
        task.add_done_callback(self._moving.discard)

    async def _at_safe_point(self, table: Table) -> None:
        try:
            async with table.lock:  # FIFO: before the bots' next move, which asks for the lock after us
                if table.finished or self.registry.find(table.table_id) is not table:
                    return
                target = await self._target()
                if target is not None:
                    await self._move(table, target)
        except (psycopg.Error, ServiceError) as error:
            log.warning("table not rebalanced: cluster database unavailable", error=str(error))
        except Exception:  # a background task's failure must be seen
            log.exception("table not rebalanced")

    async def _target(self) -> tuple[str, int, int] | None:
        """The least loaded live node when this one should give it a table: (its id, its load, this node's).

        Two or more above the least loaded, from above the fair share to below it: nodes giving at the same
        moment to one target stop once it has its share, instead of overshooting it in turn."""
        self.paused = await self.directory.rebalancing_paused()
        if self.paused:
            return None
        loads = await self.directory.loads()
        if self.node_id not in loads or len(loads) < 2:
            return None
        target = min(loads, key=lambda node: (loads[node], node))
        fair = sum(loads.values()) / len(loads)
        own = loads[self.node_id]
        if own - loads[target] < 2 or not loads[target] < fair < own:
            return None
        return target, loads[target], own

    async def _move(self, table: Table, target: tuple[str, int, int]) -> bool:
        """Hand the table over (caller holds its lock)."""
        node_id, load, own = target
        moved = await self.hand_off(table, node_id)
        if moved:
            self.on_moved()
            if self.waiting is not None and self.waiting.table_id == table.table_id:
                self.waiting = None
            log.info(
                "table rebalanced",
                table_id=table.table_id,
                node_id=node_id,
                why=f"{own} unfinished tables here against {load} there",
            )
        return moved

    def _forget_stale_waiting(self) -> None:
        """Let the waiting table go when it is gone, finished, or waited too long."""
        waiting = self.waiting
        if waiting is None:
            return
        table = self.registry.find(waiting.table_id)
        if table is None or table.finished or time.monotonic() - waiting.since > WAIT_SECONDS:
            self.waiting = None

    def _candidate(self) -> Table | None:
        """The unfinished table whose move disturbs the fewest: not in the middle of a change, no person
        playing their turn (those tables come last), then one nobody uses right now (no stream open, no bot
        moving), the longest unused first."""
        now = time.monotonic()
        candidates = [t for t in self.registry.all() if not t.finished and not t.lock.locked()]
        if not candidates:
            return None

        def disturbance(table: Table) -> tuple[bool, bool, float, int]:
            idle = table.idle_seconds(now)
            return table.person_playing(), idle is None, -(idle or 0.0), table.serial

        return min(candidates, key=disturbance)
