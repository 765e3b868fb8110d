"""clients.tracker.blagogo: the view a client keeps from a 1000 Blagogo table's events equals the engine's own
view, after every event, for every viewer (B-21: the events are filtered as the server filters them)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from clients.tracker.blagogo import BlagogoViewTracker
from engine.blagogo import BlagogoRules, Game, LayMelds, View, events_for, view
from engine.blagogo.randomplay import step
from engine.blagogo.rules import LayoffScores

VARIANTS = [
    BlagogoRules(players=2, target=300, turnover_limit=2),
    BlagogoRules(players=4, target=300, turnover_limit=1, opening_min_points=0),
    BlagogoRules(players=3, target=200, bridge_take_must_meld=True, turnover_limit=2),
    BlagogoRules(players=6, target=400, ace_in_hand=0, layoff_scores_for=LayoffScores.CONTRIBUTOR),
    BlagogoRules(players=8, target=400, kantrame_first_turn_only=True, turnover_limit=1),
]


def comparable(v: View) -> View:
    """What the tracker keeps: everything but whose turn it is and the legal actions (a Turn says those); the
    hand as a set (the tracker keeps the order the cards came in)."""
    return replace(v, to_act=None, legal_actions=(), hand=tuple(sorted(v.hand, key=lambda c: c.index)))


@pytest.mark.parametrize("rules", VARIANTS, ids=[f"rules{i}" for i in range(len(VARIANTS))])
@pytest.mark.parametrize("seed", [1, 2])
def test_tracker_follows_every_event_for_every_viewer(rules: BlagogoRules, seed: int) -> None:
    """B-21: each seat and a spectator follow a whole game from filtered events alone."""
    game = Game(rules, seed, 0)
    rng = random.Random(seed)
    viewers: list[int | None] = [*range(rules.players), None]
    trackers = {viewer: BlagogoViewTracker(viewer) for viewer in viewers}
    cursor = 0
    steps = 0
    while not game.is_over and steps < 2500:
        step(game, rng)
        steps += 1
        for viewer, tracker in trackers.items():
            for event in events_for(game, viewer, cursor):
                tracker.apply(event)
            assert tracker.view is not None
            assert comparable(tracker.view) == comparable(view(game, viewer)), (viewer, steps)
            if rng.random() < 0.02:  # now and then start again from a server's view, as after a Turn
                tracker.reset(view(game, viewer))
        cursor = len(game.events)
    assert steps > 50, steps


def test_set_turn_keeps_the_simple_actions_as_the_view_lists_them() -> None:
    """B-22: a Turn lists the simple actions and then candidate melds; the view holds the simple ones."""
    rules = BlagogoRules(players=3, opening_min_points=0)
    game = Game(rules, 5, 0)
    game.apply_chance()
    seat = game.to_act
    assert seat is not None
    tracker = BlagogoViewTracker(seat, rules)
    for event in events_for(game, seat):
        tracker.apply(event)
    candidates = game.candidate_melds()
    assert candidates and all(isinstance(a, LayMelds) for a in candidates)
    tracker.set_turn(seat, (*game.legal_actions(), *candidates))
    assert tracker.view == replace(view(game, seat), hand=tracker.view.hand if tracker.view else ())
    tracker.set_turn((seat + 1) % 3, ())
    assert tracker.view is not None and tracker.view.to_act == (seat + 1) % 3
    assert tracker.view.legal_actions == ()
