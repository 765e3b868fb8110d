"""Strategies by name: ``STRATEGIES[name](options)`` builds a fresh strategy for one seat."""

from __future__ import annotations

from collections.abc import Callable

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
