"""Property tests over random 1000 Blagogo games: a game is a pure function of rules, seed and actions (B-23).

The same seed plays the same game and replaying its history reproduces every event; the random player
only plays legal actions (B-22).
Games are played by the seeded random player of :mod:`engine.blagogo.randomplay`; the rules, seeds and
settings they share: :mod:`tests.blagogo_property_helpers`.
"""

from __future__ import annotations

import random

from hypothesis import given

from engine.blagogo import BlagogoRules, Game, Shuffle
from engine.blagogo.randomplay import play, random_action
from tests.blagogo_property_helpers import (
    MAX_ACTIONS,
    MAX_ROUNDS,
    RULES,
    SEEDS,
    light_settings,
    property_settings,
)

# ---------------------------------------------------------------------------------------------- B-23


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b23_same_rules_seed_and_actions_give_the_same_game(rules: BlagogoRules, seed: int) -> None:
    """B-23: the same seed plays the same game, and replaying the history reproduces every event."""
    first = play(rules, seed, MAX_ROUNDS, MAX_ACTIONS)
    second = play(rules, seed, MAX_ROUNDS, MAX_ACTIONS)
    assert first.events == second.events and first.history == second.history
    replay = Game(rules, seed)
    for seat, action in first.history:
        if seat is None:
            assert isinstance(action, Shuffle)
            replay.apply_chance(action)
        else:
            assert not isinstance(action, Shuffle)
            replay.apply(seat, action)
    assert replay.events == first.events and replay.scores == first.scores


@light_settings
@given(rules=RULES, seed=SEEDS)
def test_b23_the_random_player_only_plays_legal_actions(rules: BlagogoRules, seed: int) -> None:
    """B-22, B-23: the driver's choices always validate (so tests and benchmarks exercise legal play)."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    for _ in range(400):
        if game.is_over:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        action = random_action(game, rng)
        game.validate(seat, action)
        game.apply(seat, action)
