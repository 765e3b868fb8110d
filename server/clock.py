"""A table's turn clock settings (``TimeControl`` in the contract), as the table and the store hold them.

The clock itself runs in :class:`server.turn_clock.TurnClock`: one asyncio timer per table, armed only while a
seat played by a client must act, firing at that decision's deadline (``per_move`` plus the seat's remaining
bank).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from google.protobuf.duration_pb2 import Duration

from server.errors import ErrorReason, ServiceError
from thousand.v1 import table_service_pb2 as pb

MAX_SECONDS: Final = 86_400.0
"""The longest per-move time or bank accepted (a day)."""


class TimeoutPolicy(Enum):
    """What happens when a seat's time runs out; the value is the store's name."""

    BOT_PLAYS = "bot_plays"
    """The server's bot takes the seat over until the player takes it back."""
    FORFEIT = "forfeit"
    """The seat forfeits: the server's bot plays it to the end of the game; it cannot be taken back."""

    def to_proto(self) -> pb.TimeoutPolicy.ValueType:
        return pb.TIMEOUT_POLICY_FORFEIT if self is TimeoutPolicy.FORFEIT else pb.TIMEOUT_POLICY_BOT_PLAYS


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Seconds per decision, the bank each seat starts with, and the policy on a timeout."""

    per_move: float
    bank: float = 0.0
    policy: TimeoutPolicy = TimeoutPolicy.BOT_PLAYS

    @staticmethod
    def from_proto(message: pb.TimeControl) -> TimeControl | None:
        """CreateTable's time control; None when there is no clock (per_move unset or zero)."""
        per_move = message.per_move.ToNanoseconds() / 1e9
        bank = message.bank.ToNanoseconds() / 1e9
        for name, value in (("per_move", per_move), ("bank", bank)):
            if not 0 <= value <= MAX_SECONDS:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT,
                    f"time_control.{name} must be 0 to {MAX_SECONDS:.0f} seconds",
                    field=f"time_control.{name}",
                )
        if per_move == 0:
            return None
        if message.on_timeout == pb.TIMEOUT_POLICY_FORFEIT:
            policy = TimeoutPolicy.FORFEIT
        elif message.on_timeout in (pb.TIMEOUT_POLICY_UNSPECIFIED, pb.TIMEOUT_POLICY_BOT_PLAYS):
            policy = TimeoutPolicy.BOT_PLAYS
        else:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"time_control.on_timeout {message.on_timeout} is not a TimeoutPolicy",
                field="time_control.on_timeout",
            )
        return TimeControl(per_move, bank, policy)

    def to_proto(self) -> pb.TimeControl:
        message = pb.TimeControl(on_timeout=self.policy.to_proto())
        message.per_move.FromNanoseconds(round(self.per_move * 1e9))
        message.bank.FromNanoseconds(round(self.bank * 1e9))
        return message

    def to_json(self) -> dict[str, Any]:
        return {"per_move": self.per_move, "bank": self.bank, "policy": self.policy.value}

    @staticmethod
    def from_json(raw: dict[str, Any] | None) -> TimeControl | None:
        if raw is None:
            return None
        return TimeControl(float(raw["per_move"]), float(raw["bank"]), TimeoutPolicy(raw["policy"]))


def duration(seconds: float) -> Duration:
    """A number of seconds (a bank left) as a protobuf Duration, rounded to the nanosecond."""
    message = Duration()
    message.FromNanoseconds(round(seconds * 1e9))
    return message
