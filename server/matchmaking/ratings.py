"""What the matcher needs of ratings: a player's ordinal (μ − 3σ) in a pool, and a bot near a strength.

The ratings themselves (OpenSkill, their store and updates) are another part's; the matchmaker reads them
through :class:`RatingLookup`, so it works before that part exists and with any store behind it. A player
with no rating yet, or an anonymous one, stands at :data:`DEFAULT_ORDINAL` (OpenSkill's new player:
μ 25, σ 25/3, ordinal 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Protocol

from server.ratings.model import Pool, bot_id
from server.ratings.store import RatingReader

DEFAULT_ORDINAL: Final = 0.0

BOT_LADDER: Final[dict[str, tuple[tuple[str, float], ...]]] = {
    "thousand": (("random", -6.0), ("greedy", 0.0), ("heuristic", 8.0), ("ismcts", 16.0)),
    "blagogo": (("random", -4.0), ("heuristic", 4.0), ("planner", 8.0)),
}
"""Each game's bot strategies, weakest first, with the ordinal a person of about their strength has: the
fill bot for a group is the one nearest the group's mean. Thousand's ``expert`` is not among them: it
measures level with ``ismcts`` (issue 31's figures), so the ladder's ratings, not this table, may pick it."""


class RatingLookup(Protocol):
    """Reads players' ratings (blocking: called off the event loop)."""

    def ordinal(self, game: str, players: int, player_id: str) -> float | None:
        """The player's ordinal in the pool of ``game`` at ``players``; None when they have none."""
        ...


class NoRatings:
    """A server without ratings: everyone stands at :data:`DEFAULT_ORDINAL`."""

    def ordinal(self, game: str, players: int, player_id: str) -> float | None:
        return None


def rating_of(lookup: RatingLookup, game: str, players: int, player_id: str) -> float:
    """The ordinal the matcher uses for a player ("" : anonymous)."""
    if not player_id:
        return DEFAULT_ORDINAL
    found = lookup.ordinal(game, players, player_id)
    return DEFAULT_ORDINAL if found is None else found


class ReaderLookup:
    """Ratings read from the server's rating store (:class:`server.ratings.store.RatingReader`): a player's
    ordinal in the people's pool, and the bots' in the bots' pool of the same game and players."""

    def __init__(self, reader: RatingReader) -> None:
        self.reader = reader

    def ordinal(self, game: str, players: int, player_id: str) -> float | None:
        return self.reader.rating(Pool(game, players), player_id).ordinal

    def bot_ordinals(self, game: str, players: int) -> dict[str, float]:
        """The ladder's strategies that have rated games in the bots' pool, with their ordinals."""
        ids = {bot_id(name): name for name, _ in BOT_LADDER[game]}
        found = self.reader.ratings(Pool(game, players, bots=True), list(ids))
        return {ids[i]: value.ordinal for i, value in found.items() if value.games > 0}


def bot_for(game: str, ordinal: float, rated_bots: Mapping[str, float] | None = None) -> str:
    """The strategy of the fill bot for a group whose mean ordinal is ``ordinal``: the nearest by the bots'
    own ratings when at least two of the game's ladder have some (``rated_bots``), else by the ladder's."""
    ladder = list(rated_bots.items()) if rated_bots is not None and len(rated_bots) >= 2 else BOT_LADDER[game]
    return min(ladder, key=lambda step: (abs(step[1] - ordinal), step[1]))[0]
