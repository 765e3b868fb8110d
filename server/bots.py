"""The server's bots at a table: the loop that plays its bot seats, and the seats taken over on time.

One task per table plays while a server-run bot must act, one move at a time under the table's lock, each
move stored and applied like a client's (:meth:`Table.store_decided`, :meth:`Table.apply_decided`). Each
step of bot work (choosing the move; applying it once stored) waits for its turn from the server's
:class:`~server.pacing.BotPacer`, so bots never delay a person's request by more than one step and tables
take turns; a table played by bots only may be paced, and is stopped at the pacer's limit of moves.

A bot seat plays the strategy named in its :class:`~server.seats.SeatState` (checked against the game's
registry, :mod:`bots.registry`, when the table is created); a seat taken over when its time ran out
plays the game's takeover strategy. Each such seat has one player (:class:`~server.games.SeatBot`) made when
the table is, or when the seat's time runs out, and kept to the end of the game, so a strategy with memory
(the Thousand heuristic's and ISMCTS's beliefs, :mod:`bots.belief`) is shown its seat's view after
every change, as the local tournament shows it. Replaying a table's stored records after a restart makes and
shows them in the same order, so those memories are rebuilt as they were.

Each decision draws from a random generator of its own, derived from the table's seed, the seat, who plays it
and the table's sequence number: never from a generator kept in one process's memory, so a table's bots play
the same game again from the same seed, also when another node took the table over mid-game (or the server
restarted) and replayed it: the next decision is the one the first owner would have made. A move the store
cannot commit is not made: the loop waits and decides again, the wait doubling up to a bound. Where people
play, each move waits the table's bot pace first (:attr:`~server.clock.TimeControl.bot_pace`).
"""

from __future__ import annotations

import asyncio
import contextvars
import random
import time
from typing import TYPE_CHECKING, Any, Final

from server.errors import ErrorReason, ServiceError
from server.games import SeatBot
from server.logs import get_logger
from server.pacing import BOTS_ONLY, PEOPLE
from server.seats import StopReason

if TYPE_CHECKING:
    from server.table import AnyTable

log = get_logger("thousand.bots")

STORE_RETRY_SECONDS: Final = 1.0
"""How long the bots, or a running-out clock, wait before trying again a move the store could not commit."""
STORE_RETRY_MAX_SECONDS: Final = 30.0


class Bots:
    """The bots of one table: who plays which seat, with which generator, and the task that moves them."""

    __slots__ = ("_players", "_table", "task")

    def __init__(self, table: AnyTable) -> None:
        self._table = table
        self._players: dict[int, SeatBot[Any, Any]] = {}
        for seat, state in enumerate(table.seats):
            if state.bot:
                self._players[seat] = table.adapter.new_bot(state.strategy)
        self.task: asyncio.Task[None] | None = None
        """The loop's task while it runs (or once it ended)."""

    def to_act(self) -> int | None:
        """The seat to act when a server-run bot plays it: a bot seat, or one taken over on time."""
        table = self._table
        seat: int | None = table.game.to_act
        if table.started and not table.finished and seat is not None and table.seats[seat].played_by_bot:
            return seat
        return None

    def kind(self) -> int:
        """The table's place in the pacer's queue: PEOPLE when a person plays a seat, else BOTS_ONLY."""
        return BOTS_ONLY if self._table.played_by_bots_only() else PEOPLE

    def strategy_of(self, seat: int) -> str:
        """The strategy that plays a bot seat, or the game's takeover strategy for a seat taken over."""
        state = self._table.seats[seat]
        return state.strategy if state.bot else self._table.adapter.takeover_strategy

    def player(self, seat: int) -> SeatBot[Any, Any]:
        """The player of a seat a server bot plays (KeyError for another seat)."""
        return self._players[seat]

    def take_over(self, seat: int) -> None:
        """The game's takeover strategy plays ``seat`` from now on (a seat taken over before keeps its
        player); it sees the seat's view at once."""
        if seat in self._players:
            return
        table = self._table
        player = self._players[seat] = table.adapter.new_bot(table.adapter.takeover_strategy)
        if player.observes:
            player.observe(table.game, seat)

    def observe(self) -> None:
        """Show every player with memory its seat's view, after a change of the game.

        A strategy that fails to take note only loses that note: the change was made and stays, and the
        strategy still decides from the whole view it is given at its turn.
        """
        game = self._table.game
        for seat, player in self._players.items():
            if player.observes:
                try:
                    player.observe(game, seat)
                except Exception:  # another seat's action must not fail for a bot's memory
                    log.exception("bot observe failed", seat=seat, strategy=player.strategy)

    def _rng(self, seat: int) -> random.Random:
        """The generator of the seat's next decision: a function of the table's seed, the seat, who plays it
        (its bot, or the takeover strategy) and the sequence number, which every decision advances."""
        table = self._table
        player = "bot" if table.seats[seat].bot else "takeover"
        return random.Random(f"{table.seed}:{player}:{seat}:{table.sequence}")

    def _decide(self, seat: int) -> Any:
        """The seat's move, from what the seat may see: the one call into the game's strategies (through
        the seat's player). It only reads the table, so it may run in a worker thread."""
        return self._players[seat].decide(self._table.game, seat, self._rng(seat))

    def next_move(self, seat: int) -> Any:
        """The move the seat's bot makes now: the same on any node, after any restart (its generator is the
        decision's own, its memory rebuilt by the replay)."""
        return self._decide(seat)

    async def play(self, seat: int) -> None:
        """One move of a server-run bot (caller holds the lock)."""
        strategy = self.strategy_of(seat)
        asked = time.perf_counter()
        action = self._decide(seat)
        self._table.telemetry.bot_decided(strategy, time.perf_counter() - asked)
        await self._make(seat, action)

    async def play_off_loop(self, seat: int) -> None:
        """One move of a searching bot (caller holds the lock).

        It thinks in a worker thread, so the server keeps serving every other table meanwhile; this table's
        state is only read until the move is applied.
        """
        strategy = self.strategy_of(seat)
        asked = time.perf_counter()
        action = await asyncio.to_thread(self._decide, seat)
        self._table.telemetry.bot_decided(strategy, time.perf_counter() - asked)
        await self._make(seat, action)

    async def _make(self, seat: int, action: Any) -> None:
        """Store the move, then apply it in a turn of its own: the commits of many tables' moves end
        together, and their applying would otherwise run back to back."""
        table = self._table
        await table.store_decided(seat, action)
        await table.pacer.turn_after_commit(self.kind())
        table.apply_decided(seat, action)
        limit = table.pacer.max_moves
        if 0 < limit <= table.moves and not table.finished and table.played_by_bots_only():
            await table.stop(
                StopReason.MOVE_LIMIT,
                f"stopped after {table.moves} moves without the game ending: a table played by bots only"
                f" makes {limit} at most on this server",
            )

    def ensure_running(self) -> None:
        """Start the loop's task when a bot must move and it does not run."""
        if self.to_act() is not None and (self.task is None or self.task.done()):
            # A context of its own: the bots' log lines do not carry the request that woke them.
            self.task = asyncio.get_running_loop().create_task(self._run(), context=contextvars.Context())

    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def pace(self) -> float:
        """The least seconds a bot's move takes here: the table's bot pace where people play, else none."""
        table = self._table
        control = table.time_control
        if control is None or all(state.bot for state in table.seats):
            return 0.0
        return control.bot_pace

    async def _run(self) -> None:
        table = self._table
        retry = STORE_RETRY_SECONDS
        while True:
            pace = self.pace()
            if pace > 0:
                await asyncio.sleep(pace)  # people follow the game; the move is decided after the pause
            kind = self.kind()
            await table.pacer.turn(kind)
            async with table.lock:
                seat = self.to_act()
                if seat is None:
                    return
                try:
                    if self._players[seat].searching:
                        await self.play_off_loop(seat)
                    else:
                        await self.play(seat)
                except ServiceError as error:
                    if error.reason is ErrorReason.TABLE_MOVING:
                        return  # another node plays the table now; this one drops it
                    if error.reason is not ErrorReason.STORE_UNAVAILABLE:
                        raise
                    failed = True  # the move was not made; it is decided again after a pause
                else:
                    failed = False
            if failed:
                await asyncio.sleep(retry)
                retry = min(retry * 2, STORE_RETRY_MAX_SECONDS)
            else:
                retry = STORE_RETRY_SECONDS
                if kind == BOTS_ONLY and table.pacer.move_delay > 0:
                    await asyncio.sleep(table.pacer.move_delay)
