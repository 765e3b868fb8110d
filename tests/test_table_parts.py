"""No part of a table holds the table (issue 24): its core, streams, turn clock, bots and ratings update get
what they need as arguments, so none can reach back into the shell (server/table.py) or, through it, into
each other."""

from __future__ import annotations

import asyncio
import gc
import types

import engine
from server.creations import SeatSpec
from server.registry import Registry
from server.table import Table
from server.time_control import TimeControl


def _reaches(start: object, target: object, depth: int = 6) -> bool:
    """Whether ``target`` is reachable from ``start`` through object references (modules and classes, which
    reach everything, are not followed)."""
    seen: set[int] = set()
    frontier = [start]
    for _ in range(depth):
        following: list[object] = []
        for item in frontier:
            for referent in gc.get_referents(item):
                if referent is target:
                    return True
                if id(referent) in seen or isinstance(referent, (type, types.ModuleType)):
                    continue
                seen.add(id(referent))
                following.append(referent)
        frontier = following
    return False


def test_no_part_of_a_table_reaches_the_table() -> None:
    async def scenario() -> None:
        registry = Registry()
        seats = [
            SeatSpec(bot=False),
            SeatSpec(bot=True, strategy="greedy"),
            SeatSpec(bot=True, strategy="random"),
        ]
        table: Table = await registry.create(engine.Rules(players=3), seats, 7, 0, TimeControl(per_move=30.0))
        async with table.lock:
            await table.join(0, "p0")
        table.clock.cancel()  # an armed timer calls the table back: the event loop's reference, not a part's
        assert _reaches([{"held": table}], table)  # the walk finds a table that is held
        for part in (table.core, table.streams, table.clock, table.bots, table.ratings):
            assert not _reaches(part, table), type(part).__name__

    asyncio.run(scenario())
