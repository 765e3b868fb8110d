"""B-9 ``bridge_take_must_meld``: can the card taken from the bridge still be melded before the turn ends?

The rule asks that the deepest card taken "be melded in the same turn", so a take is accepted when *some*
sequence of the turn's meld actions puts that card on the table, not only a single action, and the turn's
discard is refused until it is there. Deciding that needs no search over every sequence:

- whatever one action can do with the card is :func:`engine.blagogo.melds.can_place` (an addition, with the
  hand's cards filling a run up to it; a joker swap; a new meld with two cards of the hand);
- earlier actions of the turn help only by freeing jokers into the hand. Laying a meld and then adding the
  card to it is one lay; extending a run and then adding the card is one addition; a swap otherwise leaves a
  run as it was, and closes a set, which then takes nothing more. A joker is freed by the natural card it
  stands for in a run, or in a set by its fourth natural suit once the third is there (B-16): a set of two
  natural suits and a joker is first given the third suit, then the fourth frees the joker.

There are four jokers, so at most four jokers can be freed, and every subset of those frees is tried (16 at
most), each followed by :func:`can_place`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from engine.blagogo.cards import CARD_SUIT, CARDS, FIRST_JOKER, RANKS, Card
from engine.blagogo.melds import (
    MAX_SET,
    MeldKind,
    TableMeld,
    can_place,
    extend_meld,
    natural_faces,
    swap_joker,
)


@dataclass(frozen=True, slots=True)
class _Free:
    """One way to free a joker from a meld: the natural faces it takes from the hand, in the order used."""

    meld: int
    """The meld's position in the list of melds."""
    faces: tuple[int, ...]
    """A run's or a full set's swap: one face; a set of two natural suits: the third suit, then the fourth."""


def can_meld_this_turn(index: int, hand: int, melds: Sequence[TableMeld], max_jokers: int = 0) -> bool:
    """Whether some sequence of meld actions this turn puts card ``index`` (held in ``hand``) on the table,
    leaving a card to discard (B-13). The holder has opened: only an opened player takes from the bridge.
    ``melds`` and ``max_jokers`` are as for :func:`can_place`: the melds the holder may play on, the jokers a
    meld may hold (0: no limit)."""
    if can_place(index, hand, melds, max_jokers):
        return True
    frees = _joker_frees(index, hand, melds)
    for size in range(1, len(frees) + 1):
        for chosen in combinations(frees, size):
            after = _freed(index, hand, melds, chosen)
            if after is not None and can_place(index, after[0], after[1], max_jokers):
                return True
    return False


def _joker_frees(index: int, hand: int, melds: Sequence[TableMeld]) -> list[_Free]:
    """Every joker on the table that the hand's natural cards, the pending card aside, can free."""
    held = natural_faces(hand & ~(1 << index))
    frees: list[_Free] = []
    for position, meld in enumerate(melds):
        if meld.closed or not meld.jokers:
            continue
        if meld.kind is MeldKind.RUN:
            assert meld.suit is not None
            for at, card in enumerate(meld.cards):
                face = meld.suit * RANKS + meld.rank_at(at)
                if card.index >= FIRST_JOKER and held[face]:
                    frees.append(_Free(position, (face,)))
            continue
        suits = {CARD_SUIT[c.index] for c in meld.cards if c.index < FIRST_JOKER}
        missing = [s * RANKS + meld.rank for s in range(4) if s not in suits]
        if len(meld.cards) == MAX_SET and len(missing) == 1 and held[missing[0]]:
            frees.append(_Free(position, (missing[0],)))
        elif len(meld.cards) == MAX_SET - 1 and len(missing) == 2 and all(held[f] for f in missing):
            frees.append(_Free(position, tuple(missing)))
    return frees


def _freed(
    index: int, hand: int, melds: Sequence[TableMeld], chosen: Sequence[_Free]
) -> tuple[int, list[TableMeld]] | None:
    """The hand and melds after the chosen frees, or None when the hand lacks the copies they take."""
    hand_after = hand
    melds_after = list(melds)
    for free in chosen:
        meld = melds_after[free.meld]
        for step, face in enumerate(free.faces):
            card = _copy_of(face, hand_after & ~(1 << index))
            if card is None:
                return None
            hand_after &= ~card.bit
            if step + 1 < len(free.faces):  # a set's third natural suit goes in first (B-16)
                meld = extend_meld(meld, meld.owner, (card,), (), None)
            else:
                meld, joker = swap_joker(meld, meld.owner, card)
                hand_after |= joker.bit
        melds_after[free.meld] = meld
    return hand_after, melds_after


def _copy_of(face: int, mask: int) -> Card | None:
    """A copy of natural ``face`` held in ``mask`` (the two decks' copies are indices 2*face and 2*face+1)."""
    for i in (2 * face, 2 * face + 1):
        if mask >> i & 1:
            return CARDS[i]
    return None
