"""Property tests over random Thousand games: a game is a pure function of its rules, seed and actions (T-35).

Replaying the history, or playing again with the same seeded players, gives the same game; the random
players use only the generator they are given.
Games are played by the seeded random players of :mod:`tests.randomplay`; the rules, seeds and observers
they share: :mod:`tests.property_helpers`.
"""

from __future__ import annotations

import random

from hypothesis import given

from engine import Game, Rules, view
from tests.property_helpers import MAX_DEALS, RULES, SEEDS, property_settings, replay, viewers
from tests.randomplay import play, random_action

# ---------------------------------------------------------------------------------------------- T-35


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t35_replaying_the_history_gives_the_same_game(rules: Rules, seed: int) -> None:
    """T-35: replaying game.history (chance entries as Shuffles) on a new game with the same rules and seed,
    or driving a new game with the same seeded players, gives identical events, history and scores."""
    game = play(rules, seed, MAX_DEALS)
    again = replay(rules, seed, game.history)
    assert again.events == game.events
    assert [r.score for r in again.records] == [r.score for r in game.records]
    assert again.records == game.records
    assert [repr(view(again, v)) for v in viewers(again)] == [repr(view(game, v)) for v in viewers(game)]

    rerun = play(rules, seed, MAX_DEALS)
    assert rerun.events == game.events
    assert rerun.history == game.history
    assert rerun.records == game.records


def test_random_action_uses_only_the_given_generator() -> None:
    """T-35 for the test players themselves: the same seeded generator gives the same choices."""
    a, b = Game(Rules(), 7), Game(Rules(), 7)
    a.apply_chance()
    b.apply_chance()
    ra, rb = random.Random(3), random.Random(3)
    random.seed(0)  # the global generator must not matter
    first = random_action(a, ra)
    random.seed(1)
    assert random_action(b, rb) == first
