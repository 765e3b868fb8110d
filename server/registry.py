"""All tables of a server: creating, finding and listing them (newest first, paginated, by game).

The tables are held in memory and rebuilt from the store on a restart, or when this node takes one over in a
cluster; expired tables leave memory and stay in the store. A CreateTable retried with its request_id gets
the table it made (:mod:`server.creations`).
"""

from __future__ import annotations

import base64
import binascii
import secrets
import time
from collections.abc import Callable
from typing import Final, Protocol

from engine.seeds import SECRET_BYTES
from server.creations import CREATE_REQUEST_WINDOW, CreateRequests, Creation, SeatSpec
from server.errors import ErrorReason, ServiceError
from server.games import AnyAdapter, adapter_for_name, adapter_for_rules
from server.identity.values import Privacy
from server.logs import get_logger
from server.pacing import BotPacer
from server.quotas import Holding, TableQuotas
from server.ratings.rater import Rater
from server.stalls import StallWatch
from server.store import Store, StoredTable, StoreError, TableConfig
from server.table import Table
from server.table_state import SeatState
from server.telemetry import Telemetry
from server.time_control import TimeControl
from thousand.v1 import table_service_pb2 as pb

DEFAULT_PAGE_SIZE: Final = 20
MAX_PAGE_SIZE: Final = 100
log = get_logger("thousand.registry")


class Directory(Protocol):
    """Every table of a cluster, as any node sees it: the tables it holds, and the others' in the database."""

    async def refusal(self, table_id: str) -> ServiceError:
        """Why this node does not serve a table: TABLE_ELSEWHERE (where), TABLE_MOVING or TABLE_NOT_FOUND."""
        ...

    async def describe(self, table_id: str) -> pb.Table:
        """A table this node does not hold, as its owner last published it (TABLE_NOT_FOUND: none)."""
        ...

    async def page(
        self, only_open: bool, page_size: int, before: int | None, game: AnyAdapter | None
    ) -> tuple[list[pb.Table], int | None]:
        """One page of every node's tables, newest first, and the serial of its last when more follow."""
        ...

    async def created(self, request_id: str, digest: str, window: float) -> pb.Table | None:
        """The table a CreateTable with this request_id made on any node in the last ``window`` seconds;
        REQUEST_ID_REUSED when that request's ``digest`` (:func:`server.creations.creation_digest`) was
        another."""
        ...

    async def held_elsewhere(self, client: str) -> list[Holding]:
        """The unfinished tables ``client`` created that this node does not hold (for its quotas)."""
        ...

    async def place(self, table: Table) -> pb.Table:
        """Keep a new table here or hand it to the least loaded node; the table as its creator sees it."""
        ...

    def vouches(self) -> bool:
        """Whether this node may answer as the owner of the tables it holds: no other node can have taken
        them over (its lease is surely valid); when not, it answers for them as for any other."""
        ...

    async def tell_owner_claimed(self, table_id: str) -> None:
        """Tell the table's owner that seats of it were claimed on this node, for its own log."""
        ...


class Registry:
    """The server's tables, kept in ``store`` when there is one."""

    def __init__(
        self,
        store: Store | None = None,
        telemetry: Telemetry | None = None,
        *,
        quotas: TableQuotas | None = None,
        pacer: BotPacer | None = None,
        stalls: StallWatch | None = None,
    ) -> None:
        self._tables: dict[str, Table] = {}
        self._serial = 0
        self.store = store
        self.quotas = quotas if quotas is not None else TableQuotas()
        self.pacer = pacer if pacer is not None else BotPacer()
        """Every table's bot work takes its turns from this one queue."""
        self.stalls = stalls if stalls is not None else StallWatch()
        """The server's stall watch, for every table's turn clock."""
        self.telemetry = telemetry if telemetry is not None else Telemetry(quiet=True)
        self._holders: dict[str, Holding] = {}
        """table id -> who created it and whether it is of bots only (the quotas' view of each table)."""
        self._creating: list[Holding] = []
        """Tables being created, waiting for their commit: they count against the quotas already."""
        self.left_in_store = 0
        """Stored tables ``restore`` did not rebuild: finished longer ago than the idle time, or expired."""
        self._requests = CreateRequests()
        """This node's recent CreateTable request_ids: a retry gets the table its request made."""
        self.on_finish: Callable[[Table], None] | None = None
        """Given to every table it holds (Table.on_finish): the players' history keeps their results."""
        self.directory: Directory | None = None
        """In a cluster, where the tables this node does not hold are (:mod:`server.cluster`)."""
        self.rater = Rater(store, None, self.telemetry)
        """Rated tables' updates at their end (the server gives it the players' store: ``rater.owners``)."""

    def restore(self, idle_seconds: float = 0.0, now: float | None = None) -> int:
        """Rebuild the stored tables by replaying their records; returns how many were rebuilt.

        With ``idle_seconds`` (the server's ``--table-idle-seconds``; 0: every table), a table whose game
        ended longer ago than that, or that a running server dropped from memory as idle (``expire``, noted
        in the store: abandoned games too), is left in the store, not rebuilt: replaying them would only make
        every restart slower as old games pile up, and bring back tables clients already saw disappear. Their
        records stay, for ``thousand-export`` and ExportTable. ``now``: the Unix time (for tests).
        """
        if self.store is None:
            return 0
        now = time.time() if now is None else now
        finished_before = now - idle_seconds if idle_seconds > 0 else None
        self._serial = max(self._serial, self.store.max_serial())  # new tables come after the ones left out
        count = 0
        for stored in self.store.tables(finished_before=finished_before, snapshots=True):
            self.adopt(stored, now)
            count += 1
        self.left_in_store = self.store.count() - count
        return count

    def adopt(self, stored: StoredTable, now: float | None = None) -> Table:
        """Rebuild a stored table by replaying its records and hold it: on a restart (``restore``), or when
        this node takes the table over from another (:mod:`server.cluster`)."""
        assert self.store is not None
        now = time.time() if now is None else now
        config = stored.config
        adapter = adapter_for_name(config.game)
        rules = adapter.rules_from_bytes(config.rules)
        seats = [SeatSpec(bot=bot, strategy=strategy) for bot, strategy in config.seats]
        _check_strategies(adapter, seats)
        table: Table = Table(
            stored.table_id,
            serial=stored.serial,
            adapter=adapter,
            rules=rules,
            seats=[SeatState(bot=s.bot, strategy=s.strategy) for s in seats],
            seed=config.seed,
            first_dealer=config.first_dealer,
            store=self.store,
            create_time=stored.create_time,
            time_control=config.time_control,
            pacer=self.pacer,
            stalls=self.stalls,
            seeded=config.seeded,
            secret=config.secret,
            privacy=config.privacy,
            rated=config.rated,
        )
        table.ratings.rater = self.rater
        if config.request_id and now - stored.create_time < CREATE_REQUEST_WINDOW:
            self._requests.remember(
                config.request_id, stored.table_id, stored.create_time, config.request_digest
            )
        table.replay(stored.records, stored.snapshot)
        if table.finished and stored.finish_time is None:
            # Finished before the server noted finish times (or the note was lost): from now on, then.
            self.store.mark_finished(table.table_id, now)
        table.telemetry = self.telemetry  # rebuilt quietly; reported on from now on
        self.telemetry.table_restored(table)
        table.on_finish = self.on_finish
        self._tables[table.table_id] = table
        self._holders[table.table_id] = Holding(config.creator, all(s.bot for s in seats))
        self._serial = max(self._serial, stored.serial)
        return table

    def drop(self, table_id: str, failure: ServiceError) -> Table | None:
        """Let go of a table another node owns now: out of memory, its clock and bots stopped, its streams
        ended with ``failure`` (where it went, or that it is moving). Its records stay in the store."""
        table = self._tables.pop(table_id, None)
        self._holders.pop(table_id, None)
        if table is not None:
            table.close_streams(failure)
            table.on_change = table.on_lost = None
        return table

    def __len__(self) -> int:
        return len(self._tables)

    def all(self) -> list[Table]:
        return list(self._tables.values())

    async def create(
        self,
        rules: object,
        seats: list[SeatSpec],
        seed: int | None,
        first_dealer: int | None,
        time_control: TimeControl | None = None,
        *,
        request_id: str = "",
        client: str = "",
        privacy: Privacy | None = None,
        rated: bool = False,
        secret: bytes | None = None,
    ) -> Table:
        """A new table playing the game whose engine rules ``rules`` are (Thousand's or 1000 Blagogo's),
        created by ``client`` (:func:`server.requests.client_of`; "": nobody's, for the totals only).

        With a ``request_id`` seen in the last :data:`~server.creations.CREATE_REQUEST_WINDOW` seconds, the
        table that request created (or is creating) is returned instead: the client's retry after a lost
        reply. The same request_id with a different request is REQUEST_ID_REUSED, as for SubmitAction.
        ``secret``: a fair table's secret chosen by the server itself (the ladder's sets deal the same deals
        at each of their tables); None: one drawn for the table.
        """
        new = Creation(
            rules,
            seats,
            seed,
            first_dealer,
            time_control,
            request_id,
            client,
            privacy,
            rated=rated,
            secret=secret,
        )
        if not request_id:
            return await self._create(new, "")
        digest = new.digest()
        earlier = self._requests.created_before(request_id, digest, self._tables)
        if earlier is not None:
            return earlier
        return await self._requests.once(request_id, digest, lambda: self._create(new, digest))

    def holdings(self) -> list[Holding]:
        """The quotas' view of every unfinished table, and of those being created."""
        held = [self._holders[t.table_id] for t in self._tables.values() if not t.finished]
        return held + self._creating

    async def _create(self, new: Creation, digest: str) -> Table:
        rules, seats, seed, first_dealer = new.rules, new.seats, new.seed, new.first_dealer
        adapter = adapter_for_rules(rules)
        players = adapter.players(rules)
        holding = Holding(new.client, bool(seats) and all(s.bot for s in seats))
        try:
            # In a cluster, a client's share counts its tables on every node; the totals are this node's.
            elsewhere = (
                await self.directory.held_elsewhere(new.client) if self.directory and new.client else []
            )
            self.quotas.check(self.holdings(), new.client, holding.bots_only, elsewhere=elsewhere)
        except ServiceError as error:
            self.telemetry.limit_refused(error.metadata.get("limit", "tables"))
            raise
        if len(seats) != players:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"{len(seats)} seats given for {players} players",
                field="seats",
            )
        _check_strategies(adapter, seats)
        if first_dealer is not None and not 0 <= first_dealer < players:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"first_dealer {first_dealer} is not a seat of {players}",
                field="first_dealer",
            )
        self._serial += 1
        serial = self._serial  # other tables may be created while this one's commit is awaited
        table_id = secrets.token_hex(6)
        states = [SeatState(bot=s.bot, strategy=s.strategy) for s in seats]
        # A creator's seed deals predictable cards (a practice table, marked seeded); otherwise the deals come
        # from a secret of the table's own (engine.seeds.FairDeals), and the seed only seeds its bots.
        seeded = seed is not None
        secret = b"" if seeded else new.secret or secrets.token_bytes(SECRET_BYTES)
        seed = seed if seed is not None else secrets.randbits(63)
        create_time = time.time()
        if self.store is not None:
            config = TableConfig(
                rules=adapter.rules_to_bytes(rules),
                seats=[(s.bot, s.strategy) for s in seats],
                seed=seed,
                first_dealer=first_dealer,
                game=adapter.name,
                time_control=new.time_control,
                request_id=new.request_id,
                request_digest=digest,
                seeded=seeded,
                secret=secret,
                creator=new.client,
                privacy=new.privacy,
                rated=new.rated,
            )
            self._creating.append(holding)
            try:
                serial = await self.store.create_table(table_id, serial, create_time, config)
            except StoreError as error:
                log.error("table not stored", table_id=table_id, error=str(error))
                raise ServiceError(
                    ErrorReason.STORE_UNAVAILABLE,
                    "the table could not be stored, so it was not created; retry later",
                ) from None
            finally:
                self._creating.remove(holding)
        self.telemetry.table_created(table_id, len(seats), sum(1 for s in seats if s.bot), game=adapter.name)
        table: Table = Table(
            table_id,
            serial=serial,
            adapter=adapter,
            rules=rules,
            seats=states,
            seed=seed,
            first_dealer=first_dealer,
            store=self.store,
            create_time=create_time,
            telemetry=self.telemetry,
            time_control=new.time_control,
            pacer=self.pacer,
            stalls=self.stalls,
            seeded=seeded,
            secret=secret,
            privacy=new.privacy,
            rated=new.rated,
        )
        table.on_finish = self.on_finish
        table.ratings.rater = self.rater
        self._tables[table_id] = table
        self._holders[table_id] = holding
        return table

    def expire(
        self, idle_seconds: float, now: float | None = None, *, waiting_idle_seconds: float | None = None
    ) -> list[tuple[Table, float]]:
        """Drop every table nobody has used for ``idle_seconds`` (no open stream, no event): the finished and
        the abandoned alike; a table still waiting for players after ``waiting_idle_seconds`` already, if
        that is sooner. Its clock and bots stop; its stored records stay (``thousand-export``). Returns the
        dropped tables with their idle seconds."""
        now = time.monotonic() if now is None else now
        expired: list[tuple[Table, float]] = []
        for table in list(self._tables.values()):
            idle = table.idle_seconds(now)
            if idle is None:
                continue
            limit = idle_seconds
            if waiting_idle_seconds is not None and not table.started:
                limit = min(limit, waiting_idle_seconds)
            if idle >= limit:
                del self._tables[table.table_id]
                self._holders.pop(table.table_id, None)
                table.close_streams()  # none is open: this stops its clock and bot tasks
                if self.store is not None:
                    self.store.mark_expired(table.table_id, time.time())  # so a restart leaves it too
                expired.append((table, idle))
        return expired

    def find(self, table_id: str) -> Table | None:
        """The table if this server holds it in memory (None: unknown, or expired into the store)."""
        return self._tables.get(table_id)

    def get(self, table_id: str) -> Table:
        table = self._tables.get(table_id)
        if table is None:
            raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        return table

    def page(
        self, only_open: bool, page_size: int, page_token: str, game: AnyAdapter | None = None
    ) -> tuple[list[Table], str]:
        """One page of tables, newest first; ``game``: only that game's tables."""
        size = _page_size(page_size)
        before = _decode_token(page_token) if page_token else None
        tables = sorted(self._tables.values(), key=lambda t: -t.serial)
        chosen: list[Table] = []
        for table in tables:
            if before is not None and table.serial >= before:
                continue
            if game is not None and table.adapter is not game:
                continue
            if only_open and (table.open_seats() == 0 or table.finished):
                continue
            if len(chosen) == size:
                return chosen, _encode_token(chosen[-1].serial)
            chosen.append(table)
        return chosen, ""

    async def owned(self, table_id: str) -> Table:
        """The table, when this node holds it; otherwise the refusal that says where it is (TABLE_ELSEWHERE,
        TABLE_MOVING: in a cluster, from its ``directory``) or TABLE_NOT_FOUND."""
        table = self._tables.get(table_id)
        if table is not None and (self.directory is None or self.directory.vouches()):
            return table
        if self.directory is not None:
            raise await self.directory.refusal(table_id)
        raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")

    async def listing(
        self, only_open: bool, page_size: int, page_token: str, game: AnyAdapter | None = None
    ) -> tuple[list[pb.Table], str]:
        """ListTables: one page of every table (in a cluster, every node's), described, and the next page's
        token ("" for the last page)."""
        if self.directory is None:
            tables, token = self.page(only_open, page_size, page_token, game)
            return [t.describe() for t in tables], token
        size = _page_size(page_size)
        before = _decode_token(page_token) if page_token else None
        described, last = await self.directory.page(only_open, size, before, game)
        return described, "" if last is None else _encode_token(last)

    async def describe(self, table_id: str) -> pb.Table:
        """GetTable: the table as this node holds it, or (in a cluster) as its owner last published it."""
        table = self._tables.get(table_id)
        if table is not None and (self.directory is None or self.directory.vouches()):
            return table.describe()
        if self.directory is not None:
            return await self.directory.describe(table_id)
        raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")


def _check_strategies(adapter: AnyAdapter, seats: list[SeatSpec]) -> None:
    """UNKNOWN_STRATEGY for a bot seat whose strategy the game does not have."""
    known = adapter.strategy_names()
    for seat, spec in enumerate(seats):
        if spec.bot and spec.strategy not in known:
            raise ServiceError(
                ErrorReason.UNKNOWN_STRATEGY,
                f"seat {seat}: {adapter.title} has no bot strategy {spec.strategy!r}"
                f" (known: {', '.join(known)})",
                field="seats",
            )


def _page_size(page_size: int) -> int:
    """A ListTables page_size checked (0: the default)."""
    if page_size < 0 or page_size > MAX_PAGE_SIZE:
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT,
            f"page_size must be 0 to {MAX_PAGE_SIZE}, got {page_size}",
            field="page_size",
        )
    return page_size or DEFAULT_PAGE_SIZE


def _encode_token(serial: int) -> str:
    return base64.urlsafe_b64encode(f"v1:{serial}".encode()).decode()


def _decode_token(token: str) -> int:
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
        version, serial = text.split(":")
        if version != "v1":
            raise ValueError(version)
        return int(serial)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT, "page_token is not one this server issued", field="page_token"
        ) from None
