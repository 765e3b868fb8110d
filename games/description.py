"""One game described once: what every layer (server, clients, bots, export, tests) reads to play it.

In the way OpenSpiel registers a game (``pyspiel.register_game(GameType, ...)``: a game's type and
parameters, declared once, that every tool reads), a :class:`GameDescription` names the game and points at
its parts: the contract's ``GameKind``, its name in the wrapper messages and the store, its title in
sentences, its engine (rules type, rules for a number of players, a new game, action and game-over types),
its codec module (:mod:`codec`), how its deals are checked (:mod:`engine.verify`) and its bot strategies
(:mod:`bots`). Each layer then keeps only what is its own: the server's adapter (its wire shortcuts, its
refusals), the clients' entry (its view tracker). The descriptions are listed once in :data:`games.GAMES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from bots.strategy import GameStrategies
from engine.seeds import FairDeals
from engine.verify import Scheme
from thousand.v1 import table_service_pb2 as pb


@dataclass(frozen=True, eq=False)
class GameDescription:
    """A game, as every layer knows it."""

    kind: pb.GameKind.ValueType
    """The contract's GameKind, as a Table names its game."""
    name: str
    """The game's case in the wrapper messages (Rules, Action, View, Event), its store and metric name."""
    title: str
    """The game's name in sentences."""
    rules_type: type
    """The engine's rules class."""
    default_rules: Callable[[int], Any]
    """The engine's default rules for a number of players (every variant at its default)."""
    new_game: Callable[[Any, int, int | None, FairDeals | None], Any]
    """The engine's game: ``new_game(rules, seed, first_dealer, fair)``."""
    action_types: tuple[type, ...]
    """The engine's action classes, which tell an action's game."""
    game_over: type
    """The engine's event that ends the game (it carries the standings)."""
    codec: ModuleType
    """The engine <-> protobuf mapping (a package of :mod:`codec`)."""
    deals: Scheme
    """How the game's deals are checked (engine.verify)."""
    strategies: GameStrategies[Any]
    """The game's bot strategies (:mod:`bots.registry`): every one can play a server's bot seat."""
    takeover_strategy: str
    """The strategy that plays a seat taken over when its time ran out."""

    def players(self, rules: Any) -> int:
        """The number of players the rules are for."""
        players: int = rules.players
        return players
