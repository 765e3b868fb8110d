"""Quick play and rematches for the client library (MatchmakingService; docs/protocol.md, "Quick play").

:func:`quick_play` waits in the server's queue and returns the seat a match gave: the table, the seat
already taken and its token. The seat token is drawn here before the first call and sent with every call,
so a stream that broke (its node died, the network blinked) is called again, on the next known node, with
the same request and token, and keeps its place in the queue (the server keeps it for a minute). Closing
the stream (cancelling the coroutine) leaves the queue. :func:`rematch` asks the players of a finished table
for another game, on the table's owner.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import grpc
from grpc import aio

from clients.backoff import Backoff
from clients.connection import Connection
from clients.errors import ServerError
from clients.fairness import new_client_seed
from clients.routing import Route
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import matchmaking_pb2_grpc as mm_grpc
from thousand.v1 import table_service_pb2 as pb

KEEP_PLACE_SECONDS: Final = 50.0
"""How long the client keeps calling again after its stream broke: within the server's minute."""
GAMES: Final = {"thousand": pb.GAME_KIND_THOUSAND, "blagogo": pb.GAME_KIND_BLAGOGO}
RETRIES: Final = Backoff(initial=0.2, maximum=2.0)


@dataclass(frozen=True, slots=True)
class Waiting:
    """Where the caller stands in the queue."""

    players_waiting: int
    players_needed: int
    waited: float
    estimate: float | None
    """Seconds left, as the server estimates them; None when it cannot tell."""
    rating_window: float


@dataclass(frozen=True, slots=True)
class Seated:
    """The seat a match (or a rematch) gave: taken already, its token to send as ``x-seat-token``."""

    table: pb.Table
    seat: int
    seat_token: str
    match_id: str
    bots: int
    rated: bool
    note: str

    @property
    def endpoint(self) -> str:
        """Where the table is served in a cluster ("" from a single server)."""
        return self.table.endpoint


def seated(match: mm.QuickPlayMatch) -> Seated:
    return Seated(
        match.table, match.seat, match.seat_token, match.match_id, match.bots, match.rated, match.note
    )


def waiting(message: mm.QuickPlayWaiting) -> Waiting:
    estimate = message.estimated_wait.ToNanoseconds() / 1e9 if message.HasField("estimated_wait") else None
    return Waiting(
        message.players_waiting,
        message.players_needed,
        message.waited.ToNanoseconds() / 1e9,
        estimate,
        message.rating_window,
    )


def quick_play_request(
    game: str,
    players: int,
    *,
    preset: str = "",
    rules: pb.Rules | None = None,
    rated: bool = False,
    bots_may_fill: bool = False,
    max_wait: float = 60.0,
    player_name: str = "",
    seat_token: str = "",
) -> mm.QuickPlayRequest:
    """A QuickPlay request, with a seat token (drawn when not given) and a seed of the client's own."""
    request = mm.QuickPlayRequest(
        game=GAMES[game],
        players=players,
        preset=preset,
        rated=rated,
        bots_may_fill=bots_may_fill,
        seat_token=seat_token or secrets.token_urlsafe(32),
        player_name=player_name,
        client_seed=new_client_seed(),
    )
    if rules is not None:
        request.rules.CopyFrom(rules)
    request.max_wait.FromMilliseconds(int(max_wait * 1000))
    return request


async def quick_play(
    server: str | Connection | Route,
    request: mm.QuickPlayRequest,
    on_wait: Callable[[Waiting], None] | None = None,
    *,
    backoff: Backoff = RETRIES,
) -> Seated:
    """Wait in the queue until a match seats the caller (ServerError: refused, or the wait ended with
    QUICKPLAY_NO_MATCH). A broken stream is called again, on the next known node, keeping the place."""
    route = server if isinstance(server, Route) else Route(server)
    try:
        return await _follow(
            route,
            lambda stub: stub.QuickPlay(request),
            lambda update: _update(update, on_wait),
            backoff,
        )
    finally:
        if not isinstance(server, Route):
            await route.close()


def _update(update: mm.QuickPlayResponse, on_wait: Callable[[Waiting], None] | None) -> Seated | None:
    if update.HasField("matched"):
        return seated(update.matched)
    if on_wait is not None:
        on_wait(waiting(update.waiting))
    return None


async def rematch(
    server: str | Connection | Route,
    table_id: str,
    seat_token: str,
    *,
    accept: bool = True,
    max_wait: float = 60.0,
    on_wait: Callable[[mm.RematchWaiting], None] | None = None,
    new_seat_token: str = "",
    client_seed: str = "",
    backoff: Backoff = RETRIES,
) -> Seated:
    """Accept (or decline: ServerError REMATCH_DECLINED) a rematch of a finished table as the seat whose
    token is ``seat_token``; the new seat once everyone accepted (taken with ``new_seat_token`` and
    ``client_seed``, drawn here when not given)."""
    request = mm.RematchRequest(
        table_id=table_id,
        accept=accept,
        seat_token=new_seat_token or secrets.token_urlsafe(32),
        client_seed=client_seed or new_client_seed(),
    )
    request.max_wait.FromMilliseconds(int(max_wait * 1000))
    metadata = (("x-seat-token", seat_token),)
    route = server if isinstance(server, Route) else Route(server)

    def update(message: mm.RematchResponse) -> Seated | None:
        if message.HasField("matched"):
            return seated(message.matched)
        if on_wait is not None:
            on_wait(message.waiting)
        return None

    try:
        return await _follow(route, lambda stub: stub.Rematch(request, metadata=metadata), update, backoff)
    finally:
        if not isinstance(server, Route):
            await route.close()


async def _follow(
    route: Route,
    call: Callable[[mm_grpc.MatchmakingServiceAsyncStub], Any],
    update: Callable[[Any], Seated | None],
    backoff: Backoff,
) -> Seated:
    """Run a stream until it gives a seat: following TABLE_ELSEWHERE, and calling again (the next node) when
    it breaks, for at most KEEP_PLACE_SECONDS of failing in a row."""
    delays = backoff.delays()
    failing_since: float | None = None
    while True:
        stream = call(mm_grpc.MatchmakingServiceStub(route.channel))
        try:
            async for message in stream:
                failing_since = None
                route.answered()
                found = update(message)
                if found is not None:
                    return found
            error = ServerError(grpc.StatusCode.UNAVAILABLE, "the stream ended without a seat")
        except aio.AioRpcError as rpc_error:
            error = ServerError.from_rpc(rpc_error)
        finally:
            stream.cancel()
        delay = route.follow(error)  # a node that cannot be reached: it moved on to the next known one
        if delay is None:
            if not error.retryable:
                raise error
            delay = next(delays)
        now = time.monotonic()
        failing_since = now if failing_since is None else failing_since
        if now - failing_since > KEEP_PLACE_SECONDS:
            raise error
        await asyncio.sleep(delay)
