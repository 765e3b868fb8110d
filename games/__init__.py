"""Every game of the project, each described once (:class:`~games.description.GameDescription`), in
GameKind order: the server's adapters (:mod:`server.games`), the clients' entries (:mod:`clients.games`),
the exporter and the tests all start from :data:`GAMES`.

This package sits beside :mod:`codec` and :mod:`bots` and imports only them, the engine and the generated
contract, so that the server and the clients both import it. Adding a game: ``docs/adding-a-game.md``.
"""

from __future__ import annotations

from typing import Final

from games.blagogo import BLAGOGO
from games.description import GameDescription
from games.thousand import THOUSAND

__all__ = ["BLAGOGO", "GAMES", "THOUSAND", "GameDescription", "game_named"]

GAMES: Final[tuple[GameDescription, ...]] = (THOUSAND, BLAGOGO)
"""Every game, in GameKind order: the one registry line per game."""


def game_named(name: str) -> GameDescription:
    """The game of a name (the store's, a record's); ValueError for a name no game has."""
    for game in GAMES:
        if game.name == name:
            return game
    known = ", ".join(g.name for g in GAMES)
    raise ValueError(f"unknown game {name!r} (known: {known})")
