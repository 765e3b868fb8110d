"""The bot strategies the server can run in a table's bot seats, by name.

A strategy sees exactly what its seat may see (the engine's observer view, T-33) plus its own seeded random
generator, and returns one of the view's legal actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import Action, View
from engine.selfplay import greedy_player, random_player

Strategy = Callable[[View, random.Random], Action]

STRATEGIES: dict[str, Strategy] = {
    "random": random_player,
    "greedy": greedy_player,
}
