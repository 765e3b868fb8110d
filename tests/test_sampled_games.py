"""The public world sampler's whole games (``WorldSampler.sample_game``): what a search bot needs from the
engine (issue #31), with ``Game.copy`` (checked for both games in :mod:`tests.test_game_copy`)."""

from __future__ import annotations

import random

import pytest

from bots.belief import Belief
from bots.heuristic import HeuristicStrategy
from bots.worlds import WorldSampler
from engine import Game, Rules, view


@pytest.mark.parametrize("players", [3, 4])
def test_sampled_games_hold_what_the_seat_knows_and_play_on(players: int) -> None:
    """Every sampled game is in the seat's view's state: the same view for that seat (its hand, the
    score sheet, the legal actions), a history that replays, and moves past the deal."""
    rng = random.Random(players)
    sampled = 0
    for seed in range(4):
        game = Game(Rules(players=players), seed)
        bots = [HeuristicStrategy() for _ in range(players)]
        beliefs = [Belief(s) for s in range(players)]
        for step in range(200):
            if game.is_over:
                break
            if game.is_chance_node:
                game.apply_chance()
            else:
                seat = game.to_act
                assert seat is not None
                mine = view(game, seat)
                if step % 5 == 0:
                    world = WorldSampler(mine, beliefs[seat]).sample_game(rng)
                    assert world is not None
                    sampled += 1
                    theirs = view(world, seat)
                    assert theirs.hand == mine.hand
                    assert theirs.scores == mine.scores
                    assert theirs.legal_actions == mine.legal_actions
                    assert theirs.tricks == mine.tricks and theirs.auction == mine.auction
                    copy = world.copy()
                    while not copy.is_chance_node and not copy.is_over:
                        actor = copy.to_act
                        assert actor is not None
                        copy.apply(actor, rng.choice(copy.legal_actions()))
                game.apply(seat, bots[seat].choose(mine, rng))
            for s in range(players):
                beliefs[s].update(view(game, s))
    assert sampled > 30
