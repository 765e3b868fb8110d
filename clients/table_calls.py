"""The calls of a :class:`~clients.session.TableSession` that are one request and one reply: the lobby's
(create, list, get a table; a finished table's record) and the seat's (join, watch, reclaim, leave), with
where the session sits at its table.

:class:`TableCalls` is the session's lower half: one connection to a server (a cluster's nodes, followed by
:class:`~clients.routing.Route`), the seat or spectator's place, and the checks of the deals it sees. What
runs on a stream, the table's messages and the actions sent on them, is :class:`~clients.session.TableSession`
(:mod:`clients.session`), built on it.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Final, Self

from grpc import aio

from clients.backoff import Backoff
from clients.calls import Calls
from clients.connection import DEFAULT_SERVER, Connection
from clients.errors import ServerError
from clients.fairness import SeatDeals, new_client_seed
from clients.games import AnyGame, GameRules, game_of_rules
from clients.messages import Turn
from clients.place import Place
from clients.routing import Route
from clients.seats import KeptSeat, SeatKeeper
from engine.verify import DealChecker
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import table_service_pb2_grpc as pb_grpc

TOKEN_METADATA: Final = "x-seat-token"

OPEN: Final = None
"""In :meth:`TableCalls.create_table`'s ``seats``: a seat for a person (or any client) to take."""


INVITE_OPTION: Final = "--invite"
"""The command-line option that carries an invite code (``thousand join``, ``thousand-bot play``)."""


def new_invite_code() -> str:
    """A private table's invite code (CreateTableRequest.invite_code): 24 random bytes in base64url, drawn
    from a secure source, so that nobody guesses it; drawn again while it begins with "-", so that the
    command the creator is shown (``thousand join TABLE --invite CODE``) works as pasted in any shell tool."""
    while (code := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return code


def invite_attached(argv: Sequence[str]) -> list[str]:
    """``argv`` with each ``--invite CODE`` written ``--invite=CODE``.

    A base64url code may begin with "-" (the web client's do, one in 64), and argparse takes such a value for
    an option ("argument --invite: expected one argument"); attached, it is the option's value whatever it
    begins with. Nothing after ``--`` is touched.

    >>> invite_attached(["join", "t1", "--invite", "-x9", "--plain"])
    ['join', 't1', '--invite=-x9', '--plain']
    """
    attached: list[str] = []
    rest = iter(argv)
    for arg in rest:
        if arg == "--":
            attached += [arg, *rest]
            break
        value = next(rest, None) if arg == INVITE_OPTION else None
        attached.append(arg if value is None else f"{arg}={value}")
    return attached


class TableCalls:
    """One connection to a server and, after :meth:`join` or :meth:`watch`, one seat (or a spectator's place):
    the calls that need no stream. Used through :class:`~clients.session.TableSession`, which adds the
    stream and the actions.
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
        self._deals = SeatDeals()
        self.invite_code = ""
        """The invite of the private table this session created or joined with one (to share)."""

    async def __aenter__(self) -> Self:
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
        """A finished table's game record, the JSON document of ``thousand-export``, read in parts
        (StreamTableRecord): a long game's record is more than one message may carry. A failed read is
        retried whole."""
        request = pb.StreamTableRecordRequest(table_id=table_id or self._table_id())

        async def read() -> str:
            parts = [
                response.record_part
                async for response in self._stub.StreamTableRecord(request, timeout=self._calls.timeout)
            ]
            return b"".join(parts).decode()

        return await self._calls(read, retry=True)

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
