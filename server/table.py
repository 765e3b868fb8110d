"""One table: its seats, its game, its event log and the streams watching it.

Every change to a table happens under its lock, in one step: check, store (awaiting the commit: the lock is
held across it, so each table's changes are stored and made in order), apply to the engine, log the new
events with their sequence numbers, serialize each once per audience (a seat, or spectators) and hand the
bytes to that audience's streams. A change the store cannot commit is not made: STORE_UNAVAILABLE. A stream
that cannot keep up is not allowed to grow the server's memory: its queue is bounded, and when it overflows
the stream is given a fresh snapshot instead of the backlog.

A table holds either game: everything game-specific (the engine game, its actions, events and views on the
wire, its bots) goes through the table's :class:`~server.games.GameAdapter`.

The turn clock (a table created with a :class:`~server.clock.TimeControl`): while a seat played by a client
must act, one asyncio timer (a ``TimerHandle``, none on a table without a clock or while bots act) is armed
at that decision's deadline, ``per_move`` plus the seat's bank. When it fires the table's policy acts under
the lock: a "timeout" record, then TurnTimedOut and SeatTakenOver, and the server's bot plays the seat (its
moves are ordinary "action" records) until a "reclaim" (ReclaimSeat, an action or a new player in the seat)
or, forfeited, to the end. Time a decision takes beyond ``per_move`` is taken from the seat's bank ("bank"
record). Replaying the records yields the same events; the clock of the seat to act then starts afresh.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeAlias

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp

from engine import ActionError
from server import wire
from server.clock import TimeControl, TimeoutPolicy
from server.errors import ErrorReason, ServiceError, from_action_error
from server.games import ActionT, EventT, GameAdapter, GameT, RulesT
from server.logs import bind_request, get_logger
from server.seat_bots import SeatBots
from server.store import Record, Store, StoreError
from server.telemetry import Telemetry
from thousand.v1 import table_service_pb2 as pb

STREAM_QUEUE_SIZE: Final = 1024
"""Messages a stream may have waiting before it is considered lagging and resynchronized by a snapshot."""
REMEMBERED_REQUESTS: Final = 512
"""Recent (seat, request_id) outcomes kept per table for idempotent retries."""

SPECTATORS: Final = None
STORE_RETRY_SECONDS: Final = 1.0
"""How long the bots, or a running-out clock, wait before trying again a move the store could not commit."""
STORE_RETRY_MAX_SECONDS: Final = 30.0

log = get_logger("thousand.table")


@dataclass(frozen=True, slots=True)
class SeatTakenEvent:
    seat: int
    player_name: str
    bot: bool


@dataclass(frozen=True, slots=True)
class SeatReleasedEvent:
    seat: int


@dataclass(frozen=True, slots=True)
class TurnTimedOutEvent:
    seat: int
    policy: TimeoutPolicy


@dataclass(frozen=True, slots=True)
class SeatTakenOverEvent:
    seat: int
    forfeited: bool


@dataclass(frozen=True, slots=True)
class SeatReclaimedEvent:
    seat: int


SeatEvent: TypeAlias = (
    SeatTakenEvent | SeatReleasedEvent | TurnTimedOutEvent | SeatTakenOverEvent | SeatReclaimedEvent
)
"""The table's own events (not the game's)."""

TableEvent: TypeAlias = SeatEvent | EventT
"""What a table logs: seat events and its game's events (``TableEvent[Any]`` for any game's)."""


@dataclass(slots=True)
class SeatState:
    bot: bool
    strategy: str
    token_hash: bytes | None = None
    """SHA-256 of the seat token: the token itself is never kept, stored or logged."""
    player_name: str = ""
    taken_over: bool = False
    """The server's bot plays the seat since its time ran out, until the player takes it back."""
    forfeited: bool = False
    """The seat forfeited on time: the server's bot plays it to the end; nobody can take it (back)."""
    bank: float = 0.0
    """Seconds left in the seat's time bank (tables with a clock)."""

    @property
    def taken(self) -> bool:
        return self.bot or self.forfeited or self.token_hash is not None

    @property
    def played_by_bot(self) -> bool:
        return self.bot or self.taken_over or self.forfeited


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


_END: Final = b""
"""Queued to a stream to end it (the game is over, or the server is shutting down)."""


class Reply(bytes):
    """A message for one stream alone that no dropped backlog may lose: the result of an action sent on a
    Play stream. It is queued among the table's messages, so it follows the events its action produced."""

    __slots__ = ()


class Subscriber:
    """One open stream: the audience it belongs to and its bounded queue of serialized messages.

    Not an ``asyncio.Queue``: a stream has one reader and the table is its only writer, so a list and a
    future that exists only while the stream waits do the same for a fraction of the memory (an idle stream
    holds an empty list, 56 bytes, and that one future, not a queue's three 760-byte deques and an event) and
    of the calls. The list is short (the messages of an action or two; at most STREAM_QUEUE_SIZE), so taking
    from its front is cheap.
    """

    __slots__ = ("_loop", "_pending", "_waiter", "audience", "batch", "lagging")

    def __init__(self, audience: int | None, batch: bool = False) -> None:
        self.audience = audience
        self.batch = batch
        """The client asked for batches (StreamEventsRequest.batch_events): one message per change."""
        self.lagging = False
        self._pending: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        """The stream's loop, kept: CPython 3.11 asks the system for the process id in every
        ``asyncio.get_running_loop()``."""

    def offer(self, data: bytes) -> None:
        if self.lagging:
            return
        if len(self._pending) >= STREAM_QUEUE_SIZE:
            self.lagging = True
            self.drain()
            self._pending.append(b"\x00")  # wake the stream so it resynchronizes
        else:
            self._pending.append(data)
        self._wake()

    def reply(self, data: Reply) -> None:
        """Queue a reply: never dropped, also while the stream lags."""
        self._pending.append(data)
        self._wake()

    def end(self) -> None:
        """End the stream after what it is reading now: the backlog is dropped (replies kept), and no
        resync follows."""
        self.lagging = False
        self.drain()
        self._pending.append(_END)
        self._wake()

    def drain(self) -> None:
        """Drop the backlog, replies excepted."""
        pending = self._pending
        if any(type(data) is Reply for data in pending):
            self._pending = [data for data in pending if type(data) is Reply]
        else:
            pending.clear()

    def take_reply(self) -> Reply | None:
        """The next message if it is a reply (taken from the queue), else None."""
        pending = self._pending
        if pending and type(pending[0]) is Reply:
            data = pending.pop(0)
            assert isinstance(data, Reply)
            return data
        return None

    def depth(self) -> int:
        """Messages waiting."""
        return len(self._pending)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> bytes:
        """The next message, once there is one."""
        while not self._pending:
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._pending.pop(0)


_RESPONSE_SEQUENCE: Final = 1
_RESPONSE_EVENT: Final = 3
_RESPONSE_TURN: Final = 4
_RESPONSE_MORE_EVENTS: Final = 5
"""StreamEventsResponse's fields, as :mod:`server.wire` writes them."""
MAX_BATCH: Final = 64
"""Events in one batched message at most (a resumed stream's catching up is cut into such messages)."""
_TURN_SEAT: Final = 1
_TURN_LEGAL_ACTIONS: Final = 2
_TURN_DEADLINE: Final = 3
_TURN_VIEW: Final = 4
_TURN_BANK_REMAINING: Final = 5
"""Turn's fields."""


def _response(sequence: int, event: bytes | None, turn: bytes | None, more: Sequence[bytes] = ()) -> bytes:
    """A serialized StreamEventsResponse from its serialized event, Turn (None: the field is unset) and, in a
    batch, the events after the first (in field-number order, as protobuf's own serializer writes them)."""
    data = wire.int_field(_RESPONSE_SEQUENCE, sequence) if sequence else b""
    if event is not None:
        data += wire.message_field(_RESPONSE_EVENT, event)
    if turn is not None:
        data += wire.message_field(_RESPONSE_TURN, turn)
    for following in more:
        data += wire.message_field(_RESPONSE_MORE_EVENTS, following)
    return data


class _Rendering:
    """Events just logged, rendered for each audience in turn, each distinct piece serialized once.

    An event that several audiences see alike (every card played, every bid) is serialized once for all of
    them, and so is the Turn every stream but the acting seat's gets.
    """

    __slots__ = ("_first", "_forms", "_public_turn", "_table", "events")

    def __init__(self, table: AnyTable, events: Sequence[TableEvent[Any]], first: int) -> None:
        self._table = table
        self.events = events
        self._first = first
        self._forms: list[list[tuple[object, bytes]]] = [[] for _ in events]
        """Per event: each form some audience saw it in, with its serialization."""
        self._public_turn: bytes | None = None

    def _event(self, index: int, audience: int | None) -> bytes:
        table = self._table
        seen = table._seen(self.events[index], audience)
        forms = self._forms[index]
        for form, data in forms:
            if form is seen or form == seen:
                return data
        data = table._event_bytes(seen)
        forms.append((seen, data))
        return data

    def _turn(self, audience: int | None) -> bytes:
        table = self._table
        if audience is not None and audience == table.game.to_act:
            return table._turn_bytes(audience)
        if self._public_turn is None:
            self._public_turn = table._turn_bytes(None)
        return self._public_turn

    def messages(self, audience: int | None, batch: bool = False) -> list[bytes]:
        """The audience's messages: one per event, or (``batch``) up to MAX_BATCH events a message; the
        Turn goes on the last."""
        last = len(self.events) - 1
        first = self._first
        if batch:
            events = [self._event(i, audience) for i in range(last + 1)]
            starts = range(0, last + 1, MAX_BATCH)
            return [
                _response(
                    first + start,
                    events[start],
                    self._turn(audience) if start + MAX_BATCH > last else None,
                    events[start + 1 : start + MAX_BATCH],
                )
                for start in starts
            ]
        messages = [_response(first + i, self._event(i, audience), None) for i in range(last)]
        messages.append(_response(first + last, self._event(last, audience), self._turn(audience)))
        return messages


class Table(Generic[RulesT, GameT, ActionT, EventT]):
    """A table of one game (its ``adapter``'s) with open and bot seats.

    Bot seats play the strategy named in their :class:`SeatState` (checked against the game's strategies
    when the table is created), each with its own random generator derived from the table's seed.
    """

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
    ) -> None:
        self.table_id = table_id
        self.telemetry = telemetry if telemetry is not None else Telemetry(quiet=True)
        self.serial = serial
        self.adapter = adapter
        self.rules = rules
        self.seats = seats
        self.seed = seed
        self.game: GameT = adapter.new_game(rules, seed, first_dealer)
        self.started = False
        self.create_time = time.time() if create_time is None else create_time
        self.log: list[TableEvent[EventT]] = []
        self._engine_cursor = 0
        self._subscribers: set[Subscriber] = set()
        self._requests: OrderedDict[tuple[int, str], tuple[ActionT, int]] = OrderedDict()
        self.bots = SeatBots(adapter, seed, {seat: s.strategy for seat, s in enumerate(seats) if s.bot})
        self._bot_task: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()
        self.store = store
        self._replaying = False
        self.time_control = time_control
        self._decisions = 0
        """Decisions applied so far: with the seat to act, it tells one decision's clock from the next."""
        self._clock_key: tuple[int, int] | None = None
        """(decisions, seat) of the decision whose clock runs; None when no clock runs."""
        self._clock_start = 0.0
        """time.monotonic() when the running decision's clock started."""
        self._clock_deadline = 0.0
        """time.monotonic() when it runs out."""
        self._clock_deadline_wall = 0.0
        """The same, as time.time(), for Turn.deadline."""
        self._clock_timer: asyncio.TimerHandle | None = None
        self._clock_task: asyncio.Task[None] | None = None
        self.last_activity = time.monotonic()
        """time.monotonic() of the table's last event, or of its last stream closing (for idle expiry)."""
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
        return self.game.is_over

    def open_seats(self) -> int:
        return sum(1 for s in self.seats if not s.taken)

    def status(self) -> pb.TableStatus.ValueType:
        if self.game.is_over:
            return pb.TABLE_STATUS_FINISHED
        return pb.TABLE_STATUS_PLAYING if self.started else pb.TABLE_STATUS_WAITING

    def describe(self) -> pb.Table:
        created = Timestamp()
        created.FromNanoseconds(int(self.create_time * 1e9))
        return pb.Table(
            table_id=self.table_id,
            game=self.adapter.kind,
            rules=self.adapter.rules_to_proto(self.rules),
            status=self.status(),
            seats=[
                pb.Seat(
                    seat=i,
                    kind=pb.SEAT_KIND_BOT if s.bot else pb.SEAT_KIND_OPEN,
                    strategy=s.strategy,
                    taken=s.taken,
                    player_name=s.player_name,
                    taken_over=s.taken_over or s.forfeited,
                    forfeited=s.forfeited,
                    bank_remaining=_duration(s.bank) if self.time_control is not None else None,
                )
                for i, s in enumerate(self.seats)
            ],
            open_seats=self.open_seats(),
            sequence=self.sequence,
            create_time=created,
            time_control=self.time_control.to_proto() if self.time_control is not None else None,
        )

    def authenticate(self, token: str | None) -> int:
        """The seat whose token this is; SEAT_TOKEN_INVALID, the same way whatever is wrong, otherwise."""
        found = self.seat_holding(token) if token else None
        if found is None:
            raise ServiceError(ErrorReason.SEAT_TOKEN_INVALID, "the seat token is missing or not valid here")
        bind_request(seat=found)
        return found

    def seat_holding(self, token: str) -> int | None:
        """The seat this token holds, if any; every seat's token hash is compared, in constant time."""
        found: int | None = None
        given = hash_token(token)
        for seat, state in enumerate(self.seats):
            expected = state.token_hash or bytes(32)
            if hmac.compare_digest(given, expected) and state.token_hash is not None:
                found = seat
        return found

    # ------------------------------------------------------------------ seats

    async def join(self, seat: int | None, player_name: str, token: str | None = None) -> tuple[int, str]:
        """Take a seat (caller holds the lock); ``token``: the client's own seat token, else one is drawn.

        A seat that already holds ``token`` is returned as it is: the client's retry of a join whose reply
        it lost (JoinTableRequest.seat_token), which must not take a second seat.
        """
        if token is not None:
            held = self.seat_holding(token)
            if held is not None:
                return held, token
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if not s.taken]
            if not free:
                raise ServiceError(ErrorReason.TABLE_FULL, f"table {self.table_id} has no free seat")
            seat = free[0]
        elif not 0 <= seat < len(self.seats):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"seat {seat} does not exist; seats are 0 to {len(self.seats) - 1}",
                field="seat",
            )
        state = self.seats[seat]
        if state.bot:
            raise ServiceError(ErrorReason.SEAT_NOT_OPEN, f"seat {seat} is a bot seat")
        if state.taken:
            if self.open_seats() == 0:
                raise ServiceError(ErrorReason.TABLE_FULL, f"table {self.table_id} has no free seat")
            raise ServiceError(ErrorReason.SEAT_TAKEN, f"seat {seat} is taken")
        token = token if token is not None else secrets.token_urlsafe(32)
        bind_request(seat=seat)
        token_hash = hash_token(token)
        # A player sitting down in a seat the bot took over plays it from now on: both stored in one commit.
        reclaimed = state.taken_over
        records = [Record("join", seat, player_name, token_hash)]
        if reclaimed:
            records.append(Record("reclaim", seat))
        await self._record(*records)
        self._take_seat(seat, token_hash, player_name)
        if reclaimed:
            self._reclaim(seat)
        return seat, token

    def _take_seat(self, seat: int, token_hash: bytes, player_name: str) -> None:
        state = self.seats[seat]
        state.token_hash = token_hash
        state.player_name = player_name
        self._publish([SeatTakenEvent(seat, player_name, False)])
        self.start_if_full()

    def start_if_full(self) -> None:
        """The game starts (its first deal is dealt) once every seat is taken."""
        if not self.started and self.open_seats() == 0:
            self.started = True
            if not self._replaying:
                self.telemetry.table_started(self)
            self._advance([])

    async def leave(self, seat: int) -> None:
        await self._record(Record("leave", seat))
        self._release_seat(seat)

    def _release_seat(self, seat: int) -> None:
        state = self.seats[seat]
        state.token_hash = None
        state.player_name = ""
        self._publish([SeatReleasedEvent(seat)])
        # T-33: whoever gave the seat up sees nothing more of it; its open streams end here.
        for subscriber in self._subscribers:
            if subscriber.audience == seat:
                subscriber.end()

    # ------------------------------------------------------------------ actions

    async def submit(self, seat: int, request_id: str, last_seen: int | None, action: ActionT) -> int:
        """Apply a seat's action (caller holds the lock); returns the sequence of its last event."""
        key = (seat, request_id)
        remembered = self._requests.get(key)
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
        await self.reclaim(seat)
        if not self.started:
            raise ServiceError(ErrorReason.GAME_NOT_STARTED, "the game starts when every seat is taken")
        if self.game.is_over:
            raise ServiceError(ErrorReason.GAME_OVER, "the game is over")
        if stale:
            raise ServiceError(
                ErrorReason.STALE_SEQUENCE,
                f"you last saw event {last_seen} but the table is at {self.sequence}; resync and retry",
            )
        self._check_legal(seat, action)
        # The time the decision took from the bank, if any, and the decision itself: in one commit.
        bank = self._bank_record(seat)
        acted = Record("action", seat, request_id, self.adapter.action_to_bytes(action))
        await self._record(*([acted] if bank is None else [bank, acted]))
        if bank is not None:
            self.seats[seat].bank = float(bank.text)
        applied = time.perf_counter()
        sequence = self._apply(seat, request_id, action)
        self.telemetry.action_applied(self, action, time.perf_counter() - applied)
        return sequence

    def _check_legal(self, seat: int, action: ActionT) -> None:
        """Refuse an illegal action with the engine's specific reason, before anything is stored."""
        try:
            self.adapter.check(self.game, seat, action)
        except ActionError as error:
            raise from_action_error(error) from None

    def _apply(self, seat: int, request_id: str, action: ActionT) -> int:
        self.adapter.apply(self.game, seat, action)
        self._decisions += 1
        self._advance([])
        if self.game.is_over and self.store is not None and not self._replaying:
            self.store.mark_finished(self.table_id, time.time())
        if request_id:
            self._requests[(seat, request_id)] = (action, self.sequence)
            if len(self._requests) > REMEMBERED_REQUESTS:
                self._requests.popitem(last=False)
        return self.sequence

    async def _record(self, *records: Record) -> None:
        """Store a change (its records, in one commit) before it is made, and so before it is acknowledged.
        When the store cannot commit it, STORE_UNAVAILABLE: the caller then leaves the table as it was."""
        if self.store is None or self._replaying:
            return
        try:
            await self.store.append(self.table_id, *records)
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
            self.bots.observe(self.game)
        self._publish([*extra, *new])

    def bot_to_act(self) -> int | None:
        """The seat to act when a server-run bot plays it: a bot seat, or one taken over on time."""
        seat = self.game.to_act
        if self.started and seat is not None and self.seats[seat].played_by_bot:
            return seat
        return None

    def strategy_of(self, seat: int) -> str:
        """The strategy that plays a bot seat, or the game's takeover strategy for a seat taken over."""
        state = self.seats[seat]
        return state.strategy if state.bot else self.adapter.takeover_strategy

    async def play_bot(self, seat: int) -> None:
        """One move of a server-run bot (caller holds the lock)."""
        strategy = self.strategy_of(seat)
        asked = time.perf_counter()
        action = self.bots.decide(self.game, seat)
        self.telemetry.bot_decided(strategy, time.perf_counter() - asked)
        await self._play_decided(seat, action)

    async def play_bot_off_loop(self, seat: int) -> None:
        """One move of a searching bot (caller holds the lock).

        It thinks in a worker thread, so the server keeps serving every other table meanwhile; this table's
        state is only read until the move is applied.
        """
        strategy = self.strategy_of(seat)
        asked = time.perf_counter()
        action = await asyncio.to_thread(self.bots.decide, self.game, seat)
        self.telemetry.bot_decided(strategy, time.perf_counter() - asked)
        await self._play_decided(seat, action)

    async def _play_decided(self, seat: int, action: ActionT) -> None:
        self._check_legal(seat, action)
        await self._record(Record("action", seat, "", self.adapter.action_to_bytes(action)))
        applied = time.perf_counter()
        self._apply(seat, "", action)
        self.telemetry.action_applied(self, action, time.perf_counter() - applied)

    def replay(self, records: list[Record]) -> None:
        """Rebuild the table from its stored records: same events, same sequence numbers."""
        self._replaying = True
        try:
            for record in records:
                if record.kind == "join":
                    self._take_seat(record.seat, record.data, record.text)
                elif record.kind == "leave":
                    self._release_seat(record.seat)
                elif record.kind == "action":
                    action = self.adapter.action_from_bytes(record.data)
                    self._apply(record.seat, record.text, action)
                elif record.kind == "timeout":
                    self._time_out(record.seat, TimeoutPolicy(record.text))
                elif record.kind == "reclaim":
                    self._reclaim(record.seat)
                elif record.kind == "bank":
                    self.seats[record.seat].bank = float(record.text)
                else:
                    raise ValueError(f"table {self.table_id}: unknown record kind {record.kind!r}")
        finally:
            self._replaying = False

    def ensure_bots_running(self) -> None:
        """Start the bots' task when a bot must move, and arm the clock when it runs (a restored table's)."""
        if self._clock_key is not None and self._clock_timer is None:
            self._start_clock(self._clock_key[1])  # never armed: rebuilt by replay, its clock starts afresh
        if self.bot_to_act() is not None and (self._bot_task is None or self._bot_task.done()):
            # A context of its own: the bots' log lines do not carry the request that woke them.
            self._bot_task = asyncio.get_running_loop().create_task(
                self._run_bots(), context=contextvars.Context()
            )

    async def _run_bots(self) -> None:
        retry = STORE_RETRY_SECONDS
        while True:
            async with self.lock:
                seat = self.bot_to_act()
                if seat is None:
                    return
                try:
                    if self.bots.searching(seat):
                        await self.play_bot_off_loop(seat)
                    else:
                        await self.play_bot(seat)
                except ServiceError as error:
                    if error.reason is not ErrorReason.STORE_UNAVAILABLE:
                        raise
                    failed = True  # the move was not made; it is decided again after a pause
                else:
                    failed = False
            if failed:
                await asyncio.sleep(retry)
                retry = min(retry * 2, STORE_RETRY_MAX_SECONDS)
            else:
                retry = STORE_RETRY_SECONDS
                await asyncio.sleep(0)  # let the streams flush between bot moves

    # ------------------------------------------------------------------ the turn clock

    def _clock_seat(self) -> int | None:
        """The seat whose clock runs: the seat to act, when the table has a clock and a client plays it."""
        if self.time_control is None or not self.started:
            return None
        seat = self.game.to_act
        if seat is None or self.seats[seat].played_by_bot:
            return None
        return seat

    def _update_clock(self) -> None:
        """Start the clock of a new decision (or stop it); called whenever the table changes."""
        seat = self._clock_seat()
        key = None if seat is None else (self._decisions, seat)
        if key == self._clock_key:
            return
        self._clock_key = key
        self._cancel_clock()
        if seat is not None:
            self._start_clock(seat)

    def _start_clock(self, seat: int) -> None:
        per_move = self.time_control.per_move if self.time_control is not None else 0.0
        allowed = per_move + self.seats[seat].bank
        self._clock_start = time.monotonic()
        self._clock_deadline = self._clock_start + allowed
        self._clock_deadline_wall = time.time() + allowed
        self._arm_clock()

    def _arm_clock(self) -> None:
        """Arm the table's one timer at the running clock's deadline (not while replaying, nor off a loop)."""
        if self._replaying:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # built outside the server (a test, the exporter); the server arms it at start
            return
        self._cancel_clock()
        delay = max(0.0, self._clock_deadline - time.monotonic())
        self._clock_timer = loop.call_at(loop.time() + delay, self._clock_fired)

    def _cancel_clock(self) -> None:
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None

    def _clock_fired(self) -> None:
        key = self._clock_key
        if key is None:
            return
        # A context of its own, like the bots': the timeout's log lines carry no request.
        self._clock_task = asyncio.get_running_loop().create_task(
            self._on_timeout(key), context=contextvars.Context()
        )

    async def _on_timeout(self, key: tuple[int, int]) -> None:
        async with self.lock:
            if key != self._clock_key or self.time_control is None:
                return  # the seat acted (or was taken back) while the timer fired
            if self._clock_deadline - time.monotonic() > 0.001:
                self._arm_clock()
                return
            seat = key[1]
            policy = self.time_control.policy
            try:
                await self._record(Record("timeout", seat, policy.value))
            except ServiceError:  # not stored, so not made: the clock fires again shortly
                loop = asyncio.get_running_loop()
                self._clock_timer = loop.call_at(loop.time() + STORE_RETRY_SECONDS, self._clock_fired)
                return
            self._time_out(seat, policy)
        self.ensure_bots_running()

    def _time_out(self, seat: int, policy: TimeoutPolicy) -> None:
        state = self.seats[seat]
        state.bank = 0.0
        state.taken_over = True
        state.forfeited = policy is TimeoutPolicy.FORFEIT
        self.bots.take_over(seat, self.game)
        self._publish([TurnTimedOutEvent(seat, policy), SeatTakenOverEvent(seat, state.forfeited)])

    async def reclaim(self, seat: int) -> bool:
        """Take the seat back from the bot that plays it since a timeout (caller holds the lock); False when
        it was not taken over. SEAT_FORFEITED for a seat that forfeited."""
        state = self.seats[seat]
        if state.forfeited:
            raise ServiceError(ErrorReason.SEAT_FORFEITED, f"seat {seat} forfeited on time; the bot plays it")
        if not state.taken_over:
            return False
        await self._record(Record("reclaim", seat))
        self._reclaim(seat)
        return True

    def _reclaim(self, seat: int) -> None:
        self.seats[seat].taken_over = False
        self._publish([SeatReclaimedEvent(seat)])

    def _bank_record(self, seat: int) -> Record | None:
        """The charge of a decision's time beyond per_move to the seat's bank, to store with the decision
        (replay cannot time it); None when the decision took nothing from the bank."""
        if self.time_control is None or self._clock_key is None or self._clock_key[1] != seat:
            return None
        over = time.monotonic() - self._clock_start - self.time_control.per_move
        state = self.seats[seat]
        if over <= 0 or state.bank <= 0:
            return None
        left = round(max(0.0, state.bank - over), 3)
        return Record("bank", seat, f"{left:.3f}")

    # ------------------------------------------------------------------ streams

    def _publish(self, events: list[TableEvent[EventT]]) -> None:
        """Log events with sequence numbers; send them to every stream, serialized once per audience."""
        if not events:
            return
        self.last_activity = time.monotonic()
        self._update_clock()
        first = self.sequence + 1
        self.log.extend(events)
        if self._subscribers:
            audiences: dict[tuple[int | None, bool], list[Subscriber]] = {}
            for subscriber in self._subscribers:
                audiences.setdefault((subscriber.audience, subscriber.batch), []).append(subscriber)
            ended = any(self.adapter.is_game_over(e) for e in events)
            rendering = _Rendering(self, events, first)
            for (audience, batch), subscribers in audiences.items():
                messages = rendering.messages(audience, batch)
                for subscriber in subscribers:
                    for data in messages:
                        subscriber.offer(data)
                    if ended:
                        subscriber.offer(_END)
        self.telemetry.events_published(self, events, replaying=self._replaying)

    def _render(
        self, events: list[TableEvent[EventT]], first: int, audience: int | None, batch: bool = False
    ) -> list[bytes]:
        """Serialized StreamEventsResponse messages of ``events`` (numbered from ``first``)."""
        return _Rendering(self, events, first).messages(audience, batch)

    def _seen(self, event: TableEvent[EventT], audience: int | None) -> TableEvent[EventT]:
        """``event`` as ``audience`` may see it (the table's own events are public)."""
        if isinstance(event, SeatEvent):
            return event
        return self.adapter.event_for(event, audience)

    def _event_bytes(self, seen: TableEvent[EventT]) -> bytes:
        """A serialized ``Event`` of an event already filtered by :meth:`_seen`."""
        if isinstance(seen, SeatEvent):
            return seat_event_proto(seen).SerializeToString()
        return self.adapter.event_message(seen).SerializeToString()

    def _turn_bytes(self, audience: int | None) -> bytes:
        """A serialized ``Turn``: whose turn it is and, on that seat's own stream, its actions and view.

        Written field by field in field-number order (see :mod:`server.wire`): the legal actions come from
        the adapter already serialized (Thousand's are cached per action), and the view is serialized once.
        """
        seat = self.game.to_act if self.started else None
        if seat is None:
            return b""
        own = audience == seat
        clock = self._clock_key is not None and self._clock_key[1] == seat
        adapter = self.adapter
        parts = [wire.int_field(_TURN_SEAT, seat)]
        if own:
            parts.extend(
                wire.message_field(_TURN_LEGAL_ACTIONS, adapter.action_bytes(a))
                for a in adapter.turn_actions(self.game, seat)
            )
        if clock:
            deadline = Timestamp()
            deadline.FromNanoseconds(int(self._clock_deadline_wall * 1e9))
            parts.append(wire.message_field(_TURN_DEADLINE, deadline.SerializeToString()))
        if own:
            parts.append(wire.message_field(_TURN_VIEW, adapter.view_bytes(self.game, seat)))
        if clock:
            bank = _duration(self.seats[seat].bank).SerializeToString()
            parts.append(wire.message_field(_TURN_BANK_REMAINING, bank))
        return b"".join(parts)

    def snapshot(self, audience: int | None) -> bytes:
        message = pb.StreamEventsResponse(sequence=self.sequence)
        message.snapshot.table.CopyFrom(self.describe())
        if self.started:
            message.snapshot.view.CopyFrom(self.adapter.view_to_proto(self.game, audience))
        return message.SerializeToString() + wire.message_field(_RESPONSE_TURN, self._turn_bytes(audience))

    def stream(
        self, audience: int | None, after: int | None, batch: bool = False
    ) -> AsyncGenerator[bytes, None]:
        """Serialized StreamEventsResponse messages for one stream, from a snapshot or after a sequence.

        ``after`` is checked at once (ServiceError), so that a caller can refuse the stream before it
        iterates; the stream subscribes when it is first iterated.
        """
        return self.stream_to(Subscriber(audience, batch), after)

    def stream_to(self, subscriber: Subscriber, after: int | None) -> AsyncGenerator[bytes, None]:
        """:meth:`stream` for a subscriber the caller keeps, to queue :class:`Reply` messages to it, which the
        stream yields in their place among the table's messages."""
        if after is not None and after > self.sequence:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"after_sequence {after} is beyond the table's latest event {self.sequence}",
                field="after_sequence",
            )
        return self._stream(subscriber, after)

    async def _stream(self, subscriber: Subscriber, after: int | None) -> AsyncGenerator[bytes, None]:
        audience, batch = subscriber.audience, subscriber.batch
        # Subscribing and reading the backlog happen with no await in between: no event can fall in the gap.
        self._subscribers.add(subscriber)
        try:
            if after is None:
                first = [self.snapshot(audience)]
            elif after < self.sequence:
                first = self._render(self.log[after:], after + 1, audience, batch)
            else:  # nothing missed: still say whose turn it is
                first = [_response(self.sequence, None, self._turn_bytes(audience))]
            # Whether ``first`` reaches the end of the game: decided now, not after yielding it, because the
            # game may end while it is sent, its last events then waiting in the queue.
            ended = self.finished
            first.reverse()
            while first:
                yield first.pop()  # each message is released once sent (a resume may send many)
            if ended:
                return
            while True:
                data = await subscriber.get()
                if type(data) is Reply:
                    yield data
                    continue
                if subscriber.lagging:
                    subscriber.drain()
                    subscriber.lagging = False
                    self.telemetry.stream_resynced(self, audience)
                    snapshot, ended = self.snapshot(audience), self.finished
                    yield snapshot
                    if ended:  # the snapshot shows the end (the dropped backlog held the _END)
                        return
                    continue
                if data == _END:
                    return
                yield data
        finally:
            self._subscribers.discard(subscriber)
            self.last_activity = time.monotonic()

    def stream_queue_depths(self) -> list[tuple[int | None, int]]:
        """Each open stream's audience and the number of messages waiting in its queue (for metrics)."""
        return [(s.audience, s.depth()) for s in list(self._subscribers)]

    def idle_seconds(self, now: float) -> float | None:
        """Seconds since the table's last event or last stream's end (``now``: time.monotonic()); None while
        it is in use: a stream is open, its lock is held or its bots are moving."""
        if self._subscribers or self.lock.locked():
            return None
        if self._bot_task is not None and not self._bot_task.done():
            return None
        return max(0.0, now - self.last_activity)

    def close_streams(self) -> None:
        """End every stream (the server is stopping); the clock and the bots stop too."""
        self._cancel_clock()
        for task in (self._bot_task, self._clock_task):
            if task is not None:
                task.cancel()
        for subscriber in self._subscribers:
            subscriber.end()  # the stream ends rather than resynchronizing


def seat_event_proto(event: SeatEvent) -> pb.Event:
    """A table event of its own (not the game's) on the wire: the same for every audience."""
    match event:
        case SeatTakenEvent(seat, name, bot):
            return pb.Event(seat_taken=pb.SeatTaken(seat=seat, player_name=name, bot=bot))
        case SeatReleasedEvent(seat):
            return pb.Event(seat_released=pb.SeatReleased(seat=seat))
        case TurnTimedOutEvent(seat, policy):
            return pb.Event(turn_timed_out=pb.TurnTimedOut(seat=seat, policy=policy.to_proto()))
        case SeatTakenOverEvent(seat, forfeited):
            return pb.Event(seat_taken_over=pb.SeatTakenOver(seat=seat, forfeited=forfeited))
        case SeatReclaimedEvent(seat):
            return pb.Event(seat_reclaimed=pb.SeatReclaimed(seat=seat))


def _duration(seconds: float) -> Duration:
    duration = Duration()
    duration.FromNanoseconds(round(seconds * 1e9))
    return duration


AnyTable: TypeAlias = Table[Any, Any, Any, Any]
"""A table of any game, as the registry and the service hold it."""
