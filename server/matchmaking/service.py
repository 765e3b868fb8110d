"""The node's matchmaker: its QuickPlay streams, its turns at matching, and placing the matches it forms.

Every node runs the same loop every :data:`TICK_SECONDS`: it tells the queue which tickets' streams it holds
(``seen``), tries to run a matching round (one node at a time: :mod:`server.matchmaking.queue_store`),
places the matches that round formed (the table created as CreateTable creates it, its request_id the match
id, every player seated by the hash of their seat token, then kept or handed to the least loaded node), and
reads its tickets back to wake their streams. A stream never touches the database but to join and leave the
queue: the loop reads all of the node's tickets in one query.

A stream that closes leaves the queue (its ticket is deleted unless matched already). A node that stops or
dies keeps its tickets in the database: their clients call again on another node with the same seat token
within :data:`FORGET_SECONDS` and keep their place (or get the seat a match gave them meanwhile); a ticket
no stream showed for :data:`FRESH_SECONDS` is not matched until one does (its player may be gone).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sqlite3
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import grpc
import psycopg

from server.creations import CREATE_REQUEST_WINDOW, SeatSpec, creation_digest
from server.errors import ErrorReason, ServiceError
from server.games import adapter_for_name
from server.identity.values import PlayerKind
from server.logs import get_logger
from server.matchmaking import matching, ratings
from server.matchmaking.asks import QUICKPLAY_CLOCK, Ask, ask_of
from server.matchmaking.metrics import QuickPlayMetrics
from server.matchmaking.queue_store import AlreadyWaitingError, Match, QueueStore, Ticket
from server.matchmaking.rematch import Rematches
from server.requests import Context, client_of, parse, token_of
from server.service import TableService
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import table_service_pb2 as pb

SERVICE_NAME: Final = "thousand.v1.MatchmakingService"
TICK_SECONDS: Final = 0.25
FRESH_SECONDS: Final = 6.0
"""A ticket whose stream no node showed for this long is not matched (its player may have gone)."""
FORGET_SECONDS: Final = 60.0
"""A ticket whose stream no node showed for this long leaves the queue: the time a client has to come back."""
UPDATE_SECONDS: Final = 2.0
"""A waiting stream hears at least this often (its wait, the count, the estimate)."""
STATS_SECONDS: Final = 1.0
ESTIMATE_HISTORY_SECONDS: Final = 1800.0
RECOVER_SECONDS: Final = 10.0
"""A match with no table this long after it was formed lost its matcher: it is placed again."""
log = get_logger("thousand.matchmaking")


@dataclasses.dataclass(slots=True)
class _Local:
    """A ticket whose stream(s) this node holds, as last read."""

    ticket: Ticket
    table_id: str | None = None
    streams: int = 0
    changed: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)


class Matchmaker:
    """MatchmakingService on one node."""

    def __init__(
        self,
        store: QueueStore,
        tables: TableService,
        *,
        lookup: ratings.RatingLookup | None = None,
        metrics: QuickPlayMetrics | None = None,
    ) -> None:
        self.store = store
        self.tables = tables
        self.registry = tables.registry
        self.lookup: ratings.RatingLookup = lookup if lookup is not None else ratings.NoRatings()
        self.rates_tables = lookup is not None
        """Whether this server rates games (a rating store behind ``lookup``): a rated match is said to be
        rated only then."""
        self.metrics = metrics
        self.rematches = Rematches(tables)
        self.stopping = False
        self._local: dict[str, _Local] = {}
        self._waiting: dict[str, int] = {}
        self._waits: dict[str, float] = {}
        self._bot_ratings: dict[tuple[str, int], dict[str, float]] = {}
        """(game, players) -> the ladder's bots' ordinals in their own pool (read at each recovery turn)."""
        self._task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop matching; the tickets of this node's streams stay in the queue (their clients come back on
        another node and keep their places)."""
        self.stopping = True
        if self._task is not None:
            self._task.cancel()
        for local in self._local.values():
            local.changed.set()
        await asyncio.gather(*self._background, return_exceptions=True)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _run(self) -> None:
        next_stats = 0.0
        next_recovery = time.monotonic() + RECOVER_SECONDS
        away = False
        while True:
            try:
                await self._turn(
                    stats=time.monotonic() >= next_stats, recover=time.monotonic() >= next_recovery
                )
            except (psycopg.OperationalError, sqlite3.OperationalError) as error:
                if not away:  # the database away (restarting, failing over): said once, not every turn
                    log.warning("matchmaking waits for the database", error=str(error))
                away = True
            except Exception:  # one bad turn must not end matching
                log.exception("matchmaking turn failed")
            else:
                if away:
                    log.info("matchmaking goes on: the database is back")
                away = False
            now = time.monotonic()
            if now >= next_stats:
                next_stats = now + STATS_SECONDS
            if now >= next_recovery:
                next_recovery = now + RECOVER_SECONDS
            await asyncio.sleep(TICK_SECONDS)

    async def _turn(self, *, stats: bool, recover: bool) -> None:
        now = time.time()
        ids = list(self._local)
        await asyncio.to_thread(self.store.seen, ids, now)
        # An idle queue (nobody waits here, nobody anywhere as last read) is matched only to be swept, at
        # each recovery turn: a round is a write transaction, beside the tables' own in a SQLite file.
        matches = None
        if ids or any(self._waiting.values()) or recover:
            matches = await asyncio.to_thread(
                self.store.round, now, now - FRESH_SECONDS, now - FORGET_SECONDS, self._form
            )
        for match in matches or ():
            await self._place(match)
        if recover:
            await self._read_bot_ratings()
        if recover and matches is not None:
            for match in await asyncio.to_thread(self.store.unplaced, now - RECOVER_SECONDS):
                log.warning("match placed again", match_id=match.match_id)
                await self._place(match)
        if stats:
            self._waiting, self._waits = await asyncio.to_thread(
                self.store.pools, now - ESTIMATE_HISTORY_SECONDS
            )
            if self.metrics is not None:
                self.metrics.waiting.set(sum(self._waiting.values()))
        found = await asyncio.to_thread(self.store.tickets, ids)
        for ticket_id, local in self._local.items():
            ticket, table_id = found.get(ticket_id, (local.ticket, local.table_id))
            if ticket != local.ticket or table_id != local.table_id or stats:
                local.ticket, local.table_id = ticket, table_id
                local.changed.set()

    def _form(self, tickets: list[Ticket]) -> list[Match]:
        return matching.form_matches(tickets, time.time(), self._bot_for)

    def _bot_for(self, game: str, players: int, ordinal: float) -> str:
        return ratings.bot_for(game, ordinal, self._bot_ratings.get((game, players)))

    async def _read_bot_ratings(self) -> None:
        """The bots' ratings of every pool people wait in (their own pools), for the fill bots' strength."""
        lookup = self.lookup
        if not isinstance(lookup, ratings.ReaderLookup):
            return
        for game, players in {tuple(pool.split("/")[:2]) for pool in self._waiting}:
            self._bot_ratings[(game, int(players))] = await asyncio.to_thread(
                lookup.bot_ordinals, game, int(players)
            )

    # ------------------------------------------------------------------ placing a match

    async def _place(self, match: Match) -> None:
        """Create the match's table (its request_id the match id: placed once however often this runs),
        seat its players, place it; on a refusal its players wait again in their places."""
        adapter = adapter_for_name(match.game)
        rules = adapter.rules_from_bytes(match.rules)
        seats = [SeatSpec(bot=s.bot, strategy=s.strategy) for s in match.seats]
        clock = dataclasses.replace(QUICKPLAY_CLOCK, bot_pace=self.tables.default_bot_pace)
        directory = self.registry.directory
        try:
            if directory is not None:
                digest = creation_digest(rules, seats, None, None, clock, rated=match.rated)
                earlier = await directory.created(match.match_id, digest, CREATE_REQUEST_WINDOW)
                if earlier is not None and self.registry.find(earlier.table_id) is None:
                    if earlier.open_seats:
                        raise ServiceError(
                            ErrorReason.TABLE_MOVING, "the match's table is elsewhere, unseated"
                        )
                    await asyncio.to_thread(self.store.placed, match.match_id, earlier.table_id)
                    return
            table = await self.registry.create(
                rules, seats, None, None, clock, request_id=match.match_id, rated=match.rated
            )
            async with table.lock:
                for seat, planned in enumerate(match.seats):
                    if not planned.bot:
                        token_hash = bytes.fromhex(planned.ticket_id)
                        await table.join_hashed(
                            seat,
                            planned.player_name,
                            token_hash,
                            client_seed=planned.client_seed,
                            player_id=planned.player_id,
                        )
            if directory is not None:
                await directory.place(table)
            else:
                table.ensure_bots_running()
            await asyncio.to_thread(self.store.placed, match.match_id, table.table_id)
        except ServiceError as error:
            log.warning(
                "match not placed; its players wait again", match_id=match.match_id, error=error.message
            )
            await asyncio.to_thread(self.store.revert, match.match_id)
            return
        log.info(
            "match placed",
            match_id=match.match_id,
            table_id=table.table_id,
            pool=match.pool,
            bots=match.bots,
            wait_s=round(match.wait_seconds, 3),
        )
        if self.metrics is not None:
            self.metrics.matches.inc()
            if match.bots:
                self.metrics.bot_fills.inc()

    # ------------------------------------------------------------------ QuickPlay

    async def quick_play(
        self, request: mm.QuickPlayRequest, context: Context
    ) -> AsyncIterator[mm.QuickPlayResponse]:
        """The stream of one waiting caller (every refusal a ServiceError, raised before or while waiting)."""
        player = await self.tables.caller(context)
        if player is not None and player.kind is PlayerKind.BOT:
            raise ServiceError(
                ErrorReason.BOT_NOT_ALLOWED,
                "a bot's key plays on the bots' ladder only (LadderService.JoinLadder), never in quick play",
                where="quick_play",
            )
        ask = ask_of(request, player.display_name if player is not None else "", player is not None)
        player_id = player.player_id if player is not None else ""
        rating = await asyncio.to_thread(
            ratings.rating_of, self.lookup, ask.adapter.name, ask.players, player_id
        )
        now = time.time()
        ticket = Ticket(
            ticket_id=ask.ticket_id,
            pool=matching.pool_of(ask.adapter.name, ask.players, ask.rules, ask.rated),
            digest=ask.digest,
            game=ask.adapter.name,
            players=ask.players,
            rules=ask.rules,
            rated=ask.rated,
            bots_ok=ask.bots_ok,
            max_wait=ask.max_wait,
            rating=rating,
            player_id=player_id,
            player_name=ask.player_name,
            client_seed=ask.client_seed,
            enqueue_time=now,
            seen_time=now,
        )
        try:
            stored = await asyncio.to_thread(self.store.enqueue, ticket)
        except AlreadyWaitingError:
            raise ServiceError(
                ErrorReason.QUICKPLAY_ALREADY_WAITING,
                "you wait in the queue already (another seat token): one place per player",
            ) from None
        if stored.digest != ticket.digest:
            raise ServiceError(
                ErrorReason.QUICKPLAY_TICKET_MISMATCH,
                "this seat token waits for another game, rules or wait: repeat the first request",
                field="seat_token",
            )
        local = self._local.get(stored.ticket_id)
        if local is None:
            local = self._local[stored.ticket_id] = _Local(stored)
        local.streams += 1
        delivered = False
        try:
            async for update in self._wait(local, ask, player):
                delivered = update.HasField("matched")
                yield update
        finally:
            local.streams -= 1
            if local.streams == 0:
                self._local.pop(stored.ticket_id, None)
                if not delivered and not self.stopping:
                    self._spawn(asyncio.to_thread(self.store.leave, stored.ticket_id))  # closing leaves

    async def _wait(self, local: _Local, ask: Ask, player: Any) -> AsyncIterator[mm.QuickPlayResponse]:
        last: mm.QuickPlayWaiting | None = None
        next_update = 0.0
        while not self.stopping:
            if local.table_id is not None and local.ticket.seat is not None:
                yield mm.QuickPlayResponse(matched=await self._matched(local, ask, player))
                return
            ticket = local.ticket
            waited = time.time() - ticket.enqueue_time
            expired = ticket.match_id is None and not ticket.bots_ok and waited >= ticket.max_wait
            if expired and await asyncio.to_thread(self.store.leave, ticket.ticket_id):
                raise ServiceError(
                    ErrorReason.QUICKPLAY_NO_MATCH,
                    f"nobody matched within {ticket.max_wait:.0f} s; you left the queue",
                )
            waiting = self._waiting_update(ticket, waited)
            if last is None or time.monotonic() >= next_update or _differs(last, waiting):
                last, next_update = waiting, time.monotonic() + UPDATE_SECONDS
                yield mm.QuickPlayResponse(waiting=waiting)
            local.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(local.changed.wait(), UPDATE_SECONDS)
        raise ServiceError(
            ErrorReason.TABLE_MOVING,
            "the server is stopping; call again (on another node) with the same seat token to keep your"
            " place",
            retry_delay=0.25,
        )

    def _waiting_update(self, ticket: Ticket, waited: float) -> mm.QuickPlayWaiting:
        count = max(1, self._waiting.get(ticket.pool, 1))
        message = mm.QuickPlayWaiting(players_waiting=count, players_needed=ticket.players)
        message.waited.FromMilliseconds(int(waited * 1000))
        estimate: float | None = None
        if count >= ticket.players:
            estimate = TICK_SECONDS * 4
        elif ticket.pool in self._waits:
            estimate = max(1.0, self._waits[ticket.pool] - waited)
        if ticket.bots_ok:
            left = max(0.0, ticket.max_wait - waited) + TICK_SECONDS
            estimate = left if estimate is None else min(estimate, left)
        if estimate is not None:
            message.estimated_wait.FromMilliseconds(int(estimate * 1000))
        if ticket.rated:
            message.rating_window = matching.window(waited)
        return message

    async def _matched(self, local: _Local, ask: Ask, player: Any) -> mm.QuickPlayMatch:
        ticket = local.ticket
        assert local.table_id is not None and ticket.seat is not None and ticket.match_id is not None
        table = await self.registry.describe(local.table_id)
        access = self.tables.access
        if access is not None:
            if player is not None:
                await access.joined(player, table, ticket.seat, ask.seat_token, ticket.game)
            table = await access.describe(table)
        match = await asyncio.to_thread(self.store.match, ticket.match_id)
        bots = 0 if match is None else match.bots
        rated = match is not None and match.rated and self.rates_tables
        if self.metrics is not None:
            self.metrics.wait_seconds.observe(max(0.0, time.time() - ticket.enqueue_time))
        return mm.QuickPlayMatch(
            table=table,
            seat=ticket.seat,
            seat_token=ask.seat_token,
            match_id=ticket.match_id,
            bots=bots,
            rated=rated,
            note=match_note(bots, ticket.rated, rated),
        )


def match_note(bots: int, asked_rated: bool, rated: bool) -> str:
    """What the player is told of a bot-filled (or unrated) table."""
    if not bots:
        if asked_rated and not rated:
            return "this server keeps no ratings: the game is unrated"
        return "rated game" if rated else ""
    filled = "1 bot fills the empty seat" if bots == 1 else f"{bots} bots fill the empty seats"
    return f"{filled}; the game is unrated" if asked_rated else filled


def _differs(before: mm.QuickPlayWaiting, now: mm.QuickPlayWaiting) -> bool:
    return before.players_waiting != now.players_waiting


# ---------------------------------------------------------------------------------------------- handlers


def generic_handler(matchmaker: Matchmaker) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(matchmaker))


def method_handlers(matchmaker: Matchmaker) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    async def quick_play(request: Any, context: Context) -> AsyncIterator[mm.QuickPlayResponse]:
        try:
            if not isinstance(request, mm.QuickPlayRequest):
                raise request.refuse()
            matchmaker.tables.limit("QuickPlay", client_of(context))  # per client, as JoinTable
            async for update in matchmaker.quick_play(request, context):
                yield update
        except ServiceError as error:
            await context.abort_with_status(error.to_status())

    async def rematch(request: Any, context: Context) -> AsyncIterator[mm.RematchResponse]:
        try:
            if not isinstance(request, mm.RematchRequest):
                raise request.refuse()
            player = await matchmaker.tables.seat_caller(request.table_id, context)
            async for update in matchmaker.rematches.stream(request, token_of(context), player):
                yield update
        except ServiceError as error:
            await context.abort_with_status(error.to_status())

    return {
        "QuickPlay": grpc.unary_stream_rpc_method_handler(
            quick_play,
            request_deserializer=parse(mm.QuickPlayRequest),
            response_serializer=mm.QuickPlayResponse.SerializeToString,
        ),
        "Rematch": grpc.unary_stream_rpc_method_handler(
            rematch,
            request_deserializer=parse(mm.RematchRequest),
            response_serializer=mm.RematchResponse.SerializeToString,
        ),
    }


__all__ = ["SERVICE_NAME", "Matchmaker", "generic_handler", "method_handlers", "pb"]
