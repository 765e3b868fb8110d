"""The games table of the conformance suite (:mod:`tests.test_engine_conformance`): what it needs of a game.

Each row starts from the game's one description (:data:`games.GAMES`) and adds what only the tests know: the
hypothesis strategy of its rules (every variant), a seeded random player, a random game capped to a few
deals or rounds, and a fingerprint of its whole state. A third game is one more row; the suite's
``test_every_game_has_a_row`` fails until it has one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import settings
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
    invalid_rules: tuple[tuple[str, dict[str, Any]], ...]
    """Settings the rules refuse, each with the field its RulesError names: one invalid setting (or a
    combination the rules forbid) put into otherwise valid rules."""
    states: Callable[[Any, int], Iterator[Any]]
    """A game played by random players from rules and seed, yielded (the same mutable game) after every
    step, capped as ``play`` is."""
    settings: settings
    """The game's hypothesis settings for the checks that walk every state of a game (its examples: a
    1000 Blagogo game is heavier than a Thousand one)."""
    cards_conserved: Callable[[Any], None]
    """Asserts that every card is in one place in this state (T-1, B-1): where cards can be differs by
    game."""
    no_hidden_card: Callable[[Iterable[Any]], None]
    """Asserts over a game's states that no viewer is shown a card it may not see (T-33, B-21): what a seat
    may know is written per game from its rules, independently of its engine's observer."""

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
        (  # T-4 to T-6, T-8, T-12, T-13, T-27, T-31, T-32
            ("players", {"players": 1}),
            ("players", {"players": 5}),
            ("players", {"players": 0}),
            ("players", {"players": "3"}),
            ("players", {"players": True}),
            ("bid_step", {"bid_step": 7}),
            ("bid_step", {"bid_step": 0}),
            ("bid_step", {"bid_step": -5}),
            ("bid_step", {"bid_step": 12}),
            ("bid_step", {"bid_step": 5.0}),
            ("dark", {"players": 2, "dark": True}),
            ("dark", {"dark": 1}),
            ("two_player_deal", {"two_player_deal": "nine_and_two_talons_of_3"}),
            ("weak_talon", {"weak_talon": None}),
            ("weak_talon_below_points", {"weak_talon_below_points": -1}),
            ("weak_talon_below_points", {"weak_talon_below_points": 33}),
            ("weak_hand_max_points", {"weak_hand_max_points": -1}),
            ("barrel_at", {"barrel_at": 120}),
            ("barrel_at", {"barrel_at": 1000}),
            ("barrel_at", {"barrel_at": 883}),
            ("barrel_at", {"barrel_at": -5}),
            ("barrel_at", {"barrel_at": 595, "obligatory_game": False}),
            ("barrel_at", {"barrel_at": 555, "samosval": True}),
            ("bank", {"bank": -1}),
            ("samosval", {"samosval": "yes"}),
        ),
        lambda rules, seed: thousand_play.states(rules, seed, thousand_helpers.MAX_DEALS),
        thousand_helpers.property_settings,
        thousand_helpers.cards_conserved,
        thousand_helpers.no_hidden_card,
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
        tuple(  # B-4 and every variant
            (field, {field: value})
            for field, value in (
                ("players", 1),
                ("players", 9),
                ("players", 0),
                ("players", "2"),
                ("players", True),
                ("ace_in_hand", -1),
                ("ace_in_hand", 101),
                ("ace_in_hand", 10.0),
                ("opening_min_points", -5),
                ("opening_min_points", 301),
                ("layoff_scores_for", None),
                ("bridge_take_must_meld", "no"),
                ("kantrame_first_turn_only", 0),
                ("target", 0),
                ("target", -1000),
                ("target", 10_001),
                ("turnover_limit", -1),
                ("opening_one_meld", 1),
                ("completed_set_keeper", "owner"),
                ("play_on_own_melds", None),
                ("max_jokers_per_meld", 5),
                ("max_jokers_per_meld", -1),
            )
        ),
        lambda rules, seed: blagogo_play.states(
            rules, seed, blagogo_helpers.MAX_ROUNDS, blagogo_helpers.MAX_ACTIONS
        ),
        blagogo_helpers.property_settings,
        blagogo_helpers.cards_conserved,
        blagogo_helpers.no_hidden_card,
    ),
)
"""Every game of :data:`games.GAMES`, in its order."""
