"""Follow a 1000 Blagogo table from its events: an :class:`engine.blagogo.View` kept current between the views
the server sends (see :mod:`clients.tracker`), for what its viewer may see (B-21: the events it gets are
already filtered by the server).

Every field of the engine's view is kept, except ``to_act`` and ``legal_actions``, which only a Turn says
(:meth:`BlagogoViewTracker.set_turn`); the hand is kept as a set (its order is the order the cards came in).
``tests/test_cli_blagogo_tracker.py`` checks the tracker against :func:`engine.blagogo.view` after every
event of whole random games, for every viewer and several rule variants.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.cards import Card
from engine.blagogo.melds import TableMeld
from engine.blagogo.observer import View
from engine.blagogo.round import Phase
from engine.blagogo.rules import BlagogoRules

T = TypeVar("T")


def empty_view(rules: BlagogoRules, viewer: int | None, first_dealer: int) -> View:
    """The view before the first round."""
    n = rules.players
    return View(
        viewer, rules, 0, first_dealer, None, None, (), (0,) * n, ((),) * n, 0, (), (), (False,) * n,
        None, (0,) * n, (), None, None, None, False, None, (),
    )  # fmt: skip


def _minus(cards: tuple[Card, ...], gone: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    return tuple(c for c in cards if c not in gone)


def _by_index(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """Cards in the order the server lists them (by index)."""
    return tuple(sorted(cards, key=lambda c: c.index))


def _add(values: tuple[int, ...], seat: int, delta: int) -> tuple[int, ...]:
    return tuple(v + delta if s == seat else v for s, v in enumerate(values))


def _seat_set(values: tuple[T, ...], seat: int, value: T) -> tuple[T, ...]:
    return tuple(value if s == seat else v for s, v in enumerate(values))


def advance(v: View, event: be.Event, me: int | None) -> View:
    """``v`` after ``event``: the view the server sends with every own Turn, kept up to date in between."""
    match event:
        case be.GameStarted(rules, first_dealer):
            return empty_view(rules, me, first_dealer)
        case be.RoundStarted(number, dealer, first):
            n = len(v.card_counts)
            return replace(  # the first player starts by melding or discarding (B-7)
                v, round_number=number, dealer=dealer, to_act=first, phase=Phase.PLAY, hand=(), bridge=(),
                melds=(), opened=(False,) * n, known_cards=((),) * n, must_meld=None, revealed_hands=None,
                final_hands=None, round_winner=None, kantrame=False,
            )  # fmt: skip
        case be.HandDealt(seat, count, cards):
            hand = v.hand if cards is None or seat != me else tuple(cards)
            return replace(v, card_counts=_seat_set(v.card_counts, seat, count), hand=hand)
        case be.BridgeStarted(card, deck_count):
            return replace(v, bridge=(card,), deck_count=deck_count)
        case be.BridgeTurnedOver(count):
            return replace(v, bridge=(), deck_count=count)
        case be.CardDrawn(seat, card):
            hand = (*v.hand, card) if card is not None and seat == me else v.hand
            return replace(
                v,
                card_counts=_add(v.card_counts, seat, 1),
                deck_count=v.deck_count - 1,
                hand=hand,
                phase=Phase.PLAY,
            )
        case be.BridgeTaken(seat, position, cards):
            return replace(
                v, bridge=v.bridge[:position], card_counts=_add(v.card_counts, seat, len(cards)),
                hand=v.hand + cards if seat == me else v.hand,
                known_cards=_seat_set(v.known_cards, seat, _by_index(v.known_cards[seat] + cards)),
                phase=Phase.PLAY, must_meld=cards[0] if v.rules.bridge_take_must_meld else None,
            )  # fmt: skip
        case be.MeldsLaid(seat, melds, _, _):
            gone = [c for m in melds for c in m.cards]
            return _played(
                replace(v, melds=v.melds + melds, opened=_seat_set(v.opened, seat, True)), seat, gone, me
            )
        case be.MeldExtended(seat, meld, cards, _):
            return _played(_with_meld(v, meld), seat, list(cards), me)
        case be.JokerSwapped(seat, meld, card, joker):
            v = _played(_with_meld(v, meld), seat, [card], me)
            hand = (*v.hand, joker) if seat == me else v.hand
            known = _seat_set(v.known_cards, seat, _by_index((*v.known_cards[seat], joker)))
            return replace(v, hand=hand, known_cards=known, card_counts=_add(v.card_counts, seat, 1))
        case be.MeldClosed(meld_id, _):
            melds = tuple(replace(m, closed=True) if m.id == meld_id else m for m in v.melds)
            return replace(v, melds=melds)
        case be.Discarded(seat, card):
            return replace(_played(v, seat, [card], me), bridge=(*v.bridge, card), phase=Phase.DRAW)
        case be.RoundRevealed(_, _, hands, final_hands):
            return replace(
                v,
                phase=Phase.OVER,
                to_act=None,
                must_meld=None,
                revealed_hands=hands,
                final_hands=final_hands,
            )
        case be.RoundScored(_, winner, kantrame, _, _, _, totals):
            return replace(v, scores=totals, round_winner=winner, kantrame=kantrame)
        case be.GameOver(winner, standings):
            return replace(v, winner=winner, standings=standings, to_act=None)
    return v


def _with_meld(v: View, meld: TableMeld) -> View:
    return replace(v, melds=tuple(meld if m.id == meld.id else m for m in v.melds))


def _played(v: View, seat: int, gone: list[Card], me: int | None) -> View:
    """``seat`` put ``gone`` on the table (a meld, an addition, a swap or the discard)."""
    return replace(
        v,
        card_counts=_add(v.card_counts, seat, -len(gone)),
        hand=_minus(v.hand, gone) if seat == me else v.hand,
        known_cards=_seat_set(v.known_cards, seat, _minus(v.known_cards[seat], gone)),
        must_meld=None if v.must_meld in gone else v.must_meld,  # B-9: the card taken is melded
    )


class BlagogoViewTracker:
    """The current :class:`~engine.blagogo.View` of one viewer (a seat, or ``None`` for a spectator).

    Without ``rules`` there is no view until the game's first event (or a view from the server); with them,
    the view before the first round.
    """

    def __init__(self, viewer: int | None, rules: BlagogoRules | None = None, first_dealer: int = 0) -> None:
        self.viewer = viewer
        self.view: View | None = None if rules is None else empty_view(rules, viewer, first_dealer)

    def reset(self, view: View) -> None:
        self.view = view

    def apply(self, event: be.Event) -> None:
        if isinstance(event, be.GameStarted):
            self.view = empty_view(event.rules, self.viewer, event.first_dealer)
        elif self.view is not None:
            self.view = advance(self.view, event, self.viewer)

    def set_turn(self, seat: int | None, legal_actions: tuple[ba.Action, ...]) -> None:
        """The Turn's seat, and the viewer's legal actions as its view holds them: the simple actions (the
        Turn adds candidate melds to them, B-22)."""
        if self.view is not None:
            simple = tuple(a for a in legal_actions if not isinstance(a, ba.LayMelds))
            self.view = replace(self.view, to_act=seat, legal_actions=simple)
