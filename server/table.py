"""One table on the server: its pure core inside, and the asynchronous parts around it.

Every change to a table runs one path, under the table's lock: the core decides (:meth:`TableCore.decide`:
the steps to store, or a refusal), the store commits the steps (awaited with the lock held, so each table's
changes are stored and made in order; a change the store cannot commit is not made: STORE_UNAVAILABLE), the
core applies them (:meth:`TableCore.apply`), the streams are sent the events, and then the turn clock and the
bots are told. Replaying the stored records rebuilds the table: the core applies the same steps again.

The parts, each given what it needs as arguments and none holding the table:

- :mod:`server.table_core` (with :mod:`server.table_changes` and :mod:`server.table_state`): the seats, the
  event log, the engine game, the memory of recent requests; commands, changes and frames;
- :mod:`server.streams` (with :mod:`server.rendering`): the open streams, their bounded queues and what they
  are sent, serialized;
- :mod:`server.turn_clock`: the turn clock, when the table has one;
- :mod:`server.bots`: the players of the seats server-run bots play, and :mod:`server.table_bots`: the loop
  that moves them, one move at a time through the table's one path;
- :mod:`server.table_queries`: the read side (the core's state, the seat a token or a player holds, the table
  as the contract describes it, whether it is idle), the base of :class:`Table`.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

from server import bots as bot_pauses
from server import snapshots, table_bots, tracing
from server.bots import Bots
from server.errors import MOVING_RETRY_SECONDS, ErrorReason, ServiceError
from server.games import AnyAdapter
from server.identity.values import Privacy
from server.logs import bind_request, get_logger
from server.pacing import PEOPLE, BotPacer
from server.ratings.rater import TableRatings
from server.snapshots import TableState
from server.stalls import StallWatch
from server.store import Record, Store, StoreError, TableFencedError
from server.streams import Streams, Subscriber
from server.table_changes import (
    Act,
    Away,
    Change,
    Claim,
    Command,
    HandOver,
    Join,
    Leave,
    Published,
    Reclaim,
    Stop,
    TimeOut,
    step_of,
)
from server.table_core import TableCore, new_token
from server.table_queries import TableQueries
from server.table_state import SeatState, StopReason, TableEvent, TableStoppedEvent, hash_token
from server.telemetry import Telemetry
from server.time_control import TimeControl
from server.turn_clock import TurnClock, clock_parts

log = get_logger("thousand.table")


class Table(TableQueries):
    """A table of one game (its ``adapter``'s) with open and bot seats."""

    def __init__(
        self,
        table_id: str,
        *,
        serial: int,
        adapter: AnyAdapter,
        rules: Any,
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
        privacy: Privacy | None = None,
        rated: bool = False,
    ) -> None:
        self.core = TableCore(
            table_id,
            serial=serial,
            adapter=adapter,
            rules=rules,
            seats=seats,
            seed=seed,
            first_dealer=first_dealer,
            create_time=time.time() if create_time is None else create_time,
            time_control=time_control,
            seeded=seeded,
            secret=secret,
            rated=rated,
        )
        self.table_id = table_id
        self.privacy = None if privacy is None else dataclasses.replace(privacy, table_id=table_id)
        """A private table's settings, from its stored config (None: public, or settings kept only in the
        players' store, for a table made before they were stored with it)."""
        self.serial = serial
        self.adapter = adapter
        self.telemetry = telemetry if telemetry is not None else Telemetry(quiet=True)
        self.lock = asyncio.Lock()
        self.store = store
        self.pacer = pacer if pacer is not None else BotPacer()
        """The server's bot work queue (``server.pacing``): this table's bots take their turns from it."""
        self.last_activity = time.monotonic()
        """time.monotonic() of the table's last event (for idle expiry; its streams note their own ends)."""
        self.progress = self.core.create_time
        """time.time() of the table's last event, its creation before that (a restart sets it to when it was
        rebuilt): how long the seat to act has idled (:meth:`server.telemetry.Telemetry.last_progress`)."""
        self.on_change: Callable[[], None] | None = None
        """Called after every change (not on replay): a cluster node publishes the table's summary."""
        self.on_lost: Callable[[], None] | None = None
        """Called when the store refused a write because another node owns the table now."""
        self.on_finish: Callable[[Table], None] | None = None
        """Called once its game ends here (not on replay): the players' history keeps its seats' results."""
        self.streams = Streams()
        self.clock = TurnClock(time_control, stalls if stalls is not None else StallWatch())
        self.bots = Bots(adapter, seed, self.core.seats)
        self.ratings = TableRatings(table_id, adapter.name, self.lock, self.core)
        """A rated table's update at its game's end (:mod:`server.ratings.rater`)."""
        self._timeout_task: asyncio.Task[None] | None = None
        self._away_tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        """Its streams were ended here (server stopping, table moved): a stream ending then is no leaving."""
        self._unsnapshotted = 0
        """Records stored since the table's last snapshot (or since its replay began): one is taken with the
        first change holding an action past ``store.snapshot_records`` (:mod:`server.snapshots`)."""
        for published in self.core.opening:  # a table of bots only starts at once
            self._follow(published)
        if self.core.started:
            self.telemetry.table_started(self)

    # ------------------------------------------------------------------ the one path of every change

    async def run(self, command: Command) -> Change:
        """Decide, store, apply and publish a command (caller holds the lock); its refusal is raised after
        whatever steps it made. The caller then wakes the bots (:meth:`ensure_bots_running`)."""
        change = self.core.decide(command)
        if change.steps:
            if self.store is not None:  # a table without a store writes no records
                await self._store(change.records)
            self._make(change)
        if change.refusal is not None:
            raise change.refusal
        return change

    async def _store(self, records: list[Record]) -> None:
        """Store a change (its records, in one commit) before it is made, and so before it is acknowledged.
        When the store cannot commit it, STORE_UNAVAILABLE: the caller then leaves the table as it was."""
        if self.store is None:
            return
        every = self.store.snapshot_records
        snapshot = None
        if every and self._unsnapshotted >= every and any(r.kind == "action" for r in records):
            # Every record stored so far is applied: the state before these.
            snapshot = snapshots.take(self.core, self.bots)
        try:
            await self.store.append(self.table_id, *records, snapshot=snapshot)
        except TableFencedError as error:
            log.warning("table lost to another node", table_id=self.table_id, error=str(error))
            self._lost()
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
        self._unsnapshotted = len(records) + (0 if snapshot is not None else self._unsnapshotted)

    def _lost(self) -> None:
        """Another node owns the table now (the store refused a write with the table's fencing)."""
        if self.on_lost is not None:
            self.on_lost()

    def _make(self, change: Change) -> None:
        """Apply a stored change and publish each step's events as it is made."""
        core = self.core
        was_started, was_finished = core.started, core.finished
        for published in core.apply(change):
            self.last_activity = time.monotonic()
            self.clock.update(published.frame, self._timer_fired)
            if not tracing.enabled():  # the span's attributes are not even made
                self.streams.publish(core, self.clock, published)
            else:
                attributes: dict[str, str | int] = {
                    "thousand.table_id": self.table_id,
                    "thousand.events": len(published.events),
                }
                with tracing.span("table.publish", attributes):
                    self.streams.publish(core, self.clock, published)
            self._follow(published)
            if self.on_change is not None:
                self.on_change()
        if core.started and not was_started:
            self.telemetry.table_started(self)
        if core.awaiting_rating:
            self.ratings.start(self.apply_stored, self._lost)
        if core.finished and not was_finished:
            if self.store is not None:
                self.store.mark_finished(self.table_id, time.time())
            if self.on_finish is not None:
                self.on_finish(self)
            if core.stopped is not None:
                self.telemetry.table_stopped(self, core.stopped, _stop_message(core.log))

    def apply_stored(self, change: Change) -> None:
        """Make a change whose records another transaction stored (a rating update's, with its rows)."""
        self._unsnapshotted += len(change.records)
        self._make(change)

    def _follow(self, published: Published) -> None:
        """What follows a step besides its streams, also on replay: the bots see it; it is reported."""
        self.bots.follow(self.core.game, published)
        self.progress = time.time()
        self.telemetry.events_published(self, published.events)

    # ------------------------------------------------------------------ commands (caller holds the lock)

    async def join(
        self,
        seat: int | None,
        player_name: str,
        token: str | None = None,
        *,
        client_seed: str = "",
        player_id: str = "",
    ) -> tuple[int, str]:
        """Take a seat; ``token``: the client's own seat token, else one is drawn; ``client_seed``: the
        player's seed for a fair table's deals from now on (ignored when seeded); ``player_id``: the player
        joining with their credential (stored with the join; ALREADY_SEATED when they sit here already). A
        seat that already holds ``token`` is returned as it is: the client's retry of a join whose reply it
        lost."""
        token = token if token is not None else new_token()
        seat = await self.join_hashed(
            seat, player_name, hash_token(token), client_seed=client_seed, player_id=player_id
        )
        return seat, token

    async def join_hashed(
        self,
        seat: int | None,
        player_name: str,
        token_hash: bytes,
        *,
        client_seed: str = "",
        player_id: str = "",
    ) -> int:
        """Take a seat for the token whose hash is ``token_hash`` (a quick-play match, which keeps only
        hashes); as :meth:`join`, a seat that already holds it is returned as it is."""
        change = await self.run(Join(seat, player_name, "", token_hash, client_seed, player_id))
        assert change.seat is not None
        bind_request(seat=change.seat)
        return change.seat

    async def leave(self, seat: int) -> None:
        """Give a seat up; its streams end (T-33: whoever gave the seat up sees nothing more of it)."""
        await self.run(Leave(seat))

    async def reclaim(self, seat: int) -> bool:
        """Take the seat back from the bot that plays it since a timeout: False when it was not taken over,
        SEAT_FORFEITED for a seat that forfeited."""
        return (await self.run(Reclaim(seat))).reclaimed

    async def submit(self, seat: int, request_id: str, last_seen: int | None, action: Any) -> int:
        """Apply a seat's action; returns the sequence of its last event (a retry: its first outcome's)."""
        bank = self.clock.bank_left(seat, self.core.seats[seat].bank)
        applied = time.perf_counter()
        change = await self.run(Act(seat, request_id, last_seen, action, bank))
        if change.sequence is not None:
            self.telemetry.action_replayed(self, action)
            return change.sequence
        self.telemetry.action_applied(self, action, time.perf_counter() - applied)
        return self.sequence

    async def claim(self, seat: int, player_id: str) -> None:
        """The seat is the player's from now on (ClaimSeats): stored in the table's log."""
        await self.run(Claim(seat, player_id))

    async def hand_over(self, seat: int, operator: str, reason: str) -> None:
        """An operator gives the seat to the server's bot for the rest of the game: stored with who did it
        and why; the seat's player loses it (token and streams), and nobody can take it back."""
        await self.run(HandOver(seat, operator, reason))

    async def stop(self, reason: StopReason, message: str) -> None:
        """End the table before its game did: stored, then TableStopped, the streams end and no action is
        accepted any more."""
        await self.run(Stop(reason, message))

    # ------------------------------------------------------------------ rebuilding from the store

    def replay(self, records: list[Record], snapshot: TableState | None = None) -> None:
        """Rebuild the table from its stored records: the core applies them again, the bots follow; the
        clock goes on from when the record that began the running decision was stored, if known. With a
        ``snapshot``, from the state it holds, ``records`` being those after it (:mod:`server.snapshots`)."""
        if snapshot is not None:
            snapshots.restore(self.core, self.bots, snapshot)
        self._unsnapshotted = len(records)
        for part in clock_parts(records):  # the tail one record at a time: which one began the decision
            change = Change(tuple(step_of(r, self.adapter.action_from_bytes) for r in part))
            for published in self.core.apply(change):
                self.bots.follow(self.core.game, published)
            self.clock.update(self.core.frame(), None, part[-1].at if part else None)  # armed once served

    # ------------------------------------------------------------------ the bots and the clock

    def ensure_bots_running(self) -> None:
        """Start the bots' task when a bot must move, and arm the clock when it runs (a restored table's)."""
        self.clock.ensure_armed(self._timer_fired)
        if self.core.awaiting_rating:  # a restored table whose update was not stored yet
            self.ratings.start(self.apply_stored, self._lost)
        if self.core.bot_to_act() is not None:
            self.bots.ensure_running(functools.partial(table_bots.play_bots, self._bot_moves()))

    async def move_bot(self, seat: int, kind: int = PEOPLE) -> None:
        """One move of a server-run bot (caller holds the lock): :func:`server.table_bots.move_bot`."""
        await table_bots.move_bot(self._bot_moves(), seat, kind)

    def _bot_moves(self) -> table_bots.BotMoves:
        """What the bots' loop is given: the parts it reads and the steps of this table it calls."""
        return table_bots.BotMoves(
            self.core,
            self.bots,
            self.lock,
            self.pacer,
            self.store,
            commit=self._store,
            make=self._make,
            stop=self.stop,
            decided=self._bot_decided,
            applied=self._applied,
        )

    def _bot_decided(self, strategy: str, seconds: float) -> None:
        self.telemetry.bot_decided(strategy, seconds)

    def _applied(self, action: Any, seconds: float) -> None:
        self.telemetry.action_applied(self, action, seconds)

    def _timer_fired(self, key: tuple[int, int]) -> None:
        """The turn clock's timer went off: its timeout is handled under the lock, in a task of its own."""
        # A context of its own, like the bots': the timeout's log lines carry no request.
        loop = asyncio.get_running_loop()
        self._timeout_task = loop.create_task(self._time_out(key), context=contextvars.Context())

    async def _time_out(self, key: tuple[int, int]) -> None:
        async with self.lock:
            control = self.core.time_control
            if key != self.clock.key or control is None:
                return  # the seat acted (or was taken back) while the timer fired
            if self.clock.left() > 0.001:  # early, or the server stalled meanwhile: not the seat's time
                self.clock.rearm(0.0, self._timer_fired)
                return
            try:
                await self.run(TimeOut(key[1], control.policy))
            except ServiceError:  # not stored, so not made: the clock fires again shortly
                self.clock.rearm(bot_pauses.STORE_RETRY_SECONDS, self._timer_fired)
                return
        self.ensure_bots_running()

    # ------------------------------------------------------------------ streams

    def stream(
        self, audience: int | None, after: int | None, batch: bool = False
    ) -> AsyncGenerator[bytes, None]:
        """Serialized StreamEventsResponse messages for one stream, from a snapshot or after a sequence.

        ``after`` is checked at once (ServiceError), so that a caller can refuse the stream before it
        iterates; the stream subscribes when it is first iterated. A seat's stream takes the seat back from
        the bot that plays it while its player was away (:meth:`take_back`), once it has subscribed.
        """
        return self.stream_to(Subscriber(audience, batch), after)

    def stream_to(self, subscriber: Subscriber, after: int | None) -> AsyncGenerator[bytes, None]:
        """:meth:`stream` for a subscriber the caller keeps, to queue :class:`~server.streams.Reply` messages
        to it, which the stream yields in their place among the table's messages."""
        seat = subscriber.audience
        state = None if seat is None else self.core.seats[seat]
        back = state is not None and state.taken_over and not state.forfeited and not state.one_turn
        away = self.core.time_control is not None and self.core.time_control.away_bot
        return self.streams.open(
            self.core,
            self.clock,
            subscriber,
            after,
            resynced=self._resynced,
            opened=self.take_back if back or away else None,  # away: a bot may take it before it opens
            closed=self._seat_closed if away else None,
        )

    def _seat_closed(self, seat: int) -> None:
        """A seat's last stream closed at a table whose bot plays such a seat at once (TimeControl.away_bot):
        the bot takes it over, in a task of its own (the stream's end cannot wait for the lock)."""
        if self._closed:
            return
        task = asyncio.get_running_loop().create_task(self._away(seat), context=contextvars.Context())
        self._away_tasks.add(task)
        task.add_done_callback(self._away_tasks.discard)

    async def _away(self, seat: int) -> None:
        async with self.lock:
            if self._closed or self.streams.seat_open(seat):  # its player came back meanwhile
                return
            try:
                await self.run(Away(seat))
            except ServiceError:  # not stored, so not made: the clock plays the seat as before
                return
        self.ensure_bots_running()

    def _resynced(self, audience: int | None) -> None:
        self.telemetry.stream_resynced(self, audience)

    async def take_back(self, seat: int) -> None:
        """A seat's own stream opened: its player is back, and takes the seat back from the bot that plays it
        since a timeout (TimeoutPolicy.BOT_PLAYS), as ReclaimSeat would; the stream then shows it. Not
        stored (and not made) when the store fails: the seat stays the bot's until the player acts."""
        async with self.lock:
            state = self.core.seats[seat]
            if not state.taken_over or state.forfeited or state.one_turn:
                return
            try:
                await self.run(Reclaim(seat))
            except ServiceError:
                return

    # ------------------------------------------------------------------ its life on the server

    def close_streams(self, failure: ServiceError | None = None) -> None:
        """End every stream (the server is stopping; with ``failure``, the error they end with: the table
        moved); the clock and the bots stop too."""
        self._closed = True
        self.clock.cancel()
        if self._timeout_task is not None:
            self._timeout_task.cancel()
        self.ratings.stop()
        self.bots.stop()
        self.streams.end_all(failure)


def _stop_message(log: list[TableEvent[Any]]) -> str:
    """What the server said when it stopped the table: its last event says it."""
    last = log[-1] if log else None
    return last.message if isinstance(last, TableStoppedEvent) else ""
