"""The values a table's core decides on and applies: commands in, changes out, frames after.

A **command** is what someone asks of a table (a person joins, acts, leaves or takes a seat back; a bot
moves; a seat's time runs out; the server stops the table). :meth:`server.table_core.TableCore.decide` turns
it into a **change**: the steps to store and then apply (in one commit), or a refusal with its reason, or the
outcome of a retried request that changes nothing. A **step** is one stored record
(:class:`server.store.Record`) as a typed value: :func:`step_of` reads a stored record back, so a table
rebuilt from its store applies the very steps the live table applied. A **frame** is the table after a step,
as the shell's parts need it (who acts, the seats, whether it is over): an immutable value, so no part needs
a pointer to the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias

from server.errors import ServiceError
from server.store import Record
from server.table_state import SeatState, StopReason, TableEvent
from server.time_control import TimeoutPolicy

# ----------------------------------------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat (``seat`` None: the first free one) with ``token`` (its hash: ``token_hash``; the token
    is "" when only its hash is known: a quick-play match); ``player_id``: the player joining with their
    credential ("" when anonymous)."""

    seat: int | None
    player_name: str
    token: str
    token_hash: bytes
    client_seed: str = ""
    player_id: str = ""


@dataclass(frozen=True, slots=True)
class Leave:
    seat: int


@dataclass(frozen=True, slots=True)
class Reclaim:
    """Take the seat back from the bot that plays it since a timeout."""

    seat: int


@dataclass(frozen=True, slots=True)
class Act:
    """A seat's action; ``bank``: the seat's time bank after this decision when it drew on it (the turn
    clock's measure, made by the shell), else None."""

    seat: int
    request_id: str
    last_seen: int | None
    action: Any
    bank: float | None = None


@dataclass(frozen=True, slots=True)
class BotMove:
    """A server-run bot's move for ``seat`` (a bot seat, or one taken over on time)."""

    seat: int
    action: Any


@dataclass(frozen=True, slots=True)
class TimeOut:
    seat: int
    policy: TimeoutPolicy


@dataclass(frozen=True, slots=True)
class Away:
    """The seat's player has no stream open at the table any more, at a table whose clock plays such a seat
    at once (:attr:`~server.time_control.TimeControl.away_bot`: the ladder's)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Stop:
    reason: StopReason
    message: str


@dataclass(frozen=True, slots=True)
class Claim:
    """The seat ``token_hash`` holds (or held) is ``player_id``'s from now on (PlayerService.ClaimSeats)."""

    seat: int
    player_id: str


@dataclass(frozen=True, slots=True)
class HandOver:
    """An operator gives the seat to the server's bot for the rest of the game (HandSeatToBot)."""

    seat: int
    operator: str
    reason: str


Command: TypeAlias = Join | Leave | Reclaim | Act | BotMove | TimeOut | Away | Stop | Claim | HandOver

# ------------------------------------------------------------------------------------------- steps (stored)


@dataclass(frozen=True, slots=True)
class Seeded:
    """A fair table's seat has a new player's seed ("" once the seat is free)."""

    seat: int
    seed: str

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("seed", self.seat, self.seed)


@dataclass(frozen=True, slots=True)
class Joined:
    seat: int
    player_name: str
    token_hash: bytes

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("join", self.seat, self.player_name, self.token_hash)


@dataclass(frozen=True, slots=True)
class Owned:
    """The seat's player is ``player_id``: stored with a join made with a player's credential, and by a claim
    (the seat's player stays in the table's own log, so replays and exports know it)."""

    seat: int
    player_id: str

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("player", self.seat, self.player_id)


@dataclass(frozen=True, slots=True)
class HandedOver:
    """An operator gave the seat to the server's bot for good: its player loses it (token and all)."""

    seat: int
    operator: str
    reason: str

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("handover", self.seat, self.operator, self.reason.encode())


@dataclass(frozen=True, slots=True)
class Left:
    seat: int

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("leave", self.seat)


@dataclass(frozen=True, slots=True)
class Acted:
    """An action applied to the game; ``request_id`` "" for a bot's move."""

    seat: int
    request_id: str
    action: Any
    data: bytes
    """The action as the store keeps it (the game's action message, serialized)."""

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("action", self.seat, self.request_id, self.data)


@dataclass(frozen=True, slots=True)
class TimedOut:
    seat: int
    policy: TimeoutPolicy

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("timeout", self.seat, self.policy.value)


@dataclass(frozen=True, slots=True)
class WentAway:
    """The server's bot plays the seat since its player's last stream closed, until the player is back."""

    seat: int

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("away", self.seat)


@dataclass(frozen=True, slots=True)
class Reclaimed:
    seat: int

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("reclaim", self.seat)


@dataclass(frozen=True, slots=True)
class BankCharged:
    seat: int
    left: float

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("bank", self.seat, f"{self.left:.3f}")


@dataclass(frozen=True, slots=True)
class Stopped:
    reason: StopReason
    message: str

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("stop", -1, self.reason.value, self.message.encode())


@dataclass(frozen=True, slots=True)
class Rated:
    """A rated table's ratings changed (or, with ``not_rated`` set in it, could not): ``data`` is the
    RatingsUpdated message, stored by :mod:`server.ratings` in one transaction with the ratings' rows."""

    data: bytes

    def record(self) -> Record:
        """The step as the store keeps it."""
        return Record("rating", -1, "", self.data)


Step: TypeAlias = (
    Seeded
    | Joined
    | Owned
    | Left
    | Acted
    | TimedOut
    | WentAway
    | Reclaimed
    | BankCharged
    | Stopped
    | HandedOver
    | Rated
)


def record_of(step: Step) -> Record:
    """The step as the store keeps it."""
    return step.record()


def step_of(record: Record, action_from_bytes: Any) -> Step:
    """A stored record as the step it was; ``action_from_bytes``: the game's decoder of stored actions.
    ValueError for a kind no table stores."""
    seat = record.seat
    match record.kind:
        case "seed":
            return Seeded(seat, record.text)
        case "join":
            return Joined(seat, record.text, record.data)
        case "player":
            return Owned(seat, record.text)
        case "handover":
            return HandedOver(seat, record.text, record.data.decode())
        case "leave":
            return Left(seat)
        case "action":
            return Acted(seat, record.text, action_from_bytes(record.data), record.data)
        case "timeout":
            return TimedOut(seat, TimeoutPolicy(record.text))
        case "away":
            return WentAway(seat)
        case "reclaim":
            return Reclaimed(seat)
        case "bank":
            return BankCharged(seat, float(record.text))
        case "stop":
            return Stopped(StopReason(record.text), record.data.decode())
        case "rating":
            return Rated(record.data)
    raise ValueError(f"unknown record kind {record.kind!r}")


# ------------------------------------------------------------------------------------------------ changes


class Change(NamedTuple):
    """What a command does: ``steps`` to store in one commit and then apply, in order; ``refusal``: the
    error the command ends with, after its steps (if any: a person's action taking the seat back is refused
    with the seat theirs again); ``sequence``: a retried action's first outcome (nothing to do); ``seat``:
    the seat a join took (or held already), ``reclaimed``: whether a reclaim took a seat back."""

    steps: tuple[Step, ...] = ()
    refusal: ServiceError | None = None
    sequence: int | None = None
    seat: int | None = None
    reclaimed: bool = False

    @property
    def records(self) -> list[Record]:
        return [step.record() for step in self.steps]


def refuse(error: ServiceError) -> Change:
    """A change that stores nothing and ends with ``error``."""
    return Change(refusal=error)


# ------------------------------------------------------------------------------------------------- frames


class Frame(NamedTuple):
    """The table right after a step, as the shell's parts read it.

    ``to_act``: the seat that must decide (None before the start, at the end, or at a chance node);
    ``decisions``: decisions applied so far (with ``to_act`` it tells one decision from the next).
    """

    sequence: int
    decisions: int
    to_act: int | None
    started: bool
    finished: bool
    seats: tuple[SeatState, ...]

    def played_by_bot(self, seat: int) -> bool:
        return self.seats[seat].played_by_bot

    @property
    def bot_to_act(self) -> int | None:
        """The seat to act when a server-run bot plays it (a bot seat, or one taken over on time)."""
        seat = self.to_act
        return seat if seat is not None and self.seats[seat].played_by_bot else None

    @property
    def bots_only(self) -> bool:
        """Every seat is played by a server-run bot."""
        return all(s.played_by_bot for s in self.seats)


class Published(NamedTuple):
    """Events a step logged (numbered from ``first``), with the frame after them: what streams are sent."""

    events: Sequence[TableEvent[Any]]
    first: int
    frame: Frame
    moved: bool = False
    """The events are the game's: it moved (a decision, a deal), so players with memory look again."""
