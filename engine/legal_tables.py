"""The actions legal lists are made of, interned: each distinct action is built once and handed out again.

A deal computes its acting seat's legal list at every decision (T-34), and a search plays millions of
decisions: building fresh action objects each time would cost more than the rules themselves. So every list
is assembled from the values here, and most whole lists are memoised by the few numbers they depend on.
Identical values also let ``Deal.apply`` find an action in its legal list by identity first.
"""

from __future__ import annotations

from typing import Final

from engine.actions import (
    PLAY,
    PLAY_MARRIAGE,
    REDEAL,
    Action,
    Bid,
    ChooseTalon,
    DemandRedeal,
    DiscardCard,
    GiveCard,
    NameContract,
    PlayCard,
    RedealReason,
)
from engine.cards import CARDS, DECK_SIZE, Rank

_BIDS: dict[int, Bid] = {}
_CONTRACTS: dict[int, NameContract] = {}
_GIVES: dict[tuple[int, int], GiveCard] = {}
DISCARDS: Final = tuple(DiscardCard(c) for c in CARDS)
"""Indexed by card index."""
TALON_CHOICES: Final = (ChooseTalon(0), ChooseTalon(1))

AUCTION_LEGAL: dict[tuple[int, int, int, bool, int], tuple[Action, ...]] = {}
"""Auction lists by (lowest bid, cap, step, must bid, redeal flags)."""
CONTRACT_LEGAL: dict[tuple[int, int, int], tuple[Action, ...]] = {}
"""Contract lists by (bid, cap, redeal flags)."""

REDEALS: Final[tuple[tuple[DemandRedeal, ...], ...]] = (
    (),
    (REDEAL[RedealReason.FOUR_NINES],),
    (REDEAL[RedealReason.WEAK_HAND],),
    (REDEAL[RedealReason.FOUR_NINES], REDEAL[RedealReason.WEAK_HAND]),
    (REDEAL[RedealReason.WEAK_TALON],),
    (REDEAL[RedealReason.FOUR_NINES], REDEAL[RedealReason.WEAK_TALON]),
)
"""Redeal options by flags: 1 four nines (T-11), 2 weak hand (T-13), 4 weak talon (T-12)."""
REDEAL_FOUR_NINES: Final = REDEAL[RedealReason.FOUR_NINES]


def bid_action(value: int) -> Bid:
    action = _BIDS.get(value)
    if action is None:
        action = _BIDS[value] = Bid(value)
    return action


def contract_action(value: int) -> NameContract:
    action = _CONTRACTS.get(value)
    if action is None:
        action = _CONTRACTS[value] = NameContract(value)
    return action


def _give(index: int, to: int) -> GiveCard:
    action = _GIVES.get((index, to))
    if action is None:
        action = _GIVES[(index, to)] = GiveCard(CARDS[index], to)
    return action


_GIVES_BY_CARD: dict[tuple[int, ...], tuple[tuple[GiveCard, ...], ...]] = {}


def gives_by_card(recipients: tuple[int, ...]) -> tuple[tuple[GiveCard, ...], ...]:
    """Indexed by card index: the interned gives of that card to each of ``recipients``, in their order."""
    table = _GIVES_BY_CARD.get(recipients)
    if table is None:
        table = _GIVES_BY_CARD[recipients] = tuple(
            tuple(_give(i, to) for to in recipients) for i in range(DECK_SIZE)
        )
    return table


def _suit_plays() -> tuple[tuple[tuple[PlayCard, ...], ...], ...]:
    """Per suit, the plays of each 6-bit rank pattern; key bit 6 adds the marriage plays of its K and Q."""
    tables = []
    for s in range(4):
        table = []
        for key in range(128):
            actions: list[PlayCard] = []
            for r in range(6):
                if key >> r & 1:
                    actions.append(PLAY[6 * s + r])
                    if key >> 6 and r in (Rank.QUEEN, Rank.KING):
                        actions.append(PLAY_MARRIAGE[6 * s + r])
            table.append(tuple(actions))
        tables.append(tuple(table))
    return tuple(tables)


SUIT_PLAYS: Final = _suit_plays()
"""Per suit, indexed by the suit's 6 bits of a mask: its plays (see :func:`play_actions`)."""


def play_actions(mask: int, marriage_mask: int) -> tuple[PlayCard, ...]:
    """Interned plays of the cards in ``mask``, in index order; each K and Q of ``marriage_mask`` (whole
    marriages only) is followed by its marriage declaration."""
    s, c, d, h = SUIT_PLAYS
    return (
        s[mask & 63 | (marriage_mask & 4) << 4]  # bit 2 of a suit is its queen
        + c[mask >> 6 & 63 | (marriage_mask >> 6 & 4) << 4]
        + d[mask >> 12 & 63 | (marriage_mask >> 12 & 4) << 4]
        + h[mask >> 18 & 63 | (marriage_mask >> 18 & 4) << 4]
    )
