"""A small typed client of the Thousand server (``thousand.v1.TableService``) over ``grpc.aio``.

:class:`TableSession` is one connection to a server and, once it has joined (or is watching) a table, one seat
at it. It speaks the engine's language: events come as :mod:`engine.events` values, views as
:class:`engine.View`, legal actions and submitted actions as :mod:`engine.actions` values; the protobuf
mapping is :mod:`server.codec`, the same one the server uses.

Both games of the server are spoken: a Thousand table's stream yields :class:`Snapshot` and
:class:`EventMessage` carrying a :class:`Turn` (engine values of :mod:`engine`), a 1000 Blagogo table's yields
:class:`BlagogoSnapshot` and :class:`BlagogoEventMessage` carrying a :class:`BlagogoTurn` (values of
:mod:`engine.blagogo`, mapped by :mod:`server.codec_blagogo`). :meth:`TableSession.create_table` takes either
game's rules, :meth:`TableSession.submit` either game's action, and :meth:`TableSession.list_tables` lists
every game unless asked for one.

What it takes care of:

- **Streams** (:meth:`TableSession.stream`): a snapshot, then every event with its sequence number and, on the
  last message of each batch, the :class:`Turn`. It remembers the last sequence seen, and when the connection
  drops (or the server restarts its streams) it reconnects with exponential backoff and resumes with
  ``after_sequence``, so no event is lost or repeated. A mid-stream snapshot (the server's resync of a lagging
  stream) is turned into a resume too, so a client sees every event.
- **Actions** (:meth:`TableSession.submit`): a fresh ``request_id`` per action and the ``last_seen_sequence``;
  a call that fails with UNAVAILABLE (or times out) is retried with the same ``request_id``, which the server
  applies at most once.
- **Fair deals**: :meth:`TableSession.join` adds a seed of the seat's own to the deals, after reading the
  table's commitment, and :attr:`TableSession.deals` checks every deal the stream reveals against them
  (:mod:`clients.fairness`, :mod:`engine.verify`).
- **Errors**: every refusal is a :class:`ServerError` carrying the gRPC code, the ``ErrorInfo`` reason (e.g.
  ``ILLEGAL_ACTION``), its ``rule`` metadata (e.g. ``MUST_FOLLOW_SUIT``) and the server's message.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Final, TypeVar

import grpc
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2
from grpc import aio

from clients.fairness import checker_for, new_client_seed, witness_for
from engine import Action, Event, Rules, View, blagogo
from engine.blagogo import events as blagogo_events
from engine.blagogo.actions import ALL_ACTION_TYPES as BLAGOGO_ACTION_TYPES
from engine.events import GameOver
from engine.verify import DealChecker
from server import codec, codec_blagogo
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

DEFAULT_SERVER: Final = "127.0.0.1:50051"
TOKEN_METADATA: Final = "x-seat-token"
ERROR_DOMAIN: Final = "thousand.v1"
STATUS_DETAILS_METADATA: Final = "grpc-status-details-bin"
CHANNEL_OPTIONS: Final = (
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 5000),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.ping_timeout_ms", 10_000),  # gRPC waits this long for a keepalive ping's answer too
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),  # a long game's record (ExportTable) is megabytes
)
"""A person is waiting: the channel tries to reconnect sooner than gRPC's default (1 s, then up to 120 s),
and pings the server every 30 s, so a stream on a connection that silently died (a server that vanished, a
NAT that forgot it) fails within 40 s and is resumed, instead of waiting for events that never come. The
server accepts pings every 10 s (``server.app.CLIENT_PING_SECONDS``)."""
CALL_TIMEOUT: Final = 10.0
"""Seconds one unary call may take before it counts as failed (and, where safe, is retried)."""

OPEN: Final = None
"""In :meth:`TableSession.create_table`'s ``seats``: a seat for a person (or any client) to take."""

_RETRYABLE: Final = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.CANCELLED,
    }
)
"""Transport trouble: worth another try when the server did not answer with a reason of its own."""

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------------- errors


class ServerError(Exception):
    """A call the server refused, or one that could not reach it.

    ``reason`` is the stable ``ErrorInfo`` reason of ``table_service.proto`` (``""`` when the failure came
    from the transport, e.g. UNAVAILABLE); ``rule`` is the engine's specific reason for ILLEGAL_ACTION;
    ``message`` is the server's explanation in words.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
        retry_delay: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata: dict[str, str] = dict(metadata or {})
        self.retry_delay = retry_delay
        """For RATE_LIMITED: seconds until the server accepts the request (its google.rpc.RetryInfo)."""

    @property
    def rule(self) -> str | None:
        """For ILLEGAL_ACTION: the rule that forbids the action (MUST_FOLLOW_SUIT, BID_ABOVE_CAP, ...)."""
        return self.metadata.get("rule")

    @property
    def field(self) -> str | None:
        """For INVALID_ARGUMENT and INVALID_RULES: the request field or rule at fault."""
        return self.metadata.get("field")

    @property
    def retryable(self) -> bool:
        """Whether the failure is the transport's (the server gave no reason), so trying again may help."""
        return not self.reason and self.code in _RETRYABLE

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"ServerError({self.code.name}, {self.reason or '-'}, {self.message!r}, {self.metadata})"

    @classmethod
    def from_rpc(cls, error: aio.AioRpcError) -> ServerError:
        """Decode the status, its ``ErrorInfo`` detail (domain thousand.v1) and the message."""
        reason = ""
        metadata: dict[str, str] = {}
        retry_delay: float | None = None
        for key, value in error.trailing_metadata() or ():
            if key != STATUS_DETAILS_METADATA or not isinstance(value, bytes):
                continue
            try:
                status = status_pb2.Status.FromString(value)
            except DecodeError:
                continue
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                retry = error_details_pb2.RetryInfo()
                if detail.Unpack(info) and info.domain == ERROR_DOMAIN:
                    reason = str(info.reason)
                    metadata = {str(k): str(v) for k, v in info.metadata.items()}
                elif detail.Unpack(retry):
                    retry_delay = retry.retry_delay.ToNanoseconds() / 1e9
        message = error.details() or error.code().name.lower().replace("_", " ")
        return cls(error.code(), message, reason, metadata, retry_delay)


class StreamGaveUpError(ServerError):
    """The stream could not be resumed within the backoff's time limit; ``last_sequence`` is kept."""


# ---------------------------------------------------------------------------------------------------- backoff


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff with jitter for reconnecting streams and retrying safe calls."""

    initial: float = 0.1
    """The first delay, in seconds."""
    maximum: float = 5.0
    """No delay is longer than this."""
    factor: float = 2.0
    jitter: float = 0.2
    """Each delay is scaled by a random factor in [1 - jitter, 1 + jitter]."""
    give_up_after: float | None = 300.0
    """Seconds of failing in a row after which the operation fails; None retries forever."""

    def delays(self, rng: random.Random | None = None) -> Iterator[float]:
        rng = rng or random.Random()
        delay = self.initial
        while True:
            yield min(self.maximum, delay) * rng.uniform(1 - self.jitter, 1 + self.jitter)
            delay *= self.factor


# --------------------------------------------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class Turn:
    """Whose turn it is, sent with the last message of every batch of events.

    ``legal_actions`` and ``view`` are set only on the acting seat's own stream; ``deadline`` only when the
    table has a turn clock.
    """

    seat: int | None
    legal_actions: tuple[Action, ...] = ()
    view: View | None = None
    deadline: datetime | None = None

    def seconds_left(self, now: datetime | None = None) -> float | None:
        if self.deadline is None:
            return None
        return (self.deadline - (now or datetime.now(UTC))).total_seconds()


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """A seat was taken by a player (or, at creation, a bot)."""

    seat: int
    player_name: str
    bot: bool


@dataclass(frozen=True, slots=True)
class SeatReleased:
    """A seat was given up and is open again."""

    seat: int


@dataclass(frozen=True, slots=True)
class TableNotice:
    """Any other event of the table itself, in words: a seat's clock ran out, a bot took a seat over, a player
    took it back, or a kind of event this client does not know yet (the contract only adds, never breaks)."""

    seat: int | None
    text: str


SEAT_EVENTS = (SeatTaken, SeatReleased, TableNotice)
"""The events of the table itself rather than of its game."""

TableEvent = SeatTaken | SeatReleased | TableNotice | Event
"""An event of a table: a seat change, or an event of the game (engine events, filtered for the stream)."""

BlagogoTableEvent = SeatTaken | SeatReleased | TableNotice | blagogo_events.Event
"""An event of a 1000 Blagogo table: a seat change, or an event of the game (filtered, B-21)."""

GameAction = Action | blagogo.Action
"""An action of either game (what :meth:`TableSession.submit` takes)."""
GameRules = Rules | blagogo.BlagogoRules
"""Rules of either game (what :meth:`TableSession.create_table` takes)."""


@dataclass(frozen=True, slots=True)
class BlagogoTurn:
    """Whose turn it is at a 1000 Blagogo table, sent with the last message of every batch of events.

    ``legal_actions`` (the acting seat's own stream only) holds every simple action (draw, takes, discards,
    joker swaps, single-card additions) and then some candidate melds (B-22): not every legal meld, so any
    :class:`~engine.blagogo.LayMelds` or :class:`~engine.blagogo.AddToMeld` may be submitted, and the server
    validates it exactly.
    """

    seat: int | None
    legal_actions: tuple[blagogo.Action, ...] = ()
    view: blagogo.View | None = None
    deadline: datetime | None = None

    @property
    def simple_actions(self) -> tuple[blagogo.Action, ...]:
        """The complete list of simple actions (everything but the candidate melds)."""
        return tuple(a for a in self.legal_actions if not isinstance(a, blagogo.LayMelds))

    @property
    def candidate_melds(self) -> tuple[blagogo.LayMelds, ...]:
        """The melds the server proposes (some legal LayMelds, not all)."""
        return tuple(a for a in self.legal_actions if isinstance(a, blagogo.LayMelds))

    def seconds_left(self, now: datetime | None = None) -> float | None:
        if self.deadline is None:
            return None
        return (self.deadline - (now or datetime.now(UTC))).total_seconds()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The stream's starting point: the table, this stream's view (None before the game starts), the Turn."""

    sequence: int
    table: pb.Table
    view: View | None
    turn: Turn | None


@dataclass(frozen=True, slots=True)
class EventMessage:
    """One event with its gap-free sequence number; ``turn`` is set on the last event of a batch."""

    sequence: int
    event: TableEvent
    turn: Turn | None


@dataclass(frozen=True, slots=True)
class ConnectionLost:
    """The stream broke; the session will reconnect after ``retry_in`` seconds (attempt ``attempt``)."""

    error: ServerError
    attempt: int
    retry_in: float


@dataclass(frozen=True, slots=True)
class Reconnected:
    """The stream is back; the events after ``after_sequence`` follow, none lost or repeated."""

    after_sequence: int | None


@dataclass(frozen=True, slots=True)
class BlagogoSnapshot:
    """A 1000 Blagogo stream's starting point: the table, its view (None before the game), the Turn."""

    sequence: int
    table: pb.Table
    view: blagogo.View | None
    turn: BlagogoTurn | None


@dataclass(frozen=True, slots=True)
class BlagogoEventMessage:
    """One event of a 1000 Blagogo table with its sequence number; ``turn`` on the last event of a batch."""

    sequence: int
    event: BlagogoTableEvent
    turn: BlagogoTurn | None


StreamItem = Snapshot | EventMessage | BlagogoSnapshot | BlagogoEventMessage | ConnectionLost | Reconnected
"""What :meth:`TableSession.stream` yields: Thousand tables give :class:`Snapshot` and :class:`EventMessage`,
1000 Blagogo tables :class:`BlagogoSnapshot` and :class:`BlagogoEventMessage`."""

AnyTurn = Turn | BlagogoTurn
"""The Turn of either game."""


def _deadline(message: pb.Turn) -> datetime | None:
    return message.deadline.ToDatetime(tzinfo=UTC) if message.HasField("deadline") else None


def decode_turn(message: pb.Turn) -> Turn:
    """A Thousand Turn (actions and view of another game are left out)."""
    view = None
    if message.HasField("view") and message.view.HasField("thousand"):
        view = codec.view_from_proto(message.view.thousand)
    return Turn(
        seat=message.seat if message.HasField("seat") else None,
        legal_actions=tuple(
            codec.action_from_proto(a.thousand) for a in message.legal_actions if a.HasField("thousand")
        ),
        view=view,
        deadline=_deadline(message),
    )


def decode_blagogo_turn(message: pb.Turn) -> BlagogoTurn:
    """A 1000 Blagogo Turn: the simple actions, then the candidate melds, as the server listed them."""
    view = None
    if message.HasField("view") and message.view.HasField("blagogo"):
        view = codec_blagogo.view_from_proto(message.view.blagogo)
    return BlagogoTurn(
        seat=message.seat if message.HasField("seat") else None,
        legal_actions=tuple(
            codec_blagogo.action_from_proto(a.blagogo) for a in message.legal_actions if a.HasField("blagogo")
        ),
        view=view,
        deadline=_deadline(message),
    )


def _seat_event(message: pb.Event) -> SeatTaken | SeatReleased | TableNotice | None:
    kind = message.WhichOneof("event")
    if kind == "seat_taken":
        taken = message.seat_taken
        return SeatTaken(taken.seat, taken.player_name, taken.bot)
    if kind == "seat_released":
        return SeatReleased(message.seat_released.seat)
    if kind == "turn_timed_out":
        seat = message.turn_timed_out.seat
        return TableNotice(seat, f"seat {seat} ran out of time")
    if kind == "seat_taken_over":
        over = message.seat_taken_over
        why = (
            "forfeited: a bot plays it to the end"
            if over.forfeited
            else "a bot plays it until it is reclaimed"
        )
        return TableNotice(over.seat, f"seat {over.seat} {why}")
    if kind == "seat_reclaimed":
        seat = message.seat_reclaimed.seat
        return TableNotice(seat, f"seat {seat} is played by its player again")
    if kind not in ("thousand", "blagogo"):
        return TableNotice(None, f"(an event this client does not know: {kind})")
    return None


def decode_event(message: pb.Event) -> TableEvent:
    """An event of a Thousand table."""
    seat_event = _seat_event(message)
    if seat_event is not None:
        return seat_event
    kind = message.WhichOneof("event")
    if kind == "thousand":
        return codec.event_from_proto(message.thousand)
    raise ValueError(f"an event of a kind this client does not know: {kind}")


def decode_blagogo_event(message: pb.Event) -> BlagogoTableEvent:
    """An event of a 1000 Blagogo table."""
    seat_event = _seat_event(message)
    if seat_event is not None:
        return seat_event
    kind = message.WhichOneof("event")
    if kind == "blagogo":
        return codec_blagogo.event_from_proto(message.blagogo)
    raise ValueError(f"an event of a kind this client does not know: {kind}")


def is_blagogo(table: pb.Table) -> bool:
    """Whether the table plays 1000 Blagogo."""
    return table.game == pb.GAME_KIND_BLAGOGO


def game_name(table: pb.Table) -> str:
    """The table's game in words: "thousand" or "blagogo"."""
    return "blagogo" if is_blagogo(table) else "thousand"


def rules_of(table: pb.Table) -> Rules:
    """A Thousand table's rules as the engine's :class:`~engine.Rules` (ValueError for another game's)."""
    if is_blagogo(table):
        raise ValueError(f"table {table.table_id} plays 1000 Blagogo: use blagogo_rules_of")
    return codec.rules_from_proto(table.rules.thousand)


def blagogo_rules_of(table: pb.Table) -> blagogo.BlagogoRules:
    """A 1000 Blagogo table's rules as :class:`~engine.blagogo.BlagogoRules` (ValueError for another game)."""
    if not is_blagogo(table):
        raise ValueError(f"table {table.table_id} does not play 1000 Blagogo")
    return codec_blagogo.rules_from_proto(table.rules.blagogo)


def table_rules(table: pb.Table) -> GameRules:
    """A table's rules, of its game."""
    return blagogo_rules_of(table) if is_blagogo(table) else rules_of(table)


def encode_action(action: GameAction) -> pb.Action:
    """Either game's action in the wrapper message."""
    if isinstance(action, BLAGOGO_ACTION_TYPES):
        return pb.Action(blagogo=codec_blagogo.action_to_proto(action))
    return pb.Action(thousand=codec.action_to_proto(action))


class _ResyncError(Exception):
    """The stream skipped events (a gap, or a lagging stream's snapshot): resume after the last one seen."""


class _PlayLostError(Exception):
    """The Play stream an action was sent on ended before its result came: ask SubmitAction instead."""


_STATUS_CODES: Final = {code.value[0]: code for code in grpc.StatusCode}
_TRY_AGAIN: Final = frozenset({"RATE_LIMITED", "STORE_UNAVAILABLE"})
"""Refusals that applied nothing and ask for the same request again later (docs/protocol.md, Errors)."""


def refusal_error(refusal: pb.ActionRefusal) -> ServerError:
    """The :class:`ServerError` SubmitAction would have raised, from a Play stream's ActionRefusal."""
    code = _STATUS_CODES.get(refusal.code, grpc.StatusCode.UNKNOWN)
    delay = refusal.retry_delay.ToNanoseconds() / 1e9 if refusal.HasField("retry_delay") else None
    return ServerError(code, refusal.message, refusal.reason, dict(refusal.metadata), delay)


class _Play:
    """A seated session's open Play call: actions go out on it (through its request iterator), each one's
    result comes back to the future :meth:`act` waits on.

    Its messages are read by a task of their own (see :meth:`TableSession._play_updates`), so a result
    reaches the action waiting for it even while whoever iterates the session's stream is busy (a bot
    awaiting its own action inside its stream loop).
    """

    def __init__(self) -> None:
        self._outgoing: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self._results: dict[str, asyncio.Future[pb.ActionResult]] = {}
        self.open = True

    async def requests(self, start: pb.PlayRequest) -> AsyncGenerator[pb.PlayRequest, None]:
        yield start
        while (request := await self._outgoing.get()) is not None:
            yield request

    async def act(self, request_id: str, last_seen: int | None, action: pb.Action) -> pb.ActionResult:
        """Send an action and wait for its result; :class:`_PlayLostError` if the call ends first."""
        if not self.open:
            raise _PlayLostError
        request = pb.PlayRequest()
        request.action.request_id = request_id
        request.action.action.CopyFrom(action)
        if last_seen is not None:
            request.action.last_seen_sequence = last_seen
        result = self._results[request_id] = asyncio.get_running_loop().create_future()
        self._outgoing.put_nowait(request)
        try:
            return await asyncio.wait_for(result, CALL_TIMEOUT)
        except TimeoutError:
            raise _PlayLostError from None
        finally:
            self._results.pop(request_id, None)

    def resolve(self, result: pb.ActionResult) -> None:
        waiting = self._results.get(result.request_id)
        if waiting is not None and not waiting.done():
            waiting.set_result(result)

    def close(self) -> None:
        """The call ended: stop sending, and fail the actions still waiting (they go to SubmitAction)."""
        self.open = False
        self._outgoing.put_nowait(None)
        for waiting in self._results.values():
            if not waiting.done():
                waiting.set_exception(_PlayLostError())


# ---------------------------------------------------------------------------------------------------- session


@dataclass
class _Position:
    table_id: str | None = None
    seat: int | None = None
    token: str | None = None
    last_sequence: int | None = None


def unbatched(message: pb.StreamEventsResponse) -> list[pb.StreamEventsResponse]:
    """A batched stream message (StreamEventsRequest.batch_events) as the one-event messages it stands for:
    the events numbered on from ``sequence``, the Turn on the last, so everything after reads one event at a
    time whether the server batched or not."""
    if not message.more_events:
        return [message]
    events = [message.event, *message.more_events]
    parts = [pb.StreamEventsResponse(sequence=message.sequence + i, event=e) for i, e in enumerate(events)]
    if message.HasField("turn"):
        parts[-1].turn.CopyFrom(message.turn)
    return parts


class TableSession:
    """One connection to a server and, after :meth:`join` or :meth:`watch`, one seat (or a spectator's place).

    Use as ``async with TableSession(address) as session:``. Lobby calls (:meth:`create_table`,
    :meth:`list_tables`, :meth:`get_table`) need no table; :meth:`stream`, :meth:`submit` and :meth:`leave`
    work on the table joined or watched.
    """

    def __init__(
        self,
        address: str = DEFAULT_SERVER,
        *,
        backoff: Backoff | None = None,
        channel: aio.Channel | None = None,
    ) -> None:
        self.address = address
        self.backoff = backoff or Backoff()
        self._own_channel = channel is None
        self._channel = (
            channel if channel is not None else aio.insecure_channel(address, options=CHANNEL_OPTIONS)
        )
        self._stub: pb_grpc.TableServiceAsyncStub = pb_grpc.TableServiceStub(self._channel)
        self._at = _Position()
        self.turn: AnyTurn | None = None
        """The latest Turn the stream carried (a :class:`BlagogoTurn` at a 1000 Blagogo table)."""
        self.table: pb.Table | None = None
        """The table as last described by the server (join, watch, a snapshot)."""
        self.finished = False
        """Whether the game's GameOver event has been seen (the stream then ends)."""
        self.use_play = True
        """A seated session streams over Play and sends its actions on that stream while it is open (one
        message each instead of a SubmitAction call); off for a server that has no Play (UNIMPLEMENTED)."""
        self._play: _Play | None = None
        self.client_seed: str | None = None
        """The seed this seat added to the deals (JoinTableRequest.client_seed): see :meth:`join`."""
        self.deals: DealChecker = checker_for(None, None)
        """Checks every deal the stream reveals, and a fair table's secret at the end (:mod:`engine.verify`:
        ``verified``, ``problems``, ``secret_checked``); set up by :meth:`join` and :meth:`watch`."""
        self._commitments: dict[str, pb.Table] = {}
        """Tables as read before joining them (create, list, get): the commitment a join checks against."""

    async def __aenter__(self) -> TableSession:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self._own_channel:
            await self._channel.close()

    # ------------------------------------------------------------------ where we sit

    @property
    def table_id(self) -> str | None:
        return self._at.table_id

    @property
    def seat(self) -> int | None:
        """The seat taken, or None for a spectator (or before joining)."""
        return self._at.seat

    @property
    def seat_token(self) -> str | None:
        """The seat's secret token (keep it to come back to the seat with :meth:`attach`)."""
        return self._at.token

    @property
    def last_sequence(self) -> int | None:
        """The sequence number of the last event (or snapshot) the stream delivered."""
        return self._at.last_sequence

    def attach(
        self,
        table_id: str,
        seat: int | None = None,
        token: str | None = None,
        after_sequence: int | None = None,
    ) -> None:
        """Take up a known place without a call: a seat whose token is kept, resuming after a sequence."""
        self._at = _Position(table_id, seat, token, after_sequence)
        self.turn = None
        self.finished = False

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return ((TOKEN_METADATA, self._at.token),) if self._at.token else ()

    def _table_id(self) -> str:
        if self._at.table_id is None:
            raise RuntimeError("join or watch a table first")
        return self._at.table_id

    # ------------------------------------------------------------------ calls

    async def _call(self, call: Callable[[], Awaitable[T]], *, retry: bool) -> T:
        """One unary call; with ``retry`` (safe calls only), transport failures are retried with backoff."""
        started = time.monotonic()
        delays = self.backoff.delays()
        while True:
            try:
                return await call()
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
            if not (retry and error.retryable) or self._given_up(started):
                raise error
            await asyncio.sleep(next(delays))

    def _given_up(self, failing_since: float) -> bool:
        limit = self.backoff.give_up_after
        return limit is not None and time.monotonic() - failing_since > limit

    async def create_table(
        self,
        rules: GameRules,
        seats: Sequence[str | None],
        *,
        seed: int | None = None,
        first_dealer: int | None = None,
        practice: bool = False,
    ) -> pb.Table:
        """A new table of the game whose rules are given (:class:`~engine.Rules` for Thousand,
        :class:`~engine.blagogo.BlagogoRules` for 1000 Blagogo); ``seats``: one entry per seat, :data:`OPEN`
        or a bot strategy's name. Its deals are fair, unless a ``seed`` makes it a seeded table (with an open
        seat, only with ``practice``: CreateTableRequest.practice)."""
        if isinstance(rules, blagogo.BlagogoRules):
            game = pb.GAME_KIND_BLAGOGO
            message = pb.Rules(blagogo=codec_blagogo.rules_to_proto(rules))
        else:
            game = pb.GAME_KIND_THOUSAND
            message = pb.Rules(thousand=codec.rules_to_proto(rules))
        request = pb.CreateTableRequest(
            game=game,
            rules=message,
            seats=[
                pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)
                if strategy is None
                else pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy=strategy)
                for strategy in seats
            ],
        )
        if seed is not None:
            request.seed = seed
        if first_dealer is not None:
            request.first_dealer = first_dealer
        request.practice = practice
        request.request_id = uuid.uuid4().hex  # so a retry after a lost reply gets the same table back
        response = await self._call(lambda: self._stub.CreateTable(request, timeout=CALL_TIMEOUT), retry=True)
        return self._seen(response.table)

    def _seen(self, table: pb.Table) -> pb.Table:
        """Remember a table read before joining it (its commitment must not change when the seed is sent)."""
        self._commitments[table.table_id] = table
        return table

    async def list_tables(
        self,
        *,
        only_open_seats: bool = False,
        limit: int = 100,
        game: pb.GameKind.ValueType = pb.GAME_KIND_UNSPECIFIED,
    ) -> list[pb.Table]:
        """Tables of every game (or of ``game`` only), newest first (every page, up to ``limit``)."""
        tables: list[pb.Table] = []
        token = ""
        while len(tables) < limit:
            request = pb.ListTablesRequest(
                game=game,
                only_open_seats=only_open_seats,
                page_size=min(100, limit - len(tables)),
                page_token=token,
            )
            page = await self._list_page(request)
            tables.extend(self._seen(t) for t in page.tables)
            token = page.next_page_token
            if not token:
                break
        return tables[:limit]

    async def _list_page(self, request: pb.ListTablesRequest) -> pb.ListTablesResponse:
        return await self._call(lambda: self._stub.ListTables(request, timeout=CALL_TIMEOUT), retry=True)

    async def get_table(self, table_id: str | None = None) -> pb.Table:
        """One table (by default the one joined or watched)."""
        request = pb.GetTableRequest(table_id=table_id or self._table_id())
        response = await self._call(lambda: self._stub.GetTable(request, timeout=CALL_TIMEOUT), retry=True)
        return self._seen(response.table)

    async def join(
        self, table_id: str, seat: int | None = None, name: str = "", *, client_seed: str | None = None
    ) -> int:
        """Take a seat (any free open seat when ``seat`` is None); returns the seat taken.

        The seat token is drawn here and sent with the request, so a retry after a lost reply gets the same
        seat back instead of taking a second one (JoinTableRequest.seat_token). So is the seat's own seed for
        the deals (``client_seed``, by default a fresh random one), after the table's commitment was read:
        :attr:`deals` then checks every deal against both.
        """
        before = self._commitments.get(table_id) or await self.get_table(table_id)
        token = secrets.token_urlsafe(32)
        seed = client_seed if client_seed is not None else new_client_seed()
        request = pb.JoinTableRequest(table_id=table_id, player_name=name, seat_token=token, client_seed=seed)
        if seat is not None:
            request.seat = seat
        response = await self._call(lambda: self._stub.JoinTable(request, timeout=CALL_TIMEOUT), retry=True)
        self.attach(table_id, response.seat, response.seat_token)
        self.table = response.table
        self.client_seed = seed
        self.deals = checker_for(before, witness_for(before, response.seat, seed, response.table.sequence))
        if response.table.fairness.commitment != before.fairness.commitment:
            self.deals.problems.append("the table's commitment changed when the seat was taken")
        return response.seat

    async def export(self, table_id: str | None = None) -> str:
        """A finished table's game record, the JSON document of ``thousand-export`` (ExportTable)."""
        request = pb.ExportTableRequest(table_id=table_id or self._table_id())
        response = await self._call(lambda: self._stub.ExportTable(request, timeout=CALL_TIMEOUT), retry=True)
        return response.record_json

    async def watch(self, table_id: str) -> pb.Table:
        """Follow a table as a spectator (public information only); checks that the table exists."""
        table = await self.get_table(table_id)
        self.attach(table_id)
        self.table = table
        self.deals = checker_for(table, witness_for(table, None, ""))
        return table

    async def leave(self) -> pb.Table:
        """Give the seat up; it becomes open again."""
        request = pb.LeaveTableRequest(table_id=self._table_id())
        metadata = self._metadata()
        response = await self._call(
            lambda: self._stub.LeaveTable(request, metadata=metadata, timeout=CALL_TIMEOUT), retry=False
        )
        self._at.token = None
        self._at.seat = None
        return response.table

    async def submit(
        self, action: GameAction, *, last_seen_sequence: int | None = None, check: bool = True
    ) -> int:
        """Submit the seat's action (of the table's game); returns the sequence of the last event it produced.

        The action is sent with a fresh ``request_id`` and, when ``check`` is set, the ``last_seen_sequence``
        (by default the last one the stream delivered), so an action meant for a state the table has left is
        refused with STALE_SEQUENCE. While :meth:`stream` runs over Play it goes on that stream; otherwise,
        or when that stream drops before the result comes, as a SubmitAction call, whose transport failures
        are retried with the same ``request_id``. A refusal that applied nothing and asks to try again
        (RATE_LIMITED, after its retry delay; STORE_UNAVAILABLE, with backoff) is retried the same way.
        """
        started = time.monotonic()
        delays = self.backoff.delays()
        request = self._action_request(action, last_seen_sequence, check)
        while True:
            try:
                return await self._submit(request)
            except ServerError as error:
                if error.reason not in _TRY_AGAIN or self._given_up(started):
                    raise
                delay = next(delays)
                await asyncio.sleep(max(delay, error.retry_delay or 0.0))

    def _action_request(
        self, action: GameAction, last_seen_sequence: int | None, check: bool
    ) -> pb.SubmitActionRequest:
        request = pb.SubmitActionRequest(
            table_id=self._table_id(),
            request_id=uuid.uuid4().hex,
            action=encode_action(action),
        )
        seen = last_seen_sequence if last_seen_sequence is not None else self._at.last_sequence
        if check and seen is not None:
            request.last_seen_sequence = seen
        return request

    async def _submit(self, request: pb.SubmitActionRequest) -> int:
        """One attempt: on the Play stream while one is open, else (or when it drops) SubmitAction."""
        play = self._play
        if play is not None:
            seen = request.last_seen_sequence if request.HasField("last_seen_sequence") else None
            try:
                result = await play.act(request.request_id, seen, request.action)
            except _PlayLostError:
                pass  # the stream dropped meanwhile: the same request_id through SubmitAction, applied once
            else:
                if result.HasField("refusal"):
                    raise refusal_error(result.refusal)
                return result.sequence
        metadata = self._metadata()
        response = await self._call(
            lambda: self._stub.SubmitAction(request, metadata=metadata, timeout=CALL_TIMEOUT), retry=True
        )
        return response.sequence

    # ------------------------------------------------------------------ the stream

    async def stream(self, *, from_start: bool = False) -> AsyncGenerator[StreamItem, None]:
        """The table's messages for this seat (or spectator), resumed across dropped connections.

        The first message is a :class:`Snapshot`, unless ``from_start`` asks for every event of the table from
        the first one instead (filtered for this seat, T-33), or the session resumes (:meth:`attach`). Ends
        after the game's GameOver event. Raises :class:`ServerError` for a refusal (an unknown table, a
        revoked seat token) and :class:`StreamGaveUpError` when the server stays unreachable longer than the
        backoff allows.
        """
        self._table_id()
        if from_start and self._at.last_sequence is None:
            self._at.last_sequence = 0
        attempt = 0
        failing_since: float | None = None
        delays = self.backoff.delays()
        reconnecting = False
        while True:
            resumed_after = self._at.last_sequence
            call, batches = self._open_stream(resumed_after)
            error: ServerError
            try:
                await call.wait_for_connection()
                if reconnecting:
                    attempt, failing_since, delays = 0, None, self.backoff.delays()
                    reconnecting = False
                    yield Reconnected(resumed_after)
                async for batch in batches:
                    for message in unbatched(batch):
                        item = self._accept(message)
                        if item is not None:
                            yield item
                if self.finished:
                    return
                error = ServerError(grpc.StatusCode.UNAVAILABLE, "the server ended the stream")
            except _ResyncError:
                continue
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
                if error.code is grpc.StatusCode.UNIMPLEMENTED and self._play is not None:
                    self.use_play = False  # a server without Play: StreamEvents and SubmitAction
                    continue
                if not error.retryable:
                    raise error from None
            finally:
                call.cancel()
                self._play = None
            if self.finished:
                return
            now = time.monotonic()
            failing_since = now if failing_since is None else failing_since
            if self._given_up(failing_since):
                raise StreamGaveUpError(error.code, f"could not reconnect: {error.message}", error.reason)
            attempt += 1
            delay = next(delays)
            reconnecting = True
            yield ConnectionLost(error, attempt, delay)
            await asyncio.sleep(delay)

    def _open_stream(self, after: int | None) -> tuple[aio.Call, AsyncIterable[pb.StreamEventsResponse]]:
        """The call the stream runs on and its messages: Play for a seat (see :attr:`use_play`), else
        StreamEvents with batches; resuming after ``after`` when set."""
        if self.use_play and self._at.token is not None:
            play = self._play = _Play()
            start = pb.PlayRequest()
            start.start.table_id = self._table_id()
            if after is not None:
                start.start.after_sequence = after
            call = self._stub.Play(play.requests(start), metadata=self._metadata())
            return call, self._play_updates(call, play)
        request = pb.StreamEventsRequest(table_id=self._table_id(), batch_events=True)
        if after is not None:
            request.after_sequence = after
        events = self._stub.StreamEvents(request, metadata=self._metadata())
        return events, events

    async def _play_updates(
        self, call: aio.StreamStreamCall[pb.PlayRequest, pb.PlayResponse], play: _Play
    ) -> AsyncGenerator[pb.StreamEventsResponse, None]:
        """A Play call's updates, read by a task of their own: results go to the actions waiting for them
        at once, updates wait here for the stream's reader; the call's error is raised here."""
        updates: asyncio.Queue[pb.StreamEventsResponse | BaseException | None] = asyncio.Queue()

        async def read() -> None:
            try:
                async for response in call:
                    if response.HasField("update"):
                        updates.put_nowait(response.update)
                    if response.HasField("result"):
                        play.resolve(response.result)
                updates.put_nowait(None)
            except (Exception, asyncio.CancelledError) as error:  # any end of the call reaches the stream
                updates.put_nowait(error)
            finally:
                play.close()

        reader = asyncio.create_task(read())
        try:
            while (update := await updates.get()) is not None:
                if isinstance(update, BaseException):
                    raise update
                yield update
        finally:
            reader.cancel()

    def _accept(self, message: pb.StreamEventsResponse) -> StreamItem | None:
        """Decode one message; drop a repeat, turn a gap into a resume; remember the sequence."""
        last = self._at.last_sequence
        if message.HasField("snapshot"):
            if last is not None:
                if message.sequence > last:
                    raise _ResyncError  # a lagging stream's snapshot: fetch the events it skipped instead
                return None  # nothing this client has not seen
            self._at.last_sequence = message.sequence
            snapshot = message.snapshot
            self.table = snapshot.table
            if snapshot.table.status == pb.TABLE_STATUS_FINISHED:
                self.finished = True
            has_view = snapshot.HasField("view")
            if is_blagogo(snapshot.table):
                blagogo_turn = decode_blagogo_turn(message.turn) if message.HasField("turn") else None
                blagogo_view = None
                if has_view and snapshot.view.HasField("blagogo"):
                    blagogo_view = codec_blagogo.view_from_proto(snapshot.view.blagogo)
                self.turn = blagogo_turn
                return BlagogoSnapshot(message.sequence, snapshot.table, blagogo_view, blagogo_turn)
            turn = decode_turn(message.turn) if message.HasField("turn") else None
            view = None
            if has_view and snapshot.view.HasField("thousand"):
                view = codec.view_from_proto(snapshot.view.thousand)
            self.turn = turn
            return Snapshot(message.sequence, snapshot.table, view, turn)
        if not message.HasField("event"):
            return None
        if last is not None and message.sequence <= last:
            return None  # already delivered
        if last is not None and message.sequence != last + 1:
            raise _ResyncError
        if self._blagogo_stream(message):
            blagogo_event = decode_blagogo_event(message.event)
            blagogo_turn = decode_blagogo_turn(message.turn) if message.HasField("turn") else None
            self._at.last_sequence = message.sequence
            if blagogo_turn is not None:
                self.turn = blagogo_turn
            if isinstance(blagogo_event, blagogo_events.GameOver):
                self.finished = True
            self._check_deals(blagogo_event, message.sequence)
            return BlagogoEventMessage(message.sequence, blagogo_event, blagogo_turn)
        event = decode_event(message.event)
        turn = decode_turn(message.turn) if message.HasField("turn") else None
        self._at.last_sequence = message.sequence
        if turn is not None:
            self.turn = turn
        if isinstance(event, GameOver):
            self.finished = True
        self._check_deals(event, message.sequence)
        return EventMessage(message.sequence, event, turn)

    def _check_deals(self, event: object, sequence: int) -> None:
        if isinstance(event, SeatTaken):
            self.deals.seat_taken(event.seat, sequence)  # from when on the seat's deals hold our seed
        else:
            self.deals.see(event, sequence)

    def _blagogo_stream(self, message: pb.StreamEventsResponse) -> bool:
        """Whether this event message is of a 1000 Blagogo table: by the event itself, else by the table."""
        kind = message.event.WhichOneof("event")
        if kind == "blagogo":
            return True
        if kind == "thousand":
            return False
        if message.HasField("turn") and any(a.HasField("blagogo") for a in message.turn.legal_actions):
            return True
        if message.HasField("turn") and message.turn.view.HasField("blagogo"):
            return True
        return self.table is not None and is_blagogo(self.table)
