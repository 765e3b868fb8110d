"""The players of a table's server-run seats: one :class:`~server.games.SeatBot` per seat, kept for the game.

A bot seat's strategy object is made when the table is, and a seat taken over on time gets the game's
takeover strategy when its time runs out; each keeps its object to the end, so a strategy with memory (the
Thousand heuristic's and ISMCTS's beliefs, :mod:`clients.bots.belief`) sees every change of its seat's view,
as the local tournament shows it. Replaying a table's stored records after a restart makes and shows them in
the same order, so the memories are rebuilt as they were.

Each seat decides with its own random generator, derived from the table's seed, so a seeded table of bots
plays the same game every time.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Generic

from server.games import ActionT, GameAdapter, GameT, SeatBot
from server.logs import get_logger

log = get_logger("thousand.bots")


class SeatBots(Generic[GameT, ActionT]):
    """The bots of one table: its bot seats' from the start, its seats taken over on time's from then."""

    def __init__(
        self, adapter: GameAdapter[Any, GameT, ActionT, Any], seed: int, strategies: Mapping[int, str]
    ) -> None:
        """``strategies``: the strategy of every bot seat (checked against the game's registry)."""
        self._adapter = adapter
        self._seed = seed
        self._bots: dict[int, SeatBot[GameT, ActionT]] = {}
        self._rngs: dict[int, random.Random] = {}
        for seat, strategy in strategies.items():
            self._bots[seat] = adapter.new_bot(strategy)
            self._rngs[seat] = random.Random(f"{seed}:bot:{seat}")

    def take_over(self, seat: int, game: GameT) -> None:
        """The game's takeover strategy plays ``seat`` from now on (a seat taken over before keeps it)."""
        if seat in self._bots:
            return
        bot = self._bots[seat] = self._adapter.new_bot(self._adapter.takeover_strategy)
        self._rngs[seat] = random.Random(f"{self._seed}:takeover:{seat}")
        if bot.observes:
            bot.observe(game, seat)

    def bot(self, seat: int) -> SeatBot[GameT, ActionT]:
        """The seat's bot (KeyError for a seat no server bot plays)."""
        return self._bots[seat]

    def searching(self, seat: int) -> bool:
        """Whether the seat's bot thinks for a while (the server runs it off its event loop)."""
        return self._bots[seat].searching

    def decide(self, game: GameT, seat: int) -> ActionT:
        """The action of the seat's bot, from what the seat may see."""
        return self._bots[seat].decide(game, seat, self._rngs[seat])

    def observe(self, game: GameT) -> None:
        """Show every bot with memory its seat's view, after a change of the game.

        A strategy that fails to take note only loses that note: the change was made and stays, and the
        strategy still decides from the whole view it is given at its turn.
        """
        for seat, bot in self._bots.items():
            if bot.observes:
                try:
                    bot.observe(game, seat)
                except Exception:  # another seat's action must not fail for a bot's memory
                    log.exception("bot observe failed", seat=seat, strategy=bot.strategy)
