"""clients.tracker: the view a client keeps from events equals the engine's own view, after every event."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bots.strategy import greedy_player, random_player
from clients.tracker.thousand import ViewTracker
from engine import Game, Rules, View, events_for, view
from engine.rules import BidCap, OpeningBid, SitterScores, TwoPlayerDeal, WeakTalon

VARIANTS = [
    Rules(),
    Rules(players=4),
    Rules(players=4, sitter_scores=SitterScores.TALON_ACES_AND_MARRIAGE),
    Rules(players=2),
    Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2, barrel_at=300),
    Rules(dark=True, golden_deals=True),
    Rules(players=4, dark=True, golden_deals=True, bank=50),
    Rules(barrel_at=125, bid_cap=BidCap.NONE),  # the barrel at once: climbs, bumps, falls, timeouts
    Rules(players=4, barrel_at=200, barrel_bumped_by_newcomer=False, barrel_simultaneous_both_fall=False),
    Rules(barrel_at=0, opening_bid=OpeningBid.AT_LEAST_100, weak_talon=WeakTalon.BELOW_POINTS),
    Rules(must_beat=True, marriage_on_first_trick=True, round_defenders=False, bid_step=10),
]


def comparable(v: View) -> View:
    """What the tracker keeps: everything but whose turn it is and the legal actions (a Turn says those)."""
    return replace(v, to_act=None, legal_actions=())


@pytest.mark.parametrize("rules", VARIANTS, ids=[f"rules{i}" for i in range(len(VARIANTS))])
@pytest.mark.parametrize("seed", [1, 2])
def test_tracker_follows_every_event_for_every_viewer(rules: Rules, seed: int) -> None:
    """T-33: each seat and a spectator follow a whole game from filtered events alone."""
    game = Game(rules, seed)
    rng = random.Random(seed)
    viewers: list[int | None] = [*range(rules.players), None]
    trackers = {viewer: ViewTracker(viewer) for viewer in viewers}
    cursor = 0
    steps = 0
    while not game.is_over and game.deals_dealt < 60:
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            player = random_player if rng.random() < 0.15 else greedy_player
            game.apply(seat, player(view(game, seat), rng))
        steps += 1
        for viewer, tracker in trackers.items():
            for event in events_for(game, viewer, cursor):
                tracker.apply(event)
            assert tracker.view is not None
            expected = comparable(view(game, viewer))
            assert comparable(tracker.view) == expected, (viewer, steps, game.events[cursor:])
            if rng.random() < 0.02:  # now and then start again from a server's view, as after a Turn
                tracker.reset(view(game, viewer))
        cursor = len(game.events)
    assert steps > 50


def test_set_turn_sets_whose_turn_and_the_legal_actions() -> None:
    game = Game(Rules(), 3)
    game.apply_chance()
    seat = game.to_act
    assert seat is not None
    tracker = ViewTracker(seat)
    for event in events_for(game, seat):
        tracker.apply(event)
    tracker.set_turn(seat, game.legal_actions())
    assert tracker.view == view(game, seat)
