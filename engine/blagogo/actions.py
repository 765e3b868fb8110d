"""Actions of 1000 Blagogo: one small immutable value per kind of decision.

As in Thousand, an action names what is done, never who does it: the seat is passed to ``apply`` beside it.

The decision structure of a turn (B-7 to B-13):

1. **Draw** (B-8, B-9): :class:`DrawFromDeck`, or :class:`TakeFromBridge` for a player who has opened. The
   first player of a round skips it on their first turn (they hold 13 cards).
2. **Meld**, any number of times, in any order: :class:`LayMelds`, :class:`AddToMeld`, :class:`SwapJoker`.
   The **opening** (B-11) is a single :class:`LayMelds` carrying every opening meld, so the minimum is
   checked on the whole opening at once; until a player has opened, that is the only meld action they may
   take. Once open (the same turn included) a :class:`LayMelds` may be worth anything.
3. **Discard** (B-13): :class:`Discard` ends the turn; discarding the last card goes out (B-18).

A joker's meaning is a :class:`Stands`: in a run it names the rank and the run's suit (``Stands(KING,
SPADES)``); in a set it names the rank only (``Stands(QUEEN)``) and stands for whichever suit the set lacks,
so ``Q♠ ★ ★`` is either ``Q♠ K♠ A♠`` or three queens, as the player says (B-14).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from engine.blagogo.cards import CARDS, DECK_SIZE, Card, Rank, Suit


class End(Enum):
    """Which end of a run cards are added to (B-15)."""

    LOW = "low"
    """Before the first card (the 5 before 6-7-8; the king before A-2-3)."""
    HIGH = "high"
    """After the last card (the 9 after 6-7-8; the two after Q-K-A)."""


@dataclass(frozen=True, slots=True)
class Stands:
    """What a joker stands for: a rank, and in a run the run's suit (``suit=None`` in a set)."""

    rank: Rank
    suit: Suit | None = None

    def __str__(self) -> str:
        return f"★={self.rank.label}{self.suit.symbol if self.suit is not None else ''}"


@dataclass(frozen=True, slots=True)
class MeldSpec:
    """One new meld: its cards, and what each joker among them stands for, in the order the jokers appear.

    The kind follows from the cards: jokers standing for a rank only make a set, jokers with a suit a run;
    without jokers, cards of one rank are a set and anything else must be a run. Cards may be given in any
    order; a run is laid out by rank.
    """

    cards: tuple[Card, ...]
    jokers: tuple[Stands, ...] = ()

    def __str__(self) -> str:
        meanings = iter(self.jokers)
        parts = []
        for c in self.cards:
            if c.is_joker:
                meaning = next(meanings, None)
                parts.append(f"{c}{'' if meaning is None else '(' + str(meaning)[2:] + ')'}")
            else:
                parts.append(str(c))
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Shuffle:
    """The chance step that starts every round: the 108 cards in dealing order (B-5).

    ``Game.chance_outcome()`` derives it from the game's seed; tests pass a stacked deck instead.
    """

    order: tuple[Card, ...]

    def __repr__(self) -> str:
        return f"Shuffle({' '.join(map(str, self.order))})"


@dataclass(frozen=True, slots=True)
class DrawFromDeck:
    """B-8: take the top card of the deck."""


@dataclass(frozen=True, slots=True)
class TakeFromBridge:
    """B-9: take the bridge card at ``position`` (0 is the earliest laid) and every card laid after it."""

    position: int


@dataclass(frozen=True, slots=True)
class LayMelds:
    """B-11, B-12, B-14: lay one or more new melds from the hand. A player's first one is their opening."""

    melds: tuple[MeldSpec, ...]


@dataclass(frozen=True, slots=True)
class AddToMeld:
    """B-15: add cards to a meld on the table (any player's); ``end`` says which end of a run, None for a set.

    ``jokers`` gives the meaning of each joker among ``cards``, in order, as in :class:`MeldSpec`.
    """

    meld_id: int
    cards: tuple[Card, ...]
    jokers: tuple[Stands, ...] = ()
    end: End | None = None


@dataclass(frozen=True, slots=True)
class SwapJoker:
    """B-16: put ``card`` in the place of the joker that stands for it and take the joker into hand."""

    meld_id: int
    card: Card


@dataclass(frozen=True, slots=True)
class Discard:
    """B-13: lay ``card`` at the end of the bridge; this ends the turn."""

    card: Card


Action = DrawFromDeck | TakeFromBridge | LayMelds | AddToMeld | SwapJoker | Discard
"""Every action a seat can take."""

ALL_ACTION_TYPES: Final = (DrawFromDeck, TakeFromBridge, LayMelds, AddToMeld, SwapJoker, Discard)
MELD_ACTION_TYPES: Final = (LayMelds, AddToMeld, SwapJoker)

DRAW: Final = DrawFromDeck()
DISCARDS: Final[tuple[Discard, ...]] = tuple(Discard(c) for c in CARDS)
"""Interned ``Discard`` actions, indexed by card index."""
_TAKES: list[TakeFromBridge] = []


def take(position: int) -> TakeFromBridge:
    """``TakeFromBridge(position)``, interned for the positions a bridge can have (0 to 107).

    Any other value gets a fresh action, which the round then rejects with its reason: a negative position
    must not index the table from its end, and a huge one must not grow it.
    """
    if type(position) is not int or not 0 <= position < DECK_SIZE:
        return TakeFromBridge(position)
    while len(_TAKES) <= position:
        _TAKES.append(TakeFromBridge(len(_TAKES)))
    return _TAKES[position]


STANDS_SET: Final[tuple[Stands, ...]] = tuple(Stands(r) for r in Rank)
"""Interned set meanings, indexed by rank."""
STANDS_RUN: Final[tuple[Stands, ...]] = tuple(Stands(Rank(f % 13), Suit(f // 13)) for f in range(52))
"""Interned run meanings, indexed by face (``suit * 13 + rank``)."""


def describe(action: Action) -> str:
    """A short human-readable form, used in transcripts and messages."""
    match action:
        case DrawFromDeck():
            return "draw from the deck"
        case TakeFromBridge(position):
            return f"take the bridge from position {position}"
        case LayMelds(melds):
            return "lay " + " | ".join(str(m) for m in melds)
        case AddToMeld(meld_id, cards, jokers, end):
            spec = MeldSpec(cards, jokers)
            where = f" at the {end.value} end" if end is not None else ""
            return f"add {spec} to meld {meld_id}{where}"
        case SwapJoker(meld_id, card):
            return f"swap {card} for the joker of meld {meld_id}"
        case Discard(card):
            return f"discard {card}"
