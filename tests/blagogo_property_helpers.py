"""Strategies and settings for the 1000 Blagogo property tests over random games (test_blagogo_properties_*).

Games are driven by the seeded random player of :mod:`engine.blagogo.randomplay` (random simple actions and
random candidate melds); hypothesis draws the rules and the seed. Checks that need the whole state at every
step (views of every seat, the exact validator against every simple action) run on a sample of steps.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine.blagogo import BlagogoRules, CompletedSetKeeper, LayoffScores

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
MAX_ROUNDS = 2
MAX_ACTIONS = 3000
"""Per example: random rounds usually end within a few hundred actions; a dead round is cut off here."""

property_settings = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
light_settings = settings(property_settings, max_examples=15)


@st.composite
def any_rules(draw: st.DrawFn, players: int | None = None) -> BlagogoRules:
    return BlagogoRules(
        players=players if players is not None else draw(st.integers(2, 8)),
        ace_in_hand=draw(st.sampled_from((10, 25)) | st.integers(0, 50)),
        bridge_take_must_meld=draw(st.booleans()),
        opening_min_points=draw(st.sampled_from((30, 0)) | st.integers(0, 80)),
        layoff_scores_for=draw(st.sampled_from(LayoffScores)),
        kantrame_first_turn_only=draw(st.booleans()),
        target=draw(st.sampled_from((1000, 100)) | st.integers(1, 2000)),
        turnover_limit=draw(st.sampled_from((0, 1, 3))),
        opening_one_meld=draw(st.booleans()),
        completed_set_keeper=draw(st.sampled_from(CompletedSetKeeper)),
        play_on_own_melds=draw(st.booleans()),
        max_jokers_per_meld=draw(st.sampled_from((0, 0, 1, 2))),
    )


RULES = st.one_of(st.integers(2, 8).map(lambda p: BlagogoRules(players=p)), any_rules())
