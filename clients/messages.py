"""What a table's stream brings a client, the same for every game and typed by the game's own values.

A :class:`Snapshot` starts the stream; then every event comes as an :class:`EventMessage` with its gap-free
sequence number, and the last one of each batch carries the :class:`Turn`. Their game-specific parts are the
engine's values of the table's game: ``V`` its view (:class:`engine.View`, :class:`engine.blagogo.View`),
``A`` its action and ``E`` its event, decoded by the game's entry in :mod:`clients.games`. The events of the
table itself (a seat taken or given up, a clock that ran out) are game-neutral: :data:`SEAT_EVENTS`.
:class:`ConnectionLost` and :class:`Reconnected` are the session's own news of a dropped stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Generic, TypeAlias, TypeVar

from clients.errors import ServerError
from thousand.v1 import ratings_pb2 as ratings_pb
from thousand.v1 import table_service_pb2 as pb

V = TypeVar("V")
"""The game's view (what a seat, or a spectator, may see)."""
A = TypeVar("A")
"""The game's action."""
E = TypeVar("E")
"""The game's event."""


@dataclass(frozen=True, slots=True)
class Turn(Generic[V, A]):
    """Whose turn it is, sent with the last message of every batch of events.

    ``legal_actions`` and ``view`` are set only on the acting seat's own stream; ``deadline`` only when the
    table has a turn clock. Thousand lists every legal action (T-34); 1000 Blagogo lists the simple actions
    and then some candidate melds (B-22: any other meld may be submitted, and the server validates it).
    """

    seat: int | None
    legal_actions: tuple[A, ...] = ()
    view: V | None = None
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
    took it back, or a kind of event this client does not know yet (the contract only adds, never breaks).
    ``text`` starts with ``seat N`` when it is a seat's news, so a client may put the seat's name there."""

    seat: int | None
    text: str
    kind: str = ""
    """The event's case in the contract (``turn_timed_out``, ``seat_taken_over``, ``seat_reclaimed``)."""
    detail: str = field(default="", compare=False)
    """Which way the case went, for words in another language: ``handed_over`` (an operator's doing),
    ``forfeited``, ``one_turn`` or ``until_back`` for ``seat_taken_over``; ``move_limit`` or
    ``closed_by_operator`` for ``table_stopped``."""
    message: str = field(default="", compare=False)
    """The server's own words that come with the case (``table_stopped``'s message)."""


_STOP_DETAILS: Final = {
    pb.STOP_REASON_MOVE_LIMIT: "move_limit",
    pb.STOP_REASON_CLOSED_BY_OPERATOR: "closed_by_operator",
}
"""Why the server stopped a table, for words in the player's language (``notice.table_stopped_<detail>``):
the server's message is English, except an operator's own reason, which is shown as they wrote it."""

SEAT_EVENTS: Final = (SeatTaken, SeatReleased, TableNotice)
"""The events of the table itself rather than of its game."""

SeatEvent: TypeAlias = SeatTaken | SeatReleased | TableNotice

TableEvent: TypeAlias = SeatTaken | SeatReleased | TableNotice | E
"""An event of a table: a seat change, or an event of its game ``E`` (filtered for the stream: T-33, B-21)."""


@dataclass(frozen=True, slots=True)
class DealInProgress:
    """A fair table's deal in progress as a snapshot carries it (``Snapshot.deal``): its number, its
    commitment, and the events a check of the deal reads (its first event, its DeckShuffled, the seat's own
    HandDealt and SeatTaken), each as it came on the stream before the snapshot: fed to a check
    (:func:`clients.fairness.catch_up`), they let it check the deal as if it had seen the deal begin."""

    number: int
    commitment: str
    events: tuple[EventMessage[Any, Any, Any], ...]


@dataclass(frozen=True, slots=True)
class Snapshot(Generic[V, A]):
    """The stream's starting point: the table, this stream's view (None before the game starts), the Turn,
    and on a fair table the deal in progress (None on a seeded table, and while no deal is in progress)."""

    sequence: int
    table: pb.Table
    view: V | None
    turn: Turn[V, A] | None
    deal: DealInProgress | None = None


@dataclass(frozen=True, slots=True)
class EventMessage(Generic[V, A, E]):
    """One event with its gap-free sequence number; ``turn`` is set on the last event of a batch."""

    sequence: int
    event: TableEvent[E]
    turn: Turn[V, A] | None


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


StreamItem: TypeAlias = Snapshot[Any, Any] | EventMessage[Any, Any, Any] | ConnectionLost | Reconnected
"""What :meth:`clients.session.TableSession.stream` yields, at a table of any game."""

GAME_CASES: Final = frozenset(f.name for f in pb.Action.DESCRIPTOR.oneofs_by_name["game"].fields)
"""The games' cases of the wrapper messages (Rules, Action, View, Event): ``thousand``, ``blagogo``."""


def seat_event(message: pb.Event) -> SeatEvent | None:
    """The table's own event; None for an event of a game, which the game's entry decodes."""
    kind = message.WhichOneof("event")
    if kind == "seat_taken":
        taken = message.seat_taken
        return SeatTaken(taken.seat, taken.player_name, taken.bot)
    if kind == "seat_released":
        return SeatReleased(message.seat_released.seat)
    if kind == "turn_timed_out":
        seat = message.turn_timed_out.seat
        return TableNotice(seat, f"seat {seat} ran out of time", kind)
    if kind == "seat_taken_over":
        over = message.seat_taken_over
        if over.reason == pb.TAKEOVER_REASON_OPERATOR_HANDOVER:
            why = "was handed to the server's bot by an operator: the bot plays it to the end"
            detail = "handed_over"
        elif over.forfeited:
            why, detail = "forfeits on time: the server's bot plays it to the end", "forfeited"
        elif over.one_turn:
            why, detail = "is played by the server's bot for this one move", "one_turn"
        else:
            why, detail = "is played by the server's bot until its player is back", "until_back"
        return TableNotice(over.seat, f"seat {over.seat} {why}", kind, detail)
    if kind == "seat_reclaimed":
        seat = message.seat_reclaimed.seat
        return TableNotice(seat, f"seat {seat} is played by its player again", kind)
    if kind == "table_stopped":
        stopped = message.table_stopped
        detail = _STOP_DETAILS.get(stopped.reason, "")
        return TableNotice(
            None, f"the server stopped the table: {stopped.message}", kind, detail, message=stopped.message
        )
    if kind == "ratings_updated":
        return ratings_notice(message.ratings_updated)
    if kind in GAME_CASES:
        return None
    return TableNotice(None, f"(an event this client does not know: {kind})", kind or "")


def ratings_notice(update: ratings_pb.RatingsUpdated) -> TableNotice:
    """A rated table's last event in words: each seat's ordinal after and its change (``detail``
    ``not_rated``: why the table changed no rating). :mod:`clients.ratings` checks the numbers."""
    if update.not_rated:
        why = update.not_rated
        return TableNotice(None, f"the table is not rated: {why}", "ratings_updated", "not_rated", why)
    changes = ", ".join(
        f"seat {s.seat} {s.after.ordinal:.1f} ({s.after.ordinal - s.before.ordinal:+.1f})"
        for s in update.seats
    )
    return TableNotice(None, f"ratings ({update.pool_id}): {changes}", "ratings_updated", message=changes)


def deadline(message: pb.Turn) -> datetime | None:
    """When the Turn's seat runs out of time; None without a turn clock."""
    return message.deadline.ToDatetime(tzinfo=UTC) if message.HasField("deadline") else None
