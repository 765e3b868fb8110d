"""Thousand's 24 cards as ``Card`` messages: a suit and a rank, mapped by name (``Suit.SPADES`` is
``SUIT_SPADES``).

Every other mapping of the game writes its cards through :data:`CARD_MESSAGES`, which holds each card's
message once, and reads them back through :func:`card_from_proto`, which a client's action reaches too, so it
names the field that is wrong.
"""

from __future__ import annotations

from typing import Final

from codec.card_messages import CardMessages
from codec.common import enum_problem, enum_table, reverse
from engine import InvalidActionError
from engine.cards import CARDS, Card, Rank, Suit
from thousand.v1 import cards_pb2

SUIT: Final = enum_table(Suit, cards_pb2.Suit.Value, "SUIT_")
SUIT_BACK: Final = reverse(SUIT)
_RANK: Final = enum_table(Rank, cards_pb2.Rank.Value, "RANK_")
_RANK_BACK: Final = reverse(_RANK)


def card_to_proto(card: Card) -> cards_pb2.Card:
    return cards_pb2.Card(suit=SUIT[card.suit], rank=_RANK[card.rank])


def card_from_proto(message: cards_pb2.Card, field: str = "card") -> Card:
    """The engine's (interned) card; InvalidActionError naming ``field`` for an unset or unknown suit/rank."""
    suit = SUIT_BACK.get(message.suit)
    if suit is None:
        raise InvalidActionError(f"{field}.suit: {enum_problem(cards_pb2.Suit.Name, message.suit)}")
    rank = _RANK_BACK.get(message.rank)
    if rank is None:
        raise InvalidActionError(f"{field}.rank: {enum_problem(cards_pb2.Rank.Name, message.rank)}")
    return CARDS[suit * 6 + rank]


CARD_MESSAGES: Final[CardMessages[Card, cards_pb2.Card, cards_pb2.CardList]] = CardMessages(
    [card_to_proto(c) for c in CARDS], card_from_proto, lambda cards: cards_pb2.CardList(cards=cards)
)
"""Every card's message, by :attr:`Card.index`, and the lists of them: the encoders pass them to
constructors, which copy them."""
