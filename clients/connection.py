"""Where the server is and how to reach it: an address, plaintext or TLS, and how long a person waits to hear
that it cannot be reached.

A :class:`Connection` makes the gRPC channel of a :class:`~clients.session.TableSession` (a bot's too). Until
the session has reached the server once, a transport failure is given up after ``connect_timeout`` seconds
(not after the minutes a dropped connection is retried for), with :func:`in_words` saying what went wrong: a
wrong address, nothing listening, a TLS server asked in plaintext or the reverse, a certificate not trusted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import grpc
from grpc import aio

from clients.bearer import bearer_interceptors
from clients.errors import ServerError, UnreachableError
from clients.i18n import t

DEFAULT_SERVER: Final = "127.0.0.1:50051"
CONNECT_TIMEOUT: Final = 5.0
"""Seconds a session that never reached its server tries before it says why it cannot."""
CHANNEL_OPTIONS: Final = (
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 5000),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.ping_timeout_ms", 10_000),  # gRPC waits this long for a keepalive ping's answer too
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
)
"""A person is waiting: the channel tries to reconnect sooner than gRPC's default (1 s, then up to 120 s),
and pings the server every 30 s, so a stream on a connection that silently died (a server that vanished, a
NAT that forgot it) fails within 40 s and is resumed, instead of waiting for events that never come. The
server accepts pings every 10 s (``server.settings.CLIENT_PING_SECONDS``).

gRPC's default receive limit (4 MiB a message) is kept: no answer is larger. A game record, the one answer
without a bound, comes by StreamTableRecord in parts of at most 1 MiB; the largest other, GetLadderStandings,
stays under 4 MiB at its caps (tests/test_client_receive_limit.py)."""

_TRUE: Final = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True, slots=True)
class Connection:
    """A server's address and how to speak to it."""

    address: str = DEFAULT_SERVER
    """``HOST:PORT``."""
    tls: bool = False
    """Speak TLS (the server runs with ``--tls-cert``/``--tls-key``)."""
    ca_file: str | None = None
    """PEM certificates to trust (a private CA, a self-signed server); None: the system's. Implies TLS."""
    connect_timeout: float = CONNECT_TIMEOUT
    credential: str | None = field(default=None, repr=False)
    """A player's credential (a player token, or an OpenID Connect token) sent as ``authorization: Bearer``
    on every call of every channel made here (docs/protocol.md, "Players"); None: the calls are anonymous.
    Kept out of ``repr`` so that it never reaches a log."""

    @property
    def secure(self) -> bool:
        return self.tls or self.ca_file is not None

    @property
    def key(self) -> str:
        """The server as the seat keeper names it (:mod:`clients.seats`): one name per address."""
        return self.address.strip().lower()

    def channel(self) -> aio.Channel:
        """A new channel to the server; a CA file that cannot be read is a :class:`ServerError` in words."""
        interceptors = bearer_interceptors(self.credential) if self.credential else None
        if not self.secure:
            return aio.insecure_channel(self.address, options=CHANNEL_OPTIONS, interceptors=interceptors)
        roots = None
        if self.ca_file is not None:
            try:
                roots = Path(self.ca_file).read_bytes()
            except OSError as error:
                raise ServerError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    t("connection.cannot_read_ca", path=self.ca_file, error=str(error.strerror or error)),
                ) from None
        credentials = grpc.ssl_channel_credentials(root_certificates=roots)
        return aio.secure_channel(
            self.address, credentials, options=CHANNEL_OPTIONS, interceptors=interceptors
        )

    @staticmethod
    def from_env(
        address: str | None = None,
        *,
        tls: bool | None = None,
        ca_file: str | None = None,
        connect_timeout: float | None = None,
        credential: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Connection:
        """What was given, else the environment (``THOUSAND_SERVER``, ``THOUSAND_TLS``, ``THOUSAND_TLS_CA``,
        ``THOUSAND_CONNECT_TIMEOUT``, ``THOUSAND_PLAYER_TOKEN``), else the defaults: every client command
        reads the same variables."""
        env = os.environ if env is None else env
        timeout = connect_timeout
        if timeout is None:
            timeout = float(env.get("THOUSAND_CONNECT_TIMEOUT") or CONNECT_TIMEOUT)
        return Connection(
            address=address or env.get("THOUSAND_SERVER") or DEFAULT_SERVER,
            tls=tls if tls is not None else env.get("THOUSAND_TLS", "").strip().lower() in _TRUE,
            ca_file=ca_file or env.get("THOUSAND_TLS_CA") or None,
            connect_timeout=timeout,
            credential=credential or env.get("THOUSAND_PLAYER_TOKEN") or None,
        )


def in_words(error: ServerError, connection: Connection | None = None, *, first: bool = False) -> str:
    """What a transport failure means for the person waiting, with what to try; a refusal's own message
    otherwise (the server's words). ``first``: the server never answered yet (a wrong address, a server not
    running, TLS on one side only), rather than a connection that dropped."""
    if error.reason or error.code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return error.message
    if isinstance(error, UnreachableError):
        return error.message
    raw = error.message
    low = raw.lower()
    secure = connection is not None and connection.secure
    if "resolv" in low or "domain name not found" in low or "dns" in low:
        return t("connection.unknown_host")
    if "connection refused" in low:
        if first:
            return t("connection.refused_first")
        return t("connection.refused")
    if "certificate_verify_failed" in low or "self signed" in low or "unable to get local issuer" in low:
        return t("connection.untrusted")
    if "wrong_version_number" in low or ("handshake" in low and secure):
        return t("connection.handshake")
    if "socket closed" in low or "connection reset" in low or "end of tcp stream" in low:
        if first and not secure:
            return t("connection.closed_tls")
        return t("connection.closed")
    if error.code is grpc.StatusCode.DEADLINE_EXCEEDED or "timeout" in low or "timed out" in low:
        return t("connection.timeout")
    if "the server ended the stream" in low:
        return raw
    return t("connection.unreachable", detail=raw)
