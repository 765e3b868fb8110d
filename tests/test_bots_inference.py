"""Inference from the card play (bots.inference): the legal cards of a past play (T-18) as the engine says,
and a world's weight by how many of the other seats' plays the heuristic would have made (T-18 to T-20)."""

from __future__ import annotations

import random

import pytest

from bots.belief import Belief
from bots.heuristic import rollout_action
from bots.inference import MISS_WEIGHT, PlayModel, legal_cards
from bots.world_facts import WorldFacts
from bots.worlds import WorldSampler
from engine import Game, PlayCard, Rules, view
from engine.deal import Deal
from engine.phases import Phase


def _deal(rules: Rules, seed: int) -> Deal:
    game = Game(rules, seed)
    game.apply_chance()
    deal = game.deal
    assert deal is not None
    return deal


@pytest.mark.parametrize("must_beat", [False, True], ids=["follow", "must-beat"])
def test_legal_cards_are_the_engines_legal_plays(must_beat: bool) -> None:
    """T-18: following suit, trumping, and with must-beat the higher card, as the engine's legal list."""
    rules = Rules(players=3, must_beat=must_beat)
    rng = random.Random(5)
    checked = 0
    for seed in range(1, 30):
        deal = _deal(rules, seed)
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is Phase.PLAY:
                before = [(s, c.index) for s, c in deal.trick_cards()]
                trump = None if deal.trump is None else int(deal.trump)
                engine = 0
                for a in deal.legal_actions():
                    if isinstance(a, PlayCard):
                        engine |= 1 << a.card.index
                assert legal_cards(deal.hands[seat], before, trump, must_beat) == engine
                checked += 1
            deal.apply(seat, rollout_action(deal, rng, 0.5))
    assert checked > 300


def test_the_true_world_of_heuristic_players_explains_every_play_and_others_miss_some() -> None:
    """With the other seats playing the heuristic's card play from what they know (the model's policy), the
    real deal weighs 1 at every decision of seat 0; sampled worlds, which hold other hands, miss some plays
    and weigh a power of MISS_WEIGHT."""
    rules = Rules(players=3)
    rng = random.Random(9)
    decisions = lighter = 0
    for seed in range(1, 12):
        game = Game(rules, seed)
        game.apply_chance()
        deal = game.deal
        assert deal is not None
        belief = Belief(0)
        belief.update(view(game, 0))
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None
            if seat == 0 and deal.phase is Phase.PLAY and deal.tricks_played >= 2:
                v = view(game, 0)
                facts = WorldFacts(v, belief)
                model = PlayModel(facts)
                assert model.events
                assert model.weight(deal) == 1.0
                sampler = WorldSampler(v, belief)
                for _ in range(10):
                    world = sampler.sample(rng)
                    assert world is not None
                    w = model.weight(world)
                    misses = 0
                    while w < 1.0:
                        w /= MISS_WEIGHT
                        misses += 1
                    assert w == pytest.approx(1.0)
                    lighter += misses > 0
                decisions += 1
            game.apply(seat, rollout_action(deal, rng, 0.5))
            belief.update(view(game, 0))
    assert decisions > 20
    assert lighter > 0
