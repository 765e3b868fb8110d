"""What one seat, or a spectator, may see of a game of 1000 Blagogo (B-21).

The game keeps everything; this module is the only way its state leaves for a client. A seat sees its own
hand, the bridge in order, every meld with its owner, the cards every player took from the bridge (and the
jokers swapped out of melds) while they are still in that hand, each player's card count, the deck's count
and the scores. A card drawn from the deck is seen only by the one who draws it. Once a round is over the
whole round is revealed to everyone (:class:`RoundRevealed`, and ``revealed_hands`` in the view).

Every event passes through :func:`event_for` before a viewer gets it: only :class:`HandDealt` and
:class:`CardDrawn` carry hidden cards, and those are blanked for everyone but their seat.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.blagogo.actions import Action
from engine.blagogo.cards import CARDS, Card, cards_of
from engine.blagogo.events import CardDrawn, Event, HandDealt, Standing
from engine.blagogo.game import Game
from engine.blagogo.melds import TableMeld
from engine.blagogo.round import Phase
from engine.blagogo.rules import BlagogoRules

SPECTATOR = None
"""Pass as the viewer for a spectator, who sees public information only."""


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``viewer`` may know right now, and nothing more."""

    viewer: int | None
    rules: BlagogoRules
    round_number: int
    """0 before the first round is dealt."""
    dealer: int
    phase: Phase | None
    to_act: int | None
    hand: tuple[Card, ...]
    """The viewer's own hand (empty for a spectator)."""
    card_counts: tuple[int, ...]
    known_cards: tuple[tuple[Card, ...], ...]
    """Per seat: the cards everyone knows it holds (taken from the bridge, or jokers swapped out of melds)."""
    deck_count: int
    bridge: tuple[Card, ...]
    """B-6: in the order laid, the earliest first."""
    melds: tuple[TableMeld, ...]
    """Every meld laid this round, by id: its owner, what its jokers stand for, whether it is closed."""
    opened: tuple[bool, ...]
    must_meld: Card | None
    """B-9 ``bridge_take_must_meld``: the bridge card the acting seat still has to meld (public)."""
    scores: tuple[int, ...]
    legal_actions: tuple[Action, ...]
    """The viewer's simple legal actions when it is the viewer's turn, else empty (B-22)."""
    revealed_hands: tuple[tuple[Card, ...], ...] | None
    """Once the round is over: every hand as dealt (B-21 allows it)."""
    final_hands: tuple[tuple[Card, ...], ...] | None
    """Once the round is over: every hand as it ended."""
    round_winner: int | None
    kantrame: bool
    winner: int | None
    standings: tuple[Standing, ...]


def view(game: Game, viewer: int | None) -> View:
    """The view of ``viewer`` (a seat, or :data:`SPECTATOR`)."""
    n = game.rules.players
    rnd = game.round
    scores = tuple(game.scores)
    if rnd is None:
        return View(
            viewer, game.rules, 0, game.dealer, None, None, (), (0,) * n, ((),) * n, 0, (), (), (False,) * n,
            None, scores, (), None, None, None, False, game.winner, game.standings,
        )  # fmt: skip
    over = rnd.is_over
    hand = cards_of(rnd.hands[viewer]) if viewer is not None else ()
    legal = game.legal_actions() if viewer is not None and viewer == game.to_act else ()
    return View(
        viewer=viewer,
        rules=game.rules,
        round_number=rnd.number,
        dealer=rnd.dealer,
        phase=rnd.phase,
        to_act=game.to_act,
        hand=hand,
        card_counts=tuple(h.bit_count() for h in rnd.hands),
        known_cards=tuple(cards_of(k) for k in rnd.known),
        deck_count=len(rnd.deck),
        bridge=tuple(CARDS[i] for i in rnd.bridge),
        melds=tuple(rnd.melds),
        opened=tuple(rnd.opened),
        must_meld=None if rnd.must_meld is None else CARDS[rnd.must_meld],
        scores=scores,
        legal_actions=legal,
        revealed_hands=tuple(cards_of(m) for m in rnd.dealt) if over else None,
        final_hands=tuple(cards_of(m) for m in rnd.hands) if over else None,
        round_winner=rnd.winner,
        kantrame=rnd.kantrame,
        winner=game.winner,
        standings=game.standings,
    )


def event_for(event: Event, viewer: int | None) -> Event:
    """``event`` as ``viewer`` may see it: hidden cards blanked (B-21)."""
    match event:
        case HandDealt(seat=seat) if seat != viewer:
            return replace(event, cards=None)
        case CardDrawn(seat=seat) if seat != viewer:
            return replace(event, card=None)
    return event


def events_for(game: Game, viewer: int | None, start: int = 0) -> list[Event]:
    """The game's events from index ``start`` on, filtered for ``viewer``."""
    return [event_for(e, viewer) for e in game.events[start:]]
