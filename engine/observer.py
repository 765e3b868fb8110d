"""What one seat, or a spectator, may see (T-33).

The game keeps everything; this module is the only way its state leaves for a client. A view is built from
the game for one viewer, and every event passes through :func:`event_for` before a viewer gets it. Hidden
information is left out here, in one place, rather than trusted to every caller.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.actions import Action
from engine.cards import CARDS, Card, Suit, cards_of, points_of
from engine.events import CardGiven, DealKind, Event, HandDealt, Standing, TalonTaken
from engine.game import Game
from engine.phases import Phase
from engine.rules import Rules

SPECTATOR = None
"""Pass as the viewer for a spectator, who sees public information only."""


@dataclass(frozen=True, slots=True)
class SeatScore:
    """One seat's public line of the score sheet."""

    seat: int
    score: int
    bolts: int
    on_barrel: bool
    barrel_deals: int
    barrel_visits: int
    falls: int


@dataclass(frozen=True, slots=True)
class Exchange:
    """A card the viewer gave or received in the exchange (T-14); ``to`` is None for the other talon."""

    giver: int
    to: int | None
    card: Card | None


@dataclass(frozen=True, slots=True)
class TakenTrick:
    """A completed trick of the current deal: public, since every card is played face up (T-33)."""

    winner: int
    plays: tuple[tuple[int, Card], ...]
    """(seat, card) in the order played; the first seat led."""
    points: int
    """The card points the winner took with it."""


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``viewer`` may know right now, and nothing more."""

    viewer: int | None
    rules: Rules
    deal_number: int
    dealer: int
    kind: DealKind | None
    phase: Phase | None
    """None before the first deal is dealt."""
    active: tuple[int, ...]
    sitter: int | None
    hand: tuple[Card, ...]
    card_counts: tuple[int, ...]
    auction: tuple[tuple[int, int | None], ...]
    high_bid: int | None
    high_bidder: int | None
    dark_seat: int | None
    declarer: int | None
    bid: int | None
    contract: int | None
    doubled: bool
    talon: tuple[Card, ...] | None
    """The taken talon's cards when the viewer may see them."""
    talon_counts: tuple[int, ...]
    exchange: tuple[Exchange, ...]
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[TakenTrick, ...]
    """The deal's completed tricks in order, so a client that joins or resumes mid-deal (a bot, a new
    screen) knows every card played, not only their count and points."""
    trump: Suit | None
    marriages: tuple[tuple[int, Suit], ...]
    tricks_won: tuple[int, ...]
    trick_points: tuple[int, ...]
    """Card points each seat has taken in tricks so far (public: every trick is played face up)."""
    scores: tuple[SeatScore, ...]
    to_act: int | None
    legal_actions: tuple[Action, ...]
    """The viewer's legal actions when it is the viewer's turn, else empty."""
    revealed_hands: tuple[tuple[Card, ...], ...] | None
    """Once the deal is over, every hand as dealt (T-33 allows it)."""
    winner: int | None
    standings: tuple[Standing, ...]


def view(game: Game, viewer: int | None) -> View:
    """The view of ``viewer`` (a seat, or :data:`SPECTATOR`)."""
    n = game.rules.players
    scores = tuple(
        SeatScore(s, r.score, r.bolts, r.on_barrel, r.barrel_deals, r.barrel_visits, r.falls)
        for s, r in enumerate(game.records)
    )
    deal = game.deal
    if deal is None:
        return View(
            viewer, game.rules, 0, game.dealer, None, None, (), None, (), (0,) * n, (), None, None, None,
            None, None, None, False, None, (), (), (), (), None, (), (0,) * n, (0,) * n, scores, None, (),
            None, game.winner, game.standings,
        )  # fmt: skip
    over = deal.is_over
    hides_own_hand = deal.phase is Phase.DARK  # T-31: the dark decision is made before looking
    hand: tuple[Card, ...] = ()
    if viewer is not None and deal.hands[viewer] and not (hides_own_hand and viewer == deal.to_act):
        hand = cards_of(deal.hands[viewer])
    talon: tuple[Card, ...] | None = None
    if deal.taken_talon and (deal.talon_face_up or viewer == deal.declarer or over):
        talon = cards_of(deal.taken_talon)
    exchange = _exchange_known(game, viewer)
    legal = game.legal_actions() if viewer is not None and viewer == game.to_act else ()
    return View(
        viewer=viewer,
        rules=game.rules,
        deal_number=deal.number,
        dealer=deal.dealer,
        kind=deal.kind,
        phase=deal.phase,
        active=deal.active,
        sitter=deal.sitter,
        hand=hand,
        card_counts=tuple(m.bit_count() for m in deal.hands),
        auction=tuple(deal.auction),
        high_bid=deal.high_bid,
        high_bidder=deal.high_bidder,
        dark_seat=deal.dark_seat,
        declarer=deal.declarer,
        bid=deal.bid or None,
        contract=deal.contract,
        doubled=deal.doubled,
        talon=talon,
        talon_counts=tuple(m.bit_count() for m in deal.talons),
        exchange=exchange,
        trick=deal.trick_cards(),
        tricks=tuple(
            TakenTrick(winner, tuple([(seat, CARDS[i]) for seat, i in plays]), points)
            for winner, plays, points in deal.taken_tricks
        ),
        trump=deal.trump,
        marriages=tuple(deal.marriages),
        tricks_won=tuple(deal.tricks_won),
        trick_points=tuple(points_of(m) for m in deal.won),
        scores=scores,
        to_act=game.to_act,
        legal_actions=legal,
        revealed_hands=tuple(cards_of(m) for m in deal.dealt) if over else None,
        winner=game.winner,
        standings=game.standings,
    )


def _exchange_known(game: Game, viewer: int | None) -> tuple[Exchange, ...]:
    """The exchange cards of the current deal as the viewer knows them: a card the viewer neither gave nor
    received is blanked here, as :func:`event_for` blanks it (T-14), without copying the event to read it
    (the acting seat's view is built on every action, and this walk is a quarter of it otherwise)."""
    known: list[Exchange] = []
    for event in reversed(game.events):
        kind = type(event)
        if kind is CardGiven:
            assert isinstance(event, CardGiven)
            seen = viewer is not None and viewer in (event.seat, event.to)
            known.append(Exchange(event.seat, event.to, event.card if seen else None))
        elif kind is HandDealt:
            break  # events before the deal's own dealing belong to earlier deals
    known.reverse()
    return tuple(known)


def event_for(event: Event, viewer: int | None) -> Event:
    """``event`` as ``viewer`` may see it: hidden cards blanked (T-33)."""
    match event:
        case HandDealt(seat=seat) if seat != viewer:
            return replace(event, cards=None)
        case TalonTaken(seat=seat, face_up=False) if seat != viewer:
            return replace(event, cards=None)
        case CardGiven(seat=seat, to=to) if viewer is None or viewer not in (seat, to):
            return replace(event, card=None)
    return event


def events_for(game: Game, viewer: int | None, start: int = 0) -> list[Event]:
    """The game's events from index ``start`` on, filtered for ``viewer``."""
    return [event_for(e, viewer) for e in game.events[start:]]
