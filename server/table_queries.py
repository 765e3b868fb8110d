"""The read side of a table: what the service, the registry, the listing, the export and the metrics ask.

None of it changes the table. :class:`TableQueries` is the base of :class:`server.table.Table`, kept apart so
that the table's own module holds only the path of a change (decide, store, apply, publish) and what runs it
(the turn clock's timeouts, the streams' opening; the bots' loop is :mod:`server.table_bots`): a reader of a
``SubmitAction`` need not wade through the accessors. Every answer is read from the parts the table owns
(its core, its streams, its lock, its bots), named below as attributes; none of them holds the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from server import description
from server.bots import Bots
from server.errors import ErrorReason, ServiceError
from server.identity.values import Privacy
from server.logs import bind_request
from server.streams import Streams
from server.table_core import TableCore
from server.table_state import SeatState, StopReason, TableEvent
from server.time_control import TimeControl
from thousand.v1 import table_service_pb2 as pb


class TableQueries:
    """A table's queries, over the parts :class:`server.table.Table` sets up."""

    core: TableCore
    streams: Streams
    bots: Bots
    lock: asyncio.Lock
    privacy: Privacy | None
    last_activity: float

    @property
    def game(self) -> Any:
        return self.core.game

    @property
    def rules(self) -> Any:
        return self.core.rules

    @property
    def seats(self) -> list[SeatState]:
        return self.core.seats

    @property
    def log(self) -> list[TableEvent[Any]]:
        return self.core.log

    @property
    def seed(self) -> int:
        return self.core.seed

    @property
    def fair(self) -> Any:
        return self.core.fair

    @property
    def time_control(self) -> TimeControl | None:
        return self.core.time_control

    @property
    def create_time(self) -> float:
        return self.core.create_time

    @property
    def started(self) -> bool:
        return self.core.started

    @property
    def stopped(self) -> StopReason | None:
        return self.core.stopped

    @property
    def endpoints(self) -> tuple[str, str]:
        return self.core.endpoints

    @endpoints.setter
    def endpoints(self, value: tuple[str, str]) -> None:
        self.core.endpoints = value

    @property
    def sequence(self) -> int:
        return len(self.core.log)

    @property
    def finished(self) -> bool:
        """The game ended, or the server stopped the table."""
        return self.core.finished

    @property
    def moves(self) -> int:
        """Decisions applied so far, by anyone."""
        return self.core.decisions

    def open_seats(self) -> int:
        return self.core.open_seats()

    def person_playing(self) -> bool:
        """A person (a client's seat, not a server-run bot) must act now and is there for it: their seat's
        stream is open, or a turn clock times them. Moving the table then would refuse their action while
        it moves, and start their clock afresh at the new owner (:mod:`server.rebalancing`)."""
        core = self.core
        seat = core.to_act
        if seat is None or core.seats[seat].played_by_bot:
            return False
        return core.time_control is not None or any(s.audience == seat for s in self.streams.subscribers)

    def played_by_bots_only(self) -> bool:
        """Every seat is played by a server-run bot: a bot seat, or one taken over on time."""
        return self.core.played_by_bots_only()

    def status(self) -> pb.TableStatus.ValueType:
        return description.status(self.core)

    def describe(self) -> pb.Table:
        """The table as the contract's Table message (:func:`server.description.describe`), with what its
        privacy adds (Table.unlisted, invite_required, Seat.reserved_for)."""
        described = description.describe(self.core)
        return described if self.privacy is None else description.private(described, self.privacy)

    def authenticate(self, token: str | None) -> int:
        """The seat whose token this is; SEAT_TOKEN_INVALID, the same way whatever is wrong, otherwise."""
        found = self.core.seat_holding(token) if token else None
        if found is None:
            raise ServiceError(ErrorReason.SEAT_TOKEN_INVALID, "the seat token is missing or not valid here")
        bind_request(seat=found)
        return found

    def seat_of_player(self, token_hashes: Sequence[bytes]) -> int | None:
        """The one seat held now by one of these token hashes (a player's seats here, from the players'
        store), None when none is; INVALID_ARGUMENT when several are (then the seat token says which)."""
        held = {seat for seat, state in enumerate(self.core.seats) if state.token_hash in token_hashes}
        if not held:
            return None
        if len(held) > 1:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"the player has {len(held)} seats at this table: send the seat token of the one meant",
                field="x-seat-token",
            )
        (found,) = held
        bind_request(seat=found)
        return found

    def seat_of_player_id(self, player_id: str) -> int | None:
        """The seat the player sits in here (the table's own log says so), None when none ("": None)."""
        if not player_id:
            return None
        return next((i for i, s in enumerate(self.core.seats) if s.player_id == player_id), None)

    def seat_holding(self, token: str) -> int | None:
        """The seat this token holds, if any (:func:`server.table_state.seat_holding`)."""
        return self.core.seat_holding(token)

    def stream_queue_depths(self) -> list[tuple[int | None, int]]:
        """Each open stream's audience and the number of messages waiting in its queue (for metrics)."""
        return self.streams.queue_depths()

    def idle_seconds(self, now: float) -> float | None:
        """Seconds since the table's last event or last stream's end (``now``: time.monotonic()); None while
        it is in use: a stream is open, its lock is held or its bots are moving."""
        if self.streams.subscribers or self.lock.locked() or self.bots.running():
            return None
        return max(0.0, now - max(self.last_activity, self.streams.last_closed))
