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
fewest people see it move. Its streams end with TABLE_MOVING and its clients follow it as on a takeover; the
target, woken by NOTIFY, replays it. The pace is gentle by design: one table per node per interval, and
none while the node's view of the cluster is unsteady (a lease after any outage of its own, as for
declaring nodes dead), so that rebalancing never competes with a takeover.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Final

from server.directory import ClusterDirectory
from server.logs import get_logger
from server.registry import Registry
from server.table import Table

DEFAULT_REBALANCE_SECONDS: Final = 1.0
"""The default pause between two tables a node gives away (``--rebalance-seconds``; 0: never)."""
log = get_logger("thousand.cluster")


class Rebalancer:
    """Node ``node_id``'s side of spreading the tables: which to give away, to whom, when."""

    def __init__(
        self,
        node_id: str,
        registry: Registry,
        directory: ClusterDirectory,
        *,
        hand_off: Callable[[Table, str], Awaitable[bool]],
    ) -> None:
        self.node_id = node_id
        self.registry = registry
        self.directory = directory
        self.hand_off = hand_off

    async def turn(self) -> bool:
        """Give one table to the least loaded live node when this one holds two or more tables more; True
        when one moved."""
        loads = await self.directory.loads()
        if self.node_id not in loads or len(loads) < 2:
            return False
        target = min(loads, key=lambda node: (loads[node], node))
        fair = sum(loads.values()) / len(loads)
        own = loads[self.node_id]
        # Two or more above the least loaded, from above the fair share to below it: nodes giving at the
        # same moment to one target stop once it has its share, instead of overshooting it in turn.
        if own - loads[target] < 2 or not loads[target] < fair < own:
            return False
        table = self._candidate()
        if table is None:
            return False
        async with table.lock:
            if table.finished or self.registry.find(table.table_id) is not table:
                return False
            moved = await self.hand_off(table, target)
        if moved:
            log.info(
                "table rebalanced",
                table_id=table.table_id,
                node_id=target,
                why=f"{loads[self.node_id]} unfinished tables here against {loads[target]} there",
            )
        return moved

    def _candidate(self) -> Table | None:
        """The unfinished table whose move disturbs the fewest: not in the middle of a change, and first one
        nobody uses right now (no stream open, no bot moving), the longest unused first."""
        now = time.monotonic()
        candidates = [t for t in self.registry.all() if not t.finished and not t.lock.locked()]
        if not candidates:
            return None

        def disturbance(table: Table) -> tuple[bool, float, int]:
            idle = table.idle_seconds(now)
            return idle is None, -(idle or 0.0), table.serial

        return min(candidates, key=disturbance)
