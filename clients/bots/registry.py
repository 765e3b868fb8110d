"""Strategies by game and name: ``STRATEGIES[name](options)`` builds a fresh Thousand strategy for one seat,
``BLAGOGO_STRATEGIES[name](options)`` a 1000 Blagogo one; :func:`strategies_for` gives a game's registry."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from clients.bots.blagogo import BLAGOGO_STRATEGIES, BlagogoStrategy, make_blagogo_strategy
from clients.bots.heuristic import HeuristicStrategy
from clients.bots.ismcts import IsmctsStrategy
from clients.bots.strategy import GreedyStrategy, RandomStrategy, Strategy, StrategyOptions

STRATEGIES: dict[str, Callable[[StrategyOptions], Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "heuristic": HeuristicStrategy,
    "ismcts": IsmctsStrategy,
}


def make_strategy(name: str, options: StrategyOptions | None = None) -> Strategy:
    """A new strategy object for one seat; KeyError names the known strategies."""
    try:
        factory = STRATEGIES[name]
    except KeyError:
        raise KeyError(f"no strategy {name!r} (known: {', '.join(sorted(STRATEGIES))})") from None
    return factory(options or StrategyOptions())


GAMES = ("thousand", "blagogo")
"""The games with strategies, by the names ``thousand-bot --game`` takes."""

__all__ = [
    "BLAGOGO_STRATEGIES",
    "GAMES",
    "STRATEGIES",
    "make_blagogo_strategy",
    "make_strategy",
    "strategies_for",
]


def strategies_for(game: str) -> Mapping[str, Callable[[StrategyOptions], Strategy | BlagogoStrategy]]:
    """A game's strategies by name: :data:`STRATEGIES` (thousand) or :data:`BLAGOGO_STRATEGIES` (blagogo).

    The two games' strategies have different interfaces (a Blagogo one is also handed its Turn's actions),
    so build them with :func:`make_strategy` or :func:`make_blagogo_strategy` for a typed object.
    """
    if game == "thousand":
        return STRATEGIES
    if game == "blagogo":
        return BLAGOGO_STRATEGIES
    raise KeyError(f"no game {game!r} (known: {', '.join(GAMES)})")
