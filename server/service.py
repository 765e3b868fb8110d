"""The TableService: requests in, table operations, responses out.

Each operation checks its request, finds the table, and does its work under the table's lock; every refusal
is a :class:`ServiceError`, which :mod:`server.table_handlers` (the gRPC wiring of both transports) turns into
a status with ``ErrorInfo``.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncGenerator
from typing import Final

from engine import InvalidActionError, RulesError
from engine.seeds import valid_client_seed
from server import tracing
from server.creations import CREATE_REQUEST_WINDOW, SeatSpec, creation_digest
from server.errors import ErrorReason, ServiceError
from server.export import record_of
from server.games import ADAPTERS, AnyAdapter, adapter_for_kind
from server.identity.access import TableAccess
from server.identity.values import Player, Privacy
from server.ratelimit import RateLimiter
from server.ratings.admission import check_rated, check_rated_join
from server.registry import Registry
from server.rendering import MAX_BATCH
from server.requests import (
    TOKEN_METADATA,
    Context,
    table_id_of,
    token_of,
)
from server.streams import SPECTATORS
from server.table import Table
from server.table_state import hash_token
from server.telemetry import action_kind, game_label, requested_kind
from server.time_control import TimeControl
from thousand.v1 import table_service_pb2 as pb

SERVICE_NAME: Final = "thousand.v1.TableService"
MAX_NAME_LENGTH: Final = 64
MAX_REQUEST_ID_LENGTH: Final = 128
MAX_CREATE_REQUEST_ID_LENGTH: Final = 64
MAX_STRATEGY_LENGTH: Final = 64
"""No strategy has a longer name: a longer one is refused without being echoed."""
MAX_ACTION_BYTES: Final = 4096
"""The largest action accepted, serialized. The largest legal one, a 1000 Blagogo LayMelds of every card a
hand can hold, is under 1 KiB; without a bound a 50 KB LayMelds of 5,000 melds cost 63 ms of the event
loop to decode and refuse (issue 21)."""
EXPORT_MAX_BYTES: Final = 4 * 1024 * 1024 - 64 * 1024
"""The largest record ExportTable sends in one message: under gRPC's default client limit (4 MiB) with room
for the message's framing; a longer record (some 11,000 moves) is read with StreamTableRecord."""
RECORD_PART_BYTES: Final = 1024 * 1024
"""The largest part of StreamTableRecord: a quarter of a default client's limit."""
SEAT_TOKEN_FORMAT: Final = re.compile(r"[A-Za-z0-9_-]{32,128}")
"""A client-chosen seat token (JoinTableRequest.seat_token): long enough to be a secret, safe in metadata."""
MIN_TOKEN_SYMBOLS: Final = 12
"""Different characters a client-chosen seat token has at least: 32 random bytes in base64url have about 30;
a token like "aaaa…" or "abab…", which anyone could guess and act with, is refused."""


def _game(kind: int) -> AnyAdapter:
    """The game of a request's GameKind; INVALID_ARGUMENT when unset or unknown."""
    adapter = adapter_for_kind(kind)
    if adapter is None:
        known = " or ".join(pb.GameKind.Name(a.kind) for a in ADAPTERS)
        raise ServiceError(ErrorReason.INVALID_ARGUMENT, f"game must be {known}", field="game")
    return adapter


class TableService:
    """The handlers; ``registry`` holds the tables."""

    def __init__(self, registry: Registry, limiter: RateLimiter | None = None) -> None:
        self.registry = registry
        self.limiter = limiter if limiter is not None else RateLimiter(0, 0)
        self.default_bot_pace = 0.0
        """The bot pace of a table whose CreateTable does not choose one (``thousand-server --bot-pace``)."""
        self.access: TableAccess | None = None
        """Players and private tables (``server.identity``); None: a server without them (anonymous only)."""

    async def caller(self, context: Context) -> Player | None:
        """The player calling (``authorization`` metadata), None when anonymous; a credential sent is checked
        on every call, so a bad one or a banned player's is refused everywhere (PLAYER_TOKEN_INVALID,
        PLAYER_BANNED)."""
        return None if self.access is None else await self.access.identities.caller(context)

    async def seat_caller(self, table_id: str, context: Context) -> Player | None:
        """:meth:`caller`, and the seat token sent checked against the seat's player: SEAT_RESERVED when it
        is another player's seat, PLAYER_BANNED when its player is banned (so a ban holds with a seat token
        alone). Made by every call acting as or watching from a seat."""
        player = await self.caller(context)
        token = token_of(context)
        if self.access is not None and token is not None:
            # The owner checks the seat: a node that is not sends the client on first (TABLE_ELSEWHERE,
            # TABLE_MOVING), without reading the players' store, which may be away meanwhile.
            await self.registry.owned(table_id_of(table_id))
            await self.access.check_seat(table_id, token, player)
        return player

    async def player_seats(self, table_id: str, token: str | None, player: Player | None) -> list[bytes]:
        """The token hashes of the caller's seats at the table when the call names its seat by the player's
        credential (it sends no seat token); empty otherwise."""
        if token is not None or player is None or self.access is None:
            return []
        return await self.access.seat_hashes(table_id, player.player_id)

    async def audience(self, table: Table, token: str | None, player: Player | None) -> int | None:
        """Whom a stream is for: the seat token's seat, else the player's seat here, else spectators."""
        if token is not None:
            return table.authenticate(token)
        hashes = await self.player_seats(table.table_id, token, player)
        mine = table.seat_of_player(hashes) if hashes else None  # a player watching where they sit
        return SPECTATORS if mine is None else mine

    @staticmethod
    def seat_of(table: Table, token: str | None, hashes: list[bytes]) -> int:
        """The seat a call acts as: its seat token's, else its player's one seat here (caller holds the
        lock); SEAT_TOKEN_INVALID when it has neither."""
        if token is None and hashes:
            found = table.seat_of_player(hashes)
            if found is not None:
                return found
        return table.authenticate(token)

    def limit(self, method: str, client: str, token: str | None = None, cost: float = 1.0) -> None:
        """RATE_LIMITED when this client made too many ``method`` calls: by seat token, else by ``client``
        (:func:`server.requests.client_of`, or a web gateway's own name for its caller's address).
        ``cost``: how many calls this one counts as (a resume counts its history)."""
        if self.limiter.enabled:
            self.limit_as(method, self.limit_key(client, token), cost)

    @staticmethod
    def limit_key(client: str, token: str | None) -> str:
        """Whose budget a call spends: its seat token's, else its client's (a Play stream keeps its own)."""
        return f"token:{hash_token(token).hex()}" if token else f"peer:{client}"

    def limit_as(self, method: str, key: str, cost: float = 1.0) -> None:
        """:meth:`limit` by a :meth:`limit_key` the caller kept."""
        if not self.limiter.enabled:
            return
        try:
            self.limiter.check(f"{method}:{key}", method, cost)
        except ServiceError:
            self.registry.telemetry.limit_refused("rate")
            raise

    async def create_table(
        self, request: pb.CreateTableRequest, client: str = "", player: Player | None = None
    ) -> pb.CreateTableResponse:
        adapter = _game(request.game)
        try:
            rules = adapter.rules_from_request(request.rules, len(request.seats))
        except RulesError as error:
            raise ServiceError(ErrorReason.INVALID_RULES, str(error), field=error.field) from None
        seats = [_seat_spec(i, s) for i, s in enumerate(request.seats)] or [
            SeatSpec(bot=False) for _ in range(adapter.players(rules))
        ]
        if len(request.request_id) > MAX_CREATE_REQUEST_ID_LENGTH:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"request_id must be at most {MAX_CREATE_REQUEST_ID_LENGTH} characters",
                field="request_id",
            )
        if request.HasField("seed") and not request.practice and any(not s.bot for s in seats):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                "a seed makes every card known to whoever knows it: give one to a table with open seats only"
                " as a practice table (set practice), or leave it unset for fair deals",
                field="seed",
            )
        if request.rated:
            check_rated(request, [spec.bot for spec in seats])
        privacy = await self._privacy(request, seats, player)
        seed = request.seed if request.HasField("seed") else None
        first_dealer = request.first_dealer if request.HasField("first_dealer") else None
        time_control = TimeControl.from_proto(request.time_control, self.default_bot_pace)
        directory = self.registry.directory
        if directory is not None and request.request_id:  # a retry, maybe on another node than the first try
            digest = creation_digest(
                rules, seats, seed, first_dealer, time_control, rated=request.rated, privacy=privacy
            )
            earlier = await directory.created(request.request_id, digest, CREATE_REQUEST_WINDOW)
            if earlier is not None:
                return pb.CreateTableResponse(table=await self._described(earlier))
        table = await self.registry.create(
            rules,
            seats,
            seed,
            first_dealer,
            time_control,
            request_id=request.request_id,
            client=client,
            privacy=privacy,  # stored with the table: private from its first moment
            rated=request.rated,
        )
        if directory is not None:  # a cluster: here, or handed to the least loaded node
            placed = await directory.place(table)
        else:
            table.ensure_bots_running()
            placed = table.describe()
        if privacy is not None and self.access is not None:
            placed = await self.access.created(privacy, placed)
        return pb.CreateTableResponse(table=placed)

    async def _privacy(
        self, request: pb.CreateTableRequest, seats: list[SeatSpec], player: Player | None
    ) -> Privacy | None:
        """The private table's settings the request asks for, checked before the table is made."""
        if self.access is not None:
            return await self.access.prepare(request, [not spec.bot for spec in seats], player)
        if request.unlisted or request.invite_code or request.reservations:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT, "this server keeps no private tables", field="unlisted"
            )
        return None

    async def _described(self, table: pb.Table) -> pb.Table:
        """A table's description with what private tables add to it."""
        return table if self.access is None else await self.access.describe(table)

    async def list_tables(
        self, request: pb.ListTablesRequest, player: Player | None = None
    ) -> pb.ListTablesResponse:
        """A page of tables; an unlisted one only for its players (so a page may hold fewer than asked)."""
        game = None if request.game == pb.GAME_KIND_UNSPECIFIED else _game(request.game)
        tables, token = await self.registry.listing(
            request.only_open_seats, request.page_size, request.page_token, game
        )
        if self.access is not None:
            tables = await self.access.visible(tables, player)
        return pb.ListTablesResponse(tables=tables, next_page_token=token)

    async def get_table(self, request: pb.GetTableRequest) -> pb.GetTableResponse:
        table = await self.registry.describe(table_id_of(request.table_id))
        return pb.GetTableResponse(table=await self._described(table))

    async def join_table(
        self, request: pb.JoinTableRequest, player: Player | None = None
    ) -> pb.JoinTableResponse:
        table = await self.registry.owned(table_id_of(request.table_id))
        if table.core.rated:
            check_rated_join(table, player)
        gate = (
            None
            if self.access is None
            else await self.access.gate(table.table_id, player, request.invite_code, table.privacy)
        )
        if len(request.player_name) > MAX_NAME_LENGTH:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"player_name is longer than {MAX_NAME_LENGTH} characters",
                field="player_name",
            )
        chosen = request.seat_token or None
        if chosen is not None and not SEAT_TOKEN_FORMAT.fullmatch(chosen):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                "seat_token must be 32 to 128 characters of A-Z a-z 0-9 - _ (or empty: the server draws one)",
                field="seat_token",
            )
        if chosen is not None and len(set(chosen)) < MIN_TOKEN_SYMBOLS:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                "seat_token does not look random (too few different characters): draw it from a secure "
                "random source, e.g. 32 random bytes in base64url",
                field="seat_token",
            )
        if request.client_seed and not valid_client_seed(request.client_seed):
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                "client_seed must be 16 to 128 characters of A-Z a-z 0-9 - _ (or empty: none), e.g. 32 random"
                " bytes in base64url",
                field="client_seed",
            )
        async with table.lock:
            wanted = request.seat if request.HasField("seat") else None
            player_id = player.player_id if player is not None else ""
            retry = chosen is not None and table.seat_holding(chosen) is not None
            # A player who sits here already is told so (ALREADY_SEATED, by the table), not asked for one.
            if gate is not None and not retry and table.seat_of_player_id(player_id) is None:
                wanted = gate.seat(table.describe(), wanted)  # SEAT_RESERVED, INVITE_INVALID
            # A player who sends no name sits as their display name (docs/protocol.md "Players").
            name = request.player_name or (player.display_name if player is not None else "")
            seat, token = await table.join(
                wanted, name, chosen, client_seed=request.client_seed, player_id=player_id
            )
            described = table.describe()
        table.ensure_bots_running()
        if self.access is not None:
            if player is not None:
                await self.access.joined(player, described, seat, token, table.adapter.name)
            described = await self.access.describe(described)
        return pb.JoinTableResponse(seat=seat, seat_token=token, table=described)

    async def export_table(self, request: pb.ExportTableRequest) -> pb.ExportTableResponse:
        """A finished table's game record in one message, if it fits a default client's 4 MiB: a longer
        one is refused with RECORD_TOO_LARGE, which names StreamTableRecord, rather than sent to fail in
        the client as an unexplained RESOURCE_EXHAUSTED."""
        compact = await self.record_json(table_id_of(request.table_id))
        size = len(compact.encode())
        if size > EXPORT_MAX_BYTES:
            raise ServiceError(
                ErrorReason.RECORD_TOO_LARGE,
                f"the table's record is {size} bytes, more than ExportTable sends in one message"
                f" ({EXPORT_MAX_BYTES}); read it with StreamTableRecord, in parts",
                bytes=str(size),
            )
        return pb.ExportTableResponse(record_json=compact)

    async def stream_table_record(self, request: pb.StreamTableRecordRequest) -> list[bytes]:
        """A finished table's game record as StreamTableRecord's parts, of at most RECORD_PART_BYTES each
        (refusals, as ExportTable's, raised before any part is sent)."""
        data = (await self.record_json(table_id_of(request.table_id))).encode()
        return [data[i : i + RECORD_PART_BYTES] for i in range(0, len(data), RECORD_PART_BYTES)]

    async def record_json(self, table_id: str) -> str:
        """A finished table's game record as compact JSON, read from the store (the table may have left
        memory since); a table the server stopped is finished too, and its record says why it stopped."""
        live = self.registry.find(table_id)
        if live is not None and not live.finished:
            raise ServiceError(
                ErrorReason.TABLE_NOT_FINISHED,
                f"table {table_id} is still being played; its record is available once the game is over",
            )
        store = self.registry.store
        stored = None if store is None else await asyncio.to_thread(store.get, table_id)
        if stored is None:
            if live is None:
                raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
            raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"the server keeps no record of table {table_id}")
        record = await asyncio.to_thread(record_of, stored)  # a replay of the whole game: off the loop
        if not record["finished"]:
            raise ServiceError(
                ErrorReason.TABLE_NOT_FINISHED,
                f"table {table_id} was not played to the end; its record is available once the game is over",
            )
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))  # half the bytes of indented

    async def leave_table(
        self, request: pb.LeaveTableRequest, token: str | None, player: Player | None = None
    ) -> pb.LeaveTableResponse:
        table = await self.registry.owned(table_id_of(request.table_id))
        hashes = await self.player_seats(table.table_id, token, player)
        async with table.lock:
            await table.leave(self.seat_of(table, token, hashes))
            return pb.LeaveTableResponse(table=table.describe())

    async def reclaim_seat(
        self, request: pb.ReclaimSeatRequest, token: str | None, player: Player | None = None
    ) -> pb.ReclaimSeatResponse:
        table = await self.registry.owned(table_id_of(request.table_id))
        hashes = await self.player_seats(table.table_id, token, player)
        async with table.lock:
            await table.reclaim(self.seat_of(table, token, hashes))
            described = table.describe()
        return pb.ReclaimSeatResponse(table=described)

    async def submit_action(
        self, request: pb.SubmitActionRequest, token: str | None, player: Player | None = None
    ) -> pb.SubmitActionResponse:
        try:
            table = await self.registry.owned(table_id_of(request.table_id))
        except ServiceError as error:
            self.registry.telemetry.action_rejected(*requested_kind(request.action), error.reason.value)
            raise
        last_seen = request.last_seen_sequence if request.HasField("last_seen_sequence") else None
        sequence = await self.act(table, token, request.request_id, last_seen, request.action, player=player)
        return pb.SubmitActionResponse(sequence=sequence)

    async def act(
        self,
        table: Table,
        token: str | None,
        request_id: str,
        last_seen: int | None,
        action: pb.Action,
        *,
        player: Player | None = None,
    ) -> int:
        """Apply a seat's action (SubmitAction's, or one sent on a Play stream); the sequence number of the
        last event it produced. A refusal is counted and raised as a :class:`ServiceError`."""
        try:
            return await self._act(table, token, request_id, last_seen, action, player=player)
        except ServiceError as error:
            self.registry.telemetry.action_rejected(*requested_kind(action), error.reason.value)
            raise

    async def _act(
        self,
        table: Table,
        token: str | None,
        request_id: str,
        last_seen: int | None,
        message: pb.Action,
        *,
        player: Player | None,
    ) -> int:
        if token is None and player is None:
            raise ServiceError(
                ErrorReason.SPECTATOR_CANNOT_ACT,
                f"acting needs a seat token in metadata {TOKEN_METADATA!r} (or a player's credential)",
            )
        if not 0 < len(request_id) <= MAX_REQUEST_ID_LENGTH:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"request_id must be 1 to {MAX_REQUEST_ID_LENGTH} characters",
                field="request_id",
            )
        size = message.ByteSize()
        if size > MAX_ACTION_BYTES:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"the action is {size} bytes; no legal action is larger than {MAX_ACTION_BYTES}",
                field="action",
            )
        try:
            action = table.adapter.action_from_proto(message)
        except InvalidActionError as error:
            raise ServiceError(ErrorReason.INVALID_ARGUMENT, error.message, field="action") from None
        hashes = await self.player_seats(table.table_id, token, player)
        async with table.lock:
            seat = self.seat_of(table, token, hashes)
            if not tracing.enabled():  # the attributes are not even made
                sequence = await table.submit(seat, request_id, last_seen, action)
            else:
                attributes: dict[str, str | int] = {
                    "thousand.table_id": table.table_id,
                    "thousand.game": game_label(table),
                    "thousand.seat": seat,
                    "thousand.action": action_kind(table, action),
                }
                with tracing.span("table.action", attributes):
                    sequence = await table.submit(seat, request_id, last_seen, action)
        table.ensure_bots_running()
        return sequence

    async def stream_events(
        self,
        request: pb.StreamEventsRequest,
        token: str | None,
        client: str = "",
        player: Player | None = None,
    ) -> AsyncGenerator[bytes, None]:
        """The table's stream for this seat (or a spectator): every check is made here, before it starts
        (ServiceError), and the table's own generator is returned, not wrapped in another (a stream's every
        message passes through each generator around it)."""
        table: Table = await self.registry.owned(table_id_of(request.table_id))
        audience = await self.audience(table, token, player)
        after = request.after_sequence if request.HasField("after_sequence") else None
        self.limit_resume(table, after, client, token)
        return table.stream(audience, after, request.batch_events)

    def limit_resume(self, table: Table, after: int | None, client: str, token: str | None) -> None:
        """RATE_LIMITED when a resume would exceed the client's rate: a resume of a long history costs the
        server as much as many requests (it is sent in parts of MAX_BATCH events), and counts as one per
        part, whether on StreamEvents or Play."""
        if after is not None and after < table.sequence:
            self.limit("resume", client, token, cost=1 + (table.sequence - after) / MAX_BATCH)

    def close_streams(self) -> None:
        for table in self.registry.all():
            table.close_streams()


def _seat_spec(index: int, config: pb.SeatConfig) -> SeatSpec:
    if config.kind not in (pb.SEAT_KIND_UNSPECIFIED, pb.SEAT_KIND_OPEN, pb.SEAT_KIND_BOT):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"seat {index}: kind {config.kind} is not a SeatKind (SEAT_KIND_OPEN or SEAT_KIND_BOT)",
            field="seats",
        )
    if config.kind == pb.SEAT_KIND_BOT:
        if not config.strategy:
            raise ServiceError(
                ErrorReason.UNKNOWN_STRATEGY, f"seat {index} is a bot seat without a strategy", field="seats"
            )
        if len(config.strategy) > MAX_STRATEGY_LENGTH:
            raise ServiceError(
                ErrorReason.UNKNOWN_STRATEGY,
                f"seat {index}: no bot strategy has a name of {len(config.strategy)} characters",
                field="seats",
            )
        return SeatSpec(bot=True, strategy=config.strategy)
    if config.strategy:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT, f"seat {index} is open but names a strategy", field="seats"
        )
    return SeatSpec(bot=False)
