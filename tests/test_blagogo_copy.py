"""1000 Blagogo's ``Game.copy`` (a state copy without replaying history, issue #31): every attribute copied,
no container shared, and a copy plays on exactly as the original would while leaving it alone (B-23: a game
is a function of its seed and its actions, so two copies given the same actions give the same events)."""

from __future__ import annotations

import random

import pytest

from engine.blagogo import BlagogoRules, Game
from engine.blagogo.randomplay import random_action
from engine.seeds import FairDeals


def _played(players: int, seed: int, actions: int, fair: bool = False) -> Game:
    rng = random.Random(seed)
    table = FairDeals("blagogo", bytes(range(32)), players) if fair else None
    game = Game(BlagogoRules(players=players, turnover_limit=2), seed, fair=table)
    for _ in range(actions):
        if game.is_over:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        game.apply(seat, random_action(game, rng))
    return game


def _containers(value: object) -> bool:
    return isinstance(value, list | dict | set)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_copy_copies_every_attribute_and_shares_no_container(players: int) -> None:
    for seed in range(4):
        game = _played(players, seed, 30 + 90 * seed, fair=seed % 2 == 1)
        twin = game.copy()
        assert set(vars(twin)) == set(vars(game))
        for name, mine in vars(game).items():
            theirs = getattr(twin, name)
            if name == "round":
                assert mine is not None and theirs is not mine
                assert set(vars(theirs)) == set(vars(mine))
                for key, value in vars(mine).items():
                    assert getattr(theirs, key) == value, key
                    if _containers(value):
                        assert getattr(theirs, key) is not value, f"round.{key} is shared"
            elif name == "fair":
                assert (mine is None) == (theirs is None)
                if mine is not None:
                    assert theirs is not mine and theirs.dealt == mine.dealt
                    assert theirs.dealt is not mine.dealt
            else:
                assert theirs == mine, name
                if _containers(mine):
                    assert theirs is not mine, f"{name} is shared between a game and its copy"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_copy_plays_on_as_the_original_does_and_leaves_it_alone(players: int) -> None:
    """Two copies given the same actions produce the same events (B-23), through the round's end and the
    next deal; the copies' moves reach neither the original nor a fair table's record of its rounds."""
    for seed in range(4):
        game = _played(players, seed, 20 + 70 * seed, fair=seed % 2 == 0)
        before = (len(game.history), len(game.events), game.rounds_dealt, list(game.scores))
        hands = None if game.round is None else list(game.round.hands)
        fair_dealt = None if game.fair is None else len(game.fair.dealt)
        twin, other = game.copy(), game.copy()
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        rounds = twin.rounds_dealt
        for _ in range(3000):
            if twin.is_over or twin.rounds_dealt > rounds + 1:
                break
            if twin.is_chance_node:
                assert twin.apply_chance() == other.apply_chance()
                continue
            seat = twin.to_act
            assert seat is not None and seat == other.to_act
            action = random_action(twin, rng_a)
            assert action == random_action(other, rng_b)
            assert twin.apply(seat, action) == other.apply(seat, action)
        assert twin.history == other.history and twin.scores == other.scores
        assert len(twin.history) > before[0]
        after = (len(game.history), len(game.events), game.rounds_dealt, list(game.scores))
        assert after == before
        assert hands is None or (game.round is not None and game.round.hands == hands)
        assert fair_dealt is None or (game.fair is not None and len(game.fair.dealt) == fair_dealt)
        if game.round is not None:
            game.round.check_invariants()
