"""A session's unary calls to its server: retried while the transport fails (safe calls only), given up in
time, and said in words when the server was never reached; in a cluster, sent again to wherever the
refusal points (:mod:`clients.routing`).

Until the server has answered once, a transport failure is given up after the connection's connect timeout
(a person is waiting to hear that the address is wrong or the server is down), with a shorter deadline per
call; after that, a dropped connection is retried for the backoff's time limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Final, Self, TypeVar

from grpc import aio

from clients.backoff import Backoff
from clients.connection import DEFAULT_SERVER, Connection, in_words
from clients.errors import ServerError, UnreachableError
from clients.i18n import t
from clients.routing import Route

CALL_TIMEOUT: Final = 10.0
"""Seconds one unary call may take before it counts as failed (and, where safe, is retried)."""

T = TypeVar("T")


class Calls:
    """Unary calls over one connection, with what they learned of it: whether the server ever answered."""

    def __init__(self, connection: Connection, backoff: Backoff, route: Route) -> None:
        self.connection = connection
        self.backoff = backoff
        self.route = route
        self.reached = False
        """Whether the server ever answered (a call, a refusal, a stream that connected)."""

    async def __call__(self, call: Callable[[], Awaitable[T]], *, retry: bool) -> T:
        """One unary call; with ``retry`` (safe calls only), transport failures are retried with backoff. A
        refusal that points to another node (or says the table is moving) is followed, and the call sent
        again: it changed nothing where it was refused."""
        started = time.monotonic()
        delays = self.backoff.delays()
        while True:
            try:
                result = await call()
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
            else:
                self.reached = True
                self.route.answered()
                return result
            if error.reason:
                self.reached = True  # the server answered, with a refusal
            follow = self.route.follow(error)
            if follow is not None and not self.given_up(started):
                await asyncio.sleep(follow)
                continue
            if not (retry and error.retryable) or self.given_up(started):
                raise self.unreachable(error)
            await asyncio.sleep(next(delays))

    def given_up(self, failing_since: float) -> bool:
        """Whether an operation failing since then failed too long (sooner before the server answered)."""
        limit = self.backoff.give_up_after
        if not self.reached:
            connect = self.connection.connect_timeout
            limit = connect if limit is None else min(limit, connect)
        return limit is not None and time.monotonic() - failing_since > limit

    def unreachable(self, error: ServerError) -> ServerError:
        """A transport failure before the server ever answered, said in words with the address."""
        if self.reached or not error.retryable:
            return error
        words = in_words(error, self.connection, first=True)
        return UnreachableError(
            error.code, t("connection.cannot_reach", address=self.connection.address, why=words)
        )

    @property
    def timeout(self) -> float:
        """A call's deadline: shorter until the server answered once (an address that swallows packets)."""
        return CALL_TIMEOUT if self.reached else min(CALL_TIMEOUT, self.connection.connect_timeout)


class ServiceClient:
    """The base of one service's client: its connection, the route its calls follow in a cluster and the
    calls themselves, closed with the route: ``async with PlayerClient(address) as players:``."""

    def __init__(self, address: str | Connection = DEFAULT_SERVER, *, backoff: Backoff | None = None) -> None:
        self.connection = address if isinstance(address, Connection) else Connection(address)
        self.route = Route(self.connection)
        self._calls = Calls(self.connection, backoff or Backoff(), self.route)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.route.close()
