"""The service's errors: a gRPC status code, a stable reason and a message, in one exception type.

Handlers raise :class:`ServiceError`; the service turns it into a status carrying a ``google.rpc.ErrorInfo``
(domain ``thousand.v1``) so clients branch on the reason, never on message text. The reasons are the list
documented in ``proto/thousand/v1/table_service.proto`` and never change meaning.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from engine import ActionError, IllegalActionError, Reason
from engine.blagogo import BlagogoIllegalActionError

DOMAIN = "thousand.v1"
MOVING_RETRY_SECONDS: Final = 0.25
"""The retry delay of TABLE_MOVING: a takeover's replay takes milliseconds, finding the owner dead a lease."""
MAX_MESSAGE_CHARS: Final = 1024
"""The longest status message sent: a message echoing a client's input never makes the trailers outgrow a
client's metadata limit (8 KiB in gRPC's C core, which then reports RESOURCE_EXHAUSTED, not the error)."""


class ErrorReason(Enum):
    """The stable reasons; each value is the reason string clients see in ``ErrorInfo.reason``."""

    TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
    TABLE_FULL = "TABLE_FULL"
    SEAT_TAKEN = "SEAT_TAKEN"
    SEAT_NOT_OPEN = "SEAT_NOT_OPEN"
    SEAT_TOKEN_INVALID = "SEAT_TOKEN_INVALID"
    SPECTATOR_CANNOT_ACT = "SPECTATOR_CANNOT_ACT"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    STALE_SEQUENCE = "STALE_SEQUENCE"
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    GAME_OVER = "GAME_OVER"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    INVALID_RULES = "INVALID_RULES"
    UNKNOWN_STRATEGY = "UNKNOWN_STRATEGY"
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    TOO_MANY_TABLES = "TOO_MANY_TABLES"
    RATE_LIMITED = "RATE_LIMITED"
    SEAT_FORFEITED = "SEAT_FORFEITED"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    TABLE_NOT_FINISHED = "TABLE_NOT_FINISHED"
    TABLE_ELSEWHERE = "TABLE_ELSEWHERE"
    TABLE_MOVING = "TABLE_MOVING"
    INVITE_INVALID = "INVITE_INVALID"
    SEAT_RESERVED = "SEAT_RESERVED"
    PLAYER_TOKEN_INVALID = "PLAYER_TOKEN_INVALID"
    PLAYER_BANNED = "PLAYER_BANNED"
    PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
    OPERATOR_REQUIRED = "OPERATOR_REQUIRED"
    IDENTITY_UNAVAILABLE = "IDENTITY_UNAVAILABLE"
    GUESTS_DISABLED = "GUESTS_DISABLED"
    ALREADY_SEATED = "ALREADY_SEATED"
    QUICKPLAY_NO_MATCH = "QUICKPLAY_NO_MATCH"
    QUICKPLAY_ALREADY_WAITING = "QUICKPLAY_ALREADY_WAITING"
    QUICKPLAY_TICKET_MISMATCH = "QUICKPLAY_TICKET_MISMATCH"
    QUICKPLAY_UNKNOWN_PRESET = "QUICKPLAY_UNKNOWN_PRESET"
    REMATCH_DECLINED = "REMATCH_DECLINED"
    BOT_NOT_ALLOWED = "BOT_NOT_ALLOWED"
    RECORD_TOO_LARGE = "RECORD_TOO_LARGE"

    @property
    def code(self) -> grpc.StatusCode:
        return _CODES[self]


_CODES: Final = {
    ErrorReason.TABLE_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ErrorReason.TABLE_FULL: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ErrorReason.SEAT_TAKEN: grpc.StatusCode.ALREADY_EXISTS,
    ErrorReason.SEAT_NOT_OPEN: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.SEAT_TOKEN_INVALID: grpc.StatusCode.UNAUTHENTICATED,
    ErrorReason.SPECTATOR_CANNOT_ACT: grpc.StatusCode.PERMISSION_DENIED,
    ErrorReason.NOT_YOUR_TURN: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.ILLEGAL_ACTION: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.STALE_SEQUENCE: grpc.StatusCode.ABORTED,
    ErrorReason.GAME_NOT_STARTED: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.GAME_OVER: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorReason.INVALID_RULES: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorReason.UNKNOWN_STRATEGY: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorReason.REQUEST_ID_REUSED: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorReason.TOO_MANY_TABLES: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ErrorReason.RATE_LIMITED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ErrorReason.SEAT_FORFEITED: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.STORE_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    ErrorReason.TABLE_NOT_FINISHED: grpc.StatusCode.FAILED_PRECONDITION,
    # Not UNAVAILABLE: retrying here would get the same answer; the client must go to ``endpoint``.
    ErrorReason.TABLE_ELSEWHERE: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.TABLE_MOVING: grpc.StatusCode.UNAVAILABLE,
    ErrorReason.INVITE_INVALID: grpc.StatusCode.PERMISSION_DENIED,
    ErrorReason.SEAT_RESERVED: grpc.StatusCode.PERMISSION_DENIED,
    ErrorReason.PLAYER_TOKEN_INVALID: grpc.StatusCode.UNAUTHENTICATED,
    ErrorReason.PLAYER_BANNED: grpc.StatusCode.PERMISSION_DENIED,
    ErrorReason.PLAYER_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ErrorReason.OPERATOR_REQUIRED: grpc.StatusCode.PERMISSION_DENIED,
    ErrorReason.IDENTITY_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    ErrorReason.GUESTS_DISABLED: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.ALREADY_SEATED: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.QUICKPLAY_NO_MATCH: grpc.StatusCode.DEADLINE_EXCEEDED,
    ErrorReason.QUICKPLAY_ALREADY_WAITING: grpc.StatusCode.ALREADY_EXISTS,
    ErrorReason.QUICKPLAY_TICKET_MISMATCH: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorReason.QUICKPLAY_UNKNOWN_PRESET: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorReason.REMATCH_DECLINED: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorReason.BOT_NOT_ALLOWED: grpc.StatusCode.PERMISSION_DENIED,
    # Not RESOURCE_EXHAUSTED: the client's own size limit reports that code without saying what to do.
    ErrorReason.RECORD_TOO_LARGE: grpc.StatusCode.FAILED_PRECONDITION,
}


class ServiceError(Exception):
    """A refused request: nothing about the table changed."""

    def __init__(
        self, reason: ErrorReason, message: str, *, retry_delay: float | None = None, **metadata: str
    ) -> None:
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 1] + "…"
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata = metadata
        self.retry_delay = retry_delay
        """Seconds after which a retry will be accepted (RATE_LIMITED, TABLE_MOVING): a
        ``google.rpc.RetryInfo`` detail."""

    def to_status(self) -> grpc.Status:
        info = error_details_pb2.ErrorInfo(reason=self.reason.value, domain=DOMAIN, metadata=self.metadata)
        detail = any_pb2.Any()
        detail.Pack(info)
        details = [detail]
        if self.retry_delay is not None:
            retry = error_details_pb2.RetryInfo()
            retry.retry_delay.FromNanoseconds(max(0, int(self.retry_delay * 1e9)))
            packed = any_pb2.Any()
            packed.Pack(retry)
            details.append(packed)
        status = status_pb2.Status(code=self.reason.code.value[0], message=self.message, details=details)
        return rpc_status.to_status(status)


def from_action_error(error: ActionError) -> ServiceError:
    """Map an engine rejection to the service's reasons, keeping the engine's specific reason as `rule`.

    Either engine's: a 1000 Blagogo rejection (``BlagogoIllegalActionError``) carries its precise reason in
    ``rule`` (a ``BlagogoReason`` such as OPENING_TOO_LOW, or a shared ``Reason`` such as WRONG_PHASE).
    """
    if error.reason is Reason.NOT_YOUR_TURN:
        return ServiceError(ErrorReason.NOT_YOUR_TURN, error.message)
    if error.reason is Reason.GAME_OVER:
        return ServiceError(ErrorReason.GAME_OVER, error.message)
    if isinstance(error, IllegalActionError):
        rule: Enum = error.rule if isinstance(error, BlagogoIllegalActionError) else error.reason
        return ServiceError(ErrorReason.ILLEGAL_ACTION, error.message, rule=str(rule.value))
    return ServiceError(ErrorReason.INVALID_ARGUMENT, error.message, field="action")
