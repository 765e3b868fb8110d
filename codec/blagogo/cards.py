"""1000 Blagogo's 108 cards as ``BlagogoCard`` messages: two decks of 52 and four jokers.

A natural card is its rank, suit and ``copy`` (the deck it comes from, 0 or 1: the engine's index is
``2 * (suit * 13 + rank) + copy``); a joker is ``joker=True`` and ``copy`` 0 to 3 (engine index 104 + copy).
The engine tells the two copies of a card apart (each has an index of its own), so the message carries the
copy too. Ranks and suits are mapped by name (engine ``Rank.ACE`` is ``BLAGOGO_RANK_ACE``), so a
member missing on either side fails at import time. Every other mapping of the game writes its cards through
:data:`CARD_MESSAGES` and reads them through :func:`card_from_proto`, which a client's action reaches too, so
it names the field that is wrong.
"""

from __future__ import annotations

from typing import Final

from codec.card_messages import CardMessages
from codec.common import enum_problem, enum_table, reverse
from engine.blagogo.cards import CARDS, FIRST_JOKER, RANKS, Card, Rank, Suit
from engine.errors import InvalidActionError
from thousand.v1 import blagogo_cards_pb2, cards_pb2

BlagogoCard = blagogo_cards_pb2.BlagogoCard

JOKERS: Final = 4
DECKS: Final = 2

SUIT: Final = enum_table(Suit, cards_pb2.Suit.Value, "SUIT_")
SUIT_BACK: Final = reverse(SUIT)
RANK: Final = enum_table(Rank, blagogo_cards_pb2.BlagogoRank.Value, "BLAGOGO_RANK_")
RANK_BACK: Final = reverse(RANK)


def card_to_proto(card: Card) -> blagogo_cards_pb2.BlagogoCard:
    """A message of the card's own (the shared one copied)."""
    message = BlagogoCard()
    message.CopyFrom(CARD_MESSAGES.of(card))
    return message


def card_from_proto(message: blagogo_cards_pb2.BlagogoCard, field: str = "card") -> Card:
    """The engine's (interned) card; InvalidActionError naming ``field`` for a card that does not exist."""
    if message.joker:
        if message.rank or message.suit:
            raise InvalidActionError(f"{field}: a joker has neither rank nor suit")
        if not 0 <= message.copy < JOKERS:
            raise InvalidActionError(f"{field}.copy: a joker's copy is 0 to 3, not {message.copy}")
        return CARDS[FIRST_JOKER + message.copy]
    suit = SUIT_BACK.get(message.suit)
    if suit is None:
        raise InvalidActionError(f"{field}.suit: {enum_problem(cards_pb2.Suit.Name, message.suit)}")
    rank = RANK_BACK.get(message.rank)
    if rank is None:
        problem = enum_problem(blagogo_cards_pb2.BlagogoRank.Name, message.rank)
        raise InvalidActionError(f"{field}.rank: {problem}")
    if not 0 <= message.copy < DECKS:
        raise InvalidActionError(f"{field}.copy: a natural card's copy is 0 or 1, not {message.copy}")
    return CARDS[2 * (suit * RANKS + rank) + message.copy]


CARD_MESSAGES: Final[CardMessages[Card, blagogo_cards_pb2.BlagogoCard, blagogo_cards_pb2.BlagogoCardList]] = (
    CardMessages(
        [
            BlagogoCard(joker=True, copy=c.index - FIRST_JOKER)
            if c.is_joker
            else BlagogoCard(
                rank=RANK[Rank(c.face % RANKS)], suit=SUIT[Suit(c.face // RANKS)], copy=c.index & 1
            )
            for c in CARDS
        ],
        card_from_proto,
        lambda cards: blagogo_cards_pb2.BlagogoCardList(cards=cards),
    )
)
"""Every card's message, by :attr:`Card.index`, built once, and the lists of them: never handed out, only set
into fields (protobuf copies them)."""
