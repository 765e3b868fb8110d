"""Where a session's calls go in a cluster: the node that owns its table, among the nodes it knows.

A cluster serves each table from one node (docs/protocol.md, "Clusters"). A session is given one address or
several (``"a:50051,b:50051"``, any of the cluster's nodes); calls go to the current one, and:

- a refusal with reason TABLE_ELSEWHERE names the owner in its ``endpoint`` metadata: the session goes there
  and sends the same request again at once (the request changed nothing where it was refused);
- TABLE_MOVING (a takeover under way) is sent again after its RetryInfo delay;
- a node that cannot be reached (UNAVAILABLE: it died, or is restarting) is left for the next known one,
  which either serves the table or says where it went.

The same request_id goes with every retry of an action, so an action whose reply was lost with a dying node
is applied once, and answered with its stored result by the node that took the table over.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from grpc import aio

from clients.connection import Connection
from clients.errors import ServerError
from thousand.v1 import table_service_pb2_grpc as pb_grpc

MOVED: Final = frozenset({"TABLE_ELSEWHERE", "TABLE_MOVING"})
"""Refusals that say the table is served elsewhere, or soon will be: follow them and ask again."""
MOVING_DELAY: Final = 0.25
"""Seconds to wait on TABLE_MOVING without a RetryInfo delay."""
MAX_REDIRECTS: Final = 8
"""Redirects followed in a row before a call fails: more means the cluster's nodes disagree."""


def addresses(spec: str) -> list[str]:
    """The addresses of a ``--server`` value: one host:port, or several separated by commas."""
    found = [part.strip() for part in spec.split(",") if part.strip()]
    if not found:
        raise ValueError(f"no server address in {spec!r}")
    return found


class Route:
    """The known nodes, a channel to each one used so far, and the one calls go to now."""

    def __init__(self, spec: str | Connection, *, channel: aio.Channel | None = None) -> None:
        self.connection = spec if isinstance(spec, Connection) else Connection(spec)
        """How to reach every node (TLS or not): the nodes share it, with an address each."""
        self.known = addresses(self.connection.address)
        self.address = self.known[0]
        self._channels: dict[str, aio.Channel] = {}
        self._given = channel
        """A channel the caller made (and closes) for the first address."""
        if channel is not None:
            self._channels[self.address] = channel
        self._stubs: dict[str, pb_grpc.TableServiceAsyncStub] = {}
        self.redirects = 0
        """Redirects followed since the last call that was answered."""

    @property
    def channel(self) -> aio.Channel:
        """The channel to the node calls go to now (made at its first use)."""
        channel = self._channels.get(self.address)
        if channel is None:
            channel = replace(self.connection, address=self.address).channel()
            self._channels[self.address] = channel
        return channel

    @property
    def stub(self) -> pb_grpc.TableServiceAsyncStub:
        stub = self._stubs.get(self.address)
        if stub is None:
            stub = self._stubs[self.address] = pb_grpc.TableServiceStub(self.channel)
        return stub

    def go(self, address: str) -> None:
        """Send calls to ``address`` from now on (a node named by the server: Table.endpoint, a redirect)."""
        if address and address not in self.known:
            self.known.append(address)
        if address:
            self.address = address

    def follow(self, error: ServerError) -> float | None:
        """After a failed call: the delay before sending it again, having moved to where the error points;
        None when the error is not about where the table is (the caller decides: a transport failure is
        retried with backoff, on the next known node), or when redirects went round in circles."""
        if error.reason == "TABLE_ELSEWHERE" and error.metadata.get("endpoint"):
            self.redirects += 1
            if self.redirects > MAX_REDIRECTS:
                return None
            self.go(error.metadata["endpoint"])
            return 0.0
        self.redirects = 0
        if error.reason == "TABLE_MOVING":
            return error.retry_delay if error.retry_delay is not None else MOVING_DELAY
        if error.retryable and len(self.known) > 1:
            self.rotate()  # unreachable: another node answers, or says where the table went
        return None

    def answered(self) -> None:
        self.redirects = 0

    def rotate(self) -> None:
        """The current node cannot be reached: the next known one."""
        index = self.known.index(self.address) if self.address in self.known else -1
        self.address = self.known[(index + 1) % len(self.known)]

    async def close(self) -> None:
        for channel in self._channels.values():
            if channel is not self._given:
                await channel.close()
