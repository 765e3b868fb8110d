"""Events of 1000 Blagogo: what happened, as small immutable values, in order.

The engine records every event in full. Fields that only some seats may see (B-21) are typed ``... | None``;
:mod:`engine.blagogo.observer` hands each seat a copy with those fields blanked. Only two kinds of event hold
hidden cards: :class:`HandDealt` (seen by its seat) and :class:`CardDrawn` (seen by the drawer). Everything
else (the bridge, melds, cards taken from the bridge, jokers swapped out) is public.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.blagogo.actions import End
from engine.blagogo.cards import Card
from engine.blagogo.melds import TableMeld
from engine.blagogo.rules import BlagogoRules


@dataclass(frozen=True, slots=True)
class GameStarted:
    rules: BlagogoRules
    first_dealer: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    number: int
    """1-based."""
    dealer: int
    first: int
    """The player left of the dealer, who holds 13 cards and starts (B-5, B-7)."""


@dataclass(frozen=True, slots=True)
class DeckShuffled:
    """The chance step. The order itself is revealed only once the round is over (:class:`RoundRevealed`)."""

    number: int
    commitment: str = ""
    """A fair round's commitment (:mod:`engine.blagogo.verify`), sent before any card is seen; "" for a
    seeded round."""


@dataclass(frozen=True, slots=True)
class HandDealt:
    seat: int
    count: int
    cards: tuple[Card, ...] | None
    """Visible to ``seat`` only."""


@dataclass(frozen=True, slots=True)
class BridgeStarted:
    """B-5: the dealer turns the first card of the bridge face up."""

    card: Card
    deck_count: int


@dataclass(frozen=True, slots=True)
class BridgeTurnedOver:
    """B-10: the deck ran out, so the bridge, turned face down, is the deck (its earliest card on top)."""

    count: int


class Exhaustion(Enum):
    """Why a round ended with no winner when a draw was due from an empty deck (B-10)."""

    NOTHING_TO_DRAW = "nothing_to_draw"
    """The bridge was empty too: B-10 as written (the engine's timing never meets it; kept for readers)."""
    TURNOVER_LIMIT = "turnover_limit"
    """The variant ``turnover_limit``: the bridge had been turned over that many times."""
    NO_ONE_CAN_GO_OUT = "no_one_can_go_out"
    """No card in circulation can ever be put on the table again (:mod:`engine.blagogo.dead_round`)."""


@dataclass(frozen=True, slots=True)
class DeckExhausted:
    """B-10: a draw is due from an empty deck and the round ends with no winner, for ``reason``."""

    turnovers: int
    reason: Exhaustion = Exhaustion.NOTHING_TO_DRAW


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """B-8: a card drawn from the deck."""

    seat: int
    card: Card | None
    """Visible to ``seat`` only (B-21)."""


@dataclass(frozen=True, slots=True)
class BridgeTaken:
    """B-9: cards taken from the bridge, from ``position`` to its end; public."""

    seat: int
    position: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class MeldsLaid:
    """B-11, B-12: new melds; ``opening`` marks a player's first melds, worth ``points`` together."""

    seat: int
    melds: tuple[TableMeld, ...]
    points: int
    opening: bool


@dataclass(frozen=True, slots=True)
class MeldExtended:
    """B-15: cards added to a meld; ``meld`` is the meld after the addition."""

    seat: int
    meld: TableMeld
    cards: tuple[Card, ...]
    end: End | None


@dataclass(frozen=True, slots=True)
class JokerSwapped:
    """B-16: ``card`` took the place of ``joker``, which went to ``seat``'s hand; ``meld`` after the swap."""

    seat: int
    meld: TableMeld
    card: Card
    joker: Card


@dataclass(frozen=True, slots=True)
class MeldClosed:
    """B-15: a set of four natural suits is turned over; it stays with its owner and counts at scoring."""

    meld_id: int
    owner: int


@dataclass(frozen=True, slots=True)
class Discarded:
    """B-13: a card laid at the end of the bridge; the turn passes."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class WentOut:
    """B-18: the seat discarded its last card and wins the round; B-19 kantrame when it did so in one go."""

    seat: int
    kantrame: bool


@dataclass(frozen=True, slots=True)
class RoundRevealed:
    """B-21: once a round is over the whole round is public, for verification and replays."""

    number: int
    order: tuple[Card, ...]
    """The shuffle the round was dealt from."""
    hands: tuple[tuple[Card, ...], ...]
    """Each seat's cards as dealt."""
    final_hands: tuple[tuple[Card, ...], ...]
    """Each seat's cards at the end (what the penalties were counted on)."""
    salt: str = ""
    """A fair round's secret: it kept the commitment unguessable and, with the seeds, gives the order."""
    client_seeds: tuple[str, ...] = ()
    """A fair round's seeds, one per seat ("" for none; ``engine.seeds.fair_mix``). Empty when seeded."""


@dataclass(frozen=True, slots=True)
class RoundScored:
    """B-17 to B-19: what the round wrote on each seat's line."""

    number: int
    winner: int | None
    """The seat that went out; None if the round ended without a winner (B-10)."""
    kantrame: bool
    meld_points: tuple[int, ...]
    hand_penalties: tuple[int, ...]
    """As subtracted (doubled for the losers after kantrame)."""
    deltas: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    place: int
    score: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """B-20."""

    winner: int
    standings: tuple[Standing, ...]
    table_secret: str = ""
    """A fair table's secret (hex), disclosed at the end: it proves every round's (engine.verify)."""


Event = (
    GameStarted
    | RoundStarted
    | DeckShuffled
    | HandDealt
    | BridgeStarted
    | BridgeTurnedOver
    | DeckExhausted
    | CardDrawn
    | BridgeTaken
    | MeldsLaid
    | MeldExtended
    | JokerSwapped
    | MeldClosed
    | Discarded
    | WentOut
    | RoundRevealed
    | RoundScored
    | GameOver
)
