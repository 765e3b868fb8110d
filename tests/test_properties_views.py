"""Property tests over random Thousand games: what every viewer is shown (T-33).

No view or filtered event shows a card its viewer may not see, and every viewer sees the deal's tricks as
they were played.
Games are played by the seeded random players of :mod:`tests.randomplay`; the rules, seeds and observers
they share: :mod:`tests.property_helpers`.
"""

from __future__ import annotations

from hypothesis import given

from engine import Card, Phase, Rules, events_for, view
from engine.events import CardPlayed, TrickTaken
from tests.property_helpers import (
    MAX_DEALS,
    RULES,
    SEEDS,
    cards_in,
    deal_start,
    may_see,
    property_settings,
    viewers,
)
from tests.randomplay import states

# ---------------------------------------------------------------------------------------------- T-33


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t33_views_and_events_reveal_no_hidden_card(rules: Rules, seed: int) -> None:
    """T-33 (with T-5, T-10, T-14, T-31): while a deal is in play, no card a viewer may not see appears
    anywhere in that viewer's view or in its filtered events of the deal; a spectator sees only public cards.
    """
    for game in states(rules, seed, MAX_DEALS):
        deal = game.deal
        if deal is None or deal.is_over:
            continue
        start = deal_start(game)
        for viewer in viewers(game):
            allowed = may_see(game, viewer)
            seen = view(game, viewer)
            leaked = cards_in(seen, set()) - allowed
            assert not leaked, f"view of {viewer} shows {leaked} in phase {deal.phase}"
            if viewer is not None:
                looking = not (deal.phase is Phase.DARK and viewer == deal.active[0])
                assert seen.hand == (deal.hand(viewer) if looking else ()), "a seat sees its own hand"
            leaked = cards_in(events_for(game, viewer, start), set()) - allowed
            assert not leaked, f"events for {viewer} show {leaked} in phase {deal.phase}"


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t33_every_view_lists_the_deals_taken_tricks_as_played(rules: Rules, seed: int) -> None:
    """T-33: tricks are public; every viewer's ``view.tricks`` is the deal's CardPlayed events grouped by the
    TrickTaken events that closed them, with the same winner and points."""
    for game in states(rules, seed, MAX_DEALS):
        if game.deal is None:
            continue
        expected: list[tuple[int, tuple[tuple[int, Card], ...], int]] = []
        plays: list[tuple[int, Card]] = []
        for event in game.events[deal_start(game) :]:
            if isinstance(event, CardPlayed):
                plays.append((event.seat, event.card))
            elif isinstance(event, TrickTaken):
                assert tuple(card for _, card in plays) == event.cards
                expected.append((event.seat, tuple(plays), event.points))
                plays = []
        for viewer in viewers(game):
            seen = view(game, viewer)
            assert [(t.winner, t.plays, t.points) for t in seen.tricks] == expected
            assert seen.trick == tuple(plays)
