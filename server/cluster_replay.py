"""A takeover's replay: the tables a node just claimed, read from the database and replayed, each served as
soon as it is (:meth:`server.cluster.Node._claim`).

A node's event loop is one core, and replaying is the engine applying every stored action again: it cannot
go faster than the records allow (about 20 microseconds a record on an idle core, a 1,200-record game in a
few hundredths of a second). What the order and the overlap can do is have the tables people wait on play
again first, and the reading of the records, which waits on the database and not on the core, happen while
the loop replays. So:

- the tables people play come first (someone is looking at them), then the bots' own; within each, the
  shortest first (the most tables playing again soonest);
- the records are read in batches of about BATCH_RECORDS, each in a thread, on a connection of the store's
  own (not the writer's: this node's other tables keep committing meanwhile), the next batch read while
  this one is replayed;
- the loop serves requests between two replays.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from server.store import Record, StoredTable
from server.table import Table

BATCH_RECORDS: Final = 4000
"""How many records a takeover reads at once (a tenth of a second or so of replay on a loaded core)."""


@dataclass(frozen=True, slots=True)
class Claimed:
    """A table a node just claimed: at which epoch, with how many records, played by bots only or not."""

    table_id: str
    epoch: int
    records: int
    bots_only: bool
    last_seen: float | None = None
    """When the table's previous owner was last seen alive (its last heartbeat, Unix time by the database's
    clock), if it died (or this node's previous process did); None: handed over or released."""
    offset: float = 0.0
    """This node's clock less the database's, measured at the claim."""


def batches(claimed: Sequence[Claimed]) -> list[list[Claimed]]:
    """The claimed tables in replay order (people's first, then the shortest first), cut into batches of
    about BATCH_RECORDS records (one table at least)."""
    cut: list[list[Claimed]] = [[]]
    size = 0
    for claim in sorted(claimed, key=lambda c: (c.bots_only, c.records)):
        if cut[-1] and size + claim.records > BATCH_RECORDS:
            cut.append([])
            size = 0
        cut[-1].append(claim)
        size += claim.records
    return cut


async def replay_claimed(
    claimed: Sequence[Claimed],
    get_many: Callable[[list[str]], dict[str, StoredTable]],
    serve: Callable[[StoredTable | None, Claimed, float], Table | None],
) -> list[Table]:
    """Read the claimed tables with ``get_many`` (blocking: run in a thread) and hand each to ``serve`` (with
    its stored records, None when gone, and the time.perf_counter() its replay started, for its figure);
    the tables served. A read that fails raises: the tables not served yet stay claimed, and the node's
    reconciliation claims them again."""
    if not claimed:
        return []
    order = batches(claimed)
    served: list[Table] = []
    loading = asyncio.ensure_future(asyncio.to_thread(get_many, [c.table_id for c in order[0]]))
    try:
        for number, batch in enumerate(order):
            started = time.perf_counter()
            loaded = await loading
            if number + 1 < len(order):
                following = [c.table_id for c in order[number + 1]]
                loading = asyncio.ensure_future(asyncio.to_thread(get_many, following))
            for claim in batch:
                table = serve(loaded.get(claim.table_id), claim, started)
                if table is not None:
                    served.append(table)
                await asyncio.sleep(0)  # the loop serves requests between two replays
                started = time.perf_counter()
    finally:
        if not loading.done():
            loading.cancel()
    return served


def resume_clock(table: Table, records: Sequence[Record], claim: Claimed) -> None:
    """Go on with the turn clock of a table just replayed (which started it from the stored time of the
    record that began the running decision, by the database's clock: :meth:`server.table.Table.replay`) by
    this node's clock, giving back the time nobody served the table: from its owner's death (no earlier than
    its last heartbeat or its last record) to now. A seat to act keeps its remaining time through a
    takeover instead of a fresh one; a hand-off (its owner alive) gives nothing back."""
    credit = 0.0
    if claim.last_seen is not None:
        last = records[-1].at if records else None
        died = claim.last_seen if last is None else max(claim.last_seen, last)
        credit = max(0.0, time.time() - claim.offset - died)
    table.clock.shift(claim.offset + credit)
