"""A rated table's end: who played, their ranks, and the update stored with its event in one transaction.

When a rated table's game is over its core waits for the update (:attr:`~server.table_core.TableCore.
awaiting_rating`: not finished, its streams open) and :class:`TableRatings` runs the update under the
table's lock: the seats' players (a people's pool: each seat's player from the players' store, by the seat
token's hash; the bots' pool: ``bot:<strategy>``), their ranks from the final standings (a seat that
forfeited on time last), then :func:`server.ratings.store.update_ratings` and the table's ``rating`` record
in one transaction of the tables' store. Only once that committed does the table log RatingsUpdated and
finish. A transaction that failed changed nothing, and is tried again after a pause (as a bot's move is);
a table restored, or taken over by another node, before its update was stored is rated then, once: the
record is appended with the table's fencing, in the same transaction as the rows.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from server.logs import get_logger
from server.ratings.model import Pool, bot_id, model_proto, ranks
from server.ratings.store import SeatUpdate, update_ratings
from server.store import Record, Sql, Store, StoreError, TableFencedError
from server.table_changes import Change, Rated
from server.table_state import SeatState
from thousand.v1 import ratings_pb2 as ratings_pb

if TYPE_CHECKING:
    from server.table_core import TableCore
    from server.telemetry import Telemetry

log = get_logger("thousand.ratings")
RETRY_SECONDS: Final = 0.25
RETRY_MAX_SECONDS: Final = 5.0

Owners = Callable[[str, bytes], "str | None"]
"""The player a seat belongs to, by table id and seat token hash (the players' store's ``seat_owner``;
blocking); None for an anonymous seat."""


class Rater:
    """A server's rating updates: ``store``, the tables' store (the ratings' rows are beside the records);
    ``owners``: the players' store's answer for a seat whose table records no player (a table stored before
    seats recorded their player; None: none asked)."""

    def __init__(
        self, store: Store | None, owners: Owners | None, telemetry: Telemetry | None = None
    ) -> None:
        self.store = store
        self.owners = owners
        self.telemetry = telemetry

    async def rate(
        self, table_id: str, game: str, seats: Sequence[SeatState], standings: Sequence[Any]
    ) -> bytes:
        """Store the update of a rated table whose game is over, with its ``rating`` record, in one
        transaction; returns the RatingsUpdated message stored. StoreError (TableFencedError) when it
        could not be stored: nothing changed."""
        started = time.perf_counter()
        pool, players, not_rated = await self._players(table_id, game, seats)
        if self.store is None:  # a registry without a database (tests of the table alone): nowhere to rate
            not_rated = not_rated or "this server keeps no ratings: it has no database"
        event = ratings_pb.RatingsUpdated(pool_id=pool.pool_id, model=model_proto(), not_rated=not_rated)
        stored: list[bytes] = []
        seat_ranks = ranks(standings, [s.forfeited for s in seats])

        def work(sql: Sql) -> list[Record]:
            event.ClearField("seats")
            if not not_rated:
                updates = update_ratings(sql, table_id, pool, players, seat_ranks, now=time.time())
                event.seats.extend(_seat_message(u, seats[u.seat].forfeited) for u in updates)
            data = event.SerializeToString()
            stored[:] = [data]
            return [Rated(data).record()]

        if self.store is not None:
            await asyncio.to_thread(self.store.transact, table_id, work)
        else:
            work(Sql(_no_database, ""))  # the event alone: not rated, so no statement is run
        seconds = time.perf_counter() - started
        if self.telemetry is not None:
            self.telemetry.ratings_updated(game, pool.pool_id, "not_rated" if not_rated else "rated", seconds)
        log.info(
            "ratings updated" if not not_rated else "table not rated",
            table_id=table_id,
            pool=pool.pool_id,
            reason=not_rated or None,
            seats=[(s.player_id, round(s.before.ordinal, 3), round(s.after.ordinal, 3)) for s in event.seats],
            seconds=round(seconds, 4),
        )
        return stored[0]

    async def _owner(self, table_id: str, token_hash: bytes | None) -> str | None:
        """The seat's player in the players' store (None: anonymous, or a server without players)."""
        if self.owners is None or token_hash is None:
            return None
        return await asyncio.to_thread(self.owners, table_id, token_hash)

    async def _players(
        self, table_id: str, game: str, seats: Sequence[SeatState]
    ) -> tuple[Pool, list[str], str]:
        """The pool, each seat's player, and why the table cannot be rated ("" when it can)."""
        bots = all(s.bot for s in seats)
        pool = Pool(game, len(seats), bots)
        if bots:
            players = [bot_id(s.strategy) for s in seats]
        elif any(s.bot for s in seats):
            return pool, [], "people and bots at one table: no pool rates them together"
        else:
            # Each seat's player is the table's own (its "player" record, with the join or a claim); a table
            # stored before those records asks the players' store, by the seat token's hash.
            found = [s.player_id or await self._owner(table_id, s.token_hash) for s in seats]
            missing = [seat for seat, owner in enumerate(found) if owner is None]
            if missing:
                return pool, [], f"seats {missing} have no signed-in player"
            players = [owner for owner in found if owner is not None]
        if len(set(players)) != len(players):
            return pool, [], "one player at several seats"
        return pool, players, ""


def _seat_message(update: SeatUpdate, forfeited: bool) -> ratings_pb.SeatRating:
    return ratings_pb.SeatRating(
        seat=update.seat,
        player_id=update.player_id,
        rank=update.rank,
        forfeited=forfeited,
        before=update.before.to_proto(),
        after=update.after.to_proto(),
    )


def _no_database(sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
    raise StoreError("no store: ratings need the server's database")


class TableRatings:
    """One table's part: the task that stores its update once its game is over (:meth:`start`).

    It is given what it reads (the table's id, its game's name, its lock and its core) and, when it starts,
    what it calls back (the table's ``apply_stored`` and what to do when the table was lost to another node),
    as the table's other parts are: it keeps no pointer to the table (tests/test_table_parts.py)."""

    def __init__(self, table_id: str, game: str, lock: asyncio.Lock, core: TableCore) -> None:
        self._table_id = table_id
        self._game = game
        self._lock = lock
        self._core = core
        self.rater: Rater | None = None
        """The server's (set by the registry); None: the table's update waits for one."""
        self._task: asyncio.Task[None] | None = None

    def start(self, apply: Callable[[Change], None], lost: Callable[[], None]) -> None:
        """Run the update in a task of its own, unless it runs already (or no rater is set): once stored,
        ``apply`` makes the change (under the lock); ``lost`` is called if another node owns the table now."""
        if self.rater is None or (self._task is not None and not self._task.done()):
            return
        # A context of its own, like the bots' and the clock's: its log lines carry no request's fields.
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(self._run(self.rater, apply, lost), context=contextvars.Context())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self, rater: Rater, apply: Callable[[Change], None], lost: Callable[[], None]) -> None:
        table_id = self._table_id
        pause = RETRY_SECONDS
        while True:
            async with self._lock:
                core = self._core
                if not core.awaiting_rating:
                    return
                try:
                    data = await rater.rate(table_id, self._game, core.seats, core.game.standings)
                except TableFencedError as error:
                    log.warning("table lost to another node", table_id=table_id, error=str(error))
                    lost()
                    return
                except StoreError as error:
                    log.error("ratings not stored; trying again", table_id=table_id, error=str(error))
                except Exception as error:  # the players' store failed (or worse): nothing stored either
                    log.exception("ratings not stored; trying again", table_id=table_id, error=str(error))
                else:
                    apply(Change((Rated(data),)))
                    return
            await asyncio.sleep(pause)
            pause = min(pause * 2, RETRY_MAX_SECONDS)
