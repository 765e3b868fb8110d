"""The games the clients know, one :class:`~clients.games.entry.ClientGame` each, found by what names them.

A table names its game (``Table.game``: :func:`game_of`), rules and actions are of one game by their engine
type (:func:`game_of_rules`, :func:`game_of_action`). Adding a game to the clients is one entry: a module
beside :mod:`clients.games.thousand` (its codec module, engine types and tracker), listed in :data:`GAMES`
and in the :data:`GameRules` and :data:`GameAction` unions.
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

from clients.games.blagogo import BLAGOGO
from clients.games.entry import ClientGame
from clients.games.thousand import THOUSAND
from engine import Action, Rules, blagogo
from thousand.v1 import table_service_pb2 as pb

__all__ = [
    "BLAGOGO",
    "GAMES",
    "THOUSAND",
    "AnyGame",
    "ClientGame",
    "GameAction",
    "GameRules",
    "encode_action",
    "game_of",
    "game_of_action",
    "game_of_kind",
    "game_of_rules",
    "table_rules",
]

AnyGame: TypeAlias = ClientGame[Any, Any, Any, Any]

GAMES: Final[tuple[AnyGame, ...]] = (THOUSAND, BLAGOGO)
"""Every game the clients play, in GameKind order."""

GameRules: TypeAlias = Rules | blagogo.BlagogoRules
"""Rules of any game (what :meth:`~clients.session.TableSession.create_table` takes)."""
GameAction: TypeAlias = Action | blagogo.Action
"""An action of any game (what :meth:`~clients.session.TableSession.submit` takes)."""

_BY_KIND: Final = {game.kind: game for game in GAMES}
_BY_RULES: Final[dict[type, AnyGame]] = {game.rules_type: game for game in GAMES}
_BY_ACTION: Final[dict[type, AnyGame]] = {kind: game for game in GAMES for kind in game.action_types}


def game_of_kind(kind: pb.GameKind.ValueType) -> AnyGame:
    """The game of a GameKind; ValueError for one this client does not know."""
    game = _BY_KIND.get(kind)
    if game is None:
        raise ValueError(f"a game this client does not know: GameKind {kind}")
    return game


def game_of(table: pb.Table) -> AnyGame:
    """The game ``table`` plays."""
    return game_of_kind(table.game)


def game_of_rules(rules: object) -> AnyGame:
    """The game whose engine rules ``rules`` are; TypeError for anything else."""
    return _by_type(_BY_RULES, rules, "are no game's rules")


def game_of_action(action: object) -> AnyGame:
    """The game whose engine action ``action`` is; TypeError for anything else."""
    return _by_type(_BY_ACTION, action, "is no game's action")


def _by_type(games: dict[type, AnyGame], value: object, problem: str) -> AnyGame:
    game = games.get(type(value))
    if game is None:
        raise TypeError(f"{value!r} {problem}")
    return game


def table_rules(table: pb.Table) -> GameRules:
    """A table's rules, of its game."""
    rules: GameRules = game_of(table).rules_of(table)
    return rules


def encode_action(action: GameAction) -> pb.Action:
    """An action of any game in the wrapper message."""
    return game_of_action(action).encode_action(action)
