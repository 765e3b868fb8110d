"""Property tests over random 1000 Blagogo games: no hidden card leaks (B-21).

A view holds only the cards its viewer may know, by a reference written from B-21 independently of the
engine's observer; a filtered event shows dealt and drawn cards only to their seat.
Games are played by the seeded random player of :mod:`engine.blagogo.randomplay`; the rules, seeds and
settings they share: :mod:`tests.blagogo_property_helpers`.
"""

from __future__ import annotations

import dataclasses
from functools import cache

from hypothesis import given

from engine.blagogo import SPECTATOR, BlagogoRules, Card, Game, event_for, view
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
from engine.blagogo.randomplay import states
from tests.blagogo_helpers import rnd
from tests.blagogo_property_helpers import MAX_ACTIONS, MAX_ROUNDS, RULES, SEEDS, property_settings


def round_start(game: Game) -> int:
    """Index in ``game.events`` of the current round's RoundStarted."""
    for i in range(len(game.events) - 1, -1, -1):
        if isinstance(game.events[i], RoundStarted):
            return i
    raise AssertionError("no round has started")


@cache
def _fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def cards_in(obj: object, found: set[Card]) -> set[Card]:
    """Every Card anywhere inside ``obj`` (dataclasses, tuples, lists)."""
    if isinstance(obj, Card):
        found.add(obj)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for item in obj:
            cards_in(item, found)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for name in _fields(type(obj)):
            cards_in(getattr(obj, name), found)
    return found


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


# ---------------------------------------------------------------------------------------------- B-21


@property_settings
@given(rules=RULES, seed=SEEDS)
def test_b21_no_hidden_card_leaks_in_views_or_events(rules: BlagogoRules, seed: int) -> None:
    """B-21: a view holds only cards the viewer may know; a filtered event shows dealt and drawn cards only
    to their seat; the viewer's own hand is exact; legal actions are only shown to the seat to act."""
    seen_events = 0
    for step, game in enumerate(states(rules, seed, MAX_ROUNDS, MAX_ACTIONS)):
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
                    leaked = cards_in(filtered, set()) - allowed
                    assert not leaked, f"{event} shows {leaked} to {viewer}"
            if allowed is None:
                continue
            v = view(game, viewer)
            leaked = cards_in(v, set()) - allowed
            assert not leaked, f"view of {viewer} shows {leaked}"
            if viewer is not None:
                assert v.hand == r.hand(viewer)
                assert set(v.known_cards[viewer]) <= set(v.hand)
            else:
                assert v.hand == ()
            assert v.legal_actions == (game.legal_actions() if viewer == game.to_act else ())
