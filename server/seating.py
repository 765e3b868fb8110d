"""Who plays each seat of a table, and every change to it: a person taking or giving up a seat, the server's
bot taking a seat over when its time ran out, and the player taking it back.

Each change is stored before it is made, in one commit with what belongs to it (a fair table's seed with the
join it comes with; the reclaim of a seat the bot took over, when a person sits down in it), through the
table's :meth:`~server.table.Table.record`, as every change to a table is; the caller holds the table's lock.
The methods that make a change without storing it (:meth:`seed`, :meth:`take`, :meth:`release`,
:meth:`reclaimed`, :meth:`time_out`) are what the table's replay of its records calls too, so a rebuilt table
has the same seats and the same events. The seat states themselves, their tokens and events are
:mod:`server.seats`'.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING

from server.clock import TimeoutPolicy
from server.errors import ErrorReason, ServiceError
from server.logs import bind_request
from server.seats import (
    SeatReclaimedEvent,
    SeatReleasedEvent,
    SeatTakenEvent,
    SeatTakenOverEvent,
    TurnTimedOutEvent,
    hash_token,
)
from server.store import Record

if TYPE_CHECKING:
    from server.table import AnyTable


class Seating:
    """The seats of one table as people, and the server's bots on their behalf, take and leave them."""

    __slots__ = ("_returns", "_table")

    def __init__(self, table: AnyTable) -> None:
        self._table = table
        self._returns: set[asyncio.Task[None]] = set()
        """Seats being taken back because their player's stream opened (:meth:`returned`)."""

    # ------------------------------------------------------------------ people

    async def join(
        self, seat: int | None, player_name: str, token: str | None = None, *, client_seed: str = ""
    ) -> tuple[int, str]:
        """Take a seat; ``token``: the client's own seat token, else one is drawn; ``client_seed``: the
        player's seed for a fair table's deals from now on (ignored when seeded).

        A seat that already holds ``token`` is returned as it is: the client's retry of a join whose reply
        it lost (JoinTableRequest.seat_token), which must not take a second seat.
        """
        table = self._table
        if token is not None:
            held = table.seat_holding(token)
            if held is not None:
                return held, token
        if seat is None:
            free = [i for i, s in enumerate(table.seats) if not s.taken]
            if not free:
                raise ServiceError(ErrorReason.TABLE_FULL, f"table {table.table_id} has no free seat")
            seat = free[0]
        elif not 0 <= seat < len(table.seats):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"seat {seat} does not exist; seats are 0 to {len(table.seats) - 1}",
                field="seat",
            )
        state = table.seats[seat]
        if state.bot:
            raise ServiceError(ErrorReason.SEAT_NOT_OPEN, f"seat {seat} is a bot seat")
        if state.taken:
            if table.open_seats() == 0:
                raise ServiceError(ErrorReason.TABLE_FULL, f"table {table.table_id} has no free seat")
            raise ServiceError(ErrorReason.SEAT_TAKEN, f"seat {seat} is taken")
        token = token if token is not None else secrets.token_urlsafe(32)
        bind_request(seat=seat)
        token_hash = hash_token(token)
        # A player sitting down in a seat the bot took over plays it from now on: both stored in one commit.
        reclaimed = state.taken_over
        seed = client_seed if table.fair is not None else ""
        # The seed before the join: replayed first, it is in place when the join starts the game and deals.
        records = [Record("seed", seat, seed)] if seed else []
        records.append(Record("join", seat, player_name, token_hash))
        if reclaimed:
            records.append(Record("reclaim", seat))
        await table.record(*records)
        self.seed(seat, seed)
        self.take(seat, token_hash, player_name)
        if reclaimed:
            self.reclaimed(seat)
        return seat, token

    async def leave(self, seat: int) -> None:
        await self._table.record(Record("leave", seat))
        self.release(seat)

    def seed(self, seat: int, seed: str) -> None:
        """The seed of the player now in ``seat`` ("" once it is free) enters the deals dealt from now on."""
        if self._table.fair is not None:
            self._table.fair.seat(seat, seed)

    def take(self, seat: int, token_hash: bytes, player_name: str) -> None:
        table = self._table
        state = table.seats[seat]
        state.token_hash = token_hash
        state.player_name = player_name
        table.publish([SeatTakenEvent(seat, player_name, False)])
        table.start_if_full()

    def release(self, seat: int) -> None:
        table = self._table
        state = table.seats[seat]
        state.token_hash = None
        state.player_name = ""
        self.seed(seat, "")
        table.publish([SeatReleasedEvent(seat)])
        table.streams.end_seat(seat)  # T-33: whoever gave the seat up sees nothing more of it

    # ------------------------------------------------------------------ the turn clock's outcomes

    def time_out(self, seat: int, policy: TimeoutPolicy) -> None:
        """The seat's time ran out (stored): the server's bot plays it, for this one decision, until its
        player is back, or to the end if it forfeits."""
        table = self._table
        state = table.seats[seat]
        state.bank = 0.0
        state.taken_over = True
        state.forfeited = policy is TimeoutPolicy.FORFEIT
        state.one_turn = policy is TimeoutPolicy.BOT_PLAYS_TURN
        table.bots.take_over(seat)
        over = SeatTakenOverEvent(seat, state.forfeited, state.one_turn)
        table.publish([TurnTimedOutEvent(seat, policy), over])

    async def reclaim(self, seat: int) -> bool:
        """Take the seat back from the bot that plays it since a timeout; False when it was not taken over.
        SEAT_FORFEITED for a seat that forfeited."""
        state = self._table.seats[seat]
        if state.forfeited:
            raise ServiceError(ErrorReason.SEAT_FORFEITED, f"seat {seat} forfeited on time; the bot plays it")
        if not state.taken_over:
            return False
        await self._table.record(Record("reclaim", seat))
        self.reclaimed(seat)
        return True

    def reclaimed(self, seat: int) -> None:
        state = self._table.seats[seat]
        state.taken_over = False
        state.one_turn = False
        self._table.publish([SeatReclaimedEvent(seat)])

    def returned(self, seat: int | None) -> None:
        """A seat's own stream opened: its player is back, and takes the seat back from the bot that plays it
        since a timeout (TimeoutPolicy.BOT_PLAYS), as ReclaimSeat would; the stream then shows it."""
        if seat is None or self._table.replaying:
            return
        state = self._table.seats[seat]
        if state.taken_over and not state.forfeited and not state.one_turn:
            task = asyncio.get_running_loop().create_task(self._take_back(seat))
            self._returns.add(task)
            task.add_done_callback(self._returns.discard)

    async def _take_back(self, seat: int) -> None:
        async with self._table.lock:
            try:
                await self.reclaim(seat)
            except ServiceError:  # not stored: the seat stays the bot's until the player acts
                return
