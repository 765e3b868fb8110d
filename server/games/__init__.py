"""The games a table can play, behind one small interface: a :class:`GameAdapter` per game.

A table, the registry, the service, the store, the telemetry and the exporter never name Thousand or 1000
Blagogo: they hold an adapter, found by the contract's ``GameKind`` (:func:`adapter_for_kind`), by the name
stored with a table (:func:`adapter_for_name`), by the engine rules' type (:func:`adapter_for_rules`) or by an
engine action's (:func:`adapter_for_action`), and the engine game it created. What each game is comes from its
one description (:mod:`games`), which :class:`GameAdapter` (:mod:`server.games.adapter`) reads; only
Thousand, whose Turns carry a view and every legal action, has a module of its own here
(:mod:`server.games.thousand`: its fast wire paths). A third game is one entry in :data:`ADAPTERS`
(``docs/adding-a-game.md``).
"""

from __future__ import annotations

from typing import Any, Final

import games
from server.games.adapter import ActionT, EngineGame, EventT, GameAdapter, GameT, RulesT, Scored, SeatBot
from server.games.thousand import ThousandAdapter

__all__ = [
    "ADAPTERS",
    "BLAGOGO",
    "GAMES",
    "THOUSAND",
    "ActionT",
    "AnyAdapter",
    "EngineGame",
    "EventT",
    "GameAdapter",
    "GameT",
    "RulesT",
    "Scored",
    "SeatBot",
    "adapter_for_action",
    "adapter_for_kind",
    "adapter_for_name",
    "adapter_for_rules",
]

AnyAdapter = GameAdapter[Any, Any, Any, Any]

THOUSAND: Final = ThousandAdapter(games.THOUSAND)
BLAGOGO: Final[AnyAdapter] = GameAdapter(games.BLAGOGO)
ADAPTERS: Final[tuple[AnyAdapter, ...]] = (THOUSAND, BLAGOGO)
"""Every game the server plays, in GameKind order (:data:`games.GAMES`'s: a test holds them alike)."""
GAMES: Final = tuple(a.name for a in ADAPTERS)
"""The games' names: the store's game names and the ``game`` metric label's values."""


def adapter_for_kind(kind: int) -> AnyAdapter | None:
    """The game of a GameKind; None for GAME_KIND_UNSPECIFIED or a kind this server does not know."""
    return next((a for a in ADAPTERS if a.kind == kind), None)


def adapter_for_name(name: str) -> AnyAdapter:
    for adapter in ADAPTERS:
        if adapter.name == name:
            return adapter
    raise ValueError(f"unknown game {name!r} (known: {', '.join(GAMES)})")


def adapter_for_rules(rules: object) -> AnyAdapter:
    """The game whose engine rules ``rules`` are."""
    for adapter in ADAPTERS:
        if isinstance(rules, adapter.rules_type):
            return adapter
    raise TypeError(f"{rules!r} are no game's rules")


def adapter_for_action(action: object) -> AnyAdapter:
    """The game whose engine action ``action`` is."""
    for adapter in ADAPTERS:
        if isinstance(action, adapter.action_types):
            return adapter
    raise TypeError(f"{action!r} is no game's action")
