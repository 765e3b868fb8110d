"""What every handler reads from a request the same way: the seat token, the table id, the request itself.

A request's bytes are parsed by :func:`parse`, which never raises (grpc answers a deserializer's exception
with UNKNOWN): bytes that are not the message become a :class:`Malformed`, which the handler refuses with
INVALID_ARGUMENT.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from google.protobuf.message import DecodeError, Message
from grpc import aio

from server.errors import ErrorReason, ServiceError

TOKEN_METADATA: Final = "x-seat-token"

Context = aio.ServicerContext[object, object]


def token_of(context: Context) -> str | None:
    """The seat token the call carries in metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key == TOKEN_METADATA:
            return value if isinstance(value, str) else value.decode()
    return None


def table_id_of(table_id: str) -> str:
    """A request's table id; INVALID_ARGUMENT when empty."""
    if not table_id:
        raise ServiceError(ErrorReason.INVALID_ARGUMENT, "table_id is required", field="table_id")
    return table_id


@dataclass(frozen=True, slots=True)
class Malformed:
    """A request whose bytes are not the message they should be: refused as INVALID_ARGUMENT, not UNKNOWN."""

    message_name: str
    error: str

    def refuse(self) -> ServiceError:
        return ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"the request is not a valid {self.message_name}: {self.error}",
            field="request",
        )


def parse(cls: type[Message]) -> Callable[[bytes], object]:
    """A deserializer that never raises."""

    def parse_bytes(data: bytes) -> object:
        try:
            return cls.FromString(data)
        except DecodeError as error:
            return Malformed(cls.DESCRIPTOR.full_name, str(error))

    return parse_bytes
