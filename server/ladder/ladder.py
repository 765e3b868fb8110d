"""The node's part of the ladder: its bots' JoinLadder streams, its turns at scheduling, placing the sets it
started, and rating them once their tables are over.

Every node runs the same loop every :data:`TICK_SECONDS`: it notes the bots whose streams it holds as
connected (:meth:`~server.ladder.store.LadderStore.seen`), tries a scheduling round (one node at a time:
:mod:`server.ladder.store`), places the sets that round started (each table created as CreateTable creates
one, its request_id the set's and rotation's, all of a set's tables with one fair secret so that they deal
the same deals, every registered bot seated by its key's hash, then served here or handed to the least
loaded node), rates the sets whose tables are all over (from their game records, as a client recomputes
it: :mod:`server.ladder.results`), and hands its streams their new seats and finished sets.

Every table has the ladder's clock: :attr:`LadderSettings.per_move` a decision, no bank, and on a timeout
the server's bot makes that one decision (TIMEOUT_POLICY_BOT_PLAYS_TURN): a bot that is late loses that move
only. A bot whose streams at a table all closed (it disconnected) is played by the server's bot at once, not
after each decision's clock ran out (TimeControl.away_bot), until it comes back: its key is its seat token,
and its Play stream opening takes the seat back. Its set is marked (its JoinLadder stream closed). The
reference bots decide within the same time per move.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

import psycopg

from server.creations import SeatSpec
from server.errors import ErrorReason, ServiceError
from server.export import record_of
from server.games import adapter_for_name
from server.identity.values import Player
from server.ladder.flags import LADDER_REFERENCES, references_of
from server.ladder.metrics import LadderMetrics
from server.ladder.pairing import Pairing, PoolState, plan_sets, rotation_seats
from server.ladder.results import TableOutcome, outcome_of, set_results
from server.ladder.store import LadderSetRow, LadderStore, Presence, SetTable
from server.logs import get_logger
from server.ratings.model import BOT_PREFIX, Pool, bot_id, model_proto
from server.service import TableService
from server.store import Store
from server.table_state import StopReason
from server.time_control import TimeControl, TimeoutPolicy
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import table_service_pb2 as pb

TICK_SECONDS: Final = 0.25
FRESH_SECONDS: Final = 6.0
"""A bot no node has shown connected for this long is not scheduled (its node may have died)."""
REFERENCES: Final[Mapping[str, tuple[str, ...]]] = references_of(LADDER_REFERENCES)
"""Each game's reference bots, the ladder's permanent members (the server's strategies, each made as a bot
seat's is: the registry's default options, so one fixed budget; a decision is due within the clock too)."""
log = get_logger("thousand.ladder")
T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True)
class LadderSettings:
    """The ladder's settings (``thousand-server --ladder-*``)."""

    per_move: float = 2.0
    """Seconds every decision has, the reference bots' included."""
    max_same_per_day: int = 100
    """Sets the same pairing may start within a day."""
    reference_sets: int = 1
    """Sets of reference bots only a pool plays at once (0: they play only with registered bots)."""
    players: int = 3
    references: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=lambda: dict(REFERENCES))
    seed: int | None = None
    """Seeds the pairings' draws (tests); None: the system's generator."""

    @property
    def clock(self) -> TimeControl:
        return TimeControl(
            per_move=self.per_move,
            bank=0.0,
            policy=TimeoutPolicy.BOT_PLAYS_TURN,
            bot_pace=0.0,
            away_bot=True,
        )

    @property
    def pools(self) -> list[Pool]:
        return [Pool(game, self.players, ladder=True) for game in self.references]


@dataclasses.dataclass(slots=True)
class _Stream:
    """A bot's JoinLadder stream on this node."""

    bot: Player
    key_hash: bytes
    pools: tuple[str, ...]
    since: float
    queue: asyncio.Queue[ladder_pb.JoinLadderResponse | None] = dataclasses.field(
        default_factory=asyncio.Queue
    )
    sent: set[tuple[str, int]] = dataclasses.field(default_factory=set)
    finished: set[str] = dataclasses.field(default_factory=set)


class Ladder:
    """The ladder on one node."""

    def __init__(
        self,
        store: LadderStore,
        tables: TableService,
        settings: LadderSettings | None = None,
        *,
        node_id: str = "",
        metrics: LadderMetrics | None = None,
    ) -> None:
        self.store = store
        self.tables = tables
        self.registry = tables.registry
        self.settings = settings if settings is not None else LadderSettings()
        self.node_id = node_id
        self.metrics = metrics
        self.rng = random.Random(self.settings.seed) if self.settings.seed is not None else random.Random()
        self.names: Callable[[list[str]], Awaitable[dict[str, str]]] | None = None
        """The members' display names (the service's, from the players' store); None: their ids."""
        self._streams: dict[str, _Stream] = {}
        self._task: asyncio.Task[None] | None = None
        self.stopping = False
        self.scheduled_rounds = 0
        self.scheduler_seconds = 0.0
        """CPU seconds of this node's ladder work in its worker threads (presence, scheduling rounds with
        their pairing, rating sets from their records, the streams' reads), measured per thread so that the
        tables' own work meanwhile is not counted; placing a set's tables is CreateTable's work, not counted:
        bench/ladder.py's figure."""

    # ------------------------------------------------------------------ life

    @property
    def running(self) -> bool:
        return self._task is not None and not self.stopping

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self.stopping = True
        if self._task is not None:
            self._task.cancel()
        for stream in self._streams.values():
            stream.queue.put_nowait(None)

    async def _run(self) -> None:
        away = False
        while True:
            try:
                await self._turn()
            except (psycopg.OperationalError, sqlite3.OperationalError) as error:
                if not away:
                    log.warning("the ladder waits for the database", error=str(error))
                away = True
            except Exception:  # one bad turn must not end the ladder
                log.exception("ladder turn failed")
            else:
                away = False
            await asyncio.sleep(TICK_SECONDS)

    async def _turn(self) -> None:
        now = time.time()
        if self._streams:
            presences = [
                Presence(s.bot.player_id, s.bot.display_name, s.key_hash, s.pools, s.since)
                for s in self._streams.values()
            ]
            await self._work(self.store.seen, presences, self.node_id, now)
        started = time.perf_counter()
        new = await self._work(self.store.schedule, self.settings.pools, now, now - FRESH_SECONDS, self._plan)
        if new is not None:
            self.scheduled_rounds += 1
            if self.metrics is not None:
                self.metrics.round_seconds.observe(time.perf_counter() - started)
            for row in new:
                await self._place(row)
            await self._rate_finished()
        if self._streams:
            await self._deliver(now)

    def _plan(
        self, pool: Pool, idle: Sequence[Presence], busy: set[str], today: dict[Pairing, int], playing: int
    ) -> list[tuple[str, ...]]:
        references = [bot_id(name) for name in self.settings.references[pool.game]]
        state = PoolState(pool.players, [p.bot_id for p in idle], references, today, playing)
        settings = self.settings
        return plan_sets(
            state, max_same=settings.max_same_per_day, reference_sets=settings.reference_sets, rng=self.rng
        )

    async def _work(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker thread (the store's calls block), its CPU time counted."""

        def timed() -> T:
            cpu = time.thread_time()
            try:
                return function(*args)
            finally:
                self.scheduler_seconds += time.thread_time() - cpu  # a bench figure: a rare lost add blurs it

        return await asyncio.to_thread(timed)

    # ------------------------------------------------------------------ placing a set

    async def _place(self, row: LadderSetRow) -> None:
        """Create the set's tables (one per rotation, one secret for all: the same deals), seat its bots."""
        pool = row.pool
        adapter = adapter_for_name(pool.game)
        rules = adapter.rules_from_request(pb.Rules(), pool.players)
        secret = secrets.token_bytes(32)
        seed = secrets.randbits(63)
        keys = {p.bot_id: p for p in await asyncio.to_thread(self.store.connected, 0.0)}
        directory = self.registry.directory
        tables: list[SetTable] = []
        try:
            for rotation in range(pool.players):
                seats = rotation_seats(row.members, rotation)
                specs = [
                    SeatSpec(bot=True, strategy=m[len(BOT_PREFIX) :])
                    if _reference(m)
                    else SeatSpec(bot=False)
                    for m in seats
                ]
                table = await self.registry.create(
                    rules,
                    specs,
                    seed,
                    0,
                    self.settings.clock,
                    request_id=f"{row.set_id}-{rotation}",
                    secret=secret,
                )
                # A seeded table would deal from the seed: the ladder's are fair, from the set's secret.
                async with table.lock:
                    for seat, member in enumerate(seats):
                        if not _reference(member):
                            found = keys.get(member)
                            if found is None:
                                raise ServiceError(
                                    ErrorReason.TABLE_MOVING, f"bot {member} left before its set"
                                )
                            await table.join_hashed(
                                seat, found.display_name, found.key_hash, player_id=member
                            )
                if directory is not None:
                    await directory.place(table)
                else:
                    table.ensure_bots_running()
                tables.append(SetTable(table.table_id, rotation, seats))
        except ServiceError as error:
            log.warning("ladder set not placed", set_id=row.set_id, error=error.message)
            await asyncio.to_thread(self.store.void, row.set_id, time.time())
            for placed in tables:
                found_table = self.registry.find(placed.table_id)
                if found_table is not None and not found_table.finished:
                    await found_table.stop(
                        StopReason.CLOSED_BY_OPERATOR, "its ladder set could not be placed"
                    )
            return
        await asyncio.to_thread(self.store.placed, row.set_id, tables)
        log.info("ladder set placed", set_id=row.set_id, pool=row.pool_id, members=list(row.members))
        if self.metrics is not None:
            self.metrics.sets_started.labels(row.pool_id).inc()

    # ------------------------------------------------------------------ rating a set

    async def _rate_finished(self) -> None:
        store = self.registry.store
        if store is None:
            return
        for row in await self._work(self.store.active):
            if row.state != "playing":
                continue
            ids = [t.table_id for t in row.tables]
            finished = await self._work(store.finish_times, ids)
            if any(finished.get(i) is None for i in ids):
                continue
            try:
                outcomes = [await self._work(_outcome, store, table_id) for table_id in ids]
                results = set_results(row.members, outcomes)
            except ValueError as error:  # a table stopped before its end: the set counts for nothing
                log.warning("ladder set void", set_id=row.set_id, error=str(error))
                await asyncio.to_thread(self.store.void, row.set_id, time.time())
                continue
            rated = await self._work(self.store.rate, row.set_id, results, time.time())
            if rated is None:
                continue
            log.info(
                "ladder set rated",
                set_id=row.set_id,
                pool=row.pool_id,
                results=[(r.result.member_id, r.result.total_score, r.result.rank) for r in rated.results],
                disconnected=list(rated.disconnected),
            )
            if self.metrics is not None:
                self.metrics.sets_rated.labels(row.pool_id, str(bool(rated.disconnected)).lower()).inc()
                self.metrics.timeouts.labels(row.pool_id).inc(sum(r.result.timeouts for r in rated.results))
                self.metrics.set_seconds.observe(max(0.0, time.time() - row.create_time))

    # ------------------------------------------------------------------ the bots' streams

    async def _deliver(self, now: float) -> None:
        """New seats and finished sets to this node's streams."""
        active = await self._work(self.store.active)
        oldest = min(s.since for s in self._streams.values())
        finished = await self._work(self.store.finished_since, oldest)
        for stream in list(self._streams.values()):
            me = stream.bot.player_id
            for row in active:
                for table in row.tables:
                    if me in table.seats and (row.set_id, table.rotation) not in stream.sent:
                        stream.sent.add((row.set_id, table.rotation))
                        described = await self.registry.describe(table.table_id)
                        assignment = ladder_pb.LadderAssignment(
                            set_id=row.set_id,
                            rotation=table.rotation,
                            table=described,
                            seat=table.seats.index(me),
                        )
                        stream.queue.put_nowait(ladder_pb.JoinLadderResponse(assignment=assignment))
            for row in finished:
                fresh = row.finish_time is not None and row.finish_time >= stream.since
                if fresh and me in row.members and row.set_id not in stream.finished:
                    stream.finished.add(row.set_id)
                    names = await self.names(list(row.members)) if self.names is not None else None
                    finished_set = set_message(row, names)
                    stream.queue.put_nowait(ladder_pb.JoinLadderResponse(set_finished=finished_set))

    async def join(
        self, bot: Player, key_hash: bytes, games: Sequence[str]
    ) -> AsyncIterator[ladder_pb.JoinLadderResponse]:
        """A bot's stream: the welcome, then its seats and results until it closes (then it leaves the
        ladder, and the sets it plays are marked)."""
        pools = [p for p in self.settings.pools if p.game in games]
        previous = self._streams.pop(bot.player_id, None)
        if previous is not None:
            previous.queue.put_nowait(None)  # the same bot connected again: the newer stream is the one
        stream = _Stream(bot, key_hash, tuple(p.pool_id for p in pools), time.time())
        self._streams[bot.player_id] = stream
        if self.metrics is not None:
            self.metrics.bots_connected.set(len(self._streams))
        welcome = ladder_pb.LadderWelcome(
            bot_id=bot.player_id, display_name=bot.display_name, pools=[pool_message(p) for p in pools]
        )
        welcome.per_move.FromMilliseconds(int(self.settings.per_move * 1000))
        log.info("ladder bot connected", bot_id=bot.player_id, pools=list(stream.pools))
        try:
            yield ladder_pb.JoinLadderResponse(welcome=welcome)
            await asyncio.to_thread(
                self.store.seen,
                [Presence(bot.player_id, bot.display_name, key_hash, stream.pools, stream.since)],
                self.node_id,
                time.time(),
            )
            while True:
                item = await stream.queue.get()
                if item is None:
                    break
                yield item
        finally:
            if self._streams.get(bot.player_id) is stream:
                del self._streams[bot.player_id]
                if not self.stopping:
                    marked = await asyncio.to_thread(self.store.gone, bot.player_id, self.node_id)
                    log.info("ladder bot disconnected", bot_id=bot.player_id, sets_marked=marked)
            if self.metrics is not None:
                self.metrics.bots_connected.set(len(self._streams))
        if self.stopping:
            raise ServiceError(
                ErrorReason.TABLE_MOVING, "the server is stopping; connect again", retry_delay=0.25
            )


def _outcome(store: Store, table_id: str) -> TableOutcome:
    """A finished table's outcome from its stored records (ValueError when it has none: the set is void)."""
    stored = store.get(table_id)
    if stored is None:
        raise ValueError(f"table {table_id} is not in the store")
    return outcome_of(record_of(stored))


def _reference(member: str) -> bool:
    return member.startswith(BOT_PREFIX)


def pool_message(pool: Pool) -> ladder_pb.LadderPool:
    adapter = adapter_for_name(pool.game)
    return ladder_pb.LadderPool(pool_id=pool.pool_id, game=adapter.kind, players=pool.players)


def set_message(row: LadderSetRow, names: Mapping[str, str] | None = None) -> ladder_pb.LadderSet:
    """A set as the contract gives it; ``names``: the members' display names."""
    names = names or {}
    message = ladder_pb.LadderSet(
        set_id=row.set_id,
        pool=pool_message(row.pool),
        members=list(row.members),
        member_names=[names.get(m, _default_name(m)) for m in row.members],
        tables=[
            ladder_pb.LadderSetTable(table_id=t.table_id, rotation=t.rotation, seat_members=list(t.seats))
            for t in row.tables
        ],
        disconnected=bool(row.disconnected),
        timeouts=sum(r.result.timeouts for r in row.results),
        model=model_proto(),
    )
    for rated in row.results:
        r = rated.result
        message.results.append(
            ladder_pb.LadderSetResult(
                member_id=r.member_id,
                display_name=names.get(r.member_id, _default_name(r.member_id)),
                total_score=r.total_score,
                rank=r.rank,
                timeouts=r.timeouts,
                disconnected=r.member_id in row.disconnected,
                before=rated.before.to_proto(),
                after=rated.after.to_proto(),
            )
        )
    message.start_time.FromNanoseconds(int(row.create_time * 1e9))
    if row.finish_time is not None:
        message.finish_time.FromNanoseconds(int(row.finish_time * 1e9))
    return message


def _default_name(member: str) -> str:
    return member[len(BOT_PREFIX) :] if _reference(member) else member
