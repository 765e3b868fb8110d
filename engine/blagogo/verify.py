"""1000 Blagogo's rounds as :mod:`engine.verify` checks them: the commitment's format and card codes, and how
the checker reads the game's events.

A fair round's commitment (:class:`~engine.blagogo.events.DeckShuffled`) is the SHA-256 (hex) of

    blagogo.round.v1|<salt>||<the 108 cards in dealing order>

with each natural card written rank, suit letter and copy (``10H1``, ``AS0``: ranks 2 to 10, J Q K A, suits
S C D H, copy 0 or 1) and a joker as ``X`` and its copy (``X0`` to ``X3``). A seeded round sends none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.blagogo.cards import CARDS, FIRST_JOKER, Card
from engine.blagogo.events import DeckShuffled, GameOver, HandDealt, RoundRevealed, RoundStarted
from engine.blagogo.round_state import deal_order
from engine.verify import Revealed, Scheme, commitment_of, event_readers

FORMAT = "blagogo.round.v1"


def card_code(card: Card) -> str:
    rank, suit = card.rank, card.suit
    if rank is None or suit is None:
        return f"X{card.index - FIRST_JOKER}"
    return f"{rank.label}{suit.letter}{card.deck}"


def commitment(salt: str, deal_seed: int | None, order: Iterable[Card]) -> str:
    return commitment_of(FORMAT, salt, deal_seed, (card_code(c) for c in order))


def _blocks(start: object, revealed: Revealed) -> list[tuple[Any, ...]]:
    """B-5: the hands from the dealer's left (13 cards to the first player, 12 to the others)."""
    assert isinstance(start, RoundStarted)
    return [revealed.hands[s] for s in deal_order(len(revealed.hands), start.dealer)]


def _revealed(event: object) -> Revealed | None:
    if not isinstance(event, RoundRevealed):
        return None
    e = event
    return Revealed(e.number, e.order, e.hands, (), e.salt, None, e.client_seeds)


_READERS = event_readers(RoundStarted, DeckShuffled, HandDealt, GameOver)
BLAGOGO = Scheme(
    "blagogo",
    CARDS,
    commitment,
    None,
    _READERS.started,
    _blocks,
    _READERS.shuffled,
    _READERS.dealt,
    _revealed,
    _READERS.over,
    "round",
)
