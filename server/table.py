"""One table: its seats, its game and its event log, and the parts that act on them.

Every change to a table happens under its lock, in one step: check, store (awaiting the commit: the lock is
held across it, so each table's changes are stored and made in order), apply to the engine, log the new
events with their sequence numbers and hand them to the table's streams. A change the store cannot commit is
not made: STORE_UNAVAILABLE. Replaying the stored records rebuilds the table: the same events with the same
sequence numbers.

A table holds either game: everything game-specific (the engine game, its actions, events and views on the
wire, its bots) goes through the table's :class:`~server.games.GameAdapter`. The table does the
orchestration; its parts, each in its own module, do the rest:

- :mod:`server.seating`: who plays each seat, and the changes to it (joins, leaves, the bot taking a seat
  over on time, the player taking it back);
- :mod:`server.seats`: seat state and tokens, the table's own events, the memory that makes retries
  idempotent;
- :mod:`server.description`: the table as the contract's Table message;
- :mod:`server.streams` (with :mod:`server.rendering`): the open streams, their bounded queues and what
  they are sent, serialized;
- :mod:`server.turn_clock`: the turn clock, when the table has one;
- :mod:`server.bots`: the loop that plays the bot seats and the seats taken over on time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any, Generic, TypeAlias

from engine import ActionError
from engine.seeds import FairDeals
from server import description, rendering, tracing
from server.bots import Bots
from server.clock import TimeControl, TimeoutPolicy
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError, from_action_error
from server.games import ActionT, EventT, GameAdapter, GameT, RulesT
from server.logs import bind_request, get_logger
from server.pacing import BotPacer
from server.seating import Seating
from server.seats import (
    RequestMemory,
    SeatState,
    SeatTakenEvent,
    StopReason,
    TableEvent,
    TableStoppedEvent,
    seat_holding,
)
from server.stalls import StallWatch
from server.store import Record, Store, StoreError, TableFencedError
from server.streams import Streams, Subscriber
from server.telemetry import Telemetry
from server.turn_clock import TurnClock
from thousand.v1 import table_service_pb2 as pb

log = get_logger("thousand.table")


class Table(Generic[RulesT, GameT, ActionT, EventT]):
    """A table of one game (its ``adapter``'s) with open and bot seats."""

    def __init__(
        self,
        table_id: str,
        *,
        serial: int,
        adapter: GameAdapter[RulesT, GameT, ActionT, EventT],
        rules: RulesT,
        seats: list[SeatState],
        seed: int,
        first_dealer: int | None,
        store: Store | None = None,
        create_time: float | None = None,
        telemetry: Telemetry | None = None,
        time_control: TimeControl | None = None,
        pacer: BotPacer | None = None,
        stalls: StallWatch | None = None,
        seeded: bool = False,
        secret: bytes = b"",
    ) -> None:
        self.table_id = table_id
        self.telemetry = telemetry if telemetry is not None else Telemetry(quiet=True)
        self.serial = serial
        self.adapter = adapter
        self.rules = rules
        self.seats = seats
        self.seed = seed
        self.seeded = seeded
        """The creator chose ``seed``: the deals follow from it (a practice table, Table.seeded)."""
        self.fair = FairDeals(adapter.name, secret, len(seats)) if secret else None
        """A fair table's deals (engine.seeds): its secret and the seed each seat's player gave."""
        self.commitment = "" if self.fair is None else self.fair.commitment
        """A fair table's commitment to its secret (Table.fairness), hashed once."""
        self.game: GameT = adapter.new_game(rules, seed, first_dealer, self.fair)
        self.started = False
        self.create_time = time.time() if create_time is None else create_time
        self.log: list[TableEvent[EventT]] = []
        self._engine_cursor = 0
        self._requests: RequestMemory[ActionT] = RequestMemory()
        self.lock = asyncio.Lock()
        self.store = store
        self.replaying = False
        """Rebuilding from the store: nothing is stored again, no timer armed, nothing reported."""
        self.time_control = time_control
        self.pacer = pacer if pacer is not None else BotPacer()
        """The server's bot work queue (``server.pacing``): this table's bots take their turns from it."""
        self.stalls = stalls if stalls is not None else StallWatch()
        """The server's record of the time it did not run, which turn clocks give back."""
        self.stopped: StopReason | None = None
        """Why the server stopped the table before its game ended; None: it did not."""
        self.last_activity = time.monotonic()
        """time.monotonic() of the table's last event, or of its last stream closing (for idle expiry)."""
        self.endpoints = ("", "")
        """The owning node's gRPC and web addresses, in a cluster (Table.endpoint, Table.web_endpoint)."""
        self.on_change: Callable[[], None] | None = None
        """Called after every change (not on replay): a cluster node publishes the table's summary."""
        self.on_lost: Callable[[], None] | None = None
        """Called when the store refused a write because another node owns the table now."""
        self.streams = Streams(self)
        self.seating = Seating(self)
        self.clock = TurnClock(self)
        self.bots = Bots(self)
        for state in seats:
            state.bank = time_control.bank if time_control is not None else 0.0
        for seat, state in enumerate(seats):
            if state.bot:
                self.log.append(SeatTakenEvent(seat, state.strategy, True))
        self.start_if_full()  # a table of bots only starts at once

    # ------------------------------------------------------------------ queries

    @property
    def sequence(self) -> int:
        return len(self.log)

    @property
    def finished(self) -> bool:
        """The game ended, or the server stopped the table."""
        return self.game.is_over or self.stopped is not None

    @property
    def moves(self) -> int:
        """Decisions applied so far, by anyone."""
        return self.clock.decisions

    @property
    def clocked(self) -> bool:
        """Whether the table has a turn clock (its TimeControl may hold a bot pace only)."""
        return self.time_control is not None and self.time_control.clocked

    def open_seats(self) -> int:
        return sum(1 for s in self.seats if not s.taken)

    def played_by_bots_only(self) -> bool:
        """Every seat is played by a server-run bot: a bot seat, or one taken over on time."""
        return all(s.played_by_bot for s in self.seats)

    def status(self) -> pb.TableStatus.ValueType:
        return description.status(self)

    def describe(self) -> pb.Table:
        """The table as the contract's Table message (:func:`server.description.describe`)."""
        return description.describe(self)

    def authenticate(self, token: str | None) -> int:
        """The seat whose token this is; SEAT_TOKEN_INVALID, the same way whatever is wrong, otherwise."""
        found = self.seat_holding(token) if token else None
        if found is None:
            raise ServiceError(ErrorReason.SEAT_TOKEN_INVALID, "the seat token is missing or not valid here")
        bind_request(seat=found)
        return found

    def seat_holding(self, token: str) -> int | None:
        """The seat this token holds, if any (:func:`server.seats.seat_holding`)."""
        return seat_holding(self.seats, token)

    # ------------------------------------------------------------------ seats

    async def join(
        self, seat: int | None, player_name: str, token: str | None = None, *, client_seed: str = ""
    ) -> tuple[int, str]:
        """Take a seat (caller holds the lock): :meth:`server.seating.Seating.join`."""
        return await self.seating.join(seat, player_name, token, client_seed=client_seed)

    async def leave(self, seat: int) -> None:
        """Give a seat up (caller holds the lock)."""
        await self.seating.leave(seat)

    async def reclaim(self, seat: int) -> bool:
        """Take the seat back from the bot that plays it since a timeout (caller holds the lock): False when
        it was not taken over, SEAT_FORFEITED for a seat that forfeited."""
        return await self.seating.reclaim(seat)

    def start_if_full(self) -> None:
        """The game starts (its first deal is dealt) once every seat is taken."""
        if not self.started and self.open_seats() == 0:
            self.started = True
            if not self.replaying:
                self.telemetry.table_started(self)
            self._advance([])

    # ------------------------------------------------------------------ actions

    async def submit(self, seat: int, request_id: str, last_seen: int | None, action: ActionT) -> int:
        """Apply a seat's action (caller holds the lock); returns the sequence of its last event."""
        remembered = self._requests.recall(seat, request_id)
        if remembered is not None:
            if remembered[0] != action:
                raise ServiceError(
                    ErrorReason.REQUEST_ID_REUSED,
                    f"request_id {request_id!r} was already used for a different action",
                    field="request_id",
                )
            self.telemetry.action_replayed(self, action)
            return remembered[1]
        stale = last_seen is not None and last_seen != self.sequence
        # The player is back: whatever becomes of this action, the seat is theirs again.
        await self.seating.reclaim(seat)
        if not self.started:
            raise ServiceError(ErrorReason.GAME_NOT_STARTED, "the game starts when every seat is taken")
        if self.finished:
            ended = "the game is over" if self.stopped is None else "the server stopped the table"
            raise ServiceError(ErrorReason.GAME_OVER, ended)
        if stale:
            raise ServiceError(
                ErrorReason.STALE_SEQUENCE,
                f"you last saw event {last_seen} but the table is at {self.sequence}; resync and retry",
            )
        self.check_legal(seat, action)
        # The time the decision took from the bank, if any, and the decision itself: in one commit.
        bank = self.clock.bank_record(seat)
        acted = Record("action", seat, request_id, self.adapter.action_to_bytes(action))
        await self.record(*([acted] if bank is None else [bank, acted]))
        if bank is not None:
            self.seats[seat].bank = float(bank.text)
        applied = time.perf_counter()
        sequence = self.apply(seat, request_id, action)
        self.telemetry.action_applied(self, action, time.perf_counter() - applied)
        return sequence

    def check_legal(self, seat: int, action: ActionT) -> None:
        """Refuse an illegal action with the engine's specific reason, before anything is stored."""
        try:
            self.adapter.check(self.game, seat, action)
        except ActionError as error:
            raise from_action_error(error) from None

    def apply(self, seat: int, request_id: str, action: ActionT) -> int:
        """Apply a checked and stored action; returns the sequence of its last event."""
        self.adapter.apply(self.game, seat, action)
        self.clock.decisions += 1
        self._advance([])
        if self.game.is_over and self.store is not None and not self.replaying:
            self.store.mark_finished(self.table_id, time.time())
        if request_id:
            self._requests.remember(seat, request_id, action, self.sequence)
        return self.sequence

    async def record(self, *records: Record) -> None:
        """Store a change (its records, in one commit) before it is made, and so before it is acknowledged.
        When the store cannot commit it, STORE_UNAVAILABLE: the caller then leaves the table as it was."""
        if self.store is None or self.replaying:
            return
        try:
            await self.store.append(self.table_id, *records)
        except TableFencedError as error:
            log.warning("table lost to another node", table_id=self.table_id, error=str(error))
            if self.on_lost is not None:
                self.on_lost()
            raise ServiceError(
                ErrorReason.TABLE_MOVING,
                "the table is moving to another node of the cluster; retry shortly",
                retry_delay=MOVING_RETRY_SECONDS,
            ) from None
        except StoreError as error:
            log.error(
                "table change not stored",
                table_id=self.table_id,
                records=[r.kind for r in records],
                error=str(error),
            )
            raise ServiceError(
                ErrorReason.STORE_UNAVAILABLE,
                "the change could not be stored, so it was not made; retry later",
            ) from None

    def _advance(self, extra: list[TableEvent[EventT]]) -> None:
        """Deal whenever the game is at a chance node, then publish everything new."""
        while self.game.is_chance_node:
            self.game.apply_chance()
        events = self.adapter.events(self.game)
        new = events[self._engine_cursor :]
        self._engine_cursor = len(events)
        if new:
            self.bots.observe()
        self.publish([*extra, *new])

    async def store_decided(self, seat: int, action: ActionT) -> None:
        """Check and store a move the server decided (a bot's; caller holds the lock); the caller must then
        apply it (:meth:`apply_decided`) before anything else changes the table. A seat taken over for one
        turn is its player's again after the move: stored in the same commit."""
        self.check_legal(seat, action)
        records = [Record("action", seat, "", self.adapter.action_to_bytes(action))]
        if self.seats[seat].one_turn:
            records.append(Record("reclaim", seat))
        await self.record(*records)

    def apply_decided(self, seat: int, action: ActionT) -> None:
        applied = time.perf_counter()
        self.apply(seat, "", action)
        self.telemetry.action_applied(self, action, time.perf_counter() - applied)
        if self.seats[seat].one_turn:
            self.seating.reclaimed(
                seat
            )  # the one move a timeout gave the bot is made: the seat is its player's

    async def stop(self, reason: StopReason, message: str) -> None:
        """End the table before its game did (caller holds the lock): stored, then TableStopped, the
        streams end and no action is accepted any more."""
        await self.record(Record("stop", -1, reason.value, message.encode()))
        self._stop(reason, message)

    def _stop(self, reason: StopReason, message: str) -> None:
        self.stopped = reason
        self.publish([TableStoppedEvent(reason, message)])
        if not self.replaying:
            if self.store is not None:
                self.store.mark_finished(self.table_id, time.time())
            self.telemetry.table_stopped(self, reason, message)

    def publish(self, events: list[TableEvent[EventT]]) -> None:
        """Log events with sequence numbers and send them to every stream."""
        if not events:
            return
        self.last_activity = time.monotonic()
        self.clock.update()
        first = self.sequence + 1
        self.log.extend(events)
        with tracing.span(
            "table.publish", {"thousand.table_id": self.table_id, "thousand.events": len(events)}
        ):
            self.streams.publish(events, first)
        self.telemetry.events_published(self, events, replaying=self.replaying)
        if self.on_change is not None and not self.replaying:
            self.on_change()

    # ------------------------------------------------------------------ rebuilding from the store

    def replay(self, records: list[Record]) -> None:
        """Rebuild the table from its stored records: same events, same sequence numbers."""
        self.replaying = True
        try:
            for record in records:
                if record.kind == "seed":
                    self.seating.seed(record.seat, record.text)
                elif record.kind == "join":
                    self.seating.take(record.seat, record.data, record.text)
                elif record.kind == "leave":
                    self.seating.release(record.seat)
                elif record.kind == "action":
                    action = self.adapter.action_from_bytes(record.data)
                    self.apply(record.seat, record.text, action)
                elif record.kind == "timeout":
                    self.seating.time_out(record.seat, TimeoutPolicy(record.text))
                elif record.kind == "reclaim":
                    self.seating.reclaimed(record.seat)
                elif record.kind == "bank":
                    self.seats[record.seat].bank = float(record.text)
                elif record.kind == "stop":
                    self._stop(StopReason(record.text), record.data.decode())
                else:
                    raise ValueError(f"table {self.table_id}: unknown record kind {record.kind!r}")
        finally:
            self.replaying = False

    # ------------------------------------------------------------------ bots

    def bot_to_act(self) -> int | None:
        """The seat to act when a server-run bot plays it (:meth:`Bots.to_act`)."""
        return self.bots.to_act()

    def strategy_of(self, seat: int) -> str:
        return self.bots.strategy_of(seat)

    async def play_bot(self, seat: int) -> None:
        """One move of a server-run bot (caller holds the lock)."""
        await self.bots.play(seat)

    async def play_bot_off_loop(self, seat: int) -> None:
        """One move of a searching bot, thought in a worker thread (caller holds the lock)."""
        await self.bots.play_off_loop(seat)

    def ensure_bots_running(self) -> None:
        """Start the bots' task when a bot must move, and arm the clock when it runs (a restored table's)."""
        self.clock.ensure_armed()
        self.bots.ensure_running()

    # ------------------------------------------------------------------ streams

    def snapshot(self, audience: int | None) -> bytes:
        """A serialized StreamEventsResponse holding the table as ``audience`` may see it."""
        return rendering.snapshot(self, audience)

    def stream(
        self, audience: int | None, after: int | None, batch: bool = False
    ) -> AsyncGenerator[bytes, None]:
        """Serialized StreamEventsResponse messages for one stream, from a snapshot or after a sequence.

        ``after`` is checked at once (ServiceError), so that a caller can refuse the stream before it
        iterates; the stream subscribes when it is first iterated. A seat's stream takes the seat back from
        the bot that plays it while its player was away (:meth:`server.seating.Seating.returned`).
        """
        stream = self.streams.open(Subscriber(audience, batch), after)
        self.seating.returned(audience)
        return stream

    def stream_to(self, subscriber: Subscriber, after: int | None) -> AsyncGenerator[bytes, None]:
        """:meth:`stream` for a subscriber the caller keeps, to queue :class:`~server.streams.Reply` messages
        to it, which the stream yields in their place among the table's messages."""
        stream = self.streams.open(subscriber, after)
        self.seating.returned(subscriber.audience)
        return stream

    def stream_queue_depths(self) -> list[tuple[int | None, int]]:
        """Each open stream's audience and the number of messages waiting in its queue (for metrics)."""
        return self.streams.queue_depths()

    # ------------------------------------------------------------------ its life on the server

    def idle_seconds(self, now: float) -> float | None:
        """Seconds since the table's last event or last stream's end (``now``: time.monotonic()); None while
        it is in use: a stream is open, its lock is held or its bots are moving."""
        if self.streams.subscribers or self.lock.locked() or self.bots.running():
            return None
        return max(0.0, now - self.last_activity)

    def close_streams(self, failure: ServiceError | None = None) -> None:
        """End every stream (the server is stopping; with ``failure``, the error they end with: the table
        moved); the clock and the bots stop too."""
        self.clock.stop()
        self.bots.stop()
        self.streams.end_all(failure)


AnyTable: TypeAlias = Table[Any, Any, Any, Any]
"""A table of any game, as the registry and the service hold it."""
