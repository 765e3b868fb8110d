"""Stacked decks: the shuffle that deals given hands, bridge card and deck top (for tests and demos).

Cards are written by face (``"A♠ K♠ ★"``); each face takes the first copy not yet used (a ``'`` asks for the
second deck's copy, ``★3`` for a given joker). Whatever is not named goes to the bottom of the deck in index
order, so a scenario reads like a deal written on paper.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.blagogo.actions import Shuffle
from engine.blagogo.cards import CARDS, FIRST_JOKER, Card
from engine.blagogo.round_state import FIRST_HAND, HAND, deal_order


class _Picker:
    def __init__(self) -> None:
        self.used: set[int] = set()

    def one(self, token: str) -> Card:
        card = Card.parse(token)
        explicit = token.endswith(("'", "’")) or (card.is_joker and token[-1].isdigit())
        if explicit:
            choices = [card.index]
        elif card.is_joker:
            choices = list(range(FIRST_JOKER, FIRST_JOKER + 4))
        else:
            choices = [card.index, card.index + 1]
        for i in choices:
            if i not in self.used:
                self.used.add(i)
                return CARDS[i]
        raise ValueError(f"no copy of {token} left")

    def many(self, text: str) -> list[Card]:
        return [self.one(t) for t in text.split()]


def stack(
    players: int,
    dealer: int,
    hands: Mapping[int, str],
    bridge: str,
    deck: str = "",
    *,
    fill: bool = False,
) -> Shuffle:
    """The shuffle that deals ``hands`` (by seat), turns ``bridge`` up and puts ``deck`` on top, in order.

    The first seat after the dealer needs 13 cards, every other seat 12 (B-5); ``deck`` lists the cards
    drawn first, the first drawn first. With ``fill`` a seat may be left out or given fewer cards: its hand is
    filled up with unnamed cards in index order.
    """
    seats = deal_order(players, dealer)
    if not set(hands) <= set(seats) or (not fill and sorted(hands) != sorted(seats)):
        raise ValueError(f"hands for seats {sorted(seats)} expected, got {sorted(hands)}")
    picker = _Picker()
    named = {seat: picker.many(hands.get(seat, "")) for seat in seats}
    bridge_cards = picker.many(bridge)
    if len(bridge_cards) != 1:
        raise ValueError("the bridge starts with exactly one card")
    top = picker.many(deck)
    spare = (c for c in CARDS if c.index not in picker.used)
    order: list[Card] = []
    for i, seat in enumerate(seats):
        cards = named[seat]
        size = FIRST_HAND if i == 0 else HAND
        while fill and len(cards) < size:
            cards.append(next(spare))
        if len(cards) != size:
            raise ValueError(f"seat {seat} needs {size} cards, got {len(cards)}")
        order += cards
    used = {c.index for c in order} | {c.index for c in bridge_cards} | {c.index for c in top}
    order += bridge_cards + top
    order += [c for c in CARDS if c.index not in used]
    return Shuffle(tuple(order))


def pick(cards: tuple[Card, ...], text: str) -> tuple[Card, ...]:
    """The cards of ``cards`` (a hand) with the faces in ``text``, each a different card.

    ``'`` and ``★n`` ask for that very card; otherwise the first copy held that is not picked yet.
    """
    held = {c.index for c in cards}
    out: list[Card] = []
    for token in text.split():
        card = Card.parse(token)
        explicit = token.endswith(("'", "’")) or (card.is_joker and token[-1].isdigit())
        if explicit:
            choices = [card.index]
        elif card.is_joker:
            choices = list(range(FIRST_JOKER, FIRST_JOKER + 4))
        else:
            choices = [card.index, card.index + 1]
        for i in choices:
            if i in held and all(o.index != i for o in out):
                out.append(CARDS[i])
                break
        else:
            raise ValueError(f"{token} is not in the hand {' '.join(map(str, cards))}")
    return tuple(out)
