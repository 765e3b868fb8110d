"""Verifiable deals: every deal is committed to before a card is seen, and can be checked once revealed.

When a deal starts, :class:`~engine.events.DeckShuffled` carries a commitment: the SHA-256 (hex) of the text

    thousand.deal.v1|<salt>|<deal seed, or nothing for a stacked deck>|<the 24 cards in dealing order>

with cards written rank then suit letter (``9S JC QD KH 10S AS``: ranks 9 J Q K 10 A, suits S C D H). When the
deal is over, :class:`~engine.events.DealRevealed` discloses the order, the salt and the deal seed. Any client
then recomputes the hash: if it matches, the deal was fixed before it began and never changed. The salt, a
secret until then, keeps anyone from guessing the order from the commitment. With a deal seed, a client can
also check the order came from it (:func:`order_from_seed`: CPython's ``random.Random(seed)`` shuffle).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.cards import Card
from engine.events import DealRevealed, DeckShuffled, Event
from engine.seeds import shuffle_from_key

FORMAT = "thousand.deal.v1"


def card_code(card: Card) -> str:
    return f"{card.rank.label}{card.suit.letter}"


def commitment(salt: str, deal_seed: int | None, order: Iterable[Card]) -> str:
    seed = "" if deal_seed is None else str(deal_seed)
    text = f"{FORMAT}|{salt}|{seed}|{' '.join(card_code(c) for c in order)}"
    return hashlib.sha256(text.encode()).hexdigest()


def order_from_seed(deal_seed: int) -> tuple[Card, ...]:
    return shuffle_from_key(deal_seed).order


def problem(shuffled: DeckShuffled, revealed: DealRevealed) -> str | None:
    """Why a revealed deal does not match its commitment, or None when it does."""
    if shuffled.number != revealed.number:
        return f"deal {revealed.number} was revealed against the commitment of deal {shuffled.number}"
    if commitment(revealed.salt, revealed.deal_seed, revealed.order) != shuffled.commitment:
        return f"deal {revealed.number}: the revealed order does not match the commitment"
    if revealed.deal_seed is not None and order_from_seed(revealed.deal_seed) != revealed.order:
        return f"deal {revealed.number}: the order is not the one its seed gives"
    return None


@dataclass
class DealChecker:
    """Feed it a seat's events in order; it checks every revealed deal against its commitment."""

    verified: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _pending: dict[int, DeckShuffled] = field(default_factory=dict)

    def see(self, event: Event) -> str | None:
        """Take one event; returns a line to show when a deal was just checked."""
        if isinstance(event, DeckShuffled):
            self._pending[event.number] = event
        elif isinstance(event, DealRevealed):
            shuffled = self._pending.pop(event.number, None)
            if shuffled is None:
                return None  # joined mid-deal: the commitment was never seen
            trouble = problem(shuffled, event)
            if trouble is not None:
                self.problems.append(trouble)
                return f"deal {event.number} FAILED verification: {trouble}"
            self.verified.append(event.number)
            return f"deal {event.number} verified against its commitment"
        return None
