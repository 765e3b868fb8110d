"""Card arithmetic for the bots: bitmasks over the engine's card indices (``suit * 6 + rank``).

Within a suit a higher bit is a stronger card (T-1), so "the best card of a suit" is a bit length away. These
helpers only *read* the rules (who wins a trick, what a play tells about a hand); the engine stays the one
authority on legality: a bot always picks from the engine's list of legal actions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.cards import (
    CARDS,
    MARRIAGE_MASKS,
    MARRIAGE_POINTS,
    RANK_POINTS,
    SUIT_MASKS,
    Card,
    marriage_queens,
    points_of,
)
from engine.deal import trick_winner

__all__ = [
    "CARDS",
    "MARRIAGE_MASKS",
    "MARRIAGE_POINTS",
    "RANK_POINTS",
    "SUIT_MASKS",
    "above",
    "best_in",
    "bit_of",
    "card_points",
    "cards_in",
    "implied_forbidden",
    "indices",
    "lowest_in",
    "mask_of_cards",
    "points_of",
    "suit_of",
    "trick_winner",
]

ACE: Final = 5
TEN: Final = 4
KING: Final = 3
QUEEN: Final = 2
JACK: Final = 1
NINE: Final = 0

CARD_POINTS: Final = tuple(RANK_POINTS[i % 6] for i in range(24))
RANK_OF_POINTS: Final = {p: r for r, p in enumerate(RANK_POINTS)}
"""Card points identify the rank (0, 2, 3, 4, 10, 11 are all different)."""


def suit_of(index: int) -> int:
    return index // 6


def bit_of(index: int) -> int:
    return 1 << index


def card_points(index: int) -> int:
    return CARD_POINTS[index]


def mask_of_cards(cards: Iterable[Card]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c.index
    return mask


_SUIT_INDICES: Final = tuple(
    tuple(tuple(6 * s + r for r in range(6) if pattern >> r & 1) for pattern in range(64)) for s in range(4)
)
"""The card indices of each suit's 64 patterns of six bits: :func:`indices` by four lookups."""


def indices(mask: int) -> list[int]:
    """Card indices of a mask, lowest first."""
    if not mask >> 24 and mask >= 0:  # a mask of the deck: suit by suit from the table
        s, c, d, h = _SUIT_INDICES
        return [*s[mask & 63], *c[mask >> 6 & 63], *d[mask >> 12 & 63], *h[mask >> 18 & 63]]
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_in(mask: int) -> tuple[Card, ...]:
    return tuple(CARDS[i] for i in indices(mask))


def best_in(mask: int) -> int:
    """Index of the highest card of a mask (the strongest card when the mask is one suit)."""
    return mask.bit_length() - 1


def lowest_in(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def above(index: int) -> int:
    """Cards of the same suit stronger than ``index``."""
    return SUIT_MASKS[index // 6] & ~((1 << (index + 1)) - 1)


def below(index: int) -> int:
    """Cards of the same suit weaker than ``index``."""
    return SUIT_MASKS[index // 6] & ((1 << index) - 1)


def beats(index: int, best: int, trump: int | None) -> bool:
    """Whether ``index`` played now beats the current best card ``best`` of the trick."""
    if index // 6 == best // 6:
        return index > best
    return index // 6 == trump


def implied_forbidden(
    before: list[tuple[int, int]] | tuple[tuple[int, int], ...],
    trump: int | None,
    played: int,
    must_beat: bool,
) -> int:
    """Cards the player cannot have held when it played ``played`` after the plays ``before`` (T-18).

    Mirrors the engine's following rules: not following the suit led means no card of it; not trumping as
    well means no trump; with ``must_beat`` a card that does not beat what it could have means nothing
    higher. Empty when leading.
    """
    if not before:
        return 0
    lead = before[0][1] // 6
    suit = played // 6
    forbidden = 0
    if suit == lead:
        if must_beat:
            trumped = trump is not None and trump != lead and any(i // 6 == trump for _, i in before)
            if not trumped:
                best = max(i for _, i in before if i // 6 == lead)
                if played < best:
                    forbidden |= above(best)
        return forbidden
    forbidden |= SUIT_MASKS[lead]
    if trump is None:
        return forbidden
    if suit == trump:
        if must_beat:
            trumps = [i for _, i in before if i // 6 == trump]
            if trumps and played < max(trumps):
                forbidden |= above(max(trumps))
        return forbidden
    return forbidden | SUIT_MASKS[trump]


def marriage_points_of(mask: int) -> int:
    return sum(MARRIAGE_POINTS[s] for s in range(4) if mask & MARRIAGE_MASKS[s] == MARRIAGE_MASKS[s])


def card_points_of(mask: int) -> int:
    return points_of(mask)


def marriage_cards(hand: int) -> int:
    """The kings and queens of the marriages in a hand."""
    queens = marriage_queens(hand)
    return queens | queens << 1  # and their kings, a bit above
