"""The server's bots at a table: the players of its bot seats and of the seats taken over on time.

A bot seat plays the strategy named in its :class:`~server.table_state.SeatState` (checked against the game's
registry, :mod:`bots.registry`, when the table is created); a seat taken over when its time ran out
plays the game's takeover strategy. Each such seat has one player (:class:`~server.games.SeatBot`) made when
the table is, or when the seat's time runs out, and kept to the end of the game, so a strategy with memory
(the Thousand heuristic's and ISMCTS's beliefs, :mod:`bots.belief`) is shown its seat's view after
every change, as the local tournament shows it. Replaying a table's stored records after a restart makes and
shows them in the same order, so those memories are rebuilt as they were.

Each decision draws from a random generator of its own, derived from the table's seed, the seat, who plays it
and the table's sequence number: never from a generator kept in one process's memory, so a table's bots play
the same game again from the same seed, also when another node took the table over mid-game (or the server
restarted) and replayed it: the next decision is the one the first owner would have made.

The loop that moves them, one move at a time through the table's one path of change, is the table's
(:meth:`server.table.Table.ensure_bots_running`); its task is kept here. Nothing here holds the table: the
engine game and the frame after each change are passed in.
"""

from __future__ import annotations

import asyncio
import contextvars
import random
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Final

from server.games import AnyAdapter, SeatBot
from server.logs import get_logger
from server.table_changes import Published
from server.table_state import SeatState

log = get_logger("thousand.bots")

STORE_RETRY_SECONDS: Final = 1.0
"""How long the bots, or a running-out clock, wait before trying again a move the store could not commit."""
STORE_RETRY_MAX_SECONDS: Final = 30.0


class Bots:
    """The bots of one table: who plays which seat, with which generator, and the task that moves them."""

    __slots__ = ("_adapter", "_players", "_seed", "task")

    def __init__(self, adapter: AnyAdapter, seed: int, seats: Sequence[SeatState]) -> None:
        self._adapter = adapter
        self._seed = seed
        self._players: dict[int, SeatBot[Any, Any]] = {
            seat: adapter.new_bot(state.strategy) for seat, state in enumerate(seats) if state.bot
        }
        self.task: asyncio.Task[None] | None = None
        """The loop's task while it runs (or once it ended)."""

    def strategy_of(self, seat: int, seats: Sequence[SeatState]) -> str:
        """The strategy that plays a bot seat, or the game's takeover strategy for a seat taken over."""
        state = seats[seat]
        return state.strategy if state.bot else self._adapter.takeover_strategy

    def players(self) -> dict[int, SeatBot[Any, Any]]:
        """Every seat's player, by seat (a snapshot stores their strategies: :mod:`server.snapshots`)."""
        return dict(self._players)

    def restore(self, strategies: dict[int, tuple[str, Any]]) -> None:
        """The players a snapshot stored (seat -> strategy name and strategy object, with its memory), in
        place of those made with the table."""
        players: dict[int, SeatBot[Any, Any]] = {}
        for seat, (strategy, player) in strategies.items():
            bot = players[seat] = self._adapter.new_bot(strategy)
            bot.player = player
        self._players = players

    def player(self, seat: int) -> SeatBot[Any, Any]:
        """The player of a seat a server bot plays (KeyError for another seat)."""
        return self._players[seat]

    def follow(self, game: Any, published: Published) -> None:
        """After a change: a seat taken over on time gets the takeover strategy's player (a seat taken over
        before keeps its player), which sees the seat's view at once; when the game moved, every player with
        memory is shown its seat's view.

        A strategy that fails to take note only loses that note: the change was made and stays, and the
        strategy still decides from the whole view it is given at its turn.
        """
        players = self._players
        if not published.moved:  # a seat's change, not the game's: maybe a seat taken over
            for seat, state in enumerate(published.frame.seats):
                if state.taken_over and seat not in players:
                    player = players[seat] = self._adapter.new_bot(self._adapter.takeover_strategy)
                    if player.observes:
                        player.observe(game, seat)
            return
        for seat, player in players.items():
            if player.observes:
                try:
                    player.observe(game, seat)
                except Exception:  # another seat's action must not fail for a bot's memory
                    log.exception("bot observe failed", seat=seat, strategy=player.strategy)

    def decide(
        self, game: Any, seat: int, sequence: int, bot_seat: bool, deadline: float | None = None
    ) -> Any:
        """The seat's move now, from what the seat may see: the same on any node, after any restart (its
        generator is the decision's own: a function of the table's seed, the seat, who plays it and the
        sequence number; its memory rebuilt by the replay). It only reads the game, so it may run in a
        worker thread. ``deadline`` (``time.monotonic()``; None: the strategy's own budget) is handed to a
        strategy that takes one (:func:`bots.strategy.decide`)."""
        who = "bot" if bot_seat else "takeover"
        rng = SeededOnUse(f"{self._seed}:{who}:{seat}:{sequence}")
        return self._players[seat].decide(game, seat, rng, deadline)

    def ensure_running(self, loop: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Start the loop (``loop()``, the table's) when it does not run."""
        if self.task is None or self.task.done():
            # A context of its own: the bots' log lines do not carry the request that woke them.
            running = asyncio.get_running_loop()
            self.task = running.create_task(loop(), context=contextvars.Context())

    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


class SeededOnUse(random.Random):
    """A ``random.Random(seed)`` that is seeded when it is first drawn from, not when it is made.

    Why: seeding MT19937 from a string costs about 8 us (CPython seeds it twice: from the string's hash in
    ``__new__``'s stead, then from its SHA-512 in ``seed``), a sixth of a greedy bot's whole move, and most
    moves of most strategies draw nothing (the greedy bot draws only when it has no rule for its actions).
    Every draw goes through ``random``, ``getrandbits`` or the state methods, which seed first, make the
    object a plain ``random.Random`` (so later draws cost what they always did) and carry on: the numbers
    drawn are those of ``random.Random(seed)``, draw for draw.
    """

    def __init__(self, seed: str) -> None:  # not random.Random.__init__: seeding is what is put off
        self._pending = seed
        self.gauss_next = None  # read by gauss() before it draws

    def random(self) -> float:
        return random.Random.random(_seeded(self))

    def getrandbits(self, k: int, /) -> int:
        return random.Random.getrandbits(_seeded(self), k)

    def getstate(self) -> tuple[Any, ...]:
        return random.Random.getstate(_seeded(self))

    def setstate(self, state: tuple[Any, ...]) -> None:
        random.Random.setstate(_seeded(self), state)

    def seed(self, a: Any = None, version: int = 2) -> None:
        random.Random.seed(_seeded(self), a, version)

    def __reduce__(self) -> str | tuple[Any, ...]:
        return random.Random.__reduce__(_seeded(self))


def _seeded(rng: random.Random) -> random.Random:
    """Seed a :class:`SeededOnUse` now if it was not yet (a method bound before it was seeded, such as the
    ``getrandbits`` that ``randrange`` calls in a loop, may be called again after)."""
    if type(rng) is SeededOnUse:
        seed = rng.__dict__.pop("_pending")
        object.__setattr__(rng, "__class__", random.Random)  # the same layout: no slots of its own
        random.Random.seed(rng, seed)
    return rng
