"""Property tests over random Thousand games: the 120 points of the 24 cards (T-1, T-22).

A played deal's tricks hold 120 card points and each seat's deal points are its card points plus its
marriages (T-22). That each card is in one place at every step (T-1) is checked for every game in
tests/test_engine_conformance.py (Thousand's check: :func:`tests.property_helpers.cards_conserved`).
Games are played by the seeded random players of :mod:`tests.randomplay`; the rules, seeds and observers
they share: :mod:`tests.property_helpers`.
"""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given

from engine import Card, Rules
from engine.cards import CARDS
from engine.events import (
    DealScored,
    DealStarted,
    Event,
    LastTalonTaken,
    MarriageDeclared,
    Outcome,
    TrickTaken,
)
from tests.property_helpers import MAX_DEALS, RULES, SEEDS, property_settings
from tests.randomplay import play


def deals(events: list[Event]) -> Iterator[list[Event]]:
    """The events of each deal, from its DealStarted to the event before the next one."""
    current: list[Event] | None = None
    for event in events:
        if isinstance(event, DealStarted):
            if current is not None:
                yield current
            current = []
        if current is not None:
            current.append(event)
    if current is not None:
        yield current


# ---------------------------------------------------------------------------------------------- T-1, T-22


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_t1_t22_played_deal_trick_points_sum_to_120(rules: Rules, seed: int) -> None:
    """T-1, T-22 (and T-21): in a played deal the tricks (and the last talon) hold 120 card points, every
    card once; each seat's deal points are its card points plus its declared marriages."""
    game = play(rules, seed, MAX_DEALS)
    for events in deals(game.events):
        scored = [e for e in events if isinstance(e, DealScored)]
        if not scored or scored[0].outcome is Outcome.CONCEDED:
            continue  # a redeal or a rospis: no tricks
        (result,) = scored
        card_points = [0] * rules.players
        seen: list[Card] = []
        for event in events:
            if isinstance(event, (TrickTaken, LastTalonTaken)):
                assert event.points == sum(c.points for c in event.cards)
                card_points[event.seat] += event.points
                seen += event.cards
        assert sum(card_points) == 120
        assert len(seen) == 24 and set(seen) == set(CARDS)
        marriages = [0] * rules.players
        for event in events:
            if isinstance(event, MarriageDeclared):
                marriages[event.seat] += event.points
        expected = tuple(p + m for p, m in zip(card_points, marriages, strict=True))
        assert result.deal_points == expected
