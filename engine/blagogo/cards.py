"""The 108 cards of 1000 Blagogo (B-1) and what they are worth (B-2, B-3).

Two full 52-card decks with two jokers each. Every card is an interned value with an index 0..107, and hands
are int bitmasks over those indices, so the hot path works on ints:

- a natural card's index is ``2 * face + deck``, where ``face = suit * 13 + rank`` (0..51) and ``deck`` is
  0 or 1. Both copies of a face are adjacent bits, and a suit is one contiguous block of 26 bits;
- the four jokers are 104..107 (deck 0 holds 104 and 105, deck 1 holds 106 and 107); their face is
  :data:`JOKER_FACE` (52).

Cards compare by identity: the two aces of spades are different cards (``A♠`` and ``A♠'``), so a hand, the
bridge and the deck always hold 108 distinct cards. Where the rules look at the face only (a set's suits,
a run's ranks, the natural card a joker stands for) the engine compares :attr:`Card.face`.

Ranks go 2 (0) to ace (12); a run may go round the corner, so the rank after the king is the ace and the rank
after the ace is the two (B-14).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def letter(self) -> str:
        return "SCDH"[self]


class Rank(IntEnum):
    """Ranks from the two to the ace; runs wrap round (K-A-2)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def label(self) -> str:
        return _RANK_LABELS[self]


_SUIT_SYMBOLS: Final = ("♠", "♣", "♦", "♥")
_RANK_LABELS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

RANKS: Final = 13
NATURAL_FACES: Final = 52
JOKER_FACE: Final = 52
"""The face of every joker."""
FIRST_JOKER: Final = 104
DECK_SIZE: Final = 108
JOKER_COUNT: Final = DECK_SIZE - FIRST_JOKER
"""B-1: two decks' jokers, so no meld holds more."""
SUIT_BITS: Final = 26
"""Bits of one suit in a hand mask: 13 ranks times 2 copies."""
FULL_MASK: Final = (1 << DECK_SIZE) - 1
JOKERS_MASK: Final = 0b1111 << FIRST_JOKER
WIN_BONUS: Final = 30
"""B-18: going out scores 30."""
JOKER_IN_HAND: Final = 25
"""B-3: a joker left in hand costs 25."""

# Per-index tables (the hot path reads these instead of properties).
CARD_FACE: Final[tuple[int, ...]] = tuple(i >> 1 if i < FIRST_JOKER else JOKER_FACE for i in range(DECK_SIZE))
CARD_RANK: Final[tuple[int, ...]] = tuple(f % RANKS if f < JOKER_FACE else -1 for f in CARD_FACE)
CARD_SUIT: Final[tuple[int, ...]] = tuple(f // RANKS if f < JOKER_FACE else -1 for f in CARD_FACE)


def rank_value(rank: int, in_set: bool) -> int:
    """B-2: what a card of this rank (or a joker standing for it) is worth in a meld."""
    if rank == Rank.ACE:
        return 25 if in_set else 10
    return 5 if rank <= Rank.NINE else 10


RUN_VALUE: Final[tuple[int, ...]] = tuple(rank_value(r, False) for r in range(RANKS))
SET_VALUE: Final[tuple[int, ...]] = tuple(rank_value(r, True) for r in range(RANKS))


def hand_value(index: int, ace_in_hand: int) -> int:
    """B-3: what a card left in hand costs (a positive number, subtracted at scoring)."""
    rank = CARD_RANK[index]
    if rank < 0:
        return JOKER_IN_HAND
    if rank == Rank.ACE:
        return ace_in_hand
    return 5 if rank <= Rank.NINE else 10


@dataclass(frozen=True, slots=True)
class Card:
    """One of the 108 cards. Use :data:`CARDS`, :func:`natural`, :func:`joker` or :meth:`parse`."""

    index: int

    @property
    def is_joker(self) -> bool:
        return self.index >= FIRST_JOKER

    @property
    def face(self) -> int:
        """0..51 for a natural card (``suit * 13 + rank``), :data:`JOKER_FACE` for a joker."""
        return CARD_FACE[self.index]

    @property
    def rank(self) -> Rank | None:
        r = CARD_RANK[self.index]
        return None if r < 0 else Rank(r)

    @property
    def suit(self) -> Suit | None:
        s = CARD_SUIT[self.index]
        return None if s < 0 else Suit(s)

    @property
    def deck(self) -> int:
        """Which of the two decks the card comes from (0 or 1)."""
        i = self.index
        return i & 1 if i < FIRST_JOKER else (i - FIRST_JOKER) >> 1

    @property
    def bit(self) -> int:
        return 1 << self.index

    def same_face(self, other: Card) -> bool:
        return CARD_FACE[self.index] == CARD_FACE[other.index]

    @property
    def face_text(self) -> str:
        """The face without the deck mark: ``A♠`` for both aces of spades, ``★`` for a joker."""
        i = self.index
        if i >= FIRST_JOKER:
            return "★"
        return _RANK_LABELS[CARD_RANK[i]] + _SUIT_SYMBOLS[CARD_SUIT[i]]

    def __str__(self) -> str:
        i = self.index
        if i >= FIRST_JOKER:
            return f"★{i - FIRST_JOKER + 1}"
        return self.face_text + ("'" if i & 1 else "")

    def __repr__(self) -> str:
        return f"Card({self})"

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``"A♠"`` / ``"AS"`` (first deck), ``"A♠'"`` (second deck), ``"10♥"``, ``"TH"``, and jokers
        ``"★1"`` to ``"★4"`` (also ``"JK1"``, ``"X1"``; a bare ``"★"`` is the first joker).

        Raises ValueError naming the offending text.
        """
        raw = text.strip().upper().replace("’", "'")
        for prefix in ("★", "JK", "X", "*"):
            if raw.startswith(prefix):
                number = raw[len(prefix) :] or "1"
                if number in ("1", "2", "3", "4"):
                    return CARDS[FIRST_JOKER + int(number) - 1]
                raise ValueError(f"not a card: {text!r} (jokers are ★1 to ★4)")
        deck = 0
        if raw.endswith("'"):
            deck, raw = 1, raw[:-1]
        if len(raw) < 2:
            raise ValueError(f"not a card: {text!r}")
        suit = _SUIT_BY_TEXT.get(raw[-1])
        rank = _RANK_BY_TEXT.get(raw[:-1])
        if suit is None or rank is None:
            raise ValueError(
                f"not a card: {text!r} (ranks 2-10 J Q K A, suits ♠♣♦♥ or S C D H, ' for deck 2)"
            )
        return natural(rank, suit, deck)


_SUIT_BY_TEXT: Final = {
    **{s.symbol: s for s in Suit},
    **{s.letter: s for s in Suit},
    "♤": Suit.SPADES,
    "♧": Suit.CLUBS,
    "♢": Suit.DIAMONDS,
    "♡": Suit.HEARTS,
}
_RANK_BY_TEXT: Final = {**{r.label: r for r in Rank}, "T": Rank.TEN}

CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(DECK_SIZE))
"""All 108 cards, indexed by :attr:`Card.index`."""
JOKERS: Final[tuple[Card, ...]] = CARDS[FIRST_JOKER:]


def natural(rank: Rank | int, suit: Suit | int, deck: int = 0) -> Card:
    return CARDS[2 * (suit * RANKS + rank) + deck]


def joker(number: int) -> Card:
    """Joker 0..3."""
    return CARDS[FIRST_JOKER + number]


def face_text(face: int) -> str:
    if face >= JOKER_FACE:
        return "★"
    return _RANK_LABELS[face % RANKS] + _SUIT_SYMBOLS[face // RANKS]


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c.index
    return mask


def indices_of(mask: int) -> Iterator[int]:
    """The card indices of a mask, ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask in index order (by suit, rank, deck; jokers last)."""
    return tuple(CARDS[i] for i in indices_of(mask))


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a space-separated list of cards, e.g. ``"A♠ A♠' ★2 10♥"``."""
    return tuple(Card.parse(part) for part in text.split())


def hand_penalty(mask: int, ace_in_hand: int) -> int:
    """B-3: the total a hand costs at scoring."""
    return sum(hand_value(i, ace_in_hand) for i in indices_of(mask))
