"""Bot strategies for Thousand (1000 Blagogo's: :mod:`bots.blagogo`); the duplicate tournament that plays
them locally is :mod:`games.tournament`.

A strategy (:class:`~bots.strategy.Strategy`) sees only its seat's :class:`engine.View` (T-33) and
returns one of the view's legal actions, so the same object plays in a local tournament, in a server's bot
seat or in a remote client. Build one by name from :data:`~bots.registry.STRATEGIES`.
"""

from bots.registry import STRATEGIES, make_strategy
from bots.strategy import Strategy, StrategyOptions

__all__ = ["STRATEGIES", "Strategy", "StrategyOptions", "make_strategy"]
