"""Strategies and settings for the 1000 Blagogo property tests over random games (test_blagogo_properties_*).

Games are driven by the seeded random player of :mod:`engine.blagogo.randomplay` (random simple actions and
random candidate melds); hypothesis draws the rules and the seed. Checks that need the whole state at every
step (views of every seat, the exact validator against every simple action) run on a sample of steps.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine.blagogo import (
    SPECTATOR,
    BlagogoRules,
    Card,
    CompletedSetKeeper,
    Game,
    LayoffScores,
    event_for,
    view,
)
from engine.blagogo.cards import CARDS
from engine.blagogo.events import (
    BridgeStarted,
    BridgeTaken,
    CardDrawn,
    Discarded,
    HandDealt,
    JokerSwapped,
    MeldExtended,
    MeldsLaid,
    RoundRevealed,
    RoundStarted,
)
from tests.blagogo_helpers import rnd
from tests.instances import instances_in

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


# ---------------------------------------------------------------------------------------------- B-21


def round_start(game: Game) -> int:
    """Index in ``game.events`` of the current round's RoundStarted."""
    for i in range(len(game.events) - 1, -1, -1):
        if isinstance(game.events[i], RoundStarted):
            return i
    raise AssertionError("no round has started")


def may_see(game: Game, viewer: int | None) -> set[Card]:
    """B-21, written independently of the observer: the cards ``viewer`` may know in the current round.

    Everything that was ever face up (the bridge's first card, discards, cards taken from the bridge, melds,
    jokers swapped out), the viewer's own dealt hand and draws; and once the round is over, everything.
    """
    if rnd(game).is_over:
        return set(CARDS)
    seen: set[Card] = set()
    for event in game.events[round_start(game) :]:
        match event:
            case HandDealt(seat, _, cards) if seat == viewer:
                assert cards is not None
                seen.update(cards)
            case CardDrawn(seat, card) if seat == viewer:
                assert card is not None
                seen.add(card)
            case BridgeStarted(card, _) | Discarded(_, card):
                seen.add(card)
            case BridgeTaken(_, _, cards):
                seen.update(cards)
            case MeldsLaid(_, melds, _, _):
                for m in melds:
                    seen.update(m.cards)
            case MeldExtended(_, meld, _, _):
                seen.update(meld.cards)
            case JokerSwapped(_, meld, _, joker):
                seen.update(meld.cards)
                seen.add(joker)
            case _:
                pass
    return seen


def viewers(game: Game) -> tuple[int | None, ...]:
    return (SPECTATOR, *range(game.rules.players))


# ------------------------------------------------------------------ the conformance suite's per-game checks


def cards_conserved(game: Game) -> None:
    """B-1: after every step each of the 108 cards is in exactly one place: a hand, the deck, the bridge or
    a meld, and the public counts add up to 108
    (:func:`tests.test_engine_conformance.test_t1_b1_every_card_is_in_one_place_at_every_step`)."""
    r = game.round
    if r is None:
        return
    r.check_invariants()
    v = view(game, SPECTATOR)
    assert sum(v.card_counts) + v.deck_count + len(v.bridge) + sum(len(m.cards) for m in v.melds) == 108


def no_hidden_card(states: Iterable[Game]) -> None:
    """B-21: a view holds only cards the viewer may know; a filtered event shows dealt and drawn cards only
    to their seat; the viewer's own hand is exact; legal actions are only shown to the seat to act
    (:func:`tests.test_engine_conformance.test_t33_b21_no_viewer_is_shown_a_card_it_may_not_see`)."""
    seen_events = 0
    for step, game in enumerate(states):
        r = game.round
        if r is None:
            continue
        new = game.events[seen_events:]
        seen_events = len(game.events)
        check_views = step % 7 == 0 or r.is_over
        for viewer in viewers(game):
            allowed = may_see(game, viewer) if check_views else None
            for event in new:
                filtered = event_for(event, viewer)
                if isinstance(filtered, HandDealt) and filtered.seat != viewer:
                    assert filtered.cards is None
                if isinstance(filtered, CardDrawn) and filtered.seat != viewer:
                    assert filtered.card is None
                if allowed is not None and not isinstance(filtered, RoundRevealed):
                    leaked = instances_in(filtered, Card, set()) - allowed
                    assert not leaked, f"{event} shows {leaked} to {viewer}"
            if allowed is None:
                continue
            v = view(game, viewer)
            leaked = instances_in(v, Card, set()) - allowed
            assert not leaked, f"view of {viewer} shows {leaked}"
            if viewer is not None:
                assert v.hand == r.hand(viewer)
                assert set(v.known_cards[viewer]) <= set(v.hand)
            else:
                assert v.hand == ()
            assert v.legal_actions == (game.legal_actions() if viewer == game.to_act else ())
