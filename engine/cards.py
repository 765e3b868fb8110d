"""The 24-card deck of Thousand (T-1) and its marriages (T-2).

Cards are tiny interned value objects; hands are bitmasks over card indices. The index of a card is
``suit * 6 + rank`` and ranks are numbered in ascending strength, so within a suit a higher bit is a
stronger card and "the best card of a suit in this mask" is a bit-length away. That keeps the trick-play
hot path free of sorting and of object comparisons.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    """Suits in ascending order of their marriage value (T-2)."""

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

    @property
    def marriage_points(self) -> int:
        """T-2: ♠ 40, ♣ 60, ♦ 80, ♥ 100."""
        return MARRIAGE_POINTS[self]


class Rank(IntEnum):
    """Ranks in ascending trick-taking strength (T-1): 9, J, Q, K, 10, A."""

    NINE = 0
    JACK = 1
    QUEEN = 2
    KING = 3
    TEN = 4
    ACE = 5

    @property
    def label(self) -> str:
        return _RANK_LABELS[self]

    @property
    def points(self) -> int:
        """T-1 card points: A 11, 10 10, K 4, Q 3, J 2, 9 0."""
        return RANK_POINTS[self]


_SUIT_SYMBOLS: Final = ("♠", "♣", "♦", "♥")
_RANK_LABELS: Final = ("9", "J", "Q", "K", "10", "A")
RANK_POINTS: Final = (0, 2, 3, 4, 10, 11)
MARRIAGE_POINTS: Final = (40, 60, 80, 100)

DECK_SIZE: Final = 24
CARD_POINTS_TOTAL: Final = 120


@dataclass(frozen=True, slots=True)
class Card:
    """One card. Use :func:`card` or :meth:`Card.parse` to get the interned instance."""

    suit: Suit
    rank: Rank
    index: int = field(init=False, repr=False, compare=False)
    """``suit * 6 + rank``: the card's bit in a hand mask and its place in :data:`CARDS`. Stored, not
    computed, because the deal reads it for every card it deals or plays."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", self.suit * 6 + self.rank)

    @property
    def bit(self) -> int:
        return 1 << self.index

    @property
    def points(self) -> int:
        return RANK_POINTS[self.rank]

    def __str__(self) -> str:
        return f"{_RANK_LABELS[self.rank]}{_SUIT_SYMBOLS[self.suit]}"

    def __repr__(self) -> str:
        return f"Card({self})"

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``"10♥"``, ``"10H"``, ``"TH"``, ``"qs"`` or ``"9♠"``.

        Raises ValueError with the offending text, so a client typo gets a specific message.
        """
        raw = text.strip().upper()
        if len(raw) < 2:
            raise ValueError(f"not a card: {text!r}")
        rank_text, suit_text = raw[:-1], raw[-1]
        suit = _SUIT_BY_TEXT.get(suit_text)
        rank = _RANK_BY_TEXT.get(rank_text)
        if suit is None or rank is None:
            raise ValueError(f"not a card: {text!r} (ranks 9 J Q K 10 A, suits ♠♣♦♥ or S C D H)")
        return CARDS[suit * 6 + rank]


_SUIT_BY_TEXT: Final = {
    **{s.symbol: s for s in Suit},
    **{s.letter: s for s in Suit},
    "♤": Suit.SPADES,
    "♧": Suit.CLUBS,
    "♢": Suit.DIAMONDS,
    "♡": Suit.HEARTS,
}
_RANK_BY_TEXT: Final = {
    **{r.label: r for r in Rank},
    "T": Rank.TEN,
}

CARDS: Final[tuple[Card, ...]] = tuple(Card(Suit(i // 6), Rank(i % 6)) for i in range(DECK_SIZE))
"""All 24 cards, indexed by :attr:`Card.index`."""

FULL_MASK: Final = (1 << DECK_SIZE) - 1
SUIT_MASKS: Final = tuple(0b111111 << (6 * s) for s in range(4))
NINES_MASK: Final = sum(1 << (6 * s + Rank.NINE) for s in range(4))
ACES_MASK: Final = sum(1 << (6 * s + Rank.ACE) for s in range(4))
MARRIAGE_MASKS: Final = tuple((1 << (6 * s + Rank.KING)) | (1 << (6 * s + Rank.QUEEN)) for s in range(4))


def card(suit: Suit, rank: Rank) -> Card:
    return CARDS[suit * 6 + rank]


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c.index
    return mask


def _suit_tables() -> tuple[tuple[tuple[Card, ...], ...], ...]:
    """For each suit, the cards of each 6-bit rank pattern, in ascending rank."""
    return tuple(
        tuple(tuple(CARDS[6 * s + r] for r in range(6) if pattern >> r & 1) for pattern in range(64))
        for s in range(4)
    )


_CARDS_BY_SUIT_PATTERN: Final = _suit_tables()


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask in index order (by suit, then ascending rank)."""
    if mask >> DECK_SIZE:  # not a mask of this deck (negative or too wide): fail as the bit walk does
        return tuple(_iter_cards(mask))
    s, c, d, h = _CARDS_BY_SUIT_PATTERN
    return s[mask & 63] + c[mask >> 6 & 63] + d[mask >> 12 & 63] + h[mask >> 18 & 63]


def _iter_cards(mask: int) -> Iterator[Card]:
    while mask:
        low = mask & -mask
        yield CARDS[low.bit_length() - 1]
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


_MASK_POINTS_BY_SUIT: Final = tuple(
    sum(RANK_POINTS[r] for r in range(6) if pattern >> r & 1) for pattern in range(64)
)


def points_of(mask: int) -> int:
    """Total card points (T-1) of the cards in a mask."""
    t = _MASK_POINTS_BY_SUIT
    return t[mask & 63] + t[mask >> 6 & 63] + t[mask >> 12 & 63] + t[mask >> 18 & 63]


QUEENS_MASK: Final = sum(1 << (6 * s + Rank.QUEEN) for s in range(4))


def marriage_queens(mask: int) -> int:
    """The queens of the mask whose king is in it too: one bit per marriage (T-2), at the queen's index."""
    return mask & mask >> 1 & QUEENS_MASK  # a king's bit sits right above its queen's


_MARRIAGE_POINTS_BY_QUEENS: Final = {
    sum(1 << (6 * s + Rank.QUEEN) for s in range(4) if suits >> s & 1): sum(
        MARRIAGE_POINTS[s] for s in range(4) if suits >> s & 1
    )
    for suits in range(16)
}


def marriages_in(mask: int) -> tuple[Suit, ...]:
    """Suits whose king and queen are both in the mask (T-2)."""
    return tuple(Suit(s) for s in range(4) if mask & MARRIAGE_MASKS[s] == MARRIAGE_MASKS[s])


def marriage_points_in(mask: int) -> int:
    return _MARRIAGE_POINTS_BY_QUEENS[mask & mask >> 1 & QUEENS_MASK]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a space-separated list of cards, e.g. ``"A♥ 10♥ K♠"``."""
    return tuple(Card.parse(part) for part in text.split())
