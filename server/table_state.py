"""A table's values: each seat's state (who holds it, by the hash of its token), the table's own events about
its seats, and the memory of recent requests that makes a retried action idempotent.

A seat token is a bearer secret: the table keeps only its SHA-256, compares every seat's hash in constant time
whatever the token given, and never stores or logs the token itself.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, Generic, TypeAlias

from server.games import ActionT, EventT
from server.time_control import TimeoutPolicy
from thousand.v1 import ratings_pb2 as ratings_pb
from thousand.v1 import table_service_pb2 as pb

REMEMBERED_REQUESTS: Final = 512
"""Recent (seat, request_id) outcomes kept per table for idempotent retries."""


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat as it is now: a value, replaced (``dataclasses.replace``) when the seat changes, so that a
    :class:`~server.table_changes.Frame` can hand the seats out as they are."""

    bot: bool
    strategy: str
    token_hash: bytes | None = None
    """SHA-256 of the seat token: the token itself is never kept, stored or logged."""
    player_name: str = ""
    taken_over: bool = False
    """The server's bot plays the seat since its time ran out, until the player takes it back."""
    forfeited: bool = False
    """The seat forfeited on time: the server's bot plays it to the end; nobody can take it (back)."""
    one_turn: bool = False
    """Taken over for the one decision that ran out (TimeoutPolicy.BOT_PLAYS_TURN): the seat is its player's
    again after the bot's move."""
    bank: float = 0.0
    """Seconds left in the seat's time bank (tables with a clock)."""
    player_id: str = ""
    """The player who sits there (joined with a player's credential, or claimed it); "" when anonymous."""
    handed_over: bool = False
    """An operator gave the seat to the server's bot (forfeited is set too: the bot plays it to the end)."""
    away: bool = False
    """Taken over because its player's every stream closed (TimeControl.away_bot), not on time."""

    @property
    def taken(self) -> bool:
        return self.bot or self.forfeited or self.token_hash is not None

    @property
    def played_by_bot(self) -> bool:
        return self.bot or self.taken_over or self.forfeited


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def seat_holding(seats: Sequence[SeatState], token: str) -> int | None:
    """The seat this token holds, if any; every seat's token hash is compared, in constant time."""
    return seat_holding_hash(seats, hash_token(token))


def seat_holding_hash(seats: Sequence[SeatState], given: bytes) -> int | None:
    """The seat a token whose hash is ``given`` holds, if any (a quick-play match seats its players by the
    hashes the queue keeps, never the tokens)."""
    found: int | None = None
    for seat, state in enumerate(seats):
        expected = state.token_hash or bytes(32)
        if hmac.compare_digest(given, expected) and state.token_hash is not None:
            found = seat
    return found


# ------------------------------------------------------------------------------------- the table's own events


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
    one_turn: bool = False
    handed_over: bool = False
    """By an operator (AdminService.HandSeatToBot), not on time."""
    away: bool = False
    """Its player's every stream closed (a ladder table), not on time."""


@dataclass(frozen=True, slots=True)
class SeatReclaimedEvent:
    seat: int


class StopReason(Enum):
    """Why the server stopped a table before its game ended; the value is the store's name."""

    MOVE_LIMIT = "move_limit"
    """A table played by bots only made the server's limit of moves (``server.pacing``)."""
    CLOSED_BY_OPERATOR = "closed_by_operator"
    """An operator closed it (AdminService.CloseTable)."""

    def to_proto(self) -> pb.StopReason.ValueType:
        if self is StopReason.CLOSED_BY_OPERATOR:
            return pb.STOP_REASON_CLOSED_BY_OPERATOR
        return pb.STOP_REASON_MOVE_LIMIT


@dataclass(frozen=True, slots=True)
class TableStoppedEvent:
    """The table's last event: the server stopped it (the game has no winner)."""

    reason: StopReason
    message: str


@dataclass(frozen=True, slots=True)
class RatingsUpdatedEvent:
    """A rated table's last event: its players' ratings changed (``data``: the RatingsUpdated message)."""

    data: bytes


SeatEvent: TypeAlias = (
    SeatTakenEvent
    | SeatReleasedEvent
    | TurnTimedOutEvent
    | SeatTakenOverEvent
    | SeatReclaimedEvent
    | TableStoppedEvent
    | RatingsUpdatedEvent
)
"""The table's own events (not the game's)."""

TableEvent: TypeAlias = SeatEvent | EventT
"""What a table logs: seat events and its game's events (``TableEvent[Any]`` for any game's)."""


def seat_event_proto(event: SeatEvent) -> pb.Event:
    """A table event of its own (not the game's) on the wire: the same for every audience."""
    match event:
        case SeatTakenEvent(seat, name, bot):
            return pb.Event(seat_taken=pb.SeatTaken(seat=seat, player_name=name, bot=bot))
        case SeatReleasedEvent(seat):
            return pb.Event(seat_released=pb.SeatReleased(seat=seat))
        case TurnTimedOutEvent(seat, policy):
            return pb.Event(turn_timed_out=pb.TurnTimedOut(seat=seat, policy=policy.to_proto()))
        case SeatTakenOverEvent(seat, forfeited, one_turn, handed_over, away):
            reason = (
                pb.TAKEOVER_REASON_OPERATOR_HANDOVER
                if handed_over
                else pb.TAKEOVER_REASON_DISCONNECTED
                if away
                else pb.TAKEOVER_REASON_TIMEOUT
            )
            over = pb.SeatTakenOver(seat=seat, forfeited=forfeited, one_turn=one_turn, reason=reason)
            return pb.Event(seat_taken_over=over)
        case SeatReclaimedEvent(seat):
            return pb.Event(seat_reclaimed=pb.SeatReclaimed(seat=seat))
        case TableStoppedEvent(reason, message):
            return pb.Event(table_stopped=pb.TableStopped(reason=reason.to_proto(), message=message))
        case RatingsUpdatedEvent(data):
            return pb.Event(ratings_updated=ratings_pb.RatingsUpdated.FromString(data))


# ---------------------------------------------------------------------------------------------- idempotency


class RequestMemory(Generic[ActionT]):
    """The outcome of each seat's recent requests (its action and the sequence of its last event), by
    ``(seat, request_id)``: a client that lost a reply retries with the same id and gets the first outcome,
    nothing applied twice. Bounded: the oldest are forgotten past :data:`REMEMBERED_REQUESTS`."""

    __slots__ = ("_outcomes",)

    def __init__(self) -> None:
        self._outcomes: OrderedDict[tuple[int, str], tuple[ActionT, int]] = OrderedDict()

    def recall(self, seat: int, request_id: str) -> tuple[ActionT, int] | None:
        return self._outcomes.get((seat, request_id))

    def remember(self, seat: int, request_id: str, action: ActionT, sequence: int) -> None:
        self._outcomes[(seat, request_id)] = (action, sequence)
        if len(self._outcomes) > REMEMBERED_REQUESTS:
            self._outcomes.popitem(last=False)
