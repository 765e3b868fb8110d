"""What can go wrong in a call to the server, as one exception: :class:`ServerError`.

Every refusal carries what the server says about it in ``google.rpc.Status`` details: the gRPC code, the
``ErrorInfo`` reason of ``table_service.proto`` (``ILLEGAL_ACTION``, ``STALE_SEQUENCE``, ...), its metadata
(the ``rule`` that forbids an action, the ``field`` at fault) and, for RATE_LIMITED, the ``RetryInfo`` delay.
A failure of the transport has no reason, which is how a caller tells "try again" from "the answer is no".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import grpc
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2
from grpc import aio

from clients.i18n import current, t
from thousand.v1 import table_service_pb2 as pb

ERROR_DOMAIN: Final = "thousand.v1"
STATUS_DETAILS_METADATA: Final = "grpc-status-details-bin"

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

TRY_AGAIN: Final = frozenset({"RATE_LIMITED", "STORE_UNAVAILABLE", "TABLE_MOVING"})
"""Refusals that applied nothing and ask for the same request again later (docs/protocol.md, Errors)."""


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


_STATUS_CODES: Final = {code.value[0]: code for code in grpc.StatusCode}


def refusal_error(refusal: pb.ActionRefusal) -> ServerError:
    """The :class:`ServerError` SubmitAction would have raised, from a Play stream's ActionRefusal."""
    code = _STATUS_CODES.get(refusal.code, grpc.StatusCode.UNKNOWN)
    delay = refusal.retry_delay.ToNanoseconds() / 1e9 if refusal.HasField("retry_delay") else None
    return ServerError(code, refusal.message, refusal.reason, dict(refusal.metadata), delay)


class UnreachableError(ServerError):
    """A transport failure before the server ever answered, its message already in the player's words (the
    address and what to try), so no layer words it again."""


def seat_shown(error: ServerError) -> str | None:
    """The seat a refusal names (ALREADY_SEATED's ``seat``), as people count seats: from 1 (the wire's seat 0
    is seat 1, as every client shows it)."""
    seat = error.metadata.get("seat")
    return str(int(seat) + 1) if seat is not None and seat.isdigit() else seat


def error_words(error: ServerError) -> str:
    """A refusal in the player's language, from its stable reason (and the rule an ILLEGAL_ACTION cites),
    never from the server's English message; a transport failure (no reason) as the connection says it.

    In English the server's own message is shown: it is English already, and says more than the reason
    can (the card, the sequence numbers)."""
    from clients.connection import in_words  # noqa: PLC0415 (connection imports this module)

    if not error.reason:
        return in_words(error)
    if current().lang == "en" and error.message:
        return error.message
    key = f"error.{error.reason}"
    words = t(key, seat=seat_shown(error)) if current().has(key) else t("error.unknown", reason=error.reason)
    rule = error.rule
    if rule and current().has(f"rule.{rule}"):
        words = t("error.with_rule", error=words, rule=t(f"rule.{rule}"))
    return words
