"""Why an action was rejected: the engine's slow path, worked out only after an action missed the legal list.

``Deal.apply`` decides legality by looking the action up in the legal list; only when that fails does it ask
this module for the specific reason (T-34). The explanation takes whatever the caller passed, a value of the
wrong type included, and so it lives in a module that stays interpreted in the compiled engine
(scripts/compiled_engine.py): compiled code checks the declared type of every value it binds, and would answer
``PlayCard("x")`` with a TypeError instead of an InvalidActionError.
"""

from __future__ import annotations

from typing import Final

from engine.actions import (
    Bid,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    GiveCard,
    NameContract,
    Pass,
    PlayCard,
)
from engine.cards import MARRIAGE_MASKS, SUIT_MASKS, Card, Rank, Suit, marriage_points_in
from engine.deal_state import DealState
from engine.errors import IllegalActionError, InvalidActionError, Reason
from engine.phases import CONTRACT_STEP, DARK_BID, Phase

_PHASE_ACTIONS: Final[dict[Phase, tuple[type, ...]]] = {
    Phase.DARK: (DeclareDark, DeclineDark),
    Phase.AUCTION: (Bid, Pass),
    Phase.TALON_CHOICE: (ChooseTalon,),
    Phase.EXCHANGE: (GiveCard, DiscardCard),
    Phase.CONTRACT: (NameContract,),
    Phase.PLAY: (PlayCard,),
    Phase.OVER: (),
}
_ALL_ACTIONS: Final = (
    DeclareDark,
    DeclineDark,
    Bid,
    Pass,
    DemandRedeal,
    ChooseTalon,
    GiveCard,
    DiscardCard,
    NameContract,
    Concede,
    PlayCard,
)


def why_illegal(deal: DealState, seat: int, action: object) -> IllegalActionError | InvalidActionError:
    """The specific reason an action outside the legal list is rejected (the slow path)."""
    phase = deal.phase
    if isinstance(action, DemandRedeal):
        return IllegalActionError(
            Reason.REDEAL_NOT_ALLOWED, f"a redeal for {action.reason.value} may not be demanded now"
        )
    if isinstance(action, Concede):
        return IllegalActionError(
            Reason.WRONG_PHASE, "only the declarer may concede, after taking the talon and before play"
        )
    expected = _PHASE_ACTIONS[phase]
    if not isinstance(action, expected):
        if not isinstance(action, _ALL_ACTIONS):
            return InvalidActionError(f"{action!r} is not an action of Thousand")
        names = " or ".join(t.__name__ for t in expected)
        return IllegalActionError(
            Reason.WRONG_PHASE,
            f"{type(action).__name__} is not allowed in the {phase.value} phase (expected {names})",
        )
    match action:
        case Bid(value):
            return _why_bid_illegal(deal, seat, value)
        case Pass():
            return IllegalActionError(Reason.MUST_BID, "the opener must bid at least 100 and may not pass")
        case ChooseTalon(index):
            return IllegalActionError(Reason.NO_SUCH_TALON, f"there is no talon {index}; choose 0 or 1")
        case GiveCard(card, to):
            if not isinstance(card, Card):
                return InvalidActionError(f"{card!r} is not a card")
            if not deal.hands[seat] >> card.index & 1:
                return IllegalActionError(Reason.NO_SUCH_CARD, f"{card} is not in your hand")
            if to not in deal.active or to == seat:
                return IllegalActionError(Reason.NOT_AN_OPPONENT, f"seat {to} is not an opponent")
            return IllegalActionError(Reason.ALREADY_GIVEN, f"seat {to} already received a card")
        case DiscardCard(card):
            if not isinstance(card, Card):
                return InvalidActionError(f"{card!r} is not a card")
            if not deal.hands[seat] >> card.index & 1:
                return IllegalActionError(Reason.NO_SUCH_CARD, f"{card} is not in your hand")
            return IllegalActionError(Reason.ALREADY_GIVEN, "no more cards go to the talon")
        case NameContract(value):
            if not isinstance(value, int) or isinstance(value, bool):
                return InvalidActionError(f"contract {value!r} is not a number")
            if value < deal.bid:
                return IllegalActionError(
                    Reason.CONTRACT_TOO_LOW, f"the contract must be at least the winning bid {deal.bid}"
                )
            if value % CONTRACT_STEP:
                return IllegalActionError(
                    Reason.CONTRACT_NOT_MULTIPLE_OF_5, f"contract {value} is not a multiple of 5"
                )
            return IllegalActionError(
                Reason.CONTRACT_ABOVE_CAP,
                f"contract {value} is above your cap {max(deal.bid, deal.cap(seat))} (T-9)",
            )
        case PlayCard(card, marriage):
            return _why_play_illegal(deal, seat, card, marriage)
    return IllegalActionError(Reason.WRONG_PHASE, f"{action!r} is not allowed now")


def _why_bid_illegal(deal: DealState, seat: int, value: object) -> IllegalActionError | InvalidActionError:
    if not isinstance(value, int) or isinstance(value, bool):
        return InvalidActionError(f"bid {value!r} is not a number")
    lowest = deal.lowest_bid()
    if value < lowest:
        return IllegalActionError(Reason.BID_TOO_LOW, f"bid {value} is too low; the lowest bid is {lowest}")
    if (value - lowest) % deal.rules.bid_step:
        return IllegalActionError(
            Reason.BID_NOT_MULTIPLE_OF_STEP,
            f"bid {value} does not rise from {lowest} in steps of {deal.rules.bid_step}",
        )
    if deal.dark_seat is not None and value > DARK_BID and not marriage_points_in(deal.hands[seat]):
        return IllegalActionError(
            Reason.BID_NEEDS_MARRIAGE, "only a player holding a marriage may outbid a dark 120 (T-31)"
        )
    return IllegalActionError(
        Reason.BID_ABOVE_CAP, f"bid {value} is above your cap {deal.auction_cap(seat)} (T-9)"
    )


def _why_play_illegal(
    deal: DealState, seat: int, card: object, marriage: object
) -> IllegalActionError | InvalidActionError:
    if not isinstance(card, Card):
        return InvalidActionError(f"{card!r} is not a card")
    hand = deal.hands[seat]
    if not hand >> card.index & 1:
        return IllegalActionError(Reason.NO_SUCH_CARD, f"{card} is not in your hand")
    if marriage:
        if deal.trick:
            return IllegalActionError(
                Reason.MARRIAGE_NOT_ON_LEAD, "a marriage is declared only when leading a trick (T-20)"
            )
        pair = MARRIAGE_MASKS[card.suit]
        if card.rank not in (Rank.KING, Rank.QUEEN) or hand & pair != pair:
            return IllegalActionError(
                Reason.MARRIAGE_NOT_HELD,
                f"you do not hold the king and queen of {card.suit.symbol} (T-20)",
            )
        return IllegalActionError(
            Reason.MARRIAGE_NOT_ALLOWED_ON_FIRST_TRICK,
            "a marriage may not be declared on the declarer's first lead (T-20)",
        )
    lead_suit = Suit(deal.trick[0][1] // 6)
    if hand & SUIT_MASKS[lead_suit]:
        if card.suit == lead_suit:
            return IllegalActionError(
                Reason.MUST_BEAT, f"you must beat the trick with a higher {lead_suit.symbol} (must_beat)"
            )
        return IllegalActionError(Reason.MUST_FOLLOW_SUIT, f"you must follow suit {lead_suit.symbol} (T-18)")
    if deal.trump is not None and card.suit == deal.trump:
        return IllegalActionError(Reason.MUST_BEAT, "you must overtrump when you can (must_beat)")
    trump = deal.trump
    assert trump is not None
    return IllegalActionError(
        Reason.MUST_TRUMP,
        f"you cannot follow {lead_suit.symbol}, so you must play a trump {trump.symbol}",
    )
