"""What every handler reads from a request the same way: the seat token, the table id, the request itself.

A request's bytes are parsed by :func:`parse`, which never raises (grpc answers a deserializer's exception
with UNKNOWN): bytes that are not the message become a :class:`Malformed`, which the handler refuses with
INVALID_ARGUMENT.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

from google.protobuf.message import DecodeError, Message
from grpc import aio

from server.errors import ErrorReason, ServiceError

TOKEN_METADATA: Final = "x-seat-token"
MAX_TABLE_ID_LENGTH: Final = 64
"""The longest table id accepted (the server's are 12 characters): a longer one is refused before it is
looked up, echoed in a message or bound to a log line."""
IPV6_CLIENT_PREFIX: Final = 64
"""IPv6 addresses are grouped by their /64 network for per-client limits: one host is routinely handed a
whole /64, so counting single addresses would give it 2**64 budgets."""

Context = aio.ServicerContext[object, object]


def token_of(context: Context) -> str | None:
    """The seat token the call carries in metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key == TOKEN_METADATA:
            return value if isinstance(value, str) else value.decode()
    return None


def table_id_of(table_id: str) -> str:
    """A request's table id; INVALID_ARGUMENT when empty or longer than any table id."""
    if not table_id:
        raise ServiceError(ErrorReason.INVALID_ARGUMENT, "table_id is required", field="table_id")
    if len(table_id) > MAX_TABLE_ID_LENGTH:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"table_id is {len(table_id)} characters; no table id is longer than {MAX_TABLE_ID_LENGTH}",
            field="table_id",
        )
    return table_id


def client_of(context: Context) -> str:
    """Who is calling, for per-client limits (rates, table quotas): the peer's host, an IPv6 one as its /64.

    Transports other than this gRPC server (a web gateway) name their client the same way from the
    connection's address, so that every transport shares one budget per client.
    """
    return client_key(context.peer())


def client_key(peer: str) -> str:
    """The client a gRPC peer string (``ipv4:1.2.3.4:5678``, ``ipv6:%5B::1%5D:5678``, ``unix:...``) names.

    gRPC percent-encodes the brackets of an IPv6 peer: read as it is, every connection (port included)
    would be a client of its own, with a rate limit and quotas of its own.
    """
    kind, _, address = peer.partition(":")
    address = unquote(address)
    if kind == "ipv4":
        return address.rpartition(":")[0]
    if kind == "ipv6":
        host = address[1:].partition("]")[0] if address.startswith("[") else address
        try:
            parsed = ipaddress.IPv6Address(host.partition("%")[0])
        except ValueError:
            return host
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{parsed}/{IPV6_CLIENT_PREFIX}", strict=False))
    return peer


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
