"""Events: what happened, as small immutable values, in the order it happened.

The engine records every event in full. Fields that only some seats may see (T-33) are typed
``... | None``; :mod:`engine.observer` hands each seat a copy with those fields blanked, so an event never
needs two classes to be safe to send.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.actions import RedealReason
from engine.cards import Card, Suit
from engine.rules import Rules


class DealKind(Enum):
    NORMAL = "normal"
    GOLDEN = "golden"
    """T-30: talon to the player left of the dealer, no auction, contract 120, scores doubled."""
    OBLIGATORY = "obligatory"
    """T-28: the player on their third barrel gets the talon face up and must take 121."""


class Outcome(Enum):
    MADE = "made"
    FAILED = "failed"
    CONCEDED = "conceded"


class Mark(Enum):
    """Score-sheet marks written after a deal (T-25 to T-29)."""

    BOLT = "bolt"
    BOLT_PENALTY = "bolt_penalty"
    BARREL_ON = "barrel_on"
    BARREL_FALL = "barrel_fall"
    BARREL_BOTH_FALL = "barrel_both_fall"
    BARREL_BUMPED = "barrel_bumped"
    BARREL_TIMEOUT = "barrel_timeout"
    THIRD_FALL_RESET = "third_fall_reset"
    OBLIGATORY_FAILED = "obligatory_failed"
    SAMOSVAL = "samosval"


@dataclass(frozen=True, slots=True)
class GameStarted:
    rules: Rules
    first_dealer: int


@dataclass(frozen=True, slots=True)
class DealStarted:
    number: int
    """1-based count of deals dealt, redeals included."""
    dealer: int
    kind: DealKind
    active: tuple[int, ...]
    """The seats that play this deal, in turn order from the dealer's left (the dealer sits out with 4)."""
    declarer: int | None
    """Set in advance for golden and obligatory deals."""


@dataclass(frozen=True, slots=True)
class DeckShuffled:
    """The chance step. The order itself is revealed only with the deal (:class:`DealRevealed`)."""

    number: int
    commitment: str = ""
    """The deal's commitment: SHA-256 (hex) of its salt, seed and card order (:mod:`engine.verify`), sent
    before any card is seen so every seat can check, once :class:`DealRevealed` discloses them, that the
    deal was never changed."""


@dataclass(frozen=True, slots=True)
class HandDealt:
    seat: int
    count: int
    cards: tuple[Card, ...] | None
    """Visible to ``seat`` only."""


@dataclass(frozen=True, slots=True)
class DarkDeclared:
    seat: int


@dataclass(frozen=True, slots=True)
class DarkDeclined:
    seat: int


@dataclass(frozen=True, slots=True)
class BidMade:
    seat: int
    value: int
    forced: bool = False
    """True for the automatic opening 100 (T-7) and a dark 120 (T-31)."""


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int


@dataclass(frozen=True, slots=True)
class AuctionWon:
    seat: int
    bid: int


@dataclass(frozen=True, slots=True)
class RedealDemanded:
    seat: int
    reason: RedealReason


@dataclass(frozen=True, slots=True)
class TalonChosen:
    seat: int
    index: int


@dataclass(frozen=True, slots=True)
class TalonTaken:
    seat: int
    face_up: bool
    cards: tuple[Card, ...] | None
    """Visible to everyone when ``face_up``, else to the taker only (T-10)."""


@dataclass(frozen=True, slots=True)
class CardGiven:
    seat: int
    to: int | None
    """The receiving seat, or None for the other talon (two players)."""
    card: Card | None
    """Visible to the giver and the receiver only (T-14)."""


@dataclass(frozen=True, slots=True)
class ContractNamed:
    seat: int
    value: int


@dataclass(frozen=True, slots=True)
class Conceded:
    seat: int
    contract: int


@dataclass(frozen=True, slots=True)
class MarriageDeclared:
    seat: int
    suit: Suit
    points: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickTaken:
    seat: int
    number: int
    """1-based trick number."""
    cards: tuple[Card, ...]
    """In the order they were played."""
    points: int


@dataclass(frozen=True, slots=True)
class LastTalonTaken:
    """T-21: with two players the winner of the last trick takes the other talon."""

    seat: int
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class DealRevealed:
    """T-33: once a deal is over the whole deal is public, for verification and replays."""

    number: int
    order: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]
    """Each seat's cards as dealt (empty for a sitter)."""
    talons: tuple[tuple[Card, ...], ...]
    salt: str = ""
    """The secret that made the commitment unguessable while the deal was played."""
    deal_seed: int | None = None
    """The key a seeded deal's order was shuffled from (None for a stacked deck or a fair deal):
    ``engine.verify.order_from_seed``."""
    client_seeds: tuple[str, ...] = ()
    """A fair deal's seeds, one per seat ("" for none): with the salt, the deal's secret, they give the order
    (``engine.seeds.fair_mix``). Empty for a seeded deal."""


@dataclass(frozen=True, slots=True)
class DealScored:
    number: int
    kind: DealKind
    declarer: int
    contract: int
    outcome: Outcome
    doubled: bool
    deal_points: tuple[int, ...]
    """T-22 per seat: card points of tricks plus declared marriages (0 for a sitter)."""
    deltas: tuple[int, ...]
    """What the deal wrote on each seat's line, every mark included."""
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SheetMarked:
    seat: int
    mark: Mark
    points: int
    """The points the mark itself cost or gave (0 when it only records a state)."""


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    place: int
    score: int
    payout: int


@dataclass(frozen=True, slots=True)
class GameOver:
    winner: int
    standings: tuple[Standing, ...]
    table_secret: str = ""
    """A fair table's secret (hex), disclosed at the end: it proves every deal's secret (engine.verify)."""


Event = (
    GameStarted
    | DealStarted
    | DeckShuffled
    | HandDealt
    | DarkDeclared
    | DarkDeclined
    | BidMade
    | Passed
    | AuctionWon
    | RedealDemanded
    | TalonChosen
    | TalonTaken
    | CardGiven
    | ContractNamed
    | Conceded
    | MarriageDeclared
    | CardPlayed
    | TrickTaken
    | LastTalonTaken
    | DealRevealed
    | DealScored
    | SheetMarked
    | GameOver
)
