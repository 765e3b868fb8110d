"""1000 Blagogo's information-state tensor: the observation (:mod:`engine.blagogo.encoding`), the hand the
seat was dealt, and the round's latest moves as the seat saw them, which the observation folds away.

Layout (:data:`INFORMATION_STATE_SIZE` floats, seats relative to the viewer, faces as in the encoding)::

    observation (engine.blagogo.encoding.OBSERVATION_SIZE) · dealt hand 53 (copies / 2) ·
    MAX_MOVES slots of the round's moves, the latest last, each:
        kind 7 (draw, take, lay, extend, swap, discard, turnover) · actor 8 · faces 53 (the card drawn when
        the viewer drew it, the cards taken, laid or added, the natural swapped in; copies / 2) ·
        bridge position taken (/ 108) · cards moved (/ 13)

**Not strictly perfect recall.** A Blagogo round has no bound on its length (the deck is turned over and
played through again, B-10), so a fixed tensor keeps only the latest :data:`MAX_MOVES` moves; and a lay of
several melds pools their faces in one slot (the melds themselves are in the observation's table, each
with its owner, but two orders of laying that end in the same table look the same). Two histories of one
seat that differ only before the latest moves, or in how a turn's melds were grouped, share a tensor. The
information-state *string* (:func:`engine.blagogo.encoding.information_state`) is perfect recall.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.blagogo.cards import CARD_FACE, Card
from engine.blagogo.encoding import FACES, OBSERVATION_SIZE, SEATS, observation
from engine.blagogo.events import (
    BridgeTaken,
    BridgeTurnedOver,
    CardDrawn,
    Discarded,
    Event,
    HandDealt,
    JokerSwapped,
    MeldExtended,
    MeldsLaid,
    RoundStarted,
)
from engine.blagogo.game import Game
from engine.blagogo.observer import event_for, view

MAX_MOVES: Final = 96
KINDS: Final = (CardDrawn, BridgeTaken, MeldsLaid, MeldExtended, JokerSwapped, Discarded, BridgeTurnedOver)
SLOT: Final = len(KINDS) + SEATS + FACES + 2
INFORMATION_STATE_SIZE: Final = OBSERVATION_SIZE + FACES + MAX_MOVES * SLOT


def _round_events(game: Game, seat: int) -> list[Event]:
    """The current round's events (from its RoundStarted on) as ``seat`` sees them."""
    events = game.events
    start = len(events)
    while start > 0 and not isinstance(events[start - 1], RoundStarted):
        start -= 1
    return [event_for(e, seat) for e in events[max(start - 1, 0) :]]


def _move(event: Event) -> tuple[int, int | None, Sequence[Card], int] | None:
    """An event's kind, actor, cards and bridge position, or None for an event that is not a move."""
    match event:
        case CardDrawn(actor, card):
            return 0, actor, () if card is None else (card,), 0
        case BridgeTaken(actor, position, cards):
            return 1, actor, cards, position
        case MeldsLaid(actor, melds):
            return 2, actor, [c for m in melds for c in m.cards], 0
        case MeldExtended(actor, _, cards):
            return 3, actor, cards, 0
        case JokerSwapped(actor, _, card):
            return 4, actor, (card,), 0
        case Discarded(actor, card):
            return 5, actor, (card,), 0
        case BridgeTurnedOver():
            return 6, None, (), 0
    return None


def information_state_tensor(game: Game, seat: int) -> list[float]:
    """What ``seat`` has seen of ``game``'s current round, as floats (layout in the module docstring)."""
    out = observation(view(game, seat))
    out.extend([0.0] * (FACES + MAX_MOVES * SLOT))
    n = game.rules.players
    seen = _round_events(game, seat)
    for event in seen:
        if isinstance(event, HandDealt) and event.seat == seat and event.cards is not None:
            for c in event.cards:
                out[OBSERVATION_SIZE + CARD_FACE[c.index]] += 0.5
    moves = [m for m in map(_move, seen) if m is not None][-MAX_MOVES:]
    first = OBSERVATION_SIZE + FACES
    for k, (kind, actor, cards, position) in enumerate(moves):
        base = first + k * SLOT
        out[base + kind] = 1.0
        if actor is not None:
            out[base + len(KINDS) + (actor - seat) % n] = 1.0
        faces = base + len(KINDS) + SEATS
        for c in cards:
            out[faces + CARD_FACE[c.index]] += 0.5
        out[faces + FACES] = position / 108
        out[faces + FACES + 1] = len(cards) / 13
    return out


__all__ = ["INFORMATION_STATE_SIZE", "MAX_MOVES", "information_state_tensor"]
