"""The deal in progress on a fair table as a snapshot carries it (``Snapshot.deal``), picked out of the log.

A client that starts from a snapshot (a bot that joins and streams, a player back after a lost connection, a
spectator) never saw the deal in progress begin, so it could not check that deal when it is revealed: the
commitment (DeckShuffled), the deal's first event (how the order is cut into hands), the seat's own hand as
dealt and the seat's own SeatTaken (whether the deal holds the seed of the seat's current player) were all
sent before it came. They are still in the table's log, numbered as a stream numbered them; this module
finds them, for both games alike, through the game's :class:`~engine.verify.Scheme` (the very reading of the
events the clients' check does). The log is rebuilt event for event when a table is replayed from its store,
so a restarted server (or the node that took the table over) picks the same events with the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from server.table_state import SeatEvent, SeatTakenEvent

if TYPE_CHECKING:
    from server.table_core import TableCore


@dataclass(frozen=True, slots=True)
class DealStart:
    """The deal in progress: its number, its commitment, and the sequence numbers of the events of the log
    a check of it reads (in order)."""

    number: int
    commitment: str
    sequences: tuple[int, ...]


def deal_in_progress(table: TableCore, audience: int | None) -> DealStart | None:
    """What ``audience`` (a seat, or None for a spectator) needs to check the deal in progress; None on a
    seeded table, before the first deal, once the latest deal was revealed, and at a finished table."""
    if table.fair is None or table.finished:
        return None
    scheme = table.adapter.deals
    log = table.log
    picked: list[int] = []
    number = 0
    commitment = ""
    for index in range(len(log) - 1, -1, -1):
        event = log[index]
        if isinstance(event, SeatEvent):
            continue
        if scheme.revealed(event) is not None:
            return None  # the latest deal is over: the next one is not dealt yet
        if (shuffled := scheme.shuffled(event)) is not None:
            commitment = shuffled[1]
            picked.append(index)
        elif (dealt := scheme.dealt(event)) is not None:
            if audience is not None and dealt[0] == audience:
                picked.append(index)
        elif (started := scheme.started(event)) is not None:
            number = started
            picked.append(index)
            break
    else:
        return None  # no deal dealt yet
    taken = _seat_taken(table, audience)
    if taken is not None:
        picked.append(taken)
    return DealStart(number, commitment, tuple(i + 1 for i in sorted(picked)))


def _seat_taken(table: TableCore, audience: int | None) -> int | None:
    """The log index of the audience's seat's latest SeatTaken (its current player's); None: a spectator."""
    if audience is None:
        return None
    log = table.log
    for index in range(len(log) - 1, -1, -1):
        event = log[index]
        if isinstance(event, SeatTakenEvent) and event.seat == audience:
            return index
    return None
