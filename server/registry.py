"""All tables of a server: creating, finding and listing them (newest first, paginated, by game)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import secrets
import time
from dataclasses import dataclass
from typing import Final

from engine.seeds import SECRET_BYTES
from server.clock import TimeControl
from server.errors import ErrorReason, ServiceError
from server.games import AnyAdapter, adapter_for_name, adapter_for_rules
from server.logs import get_logger
from server.seats import SeatState
from server.store import Store, StoreError, TableConfig
from server.table import AnyTable, Table
from server.telemetry import Telemetry

DEFAULT_PAGE_SIZE: Final = 20
MAX_PAGE_SIZE: Final = 100
CREATE_REQUEST_WINDOW: Final = 600.0
"""Seconds during which a CreateTable request_id names the table it created (a retry gets that table)."""
log = get_logger("thousand.registry")


@dataclass(frozen=True, slots=True)
class SeatSpec:
    bot: bool
    strategy: str = ""


class Registry:
    """The server's tables, kept in ``store`` when there is one."""

    def __init__(
        self, store: Store | None = None, telemetry: Telemetry | None = None, *, max_tables: int = 10_000
    ) -> None:
        self._tables: dict[str, AnyTable] = {}
        self._serial = 0
        self.store = store
        self.max_tables = max_tables
        self.telemetry = telemetry if telemetry is not None else Telemetry(quiet=True)
        self._creating = 0
        """Tables being created, waiting for their commit: they count against ``max_tables`` already."""
        self.left_in_store = 0
        """Stored tables ``restore`` did not rebuild: finished longer ago than the idle time, or expired."""
        self._created_by: dict[str, tuple[str, float]] = {}
        """CreateTable request_id -> (table id, Unix creation time), for the last CREATE_REQUEST_WINDOW s."""
        self._creating_for: dict[str, asyncio.Future[AnyTable]] = {}
        """CreateTable request_ids whose table is being created (waiting for its commit)."""

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
        for stored in self.store.tables(finished_before=finished_before):
            config = stored.config
            adapter = adapter_for_name(config.game)
            rules = adapter.rules_from_bytes(config.rules)
            seats = [SeatSpec(bot=bot, strategy=strategy) for bot, strategy in config.seats]
            _check_strategies(adapter, seats)
            table: AnyTable = Table(
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
                seeded=config.seeded,
                secret=config.secret,
            )
            if config.request_id and now - stored.create_time < CREATE_REQUEST_WINDOW:
                self._created_by[config.request_id] = (stored.table_id, stored.create_time)
            table.replay(stored.records)
            if table.finished and stored.finish_time is None:
                # Finished before the server noted finish times (or the note was lost): from now on, then.
                self.store.mark_finished(table.table_id, now)
            table.telemetry = self.telemetry  # rebuilt quietly; reported on from now on
            self.telemetry.table_restored(table)
            self._tables[table.table_id] = table
            self._serial = max(self._serial, stored.serial)
            count += 1
        self.left_in_store = self.store.count() - count
        return count

    def __len__(self) -> int:
        return len(self._tables)

    def all(self) -> list[AnyTable]:
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
    ) -> AnyTable:
        """A new table playing the game whose engine rules ``rules`` are (Thousand's or 1000 Blagogo's).

        With a ``request_id`` seen in the last :data:`CREATE_REQUEST_WINDOW` seconds, the table that request
        created (or is creating) is returned instead: the client's retry after a lost reply.
        """
        if request_id:
            earlier = self._created_before(request_id)
            if earlier is not None:
                return earlier
            pending = self._creating_for.get(request_id)
            if pending is not None:
                return await asyncio.shield(pending)
            done: asyncio.Future[AnyTable] = asyncio.get_running_loop().create_future()
            self._creating_for[request_id] = done
            try:
                table = await self._create(
                    rules, seats, seed, first_dealer, time_control=time_control, request_id=request_id
                )
            except Exception as error:
                done.set_exception(error)  # a retry waiting on it fails the same way
                done.exception()  # and with none waiting, the error counts as seen
                raise
            except BaseException:
                done.cancel()
                raise
            finally:
                del self._creating_for[request_id]
            done.set_result(table)
            self._created_by[request_id] = (table.table_id, table.create_time)
            return table
        return await self._create(rules, seats, seed, first_dealer, time_control=time_control, request_id="")

    def _created_before(self, request_id: str) -> AnyTable | None:
        """The table a CreateTable with this request_id made within the window, if it is still here."""
        now = time.time()
        for stale in [k for k, (_, at) in self._created_by.items() if now - at >= CREATE_REQUEST_WINDOW]:
            del self._created_by[stale]
        known = self._created_by.get(request_id)
        return None if known is None else self._tables.get(known[0])

    async def _create(
        self,
        rules: object,
        seats: list[SeatSpec],
        seed: int | None,
        first_dealer: int | None,
        *,
        time_control: TimeControl | None,
        request_id: str,
    ) -> AnyTable:
        adapter = adapter_for_rules(rules)
        players = adapter.players(rules)
        playing = sum(1 for t in self._tables.values() if not t.finished) + self._creating
        if playing >= self.max_tables:
            raise ServiceError(
                ErrorReason.TOO_MANY_TABLES,
                f"the server already holds {playing} unfinished tables, its limit; try again later",
            )
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
        secret = b"" if seeded else secrets.token_bytes(SECRET_BYTES)
        seed = seed if seed is not None else secrets.randbits(63)
        create_time = time.time()
        if self.store is not None:
            config = TableConfig(
                rules=adapter.rules_to_bytes(rules),
                seats=[(s.bot, s.strategy) for s in seats],
                seed=seed,
                first_dealer=first_dealer,
                game=adapter.name,
                time_control=time_control,
                request_id=request_id,
                seeded=seeded,
                secret=secret,
            )
            self._creating += 1
            try:
                await self.store.create_table(table_id, serial, create_time, config)
            except StoreError as error:
                log.error("table not stored", table_id=table_id, error=str(error))
                raise ServiceError(
                    ErrorReason.STORE_UNAVAILABLE,
                    "the table could not be stored, so it was not created; retry later",
                ) from None
            finally:
                self._creating -= 1
        self.telemetry.table_created(table_id, len(seats), sum(1 for s in seats if s.bot), game=adapter.name)
        table: AnyTable = Table(
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
            time_control=time_control,
            seeded=seeded,
            secret=secret,
        )
        self._tables[table_id] = table
        return table

    def expire(self, idle_seconds: float, now: float | None = None) -> list[tuple[AnyTable, float]]:
        """Drop every table nobody has used for ``idle_seconds`` (no open stream, no event): the finished and
        the abandoned alike. Its clock and bots stop; its stored records stay (``thousand-export``). Returns
        the dropped tables with their idle seconds."""
        now = time.monotonic() if now is None else now
        expired: list[tuple[AnyTable, float]] = []
        for table in list(self._tables.values()):
            idle = table.idle_seconds(now)
            if idle is not None and idle >= idle_seconds:
                del self._tables[table.table_id]
                table.close_streams()  # none is open: this stops its clock and bot tasks
                if self.store is not None:
                    self.store.mark_expired(table.table_id, time.time())  # so a restart leaves it too
                expired.append((table, idle))
        return expired

    def find(self, table_id: str) -> AnyTable | None:
        """The table if this server holds it in memory (None: unknown, or expired into the store)."""
        return self._tables.get(table_id)

    def get(self, table_id: str) -> AnyTable:
        table = self._tables.get(table_id)
        if table is None:
            raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        return table

    def page(
        self, only_open: bool, page_size: int, page_token: str, game: AnyAdapter | None = None
    ) -> tuple[list[AnyTable], str]:
        """One page of tables, newest first; ``game``: only that game's tables."""
        if page_size < 0 or page_size > MAX_PAGE_SIZE:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"page_size must be 0 to {MAX_PAGE_SIZE}, got {page_size}",
                field="page_size",
            )
        size = page_size or DEFAULT_PAGE_SIZE
        before = _decode_token(page_token) if page_token else None
        tables = sorted(self._tables.values(), key=lambda t: -t.serial)
        chosen: list[AnyTable] = []
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
