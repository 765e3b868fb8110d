"""The games the terminal client shows, one :class:`~clients.cli.entry.CliGame` each, found by the table's
game (:func:`cli_game_of`). Adding a game to the terminal client is one entry: a module beside
:mod:`clients.cli.thousand_cli`, listed here."""

from __future__ import annotations

from typing import Any, Final, TypeAlias

from clients.cli.blagogo_cli import BLAGOGO_CLI
from clients.cli.entry import CliGame
from clients.cli.thousand_cli import THOUSAND_CLI
from clients.games import AnyGame
from clients.i18n import t

AnyCliGame: TypeAlias = CliGame[Any, Any, Any]

CLI_GAMES: Final[tuple[AnyCliGame, ...]] = (THOUSAND_CLI, BLAGOGO_CLI)
_BY_GAME: Final = {entry.game.kind: entry for entry in CLI_GAMES}


def cli_game_of(game: AnyGame) -> AnyCliGame:
    """The terminal client's entry of a game; ValueError for a game it cannot show."""
    entry = _BY_GAME.get(game.kind)
    if entry is None:
        raise ValueError(t("cli.cannot_show", game=t(f"term.game_{game.name}")))
    return entry


def cli_game_named(name: str) -> AnyCliGame:
    """The entry of the game of this name (``thousand``, ``blagogo``); KeyError names the known ones."""
    for entry in CLI_GAMES:
        if entry.game.name == name:
            return entry
    raise KeyError(f"no game {name!r} (known: {', '.join(e.game.name for e in CLI_GAMES)})")
