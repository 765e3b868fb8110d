"""The bots' ladder on a real server (issue 27): a registered bot's key never sits at people's tables.

A bot is a player of kind bot, signed in with its ``thb_`` key; it plays on the ladder only, so its key is
refused (BOT_NOT_ALLOWED, PERMISSION_DENIED, metadata ``where``) by JoinTable at a rated people's table and by
QuickPlay, and the table is as it was. End to end (real gRPC, a SQLite store, the SDK's ladder loop as
``thousand-bot ladder`` runs it): two registered bots and a reference bot play one duplicate set of three
rotated tables at a short fixed clock, which is rated and shown in the standings; a ``thousand-bot ladder``
process killed mid-set is played by the server's bot at once (no decision waits out the clock), takes its
seats back when it runs again, and its set is marked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import grpc
from grpc import aio

from bots.registry import STRATEGIES
from bots.strategy import StrategyOptions
from clients.bots.ladder import run_ladder
from clients.bots.sdk import AnyStrategy
from clients.connection import Connection
from engine import Action, View
from tests.identity_harness import Served, bearer, served
from tests.ratings_harness import guests, rated_request
from tests.server_harness import expect_error, game_record, run
from thousand.v1 import ladder_service_pb2 as ladder_pb
from thousand.v1 import ladder_service_pb2_grpc as ladder_grpc
from thousand.v1 import matchmaking_pb2 as mm
from thousand.v1 import matchmaking_pb2_grpc as mm_grpc
from thousand.v1 import table_service_pb2 as pb

Watch = Callable[[ladder_pb.JoinLadderResponse], None]
Recompute = Callable[[ladder_pb.LadderSet, list[str]], dict[str, tuple[int, int, int, float, float]]]
"""Each member's total, rank, timeouts, and mu and sigma after the set."""


@dataclass(slots=True)
class Pause:
    """Seconds a bot of :meth:`LadderServer.on_ladder` waits before each decision; a test may change it as
    the set goes on (read at every decision, from the SDK's worker threads: a float's store is atomic)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class LadderServer:
    """A served ladder, its stub, and a signed-in person (Ann) who registers the bots."""

    s: Served
    address: str
    ladder: ladder_grpc.LadderServiceAsyncStub
    owner_token: str

    async def register(self, *names: str) -> list[ladder_pb.RegisterBotResponse]:
        return [
            await self.ladder.RegisterBot(
                ladder_pb.RegisterBotRequest(display_name=name), metadata=bearer(self.owner_token)
            )
            for name in names
        ]

    def on_ladder(
        self, key: str, watch: Watch, max_sets: int = 0, pause: Pause | None = None
    ) -> asyncio.Task[int]:
        """A bot on the ladder in this process (the SDK's loop), playing greedy (``pause``: its seconds a
        decision, to give a game time, as they are at each decision)."""

        def strategy(game: str) -> AnyStrategy:
            greedy = STRATEGIES["greedy"](StrategyOptions())
            if pause is not None:
                choose = greedy.choose

                def slow(view: View, rng: random.Random) -> Action:
                    time.sleep(pause.seconds)  # the SDK asks its strategy in a worker thread
                    return choose(view, rng)

                greedy.choose = slow  # type: ignore[method-assign]
            return greedy

        ladder = run_ladder(
            Connection(self.address), key, strategy, ["thousand"], say=lambda _: None, max_sets=max_sets,
            watch=watch,
        )  # fmt: skip
        return asyncio.create_task(ladder)


@contextlib.asynccontextmanager
async def ladder_server(tmp_path: Path, *, seed: int, per_move: float) -> AsyncIterator[LadderServer]:
    """A server whose ladder has greedy as Thousand's one reference bot, no sets of reference bots only, and
    seeded pairings."""
    settings = {
        "ladder": True,
        "ladder_per_move": per_move,
        "ladder_references": "thousand=greedy blagogo=random",
        "ladder_reference_sets": 0,
        "ladder_seed": seed,
    }
    async with served(tmp_path, server_settings=settings) as s:
        address = f"127.0.0.1:{s.server.port}"
        (ann,) = await guests(address, "Ann")
        async with aio.insecure_channel(address) as channel:
            yield LadderServer(s, address, ladder_grpc.LadderServiceStub(channel), ann.player_token)


def test_a_bots_key_is_refused_at_rated_peoples_tables_and_in_quick_play(tmp_path: Path) -> None:
    """Issue 27 ("a bot never plays in people's pools"): JoinTable at a rated table and QuickPlay with a bot's
    key are BOT_NOT_ALLOWED; nothing changes at the table, whose seats its owner (a person) may still take."""

    async def body() -> None:
        async with served(tmp_path) as s:
            address = f"127.0.0.1:{s.server.port}"
            (ann,) = await guests(address, "Ann")
            async with aio.insecure_channel(address) as channel:
                ladder = ladder_grpc.LadderServiceStub(channel)
                made = await ladder.RegisterBot(
                    ladder_pb.RegisterBotRequest(display_name="Ann's bot"), metadata=bearer(ann.player_token)
                )
                assert made.key.startswith("thb_")
                table = (await s.tables.CreateTable(rated_request(3))).table
                join = pb.JoinTableRequest(table_id=table.table_id)
                error = await expect_error(
                    s.tables.JoinTable(join, metadata=bearer(made.key)),
                    "BOT_NOT_ALLOWED",
                    grpc.StatusCode.PERMISSION_DENIED,
                )
                assert error.metadata["where"] == "rated_table"
                after = (await s.tables.GetTable(pb.GetTableRequest(table_id=table.table_id))).table
                assert after.open_seats == 3 and after.sequence == table.sequence
                await s.tables.JoinTable(join, metadata=bearer(ann.player_token))  # its owner sits down

                matchmaking = mm_grpc.MatchmakingServiceStub(channel)
                ask = mm.QuickPlayRequest(
                    game=pb.GAME_KIND_THOUSAND, players=3, seat_token=secrets.token_urlsafe(32)
                )

                async def quick_play() -> None:
                    async for _ in matchmaking.QuickPlay(ask, metadata=bearer(made.key)):
                        raise AssertionError("a bot's key waited in the people's queue")

                error = await expect_error(quick_play(), "BOT_NOT_ALLOWED", grpc.StatusCode.PERMISSION_DENIED)
                assert error.metadata["where"] == "quick_play"

    run(body())


def test_two_registered_bots_play_a_rated_duplicate_set_with_a_reference_bot(tmp_path: Path) -> None:
    """Issue 27 end to end: a player registers two bots, both connect with the SDK's ladder loop
    (``thousand-bot ladder``'s), and the scheduler seats them with the reference bot in one set of three
    tables, every member in every seat once (duplicate deals); the set is rated, its stream message names
    every member by its display name, and the standings show both bots with an interval around their mu,
    one set and three games each; the set's standings and ratings recomputed from its tables' records by
    docs/protocol.md's code equal the stored ones."""

    async def body() -> None:
        async with ladder_server(tmp_path, seed=1, per_move=0.5) as on:
            made = await on.register("Alpha", "Beta")
            tables: set[str] = set()
            sets: list[ladder_pb.LadderSet] = []

            def watch(message: ladder_pb.JoinLadderResponse) -> None:
                if message.HasField("assignment"):
                    tables.add(message.assignment.table.table_id)
                if message.HasField("set_finished"):
                    sets.append(message.set_finished)

            bots = asyncio.gather(*(on.on_ladder(m.key, watch, max_sets=1) for m in made))
            try:
                await _scheduled(tables)
                await _set_played_out(on, sorted(tables), bots, [])
            finally:
                bots.cancel()
            assert len(sets) == 2 and sets[0].set_id == sets[1].set_id
            done = sets[0]
            assert len(done.tables) == 3 and not done.disconnected
            assert "bot:greedy" in done.members
            for seat in range(3):  # every member holds every seat (so every hand) once
                assert sorted(t.seat_members[seat] for t in done.tables) == sorted(done.members)
            assert sorted(r.rank for r in done.results)[0] == 1
            # The stream names every member, as the standings do: the bots' names, the reference's strategy.
            named = dict(zip(done.members, done.member_names, strict=True))
            assert named == {
                made[0].bot.player_id: "Alpha",
                made[1].bot.player_id: "Beta",
                "bot:greedy": "greedy",
            }
            assert {r.member_id: r.display_name for r in done.results} == named
            standings = await on.ladder.GetLadderStandings(
                ladder_pb.GetLadderStandingsRequest(game=pb.GAME_KIND_THOUSAND, players=3)
            )
            rows = {row.display_name: row for row in standings.standings}
            for name in ("Alpha", "Beta"):
                row = rows[name]
                assert not row.reference and row.owner_name == "Ann"
                assert row.sets == 1 and row.games == 3
                assert row.interval_low < row.rating.mu < row.interval_high
                assert row.recent_sets[0].set_id == done.set_id
            assert rows["greedy"].reference
            # docs/protocol.md's recomputation, run as written, from the set and its tables' records alone.
            got = (await on.ladder.GetLadderSet(ladder_pb.GetLadderSetRequest(set_id=done.set_id))).set
            records = [await game_record(on.s.tables, t.table_id) for t in got.tables]
            recomputed = _guide_recompute()(got, records)
            for r in got.results:
                total, rank, timeouts, mu, sigma = recomputed[r.member_id]
                assert (r.total_score, r.rank, r.timeouts) == (total, rank, timeouts)
                assert abs(r.after.mu - mu) < 1e-9 and abs(r.after.sigma - sigma) < 1e-9
                assert r.after.games == r.before.games + 1

    run(body())


def _guide_recompute() -> Callable[
    [ladder_pb.LadderSet, list[str]], dict[str, tuple[int, int, int, float, float]]
]:
    """``recompute_set`` as docs/protocol.md ("Recomputing a set's standings") writes it."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text(encoding="utf-8")
    part = guide[guide.index("### Recomputing a set's standings") :]
    code = part[part.index("```python\n") + len("```python\n") : part.index("\n```\n")]
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/protocol.md", "exec"), namespace)  # the guide's own code, checked
    recompute: Recompute = namespace["recompute_set"]
    return recompute


def _ladder_process(address: str, key: str) -> list[str]:
    """``thousand-bot ladder`` as its user runs it, as a process of its own."""
    return [sys.executable, "-m", "clients.bots.cli", "ladder", "--server", address, "--key", key,
            "--strategy", "greedy"]  # fmt: skip


RESTART_SECONDS: Final = 120.0
"""How long a ``thousand-bot ladder`` process run again may take to start and take its seats back (a second
on a quiet machine; a new Python process importing the client on a busy one takes many)."""
STALL_SECONDS: Final = 60.0
"""A table still playing that has not moved for this long is stuck: its bots move many times a second."""


async def _scheduled(tables: Sized) -> None:
    """Until a set's three tables are assigned (``tables``: what the streams said so far), within 30 s."""
    deadline = time.monotonic() + 30
    while len(tables) < 3 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert len(tables) == 3, "the set was not scheduled"


async def _set_played_out(
    on: LadderServer,
    table_ids: list[str],
    stayer: asyncio.Future[Any],
    clocks: list[asyncio.Task[None]],
) -> None:
    """Wait for the set to end (``stayer``, its bots' SDK loops, end then), however long its games run,
    failing as soon as a table still playing stands still or a watched seat's decision waits out the clock
    (``clocks``).

    Why not a fixed bound: the length of a game of three greedy bots has a long tail (fair deals, a new
    secret every set: over 100 seeds, 67 deals at the median, 192 at the 90th percentile, up to 652), and
    a set waits for the longest of its three tables. A bound of 120 s failed on a busy machine while the
    three tables, every seat played, no seat taken over, were past their 200th deal.
    """
    moved: dict[str, tuple[int, float]] = {}
    while True:
        done, _ = await asyncio.wait([stayer, *clocks], timeout=5.0, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            task.result()  # a seat that waited out its clock: its AssertionError
        if stayer in done:
            return
        now = time.monotonic()
        for table_id in table_ids:
            table = (await on.s.tables.GetTable(pb.GetTableRequest(table_id=table_id))).table
            if table.status == pb.TABLE_STATUS_FINISHED:
                continue
            sequence, since = moved.get(table_id, (-1, now))
            if table.sequence != sequence:
                moved[table_id] = (table.sequence, now)
            elif now - since > STALL_SECONDS:
                raise AssertionError(f"table {table_id} stands still at event {sequence}")


async def _no_timeout(on: LadderServer, table_id: str, seat: int) -> None:
    """Follow the table as a spectator to its end; AssertionError as soon as a decision of ``seat`` waits out
    the clock (TurnTimedOut). A spectator that falls behind is sent a snapshot instead of the events it
    missed: the set's own count of timeouts, checked after, still has them."""
    request = pb.StreamEventsRequest(table_id=table_id, after_sequence=0, batch_events=True)
    async for message in on.s.tables.StreamEvents(request):
        for event in (message.event, *message.more_events):
            if event.HasField("turn_timed_out") and event.turn_timed_out.seat == seat:
                raise AssertionError(f"seat {seat} of {table_id} waited out its clock: {event}")


def _seat_of(table: pb.Table, player_id: str) -> int:
    return next(s.seat for s in table.seats if s.player_id == player_id)


async def _seat_taken_over(on: LadderServer, table_id: str, seat: int, over: bool, within: float) -> float:
    """Seconds until the table's seat is (``over``) or is no longer played by the server's bot."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        table = (await on.s.tables.GetTable(pb.GetTableRequest(table_id=table_id))).table
        if table.seats[seat].taken_over == over or table.status == pb.TABLE_STATUS_FINISHED:
            return time.monotonic() - started
        await asyncio.sleep(0.02)
    raise AssertionError(f"seat {seat} of {table_id} not {'taken over' if over else 'taken back'}")


def test_a_bot_killed_mid_set_is_played_at_once_takes_its_seats_back_and_its_set_is_marked(
    tmp_path: Path,
) -> None:
    """Issue 27 ("a bot that disconnects mid-game is played by a reference bot until it returns, and the set
    is marked"): a ``thousand-bot ladder`` process killed (SIGKILL) mid-set has its seats played by the
    server's bot at once, well within the ladder's clock (its decisions do not wait it out: no turn of its
    seat times out); run again, it takes its seats back (SeatReclaimed at a table still playing) and plays
    on; the set is rated, marked disconnected, naming the leaver's result."""

    per_move = 3.0  # a clock the leaver's decisions would have waited out, one by one
    pause = Pause(0.03)  # the stayer's, until the leaver is back: the tables are still playing then

    async def body() -> None:
        async with ladder_server(tmp_path, seed=2, per_move=per_move) as on:
            stay, leave = await on.register("Stays", "Leaves")
            assignments: list[ladder_pb.LadderAssignment] = []
            sets: list[ladder_pb.LadderSet] = []

            def watch(message: ladder_pb.JoinLadderResponse) -> None:
                if message.HasField("assignment"):
                    assignments.append(message.assignment)
                if message.HasField("set_finished"):
                    sets.append(message.set_finished)

            stayer = on.on_ladder(stay.key, watch, max_sets=1, pause=pause)
            command = _ladder_process(on.address, leave.key)
            leaver = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.DEVNULL)
            restarted: asyncio.subprocess.Process | None = None
            clocks: list[asyncio.Task[None]] = []
            try:
                await _scheduled(assignments)
                leaver_id = leave.bot.player_id
                seats = {a.table.table_id: _seat_of(a.table, leaver_id) for a in assignments}
                await asyncio.sleep(1.0)  # the leaver plays a while
                os.kill(leaver.pid, signal.SIGKILL)
                await leaver.wait()
                waits = [await _seat_taken_over(on, t, seat, True, per_move) for t, seat in seats.items()]
                assert max(waits) < per_move / 2, waits  # at once, not when its decision's clock ran out
                clocks += [asyncio.create_task(_no_timeout(on, t, seat)) for t, seat in seats.items()]
                restarted = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.DEVNULL)
                for table_id, seat in seats.items():  # taken back (or over meanwhile), however slow the start
                    await _seat_taken_over(on, table_id, seat, False, RESTART_SECONDS)
                pause.seconds = 0.0  # the rest at full speed: a game of three greedy bots may be long
                await _set_played_out(on, list(seats), stayer, clocks)
            finally:
                for task in (stayer, *clocks):
                    task.cancel()
                for process in (leaver, restarted):
                    if process is not None and process.returncode is None:
                        process.kill()
                        await process.wait()
            (done,) = sets
            assert done.disconnected and len(done.tables) == 3
            results = {r.member_id: r for r in done.results}
            assert results[leaver_id].disconnected and not results[stay.bot.player_id].disconnected
            assert results[leaver_id].timeouts == 0  # no decision of its waited out the clock
            back = 0
            for table_id, seat in seats.items():
                events = json.loads(await game_record(on.s.tables, table_id))["events"]
                kinds = [(k, v.get("seat", 0)) for e in events for k, v in e.items() if isinstance(v, dict)]
                assert ("seatTakenOver", seat) in kinds
                over = [e["seatTakenOver"] for e in events if "seatTakenOver" in e]
                over = [o for o in over if o.get("seat", 0) == seat]  # proto3 JSON leaves seat 0 out
                assert any(o.get("reason") == "TAKEOVER_REASON_DISCONNECTED" for o in over), over
                back += ("seatReclaimed", seat) in kinds
            assert back >= 1  # run again, it took back the seats of the tables still playing

    run(body())
