"""Each game's one registry of strategies, used by the local tournaments, the bot SDK's command line and the
server's bot seats alike: :data:`THOUSAND` (its factories are :data:`STRATEGIES`) and
:data:`~bots.blagogo.BLAGOGO` (:data:`~bots.blagogo.BLAGOGO_STRATEGIES`).

``make_strategy(name, options)`` builds a fresh Thousand strategy for one seat, ``make_blagogo_strategy`` a
1000 Blagogo one; :func:`registry_for` gives a game's registry by the game's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from bots.blagogo import BLAGOGO, BLAGOGO_STRATEGIES, BlagogoStrategy, make_blagogo_strategy
from bots.expert import ExpertStrategy
from bots.heuristic import HeuristicStrategy
from bots.ismcts import IsmctsStrategy
from bots.strategy import GameStrategies, GreedyStrategy, RandomStrategy, Strategy, StrategyOptions

STRATEGIES: dict[str, Callable[[StrategyOptions], Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "heuristic": HeuristicStrategy,
    "ismcts": IsmctsStrategy,
    "expert": ExpertStrategy,
}
"""Thousand's strategies by name: ``STRATEGIES[name](options)`` builds one for one seat."""

THOUSAND: Final = GameStrategies(
    "Thousand",
    STRATEGIES,
    searching=frozenset({"ismcts", "expert"}),
    stateless=frozenset({"random", "greedy"}),
)
"""Thousand's registry: the heuristic and ISMCTS remember the deal from view to view (``observe``)."""


def make_strategy(name: str, options: StrategyOptions | None = None) -> Strategy:
    """A new Thousand strategy object for one seat; KeyError names the known strategies."""
    return THOUSAND.make(name, options)


REGISTRIES: Final[Mapping[str, GameStrategies[Strategy] | GameStrategies[BlagogoStrategy]]] = {
    "thousand": THOUSAND,
    "blagogo": BLAGOGO,
}
"""Every game's registry, by the names ``thousand-bot --game`` takes."""

GAMES: Final = tuple(REGISTRIES)
"""The games with strategies."""

__all__ = [
    "BLAGOGO",
    "BLAGOGO_STRATEGIES",
    "GAMES",
    "REGISTRIES",
    "STRATEGIES",
    "THOUSAND",
    "make_blagogo_strategy",
    "make_strategy",
    "registry_for",
    "strategies_for",
]


def registry_for(game: str) -> GameStrategies[Strategy] | GameStrategies[BlagogoStrategy]:
    """A game's registry; KeyError names the games."""
    try:
        return REGISTRIES[game]
    except KeyError:
        raise KeyError(f"no game {game!r} (known: {', '.join(GAMES)})") from None


def strategies_for(game: str) -> Mapping[str, Callable[[StrategyOptions], Strategy | BlagogoStrategy]]:
    """A game's strategy factories by name: :data:`STRATEGIES` (thousand) or :data:`BLAGOGO_STRATEGIES`.

    The two games' strategies have different interfaces (a Blagogo one is also handed its Turn's actions),
    so build them with :func:`make_strategy` or :func:`make_blagogo_strategy` for a typed object.
    """
    return registry_for(game).factories
