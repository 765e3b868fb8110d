"""Melds (B-14 to B-17): forming a new meld, adding to one, swapping a joker out, and their values (B-2).

A :class:`TableMeld` is immutable: every change makes a new value that replaces the old one under the same
id, so a rejected action never leaves a half-changed meld behind, and events can carry melds as snapshots.

Layout: a run's cards are kept in rank order from its low end, and ``rank`` is the rank of the first card, so
the card at position ``i`` stands for rank ``(rank + i) % 13`` (round the corner, B-14). A set's cards are
kept in the order they were laid and ``rank`` is the set's rank; its jokers stand for whichever suits the
set's natural cards lack, so no suit is recorded for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from engine.blagogo.actions import STANDS_RUN, STANDS_SET, End, Stands
from engine.blagogo.cards import (
    CARD_RANK,
    CARD_SUIT,
    FIRST_JOKER,
    JOKER_COUNT,
    RANKS,
    RUN_VALUE,
    SET_VALUE,
    Card,
    Rank,
    Suit,
)
from engine.blagogo.errors import BlagogoReason, illegal
from engine.errors import InvalidActionError

ALL_RANKS: Final = (1 << RANKS) - 1
MAX_SET: Final = 4


class MeldKind(Enum):
    SET = "set"
    """3 or 4 cards of one rank, every suit different (B-14)."""
    RUN = "run"
    """3 to 13 cards of one suit in consecutive rank, round the corner allowed (B-14)."""


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table: its owner, its cards in order, who put each card there, whether it is closed."""

    id: int
    owner: int
    """B-17: the player who laid it."""
    kind: MeldKind
    cards: tuple[Card, ...]
    contributors: tuple[int, ...]
    """The seat that put each card (same order as ``cards``) on the table: the owner, or whoever added it."""
    rank: Rank
    """A set's rank; a run's first (lowest-placed) rank."""
    suit: Suit | None = None
    """A run's suit (None for a set)."""
    closed: bool = False
    """B-15: a set of four natural suits is turned over and takes no more cards."""

    @property
    def high(self) -> int:
        """A run's last rank (the set's rank for a set)."""
        if self.kind is MeldKind.SET:
            return self.rank
        return (self.rank + len(self.cards) - 1) % RANKS

    def rank_at(self, position: int) -> int:
        return self.rank if self.kind is MeldKind.SET else (self.rank + position) % RANKS

    def card_values(self) -> tuple[int, ...]:
        """B-2: each card's value in this meld (a joker worth the card it stands for)."""
        if self.kind is MeldKind.SET:
            return (SET_VALUE[self.rank],) * len(self.cards)
        return tuple(RUN_VALUE[(self.rank + i) % RANKS] for i in range(len(self.cards)))

    @property
    def points(self) -> int:
        return sum(self.card_values())

    def stands(self) -> tuple[Stands | None, ...]:
        """What each card stands for: the joker's meaning, None for a natural card."""
        out: list[Stands | None] = []
        for i, c in enumerate(self.cards):
            if c.index < FIRST_JOKER:
                out.append(None)
            elif self.kind is MeldKind.SET:
                out.append(STANDS_SET[self.rank])
            else:
                assert self.suit is not None
                out.append(STANDS_RUN[self.suit * RANKS + (self.rank + i) % RANKS])
        return tuple(out)

    @property
    def jokers(self) -> int:
        return sum(1 for c in self.cards if c.index >= FIRST_JOKER)

    def __str__(self) -> str:
        parts = []
        for c, s in zip(self.cards, self.stands(), strict=True):
            parts.append(str(c) if s is None else f"{c}({str(s)[2:]})")
        state = " closed" if self.closed else ""
        return f"#{self.id} {self.kind.value} of seat {self.owner}{state}: {' '.join(parts)}"


# ---------------------------------------------------------------------------------------------- checks


def check_cards(cards: object, what: str) -> tuple[Card, ...]:
    """The cards of an action, or InvalidActionError if they are not a non-empty tuple of distinct cards."""
    if not isinstance(cards, tuple) or not cards:
        raise InvalidActionError(f"{what} must be a non-empty tuple of cards, got {cards!r}")
    for c in cards:
        if not isinstance(c, Card) or not isinstance(c.index, int) or not 0 <= c.index < 108:
            raise InvalidActionError(f"{c!r} is not a card")
    if len({c.index for c in cards}) != len(cards):
        raise illegal(BlagogoReason.CARD_USED_TWICE, f"a card is named twice in {what}")
    return cards


def check_meanings(jokers: object, cards: tuple[Card, ...]) -> tuple[Stands, ...]:
    if not isinstance(jokers, tuple):
        raise InvalidActionError(f"joker meanings must be a tuple, got {jokers!r}")
    for s in jokers:
        if (
            not isinstance(s, Stands)
            or not isinstance(s.rank, Rank)
            or not (s.suit is None or isinstance(s.suit, Suit))
        ):
            raise InvalidActionError(f"{s!r} is not a joker meaning (Stands(rank) or Stands(rank, suit))")
    count = sum(1 for c in cards if c.index >= FIRST_JOKER)
    if len(jokers) != count:
        raise InvalidActionError(f"{count} joker(s) need {count} meaning(s), got {len(jokers)}")
    return jokers


def run_low(present: int, length: int) -> int | None:
    """The first rank of a run whose ranks are the bits of ``present``, or None if they are not one block."""
    if length >= RANKS:
        return 0
    rotated = ((present << 1) | (present >> (RANKS - 1))) & ALL_RANKS
    starts = present & ~rotated
    if starts & (starts - 1) or not starts:
        return None
    return starts.bit_length() - 1


def _ranks(cards: Sequence[Card], jokers: Sequence[Stands]) -> list[int]:
    meanings = iter(jokers)
    return [CARD_RANK[c.index] if c.index < FIRST_JOKER else next(meanings).rank for c in cards]


def form_meld(meld_id: int, owner: int, cards: tuple[Card, ...], jokers: tuple[Stands, ...]) -> TableMeld:
    """B-14: the new meld these cards and joker meanings make, or the reason they make none.

    ``cards`` and ``jokers`` must already have passed :func:`check_cards` and :func:`check_meanings`.
    """
    naturals = [c for c in cards if c.index < FIRST_JOKER]
    if len(cards) < 3:
        raise illegal(BlagogoReason.MELD_TOO_SHORT, f"a meld has at least 3 cards, not {len(cards)} (B-14)")
    if not naturals:
        raise illegal(BlagogoReason.MELD_NEEDS_NATURAL, "a meld needs at least one natural card (B-14)")
    if jokers:
        set_meanings = sum(1 for s in jokers if s.suit is None)
        if set_meanings == len(jokers):
            kind = MeldKind.SET
        elif set_meanings == 0:
            kind = MeldKind.RUN
        else:
            raise illegal(
                BlagogoReason.JOKER_MEANING,
                "a joker stands for a rank in a set and for a rank and suit in a run, not both in one meld",
            )
    else:
        first = CARD_RANK[naturals[0].index]
        same = all(CARD_RANK[c.index] == first for c in naturals)
        kind = MeldKind.SET if same else MeldKind.RUN
    contributors = (owner,) * len(cards)
    if kind is MeldKind.SET:
        rank = _set_rank(naturals, jokers, len(cards))
        closed = len(naturals) == MAX_SET  # B-15: four natural suits laid at once are complete too
        return TableMeld(meld_id, owner, MeldKind.SET, cards, contributors, Rank(rank), None, closed)
    suit = _run_suit(naturals, jokers)
    ranks = _ranks(cards, jokers)
    present = _distinct_ranks(ranks)
    low = run_low(present, len(ranks))
    if low is None:
        raise illegal(
            BlagogoReason.RUN_NOT_CONSECUTIVE,
            f"{' '.join(Rank(r).label for r in sorted(ranks))} are not consecutive ranks (B-14)",
        )
    order = sorted(range(len(cards)), key=lambda i: (ranks[i] - low) % RANKS)
    return TableMeld(
        meld_id, owner, MeldKind.RUN, tuple(cards[i] for i in order), contributors, Rank(low), Suit(suit)
    )


def _set_rank(naturals: list[Card], jokers: Sequence[Stands], size: int) -> int:
    rank = CARD_RANK[naturals[0].index]
    if any(CARD_RANK[c.index] != rank for c in naturals):
        raise illegal(
            BlagogoReason.NOT_A_MELD, "the jokers are said to stand in a set, but the cards are not one rank"
        )
    for s in jokers:
        if s.rank != rank:
            raise illegal(
                BlagogoReason.JOKER_MEANING,
                f"a joker in a set of {Rank(rank).label} cannot stand for a {s.rank.label}",
            )
    if size > MAX_SET:
        raise illegal(BlagogoReason.SET_TOO_LONG, f"a set has at most 4 cards, not {size} (B-14)")
    suits = 0
    for c in naturals:
        bit = 1 << CARD_SUIT[c.index]
        if suits & bit:
            raise illegal(
                BlagogoReason.DOUBLES_IN_SET, f"two {c.face_text} in one set: doubles are forbidden (B-14)"
            )
        suits |= bit
    return rank


def _run_suit(naturals: list[Card], jokers: Sequence[Stands]) -> int:
    suit = CARD_SUIT[naturals[0].index]
    if any(CARD_SUIT[c.index] != suit for c in naturals):
        rank = CARD_RANK[naturals[0].index]
        if jokers and all(CARD_RANK[c.index] == rank for c in naturals):
            raise illegal(
                BlagogoReason.JOKER_MEANING,
                f"in a set a joker stands for a rank only: Stands({Rank(rank).name}), without a suit (B-14)",
            )
        raise illegal(
            BlagogoReason.NOT_A_MELD,
            "the cards are neither one rank (a set) nor one suit (a run) (B-14)",
        )
    for s in jokers:
        if s.suit != suit:
            raise illegal(
                BlagogoReason.JOKER_MEANING,
                f"a joker in a run of {Suit(suit).symbol} must stand for a {Suit(suit).symbol} card",
            )
    return suit


def _distinct_ranks(ranks: Sequence[int]) -> int:
    present = 0
    for r in ranks:
        bit = 1 << r
        if present & bit:
            raise illegal(
                BlagogoReason.RUN_REPEATS_RANK, f"a run holds each rank once; {Rank(r).label} twice (B-14)"
            )
        present |= bit
    return present


def extend_meld(
    meld: TableMeld, seat: int, cards: tuple[Card, ...], jokers: tuple[Stands, ...], end: object
) -> TableMeld:
    """B-15: ``meld`` with ``cards`` added by ``seat``, or the reason they cannot be added."""
    if meld.closed:
        raise illegal(BlagogoReason.MELD_CLOSED, f"meld {meld.id} is a closed set of four (B-15)")
    naturals = [c for c in cards if c.index < FIRST_JOKER]
    contributors = meld.contributors + (seat,) * len(cards)
    if meld.kind is MeldKind.SET:
        if end is not None:
            raise InvalidActionError("a set has no ends: add to it with end=None")
        rank = meld.rank
        if any(CARD_RANK[c.index] != rank for c in naturals):
            raise illegal(BlagogoReason.NOT_A_MELD, f"only {rank.label} cards go into this set")
        for s in jokers:
            if s.suit is not None or s.rank != rank:
                raise illegal(
                    BlagogoReason.JOKER_MEANING,
                    f"a joker added to this set stands for a {rank.label} (Stands({rank.name}))",
                )
        size = len(meld.cards) + len(cards)
        if size > MAX_SET:
            raise illegal(BlagogoReason.SET_TOO_LONG, f"a set grows to at most 4 cards, not {size} (B-15)")
        suits = 0
        for c in (*meld.cards, *naturals):
            if c.index >= FIRST_JOKER:
                continue
            bit = 1 << CARD_SUIT[c.index]
            if suits & bit:
                raise illegal(
                    BlagogoReason.DOUBLES_IN_SET, f"the set already has a {c.face_text}: no doubles (B-14)"
                )
            suits |= bit
        all_cards = meld.cards + cards
        closed = size == MAX_SET and all(c.index < FIRST_JOKER for c in all_cards)
        return TableMeld(meld.id, meld.owner, MeldKind.SET, all_cards, contributors, rank, None, closed)
    if not isinstance(end, End):
        raise InvalidActionError(f"adding to a run needs end=End.LOW or End.HIGH, got {end!r}")
    suit = meld.suit
    assert suit is not None
    if any(CARD_SUIT[c.index] != suit for c in naturals):
        raise illegal(BlagogoReason.NOT_A_MELD, f"only {suit.symbol} cards go into this run")
    for s in jokers:
        if s.suit != suit:
            raise illegal(
                BlagogoReason.JOKER_MEANING, f"a joker added to this run stands for a {suit.symbol} card"
            )
    new_ranks = _ranks(cards, jokers)
    _distinct_ranks(new_ranks)
    k = len(cards)
    length = len(meld.cards)
    if length + k > RANKS:
        raise illegal(BlagogoReason.RUN_REPEATS_RANK, "a run holds each rank once: at most 13 cards (B-14)")
    if end is End.HIGH:
        wanted = {(meld.high + j) % RANKS for j in range(1, k + 1)}
        low: int = meld.rank
    else:
        wanted = {(meld.rank - j) % RANKS for j in range(1, k + 1)}
        low = (meld.rank - k) % RANKS
    if set(new_ranks) != wanted:
        raise illegal(
            BlagogoReason.RUN_NOT_CONSECUTIVE,
            f"{' '.join(Rank(r).label for r in new_ranks)} do not continue run {meld.id} "
            f"at its {end.value} end (B-15)",
        )
    ranks = [(meld.rank + i) % RANKS for i in range(length)] + new_ranks
    all_cards = meld.cards + cards
    order = sorted(range(len(all_cards)), key=lambda i: (ranks[i] - low) % RANKS)
    return TableMeld(
        meld.id,
        meld.owner,
        MeldKind.RUN,
        tuple(all_cards[i] for i in order),
        tuple(contributors[i] for i in order),
        Rank(low),
        suit,
    )


def swap_joker(meld: TableMeld, seat: int, card: Card) -> tuple[TableMeld, Card]:
    """B-16: the meld with ``card`` in place of the joker standing for it, and the joker freed."""
    if card.index >= FIRST_JOKER:
        raise illegal(BlagogoReason.SWAP_NEEDS_NATURAL, "a joker is swapped for a natural card (B-16)")
    if meld.closed:
        raise illegal(BlagogoReason.MELD_CLOSED, f"meld {meld.id} is a closed set of four (B-15)")
    i = card.index
    cards = list(meld.cards)
    contributors = list(meld.contributors)
    if meld.kind is MeldKind.RUN:
        pos = (CARD_RANK[i] - meld.rank) % RANKS
        if CARD_SUIT[i] != meld.suit or pos >= len(cards) or cards[pos].index < FIRST_JOKER:
            raise illegal(
                BlagogoReason.NO_JOKER_FOR_CARD, f"no joker of meld {meld.id} stands for {card.face_text}"
            )
        joker = cards[pos]
        cards[pos] = card
        contributors[pos] = seat
        return TableMeld(
            meld.id, meld.owner, meld.kind, tuple(cards), tuple(contributors), meld.rank, meld.suit
        ), joker
    if CARD_RANK[i] != meld.rank or not meld.jokers:
        raise illegal(
            BlagogoReason.NO_JOKER_FOR_CARD, f"no joker of meld {meld.id} stands for {card.face_text}"
        )
    naturals = [c for c in cards if c.index < FIRST_JOKER]
    if len(naturals) < MAX_SET - 1:
        raise illegal(
            BlagogoReason.SET_NEEDS_THIRD_SUIT,
            "a set's joker is freed only by its fourth natural suit, once the third is there (B-16)",
        )
    if any(CARD_SUIT[c.index] == CARD_SUIT[i] for c in naturals):
        raise illegal(BlagogoReason.DOUBLES_IN_SET, f"the set already has a {card.face_text} (B-14)")
    pos = next(p for p, c in enumerate(cards) if c.index >= FIRST_JOKER)
    joker = cards[pos]
    cards[pos] = card
    contributors[pos] = seat
    return TableMeld(
        meld.id, meld.owner, meld.kind, tuple(cards), tuple(contributors), meld.rank, None, True
    ), joker


# ---------------------------------------------------------------------------------------------- placing


def natural_faces(mask: int) -> list[int]:
    """How many copies of each natural face (0..51) a hand mask holds."""
    counts = [0] * 52
    m = mask & ((1 << FIRST_JOKER) - 1)
    while m:
        low = m & -m
        counts[(low.bit_length() - 1) >> 1] += 1
        m ^= low
    return counts


def can_place(index: int, hand: int, melds: Sequence[TableMeld], max_jokers: int = 0) -> bool:
    """Can one meld action put card ``index`` (held in ``hand``) on the table? The single-action core of
    B-9 ``bridge_take_must_meld`` (:mod:`engine.blagogo.placing` extends it to the whole turn).

    One action: adding it to a meld (alone, or to a run together with the hand's cards that fill the ranks
    between the run's end and it), swapping it for a joker, or laying a new 3-card meld with two cards of the
    hand; in every case leaving at least one card to discard (B-13), and no meld holding more than
    ``max_jokers`` jokers (0: no limit, B-14's variant). ``melds`` are those the holder may play on (B-12's
    variant may leave out their own). The holder has opened (taking from the bridge needs it), so a new meld
    may be worth anything.
    """
    cap = max_jokers or JOKER_COUNT
    size = hand.bit_count()
    others = hand & ~(1 << index)
    jokers = (others >> FIRST_JOKER).bit_count()
    faces = natural_faces(others)
    is_joker = index >= FIRST_JOKER
    rank = CARD_RANK[index]
    suit = CARD_SUIT[index]
    if size >= 2:
        for m in melds:
            if m.closed:
                continue
            length = len(m.cards)
            if m.kind is MeldKind.SET:
                suits = 0
                for c in m.cards:
                    if c.index < FIRST_JOKER:
                        suits |= 1 << CARD_SUIT[c.index]
                if is_joker:
                    if length < MAX_SET and m.jokers < cap:
                        return True
                    continue
                if rank == m.rank and not suits >> suit & 1:
                    if length < MAX_SET:
                        return True
                    if suits.bit_count() == MAX_SET - 1:
                        return True  # the fourth suit frees the joker (B-16)
                continue
            if is_joker:
                if length < RANKS and m.jokers < cap:
                    return True
                continue
            if suit != m.suit:
                continue
            pos = (rank - m.rank) % RANKS
            if pos < length:
                if m.cards[pos].index >= FIRST_JOKER:
                    return True  # swap (B-16)
                continue
            # Beyond either end: fill the ranks in between from the hand.
            high_gap = (rank - m.high) % RANKS - 1
            low_gap = (m.rank - rank) % RANKS - 1
            for gap, start, step in ((high_gap, m.high, 1), (low_gap, m.rank, -1)):
                if length + gap + 1 > RANKS or size < gap + 2:
                    continue
                missing = sum(
                    1 for j in range(1, gap + 1) if not faces[suit * RANKS + (start + step * j) % RANKS]
                )
                if missing <= jokers and m.jokers + missing <= cap:
                    return True
    if size < 4:
        return False
    if is_joker:
        if jokers and cap >= 2 and any(faces):
            return True  # a natural card and two jokers: a set of its rank
        for f in range(52):
            if not faces[f]:
                continue
            r, s = f % RANKS, f // RANKS
            if any(faces[t * RANKS + r] for t in range(4) if t != s):
                return True
            if faces[s * RANKS + (r + 1) % RANKS] or faces[s * RANKS + (r + 2) % RANKS]:
                return True
        return False
    usable = min(jokers, cap)
    other_suits = sum(1 for t in range(4) if t != suit and faces[t * RANKS + rank])
    if other_suits + usable >= 2:
        return True
    for a, b in ((-2, -1), (-1, 1), (1, 2)):
        missing = sum(1 for d in (a, b) if not faces[suit * RANKS + (rank + d) % RANKS])
        if missing <= usable:
            return True
    return False
