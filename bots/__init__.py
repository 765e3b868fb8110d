"""Bot strategies for Thousand (1000 Blagogo's: :mod:`bots.blagogo`); the duplicate tournament that plays
them locally is :mod:`games.tournament`.

A strategy (:class:`~bots.strategy.Strategy`) sees only its seat's :class:`engine.View` (T-33) and
returns one of the view's legal actions, so the same object plays in a local tournament, in a server's bot
seat or in a remote client. Build one by name from :data:`~bots.registry.STRATEGIES`.
"""

from bots import ismcts as _ismcts
from bots.registry import STRATEGIES, make_strategy
from bots.strategy import Strategy, StrategyOptions

COMPILED: bool = not (_ismcts.__file__ or "").endswith(".py")
"""Whether the searching bots are the mypyc-compiled build of these sources (scripts/compiled_engine.py),
which a production image installs: the same decisions, about 2.6 times as many iterations a second."""

__all__ = ["COMPILED", "STRATEGIES", "Strategy", "StrategyOptions", "make_strategy"]
