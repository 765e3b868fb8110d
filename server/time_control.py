"""A table's clocks (``TimeControl`` in the contract), as the table and the store hold them: the turn clock's
settings and the pace of the server's bots.

The turn clock itself runs in :class:`server.turn_clock.TurnClock`: one asyncio timer per table, armed only
while a seat played by a client must act, firing at that decision's deadline (``per_move`` plus the seat's
remaining bank). The pace is kept by the bots' loop (:mod:`server.bots`): at a table where people play, a bot
that raced through its moves left them nothing to follow, and a seat taken over on time played the absent
player's whole game in seconds.
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
MAX_BOT_PACE: Final = 10.0
"""The longest bot pace accepted: slower than any person would want to watch."""


class TimeoutPolicy(Enum):
    """What happens when a seat's time runs out; the value is the store's name."""

    BOT_PLAYS = "bot_plays"
    """The server's bot takes the seat over until the player takes it back."""
    FORFEIT = "forfeit"
    """The seat forfeits: the server's bot plays it to the end of the game; it cannot be taken back."""
    BOT_PLAYS_TURN = "bot_plays_turn"
    """The server's bot makes the one decision that ran out; then the seat is its player's again."""

    def to_proto(self) -> pb.TimeoutPolicy.ValueType:
        return _POLICY_PROTO[self]


_POLICY_PROTO: Final = {
    TimeoutPolicy.BOT_PLAYS: pb.TIMEOUT_POLICY_BOT_PLAYS,
    TimeoutPolicy.FORFEIT: pb.TIMEOUT_POLICY_FORFEIT,
    TimeoutPolicy.BOT_PLAYS_TURN: pb.TIMEOUT_POLICY_BOT_PLAYS_TURN,
}
_POLICY_OF: Final = {value: policy for policy, value in _POLICY_PROTO.items()} | {
    pb.TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy.BOT_PLAYS_TURN
}


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Seconds per decision (0: no turn clock), the bank each seat starts with, the policy on a timeout, and
    the least seconds a server-run bot takes over a move at a table where people play."""

    per_move: float
    bank: float = 0.0
    policy: TimeoutPolicy = TimeoutPolicy.BOT_PLAYS_TURN
    bot_pace: float = 0.0
    away_bot: bool = False
    """A seat whose player's last stream closes is played by the server's bot at once, not after the clock
    ran out, until a stream of the seat opens again (the ladder's tables: a bot that disconnected costs its
    set no waiting). Not in the contract's TimeControl: the server sets it for its own tables."""

    @property
    def clocked(self) -> bool:
        """Whether there is a turn clock (a table may have a bot pace only)."""
        return self.per_move > 0

    @staticmethod
    def from_proto(message: pb.TimeControl, default_bot_pace: float = 0.0) -> TimeControl | None:
        """CreateTable's clocks; None when there is neither a turn clock nor a bot pace. An unset bot_pace is
        ``default_bot_pace`` (the server's)."""
        per_move = message.per_move.ToNanoseconds() / 1e9
        bank = message.bank.ToNanoseconds() / 1e9
        pace = message.bot_pace.ToNanoseconds() / 1e9 if message.HasField("bot_pace") else default_bot_pace
        limits = (("per_move", per_move, MAX_SECONDS), ("bank", bank, MAX_SECONDS))
        for name, value, most in (*limits, ("bot_pace", pace, MAX_BOT_PACE)):
            if not 0 <= value <= most:
                raise ServiceError(
                    ErrorReason.INVALID_ARGUMENT,
                    f"time_control.{name} must be 0 to {most:.0f} seconds",
                    field=f"time_control.{name}",
                )
        policy = _POLICY_OF.get(message.on_timeout)
        if policy is None:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"time_control.on_timeout {message.on_timeout} is not a TimeoutPolicy",
                field="time_control.on_timeout",
            )
        if per_move == 0 and pace == 0:
            return None
        return TimeControl(per_move, bank if per_move else 0.0, policy, pace)

    def to_proto(self) -> pb.TimeControl:
        message = pb.TimeControl(on_timeout=self.policy.to_proto())
        message.per_move.FromNanoseconds(round(self.per_move * 1e9))
        message.bank.FromNanoseconds(round(self.bank * 1e9))
        message.bot_pace.FromNanoseconds(round(self.bot_pace * 1e9))
        return message

    def to_json(self) -> dict[str, Any]:
        return {
            "per_move": self.per_move,
            "bank": self.bank,
            "policy": self.policy.value,
            "bot_pace": self.bot_pace,
        } | ({"away_bot": True} if self.away_bot else {})

    @staticmethod
    def from_json(raw: dict[str, Any] | None) -> TimeControl | None:
        if raw is None:
            return None
        return TimeControl(
            float(raw["per_move"]),
            float(raw["bank"]),
            TimeoutPolicy(raw["policy"]),
            float(raw.get("bot_pace", 0.0)),  # tables stored before the pace: as fast as before
            bool(raw.get("away_bot", False)),
        )


def duration(seconds: float) -> Duration:
    """A number of seconds (a bank left) as a protobuf Duration, rounded to the nanosecond."""
    message = Duration()
    message.FromNanoseconds(round(seconds * 1e9))
    return message
