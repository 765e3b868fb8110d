"""Rematch: the players of a finished table at a new one, once every seat a client played accepted.

The votes are kept by the table's owner, in memory: every seat's call goes there (TABLE_ELSEWHERE
elsewhere, as StreamEvents), and a client whose stream broke calls again, which votes again. The new table
is created as CreateTable creates it, with the same rules, seats (bots keep their strategies) and clock, rated
when the old one was and every seat still a signed-in person's (each accepting call with its credential), its
request_id ``rematch-`` and the old table's id, so it is made once; the accepting seats sit at their old
seat numbers with the seat tokens they chose. One decline ends every seat's stream (REMATCH_DECLINED); a
seat whose stream closes withdraws its acceptance.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from server.creations import SeatSpec
from server.errors import ErrorReason, ServiceError
from server.identity.values import PlayerKind
from server.matchmaking.asks import DEFAULT_WAIT, client_seed, seat_token, seconds
from server.requests import table_id_of
from server.table import Table
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import table_service_pb2 as pb

if TYPE_CHECKING:
    from server.service import TableService

KEEP_SECONDS: Final = 900.0
"""How long a table's rematch (its votes, its new table) is remembered: for the late and the reconnecting."""


@dataclass(slots=True)
class _Seat:
    token: str
    name: str
    client_seed: str
    player: Any


@dataclass(slots=True)
class _Votes:
    accepted: dict[int, _Seat] = field(default_factory=dict)
    declined: bool = False
    table: pb.Table | None = None
    """The new table, once made."""
    creating: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    started: float = field(default_factory=time.monotonic)

    def notify(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()


class Rematches:
    """The rematches of this node's finished tables."""

    def __init__(self, tables: TableService) -> None:
        self.tables = tables
        self._votes: dict[str, _Votes] = {}

    def _forget_old(self) -> None:
        now = time.monotonic()
        for table_id in [t for t, v in self._votes.items() if now - v.started > KEEP_SECONDS]:
            del self._votes[table_id]

    async def stream(
        self, request: mm.RematchRequest, token: str | None, player: Any
    ) -> AsyncIterator[mm.RematchResponse]:
        table = await self.tables.registry.owned(table_id_of(request.table_id))
        hashes = await self.tables.player_seats(table.table_id, token, player)
        seat = self.tables.seat_of(table, token, hashes)
        if not table.finished:
            raise ServiceError(
                ErrorReason.TABLE_NOT_FINISHED,
                f"table {table.table_id} is still being played: finish it first",
            )
        wait = seconds(request.max_wait, "max_wait", DEFAULT_WAIT)
        self._forget_old()
        votes = self._votes.setdefault(table.table_id, _Votes())
        needed = [i for i, s in enumerate(table.core.seats) if not s.bot]
        if votes.table is None and not request.accept:
            votes.declined = True
            votes.accepted.clear()
            votes.notify()
        if votes.declined:
            raise _declined("declined")
        earlier = votes.accepted.get(seat)
        chosen = seat_token(request.seat_token or (earlier.token if earlier is not None else ""))
        name = table.core.seats[seat].player_name or (player.display_name if player is not None else "")
        votes.accepted[seat] = _Seat(chosen, name, client_seed(request.client_seed), player)
        votes.notify()
        delivered = False
        deadline = time.monotonic() + wait
        try:
            while True:
                if votes.table is not None:
                    yield mm.RematchResponse(matched=await self._matched(votes, seat, table))
                    delivered = True
                    return
                if votes.declined:
                    raise _declined("declined")
                if all(s in votes.accepted for s in needed) and not votes.creating:
                    await self._create(table, votes)
                    continue
                yield mm.RematchResponse(
                    waiting=mm.RematchWaiting(accepted_seats=sorted(votes.accepted), seats_needed=len(needed))
                )
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _declined("timeout")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(votes.changed.wait(), left)
        finally:
            if not delivered and votes.table is None and votes.accepted.get(seat) is not None:
                votes.accepted.pop(seat, None)  # closing the stream withdraws the acceptance
                votes.notify()

    async def _create(self, old: Table, votes: _Votes) -> None:
        """The new table: the same rules, seats and clock; each accepting seat taken with its new token."""
        votes.creating = True
        try:
            registry = self.tables.registry
            seats = [SeatSpec(bot=s.bot, strategy=s.strategy) for s in old.core.seats]
            table = await registry.create(
                old.rules,
                seats,
                None,
                None,
                old.time_control,
                request_id=f"rematch-{old.table_id}",
                rated=_still_rated(old, votes),
            )
            async with table.lock:
                for seat, chosen in sorted(votes.accepted.items()):
                    if table.seat_holding(chosen.token) is None:
                        player_id = chosen.player.player_id if chosen.player is not None else ""
                        await table.join(
                            seat,
                            chosen.name,
                            chosen.token,
                            client_seed=chosen.client_seed,
                            player_id=player_id,
                        )
            directory = registry.directory
            if directory is not None:
                votes.table = await directory.place(table)
            else:
                table.ensure_bots_running()
                votes.table = table.describe()
        finally:
            votes.creating = False
            votes.notify()

    async def _matched(self, votes: _Votes, seat: int, old: Table) -> mm.QuickPlayMatch:
        assert votes.table is not None
        chosen = votes.accepted[seat]
        table = votes.table
        access = self.tables.access
        if access is not None:
            if chosen.player is not None:
                await access.joined(chosen.player, table, seat, chosen.token, old.adapter.name)
            table = await access.describe(table)
        bots = sum(1 for s in old.core.seats if s.bot)
        return mm.QuickPlayMatch(
            table=table, seat=seat, seat_token=chosen.token, match_id=f"rematch-{old.table_id}", bots=bots
        )


def _still_rated(old: Table, votes: _Votes) -> bool:
    """Whether the rematch of ``old`` is rated: when ``old`` was, and every seat is still a signed-in
    person's (each accepting seat's call carried its player credential, no registered bot's key), as a
    rated table admits (:mod:`server.ratings.admission`); otherwise it is unrated rather than refused."""
    if not old.core.rated or any(seat.bot for seat in old.core.seats):
        return False
    players = [votes.accepted[seat].player for seat in range(len(old.core.seats)) if seat in votes.accepted]
    return len(players) == len(old.core.seats) and all(
        p is not None and p.player_id and p.kind is not PlayerKind.BOT for p in players
    )


def _declined(why: str) -> ServiceError:
    message = "a player declined the rematch" if why == "declined" else "not every player accepted in time"
    return ServiceError(ErrorReason.REMATCH_DECLINED, message, why=why)
