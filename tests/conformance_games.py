"""The games table of the conformance suite (:mod:`tests.test_engine_conformance`): what it needs of a game.

Each row starts from the game's one description (:data:`games.GAMES`) and adds what only the tests know: the
hypothesis strategy of its rules (every variant), a seeded random player, a random game capped to a few
deals or rounds, and a fingerprint of its whole state. A third game is one more row; the suite's
``test_every_game_has_a_row`` fails until it has one.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

import tests.blagogo_property_helpers as blagogo_helpers
import tests.property_helpers as thousand_helpers
from engine.blagogo import randomplay as blagogo_play
from games import BLAGOGO, THOUSAND, GameDescription
from tests import randomplay as thousand_play
from tests.blagogo_helpers import fingerprint as blagogo_fingerprint
from tests.test_properties_actions import fingerprint as thousand_fingerprint


@dataclass(frozen=True)
class ConformanceGame:
    """One game as the conformance suite plays it."""

    description: GameDescription
    rules: st.SearchStrategy[Any]
    """Valid rules of every variant and player count the game has."""
    choose: Callable[[Any, random.Random], Any]
    """The seeded random player: a legal action of the seat to act, drawn with the generator given only."""
    play: Callable[[Any, int], Any]
    """A game played by random players from rules and seed (the seed seeds the players too), capped."""
    fingerprint: Callable[[Any], object]
    """The whole state: every seat's and the spectator's view, the event and history counts, the internals."""
    max_steps: int
    """Steps of a playout in the step-by-step tests."""

    @property
    def name(self) -> str:
        return self.description.name

    def new(self, rules: Any, seed: int) -> Any:
        """A new game (its first dealer drawn from the seed, its deals following it)."""
        return self.description.new_game(rules, seed, None, None)

    def default(self, players: int = 3) -> Any:
        """The default rules for ``players``."""
        return self.description.default_rules(players)


GAMES: tuple[ConformanceGame, ...] = (
    ConformanceGame(
        THOUSAND,
        thousand_helpers.RULES,
        thousand_play.random_action,
        lambda rules, seed: thousand_play.play(rules, seed, thousand_helpers.MAX_DEALS),
        thousand_fingerprint,
        300,
    ),
    ConformanceGame(
        BLAGOGO,
        blagogo_helpers.RULES,
        blagogo_play.random_action,
        lambda rules, seed: blagogo_play.play(
            rules, seed, blagogo_helpers.MAX_ROUNDS, blagogo_helpers.MAX_ACTIONS
        ),
        blagogo_fingerprint,
        300,
    ),
)
"""Every game of :data:`games.GAMES`, in its order."""
