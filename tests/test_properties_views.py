"""Property tests over random Thousand games: what every viewer is shown (T-33).

Every viewer sees the deal's tricks as they were played. That no view or filtered event shows a card its
viewer may not see is checked for every game in tests/test_engine_conformance.py (Thousand's check:
:func:`tests.property_helpers.no_hidden_card`).
Games are played by the seeded random players of :mod:`tests.randomplay`; the rules, seeds and observers
they share: :mod:`tests.property_helpers`.
"""

from __future__ import annotations

from hypothesis import given

from engine import Card, Rules, view
from engine.events import CardPlayed, TrickTaken
from tests.property_helpers import (
    MAX_DEALS,
    RULES,
    SEEDS,
    deal_start,
    property_settings,
    viewers,
)
from tests.randomplay import states

# ---------------------------------------------------------------------------------------------- T-33


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
