"""Actions: one small immutable value per kind of decision in a deal of Thousand.

An action names what a seat does, never who does it: the seat is given to ``Game.apply`` beside it, so the
same ``PlayCard(A♥)`` value is comparable across seats and cheap to intern. Legal-action lists hand out
interned instances, so the hot path compares by identity-equal values without building new objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from engine.cards import CARDS, Card


class RedealReason(Enum):
    """The three kinds of redeal (T-11 to T-13)."""

    FOUR_NINES = "four_nines"
    WEAK_TALON = "weak_talon"
    WEAK_HAND = "weak_hand"


@dataclass(frozen=True, slots=True)
class Shuffle:
    """The chance step that starts every deal: the deck in dealing order.

    ``Game.chance_outcome()`` derives it from the game's seed; tests pass a stacked deck instead.
    """

    order: tuple[Card, ...]

    def __repr__(self) -> str:
        return f"Shuffle({' '.join(map(str, self.order))})"


@dataclass(frozen=True, slots=True)
class DeclareDark:
    """T-31: bid 120 without looking at one's cards."""


@dataclass(frozen=True, slots=True)
class DeclineDark:
    """T-31: look at one's cards and open the auction as usual."""


@dataclass(frozen=True, slots=True)
class Bid:
    """T-8: bid ``value`` points."""

    value: int


@dataclass(frozen=True, slots=True)
class Pass:
    """T-8: leave the auction for this deal."""


@dataclass(frozen=True, slots=True)
class DemandRedeal:
    """T-11 to T-13: annul the deal; the same dealer deals again."""

    reason: RedealReason


@dataclass(frozen=True, slots=True)
class ChooseTalon:
    """T-5: with two players, the declarer picks talon 0 or 1 (unseen)."""

    index: int


@dataclass(frozen=True, slots=True)
class GiveCard:
    """T-14 / T-5: the declarer gives one card face down to an opponent."""

    card: Card
    to: int


@dataclass(frozen=True, slots=True)
class DiscardCard:
    """T-5: with two players, the declarer puts one card face down into the other talon."""

    card: Card


@dataclass(frozen=True, slots=True)
class NameContract:
    """T-15: the declarer names the contract (at least the winning bid)."""

    value: int


@dataclass(frozen=True, slots=True)
class Concede:
    """T-16: rospis: the declarer gives the deal up before the first card is played."""


@dataclass(frozen=True, slots=True)
class PlayCard:
    """T-17 to T-20: play a card; ``marriage`` declares the marriage of its suit when leading a K or Q."""

    card: Card
    marriage: bool = False


Action = (
    DeclareDark
    | DeclineDark
    | Bid
    | Pass
    | DemandRedeal
    | ChooseTalon
    | GiveCard
    | DiscardCard
    | NameContract
    | Concede
    | PlayCard
)
"""Every action a seat can take."""

PASS: Final = Pass()
CONCEDE: Final = Concede()
DECLARE_DARK: Final = DeclareDark()
DECLINE_DARK: Final = DeclineDark()
PLAY: Final[tuple[PlayCard, ...]] = tuple(PlayCard(c) for c in CARDS)
"""Interned ``PlayCard`` without a marriage, indexed by card index."""
PLAY_MARRIAGE: Final[tuple[PlayCard, ...]] = tuple(PlayCard(c, marriage=True) for c in CARDS)
"""Interned ``PlayCard`` declaring a marriage, indexed by card index (only K and Q are ever legal)."""
REDEAL: Final = {reason: DemandRedeal(reason) for reason in RedealReason}


def describe(action: Action) -> str:
    """A short human-readable form, used in transcripts and messages."""
    match action:
        case Bid(value):
            return f"bid {value}"
        case Pass():
            return "pass"
        case DeclareDark():
            return "declare dark 120"
        case DeclineDark():
            return "decline dark"
        case DemandRedeal(reason):
            return f"demand redeal ({reason.value})"
        case ChooseTalon(index):
            return f"choose talon {index}"
        case GiveCard(c, to):
            return f"give {c} to seat {to}"
        case DiscardCard(c):
            return f"discard {c}"
        case NameContract(value):
            return f"contract {value}"
        case Concede():
            return "concede (rospis)"
        case PlayCard(c, marriage):
            return f"play {c}" + (" declaring marriage" if marriage else "")
