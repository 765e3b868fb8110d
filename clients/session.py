"""A small typed client of the Thousand server (``thousand.v1.TableService``) over ``grpc.aio``.

:class:`TableSession` is one connection to a server and, once it has joined (or is watching) a table, one seat
at it. It speaks the engine's language of the table's game, whichever it is: events come as the engine's
events, views as its views, legal actions and submitted actions as its actions, decoded by the game's entry
in :mod:`clients.games` with the mapping the server uses too (:mod:`codec`). Its stream yields
:class:`~clients.messages.Snapshot` and :class:`~clients.messages.EventMessage` carrying a
:class:`~clients.messages.Turn`, typed by the game's values (:mod:`engine` for Thousand,
:mod:`engine.blagogo` for 1000 Blagogo). :meth:`TableSession.create_table` takes any game's rules,
:meth:`TableSession.submit` any game's action, and :meth:`TableSession.list_tables` lists every game unless
asked for one.

What it takes care of:

- **Streams** (:meth:`TableSession.stream`): a snapshot, then every event with its sequence number and, on the
  last message of each batch, the Turn. It remembers the last sequence seen, and when the connection drops
  (or the server restarts its streams) it reconnects with exponential backoff and resumes with
  ``after_sequence``, so no event is lost or repeated. A mid-stream snapshot (the server's resync of a lagging
  stream) is turned into a resume too, so a client sees every event.
- **Actions** (:meth:`TableSession.submit`): a fresh ``request_id`` per action and the ``last_seen_sequence``;
  a call that fails with UNAVAILABLE (or times out) is retried with the same ``request_id``, which the server
  applies at most once.
- **Clusters** (:mod:`clients.routing`): ``address`` may name several of a cluster's nodes
  (``"a:50051,b:50051"``). A refusal that says the table is served elsewhere (TABLE_ELSEWHERE) is followed to
  the owner's endpoint, one that says it is moving (TABLE_MOVING) is retried after its delay, and an
  unreachable node is left for the next known one; streams resume on the new owner after the last sequence
  seen, actions are retried with the same ``request_id``.
- **Fair deals**: :meth:`TableSession.join` adds a seed of the seat's own to the deals, after reading the
  table's commitment, and :attr:`TableSession.deals` checks every deal the stream reveals against them
  (:mod:`clients.fairness`, :mod:`engine.verify`), the deal in progress when the stream started from a
  snapshot included (``Snapshot.deal``); :meth:`TableSession.deal_news` says what was checked.
- **Errors**: every refusal is a :class:`~clients.errors.ServerError` carrying the gRPC code, the
  ``ErrorInfo`` reason (e.g. ``ILLEGAL_ACTION``), its ``rule`` metadata (e.g. ``MUST_FOLLOW_SUIT``) and the
  server's message.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterable, Sequence
from types import TracebackType
from typing import Any, Final, TypeVar

import grpc
from grpc import aio

from clients.backoff import Backoff
from clients.calls import Calls
from clients.connection import CHANNEL_OPTIONS, DEFAULT_SERVER, Connection, in_words
from clients.errors import TRY_AGAIN, ServerError, StreamGaveUpError, refusal_error
from clients.fairness import SeatDeals, new_client_seed
from clients.games import AnyGame, GameAction, GameRules, encode_action, game_of_rules
from clients.messages import ConnectionLost, EventMessage, Reconnected, Snapshot, StreamItem, Turn
from clients.place import Place, ResyncError
from clients.routing import Route
from clients.seats import KeptSeat, SeatKeeper
from clients.streams import PlayCall, PlayLostError, play_updates, unbatched
from engine.verify import DealChecker
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TOKEN_METADATA: Final = "x-seat-token"

OPEN: Final = None
"""In :meth:`TableSession.create_table`'s ``seats``: a seat for a person (or any client) to take."""

T = TypeVar("T")

__all__ = [
    "CHANNEL_OPTIONS",
    "DEFAULT_SERVER",
    "OPEN",
    "TOKEN_METADATA",
    "Connection",
    "TableSession",
    "new_invite_code",
]


def new_invite_code() -> str:
    """A private table's invite code (CreateTableRequest.invite_code): 24 random bytes in base64url, drawn
    from a secure source, so that nobody guesses it."""
    return secrets.token_urlsafe(24)


class TableSession:
    """One connection to a server and, after :meth:`join` or :meth:`watch`, one seat (or a spectator's place).

    Use as ``async with TableSession(address) as session:``. Lobby calls (:meth:`create_table`,
    :meth:`list_tables`, :meth:`get_table`) need no table; :meth:`stream`, :meth:`submit` and :meth:`leave`
    work on the table joined or watched.
    """

    def __init__(
        self,
        address: str | Connection = DEFAULT_SERVER,
        *,
        backoff: Backoff | None = None,
        channel: aio.Channel | None = None,
        keeper: SeatKeeper | None = None,
    ) -> None:
        self.connection = address if isinstance(address, Connection) else Connection(address)
        self.address = self.connection.address
        self.backoff = backoff or Backoff()
        self.keeper = keeper
        """Where the seats joined are kept, to come back to them (:mod:`clients.seats`); None: nowhere."""
        self.resumed = False
        """Whether :meth:`join` came back to a seat kept from before rather than taking a new one."""
        self.route = Route(self.connection, channel=channel)
        """The cluster's nodes this session knows, and the one its calls go to."""
        self._calls = Calls(self.connection, self.backoff, self.route)
        self._at = Place()
        self.use_play = True
        """A seated session streams over Play and sends its actions on that stream while it is open (one
        message each instead of a SubmitAction call); off for a server that has no Play (UNIMPLEMENTED)."""
        self._play: PlayCall | None = None
        self._deals = SeatDeals()
        self.invite_code = ""
        """The invite of the private table this session created or joined with one (to share)."""

    async def __aenter__(self) -> TableSession:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self.route.close()

    @property
    def _stub(self) -> pb_grpc.TableServiceAsyncStub:
        """The stub of the node calls go to now (read at each call: a redirect changes it)."""
        return self.route.stub

    # ------------------------------------------------------------------ where we sit

    @property
    def table_id(self) -> str | None:
        return self._at.table_id

    @property
    def seat(self) -> int | None:
        """The seat taken, or None for a spectator (or before joining)."""
        return self._at.seat

    @property
    def seat_token(self) -> str | None:
        """The seat's secret token (keep it to come back to the seat with :meth:`attach`)."""
        return self._at.token

    @property
    def last_sequence(self) -> int | None:
        """The sequence number of the last event (or snapshot) the stream delivered."""
        return self._at.last_sequence

    def attach(
        self,
        table_id: str,
        seat: int | None = None,
        token: str | None = None,
        after_sequence: int | None = None,
    ) -> None:
        """Take up a known place without a call: a seat whose token is kept, resuming after a sequence.

        The table is described again by the server when the stream starts (its game says how to read it)."""
        self._at = Place(table_id, seat, token, after_sequence)

    @property
    def deals(self) -> DealChecker:
        """Checks every deal the stream reveals, and a fair table's secret at the end (:mod:`engine.verify`:
        ``verified``, ``problems``, ``secret_checked``); set up by :meth:`join` and :meth:`watch`."""
        return self._deals.checker

    def deal_news(self) -> list[str]:
        """What :attr:`deals` checked since the last call, in lines to show: "deal 3 verified: …", or
        "FAILED verification: …" (the same whether the stream saw the deal begin or started from a snapshot
        taken during it)."""
        return self._deals.news()

    @property
    def client_seed(self) -> str | None:
        """The seed this seat added to the deals (JoinTableRequest.client_seed): see :meth:`join`."""
        return self._deals.client_seed

    @property
    def game(self) -> AnyGame:
        """The game of the table joined or watched (see :mod:`clients.games`)."""
        return self._at.game

    @property
    def table(self) -> pb.Table | None:
        """The table as last described by the server (join, watch, a snapshot)."""
        return self._at.table

    @property
    def turn(self) -> Turn[Any, Any] | None:
        """The latest Turn the stream carried (of the table's game)."""
        return self._at.turn

    @property
    def finished(self) -> bool:
        """Whether the game's GameOver event has been seen (the stream then ends)."""
        return self._at.finished

    @property
    def handed_over(self) -> bool:
        """Whether an operator handed this session's seat to the server's bot (AdminService.HandSeatToBot):
        the stream ended after saying so, and the seat is no longer this client's."""
        return self._at.handed_over

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return ((TOKEN_METADATA, self._at.token),) if self._at.token else ()

    def _table_id(self) -> str:
        if self._at.table_id is None:
            raise RuntimeError("join or watch a table first")
        return self._at.table_id

    # ------------------------------------------------------------------ calls

    async def create_table(
        self,
        rules: GameRules,
        seats: Sequence[str | None],
        *,
        seed: int | None = None,
        first_dealer: int | None = None,
        practice: bool = False,
        time_control: pb.TimeControl | None = None,
        unlisted: bool = False,
        invite_code: str = "",
        reservations: Sequence[tuple[int, str]] = (),
        rated: bool = False,
    ) -> pb.Table:
        """A new table of the game whose rules are given (:class:`~engine.Rules` for Thousand,
        :class:`~engine.blagogo.BlagogoRules` for 1000 Blagogo); ``seats``: one entry per seat, :data:`OPEN`
        or a bot strategy's name; ``time_control``: a turn clock, what a timeout does, the bots' pace. Its
        deals are fair, unless a ``seed`` makes it a seeded table (with an open seat, only with
        ``practice``: CreateTableRequest.practice). A private table (docs/protocol.md, "Private tables"):
        ``unlisted`` keeps it out of the lists of all but its players, ``invite_code`` (see
        :func:`new_invite_code`) must then come with every JoinTable, and ``reservations`` hold seats for
        players by id, (seat, player_id). ``rated``: its end changes its players' ratings (docs/protocol.md,
        "Ratings": fair, every seat open and taken by a signed-in player, or every seat a bot)."""
        game = game_of_rules(rules)
        request = pb.CreateTableRequest(
            game=game.kind,
            rules=game.encode_rules(rules),
            seats=[
                pb.SeatConfig(kind=pb.SEAT_KIND_OPEN)
                if strategy is None
                else pb.SeatConfig(kind=pb.SEAT_KIND_BOT, strategy=strategy)
                for strategy in seats
            ],
        )
        if seed is not None:
            request.seed = seed
        if first_dealer is not None:
            request.first_dealer = first_dealer
        if time_control is not None:
            request.time_control.CopyFrom(time_control)
        request.practice = practice
        request.unlisted = unlisted
        request.rated = rated
        request.invite_code = self.invite_code = invite_code
        for reserved_seat, player_id in reservations:
            request.reservations.add(seat=reserved_seat, player_id=player_id)
        request.request_id = uuid.uuid4().hex  # so a retry after a lost reply gets the same table back
        response = await self._calls(
            lambda: self._stub.CreateTable(request, timeout=self._calls.timeout), retry=True
        )
        self.route.go(response.table.endpoint)  # in a cluster: where the table is served
        return self._deals.seen(response.table)

    async def list_tables(
        self,
        *,
        only_open_seats: bool = False,
        limit: int = 100,
        game: pb.GameKind.ValueType = pb.GAME_KIND_UNSPECIFIED,
    ) -> list[pb.Table]:
        """Tables of every game (or of ``game`` only), newest first (every page, up to ``limit``)."""
        tables: list[pb.Table] = []
        token = ""
        while len(tables) < limit:
            request = pb.ListTablesRequest(
                game=game,
                only_open_seats=only_open_seats,
                page_size=min(100, limit - len(tables)),
                page_token=token,
            )
            page = await self._list_page(request)
            tables.extend(self._deals.seen(t) for t in page.tables)
            token = page.next_page_token
            if not token:
                break
        return tables[:limit]

    async def _list_page(self, request: pb.ListTablesRequest) -> pb.ListTablesResponse:
        return await self._calls(
            lambda: self._stub.ListTables(request, timeout=self._calls.timeout), retry=True
        )

    async def get_table(self, table_id: str | None = None) -> pb.Table:
        """One table (by default the one joined or watched)."""
        request = pb.GetTableRequest(table_id=table_id or self._table_id())
        response = await self._calls(
            lambda: self._stub.GetTable(request, timeout=self._calls.timeout), retry=True
        )
        return self._deals.seen(response.table)

    async def join(
        self,
        table_id: str,
        seat: int | None = None,
        name: str = "",
        *,
        resume: bool = True,
        client_seed: str | None = None,
        invite_code: str = "",
    ) -> int:
        """Take a seat (any free open seat when ``seat`` is None); returns the seat taken.

        The seat token is drawn here and sent with the request, so a retry after a lost reply gets the same
        seat back instead of taking a second one (JoinTableRequest.seat_token). So is the seat's own seed for
        the deals (``client_seed``, by default a fresh random one), after the table's commitment was read:
        :attr:`deals` then checks every deal against both. With a :attr:`keeper`, the token and the seed are
        kept, and a seat kept at this table before (``seat``, if given) is taken back with its own token
        instead (``resume``): the server returns the seat the token holds, as it was, name and all
        (:attr:`resumed` says so). A kept seat someone else took since is forgotten, and a free one taken.
        ``invite_code``: the invite of a private table (JoinTableRequest.invite_code).
        """
        self.resumed = False
        kept = self.keeper.find(self.connection.key, table_id, seat) if self.keeper and resume else None
        if self.keeper is not None and kept is not None:
            before = await self.get_table(table_id)
            held = 0 <= kept.seat < len(before.seats) and before.seats[kept.seat].taken
            seed = kept.client_seed or new_client_seed()
            try:
                since = kept.joined_at if held else None
                taken = await self._join(
                    before, kept.seat, name or kept.name, kept.token, seed=seed, joined_at=since,
                    invite_code=invite_code,
                )  # fmt: skip
            except ServerError as error:
                if error.reason not in ("SEAT_TAKEN", "TABLE_FULL", "SEAT_NOT_OPEN", "SEAT_FORFEITED"):
                    raise
                self.keeper.forget(kept.server, table_id, kept.seat)  # someone else sits there now
            else:
                self.resumed = held  # a taken seat the token joined is the token's own: back in it
                return taken
        before = self._deals.read_before(table_id) or await self.get_table(table_id)
        seed = client_seed if client_seed is not None else new_client_seed()
        token = secrets.token_urlsafe(32)
        return await self._join(before, seat, name, token, seed=seed, joined_at=None, invite_code=invite_code)

    async def _join(
        self,
        before: pb.Table,
        seat: int | None,
        name: str,
        token: str,
        *,
        seed: str,
        joined_at: int | None,
        invite_code: str = "",
    ) -> int:
        """JoinTable with this token and seed; the seat's deals checked from ``joined_at`` (when it was first
        taken; by default now)."""
        table_id = before.table_id
        self.route.go(before.endpoint)  # in a cluster: its owner (a refusal redirects, if it moved since)
        request = pb.JoinTableRequest(
            table_id=table_id,
            player_name=name,
            seat_token=token,
            client_seed=seed,
            invite_code=invite_code,
        )
        if seat is not None:
            request.seat = seat
        response = await self._calls(
            lambda: self._stub.JoinTable(request, timeout=self._calls.timeout), retry=True
        )
        self.attach(table_id, response.seat, response.seat_token)
        self._at.table = response.table
        self.invite_code = invite_code or self.invite_code
        since = response.table.sequence if joined_at is None else joined_at
        self._deals.joined(before, response.table, response.seat, seed, since)
        if self.keeper is not None:
            held = response.table.seats[response.seat].player_name if response.table.seats else name
            kept = KeptSeat(
                self.connection.key, table_id, response.seat, response.seat_token, held or name,
                client_seed=seed, joined_at=since,
            )  # fmt: skip
            self.keeper.keep(kept)
        return response.seat

    async def reclaim(self) -> pb.Table:
        """Take the seat back from the server's bot that plays it since its time ran out (ReclaimSeat);
        SEAT_FORFEITED when it forfeited. Any action of the seat does it too."""
        request = pb.ReclaimSeatRequest(table_id=self._table_id())
        metadata = self._metadata()
        response = await self._calls(
            lambda: self._stub.ReclaimSeat(request, metadata=metadata, timeout=self._calls.timeout),
            retry=True,
        )
        return response.table

    async def export(self, table_id: str | None = None) -> str:
        """A finished table's game record, the JSON document of ``thousand-export`` (ExportTable)."""
        request = pb.ExportTableRequest(table_id=table_id or self._table_id())
        response = await self._calls(
            lambda: self._stub.ExportTable(request, timeout=self._calls.timeout), retry=True
        )
        return response.record_json

    async def watch(self, table_id: str) -> pb.Table:
        """Follow a table as a spectator (public information only); checks that the table exists."""
        table = await self.get_table(table_id)
        self.route.go(table.endpoint)
        self.attach(table_id)
        self._at.table = table
        self._deals.watching(table)
        return table

    async def leave(self) -> pb.Table:
        """Give the seat up; it becomes open again."""
        request = pb.LeaveTableRequest(table_id=self._table_id())
        metadata = self._metadata()
        response = await self._calls(
            lambda: self._stub.LeaveTable(request, metadata=metadata, timeout=self._calls.timeout),
            retry=False,
        )
        if self.keeper is not None and self._at.seat is not None:
            self.keeper.forget(self.connection.key, self._table_id(), self._at.seat)
        self._at.token = None
        self._at.seat = None
        return response.table

    async def submit(
        self, action: GameAction, *, last_seen_sequence: int | None = None, check: bool = True
    ) -> int:
        """Submit the seat's action (of the table's game); returns the sequence of the last event it produced.

        The action is sent with a fresh ``request_id`` and, when ``check`` is set, the ``last_seen_sequence``
        (by default the last one the stream delivered), so an action meant for a state the table has left is
        refused with STALE_SEQUENCE. While :meth:`stream` runs over Play it goes on that stream; otherwise,
        or when that stream drops before the result comes, as a SubmitAction call, whose transport failures
        are retried with the same ``request_id``. A refusal that applied nothing and asks to try again
        (RATE_LIMITED, after its retry delay; STORE_UNAVAILABLE, with backoff) is retried the same way.
        """
        started = time.monotonic()
        delays = self.backoff.delays()
        request = self._action_request(action, last_seen_sequence, check)
        while True:
            try:
                return await self._submit(request)
            except ServerError as error:
                if error.reason not in TRY_AGAIN or self._calls.given_up(started):
                    raise
                delay = next(delays)
                await asyncio.sleep(max(delay, error.retry_delay or 0.0))

    def _action_request(
        self, action: GameAction, last_seen_sequence: int | None, check: bool
    ) -> pb.SubmitActionRequest:
        request = pb.SubmitActionRequest(
            table_id=self._table_id(),
            request_id=uuid.uuid4().hex,
            action=encode_action(action),
        )
        seen = last_seen_sequence if last_seen_sequence is not None else self._at.last_sequence
        if check and seen is not None:
            request.last_seen_sequence = seen
        return request

    async def _submit(self, request: pb.SubmitActionRequest) -> int:
        """One attempt: on the Play stream while one is open, else (or when it drops) SubmitAction."""
        play = self._play
        if play is not None:
            seen = request.last_seen_sequence if request.HasField("last_seen_sequence") else None
            try:
                result = await play.act(request.request_id, seen, request.action)
            except PlayLostError:
                pass  # the stream dropped meanwhile: the same request_id through SubmitAction, applied once
            else:
                if result.HasField("refusal"):
                    raise refusal_error(result.refusal)
                return result.sequence
        metadata = self._metadata()
        response = await self._calls(
            lambda: self._stub.SubmitAction(request, metadata=metadata, timeout=self._calls.timeout),
            retry=True,
        )
        return response.sequence

    # ------------------------------------------------------------------ the stream

    async def stream(self, *, from_start: bool = False) -> AsyncGenerator[StreamItem, None]:
        """The table's messages for this seat (or spectator), resumed across dropped connections.

        The first message is a :class:`Snapshot`, unless ``from_start`` asks for every event of the table from
        the first one instead (filtered for this seat, T-33), or the session resumes (:meth:`attach`). Ends
        after the game's GameOver event (or TableStopped, when the server stopped the table). Raises
        :class:`ServerError` for a refusal (an unknown table, a revoked seat token) and
        :class:`StreamGaveUpError` when the server stays unreachable longer than the backoff allows.
        """
        if self.table is None or self.table.table_id != self._table_id():
            self._at.table = await self.get_table()  # after attach: its game says how to read its events
        if from_start and self._at.last_sequence is None:
            self._at.last_sequence = 0
        attempt = 0
        failing_since: float | None = None
        delays = self.backoff.delays()
        reconnecting = False
        while True:
            resumed_after = self._at.last_sequence
            call, batches = self._open_stream(resumed_after)
            error: ServerError
            moved: float | None = None
            try:
                await call.wait_for_connection()
                self._calls.reached = True
                if reconnecting:
                    attempt, failing_since, delays = 0, None, self.backoff.delays()
                    reconnecting = False
                    yield Reconnected(resumed_after)
                async for batch in batches:
                    for message in unbatched(batch):
                        item = self._at.accept(message)
                        if isinstance(item, EventMessage):
                            self._deals.see(item.event, item.sequence)
                        elif isinstance(item, Snapshot):
                            self._deals.caught_up(item.deal)  # the deal in progress, checked all the same
                        if item is not None:
                            yield item
                if self.finished or self.handed_over:
                    return
                error = ServerError(grpc.StatusCode.UNAVAILABLE, "the server ended the stream")
            except ResyncError:
                continue
            except aio.AioRpcError as rpc_error:
                error = ServerError.from_rpc(rpc_error)
                if error.code is grpc.StatusCode.UNIMPLEMENTED and self._play is not None:
                    self.use_play = False  # a server without Play: StreamEvents and SubmitAction
                    continue
                moved = self.route.follow(error)
                if moved is not None:  # served elsewhere now: resume there, after the last event seen
                    if moved == 0.0:
                        reconnecting = True
                        continue
                elif not error.retryable:
                    raise error from None
            finally:
                call.cancel()
                self._play = None
            if self.finished:
                return
            now = time.monotonic()
            failing_since = now if failing_since is None else failing_since
            if self._calls.given_up(failing_since):
                words = in_words(error, self.connection)
                raise StreamGaveUpError(
                    error.code, f"could not reconnect to {self.address}: {words}", error.reason
                )
            attempt += 1
            delay = max(next(delays), moved or 0.0)
            reconnecting = True
            yield ConnectionLost(error, attempt, delay)
            await asyncio.sleep(delay)

    def _open_stream(self, after: int | None) -> tuple[aio.Call, AsyncIterable[pb.StreamEventsResponse]]:
        """The call the stream runs on and its messages: Play for a seat (see :attr:`use_play`), else
        StreamEvents with batches; resuming after ``after`` when set."""
        if self.use_play and self._at.token is not None:
            play = self._play = PlayCall()
            start = pb.PlayRequest()
            start.start.table_id = self._table_id()
            if after is not None:
                start.start.after_sequence = after
            call = self._stub.Play(play.requests(start), metadata=self._metadata())
            return call, play_updates(call, play)
        request = pb.StreamEventsRequest(table_id=self._table_id(), batch_events=True)
        if after is not None:
            request.after_sequence = after
        events = self._stub.StreamEvents(request, metadata=self._metadata())
        return events, events
