"""How a deal of Thousand moves from its auction to its first card: bids and passes, the talon taken, the
exchange, and the lead of the first trick (T-5, T-7 to T-10, T-14, T-17).

:class:`DealAuction` holds these steps for :class:`engine.deal.Deal`, which checks each action before
calling them. Each module holds one part of a deal's life: :mod:`engine.deal_state` what a deal holds and
allows, this one the steps before the play, :mod:`engine.deal` the entry points that check an action, the play
of tricks and the end of a deal.

Like :class:`engine.deal_state.DealState`, this class is never built alone: its attributes are
``DealState``'s, stored in ``Deal.__slots__``.
"""

from __future__ import annotations

from typing import Final

from engine.cards import CARDS, NINES_MASK, cards_of
from engine.deal_state import DealState
from engine.events import AuctionWon, BidMade, CardGiven, ContractNamed, DealKind, Event, TalonTaken
from engine.phases import (
    AUCTION_PHASE,
    CONTRACT_PHASE,
    DARK_BID,
    EXCHANGE_PHASE,
    OPENING_BID,
    PLAY_PHASE,
    TALON_CHOICE_PHASE,
)
from engine.rules import OpeningBid, TwoPlayerDeal

_NORMAL: Final = DealKind.NORMAL

_BID_MADE: dict[tuple[int, int, bool], BidMade] = {}
"""BidMade events by (seat, bid, forced), built once: a bid's event carries nothing else."""


class DealAuction(DealState):
    """The steps of a deal from its auction to its first card; see the module docstring."""

    # No __dict__, as for DealState: the attributes are slots of Deal (a call, not a literal, for mypy).
    __slots__ = tuple()

    def _open_auction(self, events: list[Event]) -> None:
        """T-7: the opener speaks first, or bids 100 at once with FORCED_100."""
        opener = self.active[0]
        self.phase = AUCTION_PHASE
        if self.rules.opening_bid is OpeningBid.FORCED_100:
            self._record_bid(opener, OPENING_BID, forced=True, events=events)
            self.to_act = self.active[1]
        else:
            self.to_act = opener

    def _record_bid(self, seat: int, value: int, *, forced: bool, events: list[Event]) -> None:
        self.high_bid = value
        self.high_bidder = seat
        self.auction.append((seat, value))
        if type(seat) is int and type(value) is int:
            key = (seat, value, forced)
            event = _BID_MADE.get(key)
            if event is None:
                event = _BID_MADE[key] = BidMade(seat, value, forced)
            events.append(event)
        else:
            events.append(BidMade(seat, value, forced))

    def _advance_auction(self, seat: int, events: list[Event]) -> None:
        """T-8: after ``seat`` spoke, the auction is won or the next seat still in speaks."""
        passed = self.passed
        high_bidder = self.high_bidder
        if high_bidder is not None and self._active_mask & ~passed == 1 << high_bidder:
            declarer = high_bidder  # everybody else has passed
            assert self.high_bid is not None
            self.declarer = declarer
            self.bid = self.high_bid
            events.append(AuctionWon(declarer, self.bid))
            if self.dark_seat == declarer and self.bid == DARK_BID:
                self.doubled = True  # T-31: an unchallenged dark plays as a golden deal
            self._take_talon(0 if self.rules.players != 2 else None, events)
            return
        following = self._following
        nxt = following[seat]
        for _ in self.active:  # the next seat still in, in turn order (the seat itself last)
            if not passed >> nxt & 1:
                self.to_act = nxt
                return
            nxt = following[nxt]

    def _take_talon(self, index: int | None, events: list[Event]) -> None:
        declarer = self.declarer
        assert declarer is not None
        if index is None:  # two players: the declarer first chooses a talon, unseen (T-5)
            self.phase = TALON_CHOICE_PHASE
            self.to_act = declarer
            return
        talon = self.talons[index]
        self.talons[index] = 0
        self.taken_talon = talon
        face_up = True
        if self.kind is _NORMAL and self.rules.players != 2:
            uncontested_100 = self.bid == OPENING_BID and self.rules.closed_talon_on_uncontested_100
            face_up = not (uncontested_100 or self.doubled)  # T-10, and T-31: a dark talon is taken closed
        self.talon_face_up = face_up
        self._weak_talon = self.talon_is_weak()
        self.hands[declarer] |= talon
        events.append(TalonTaken(declarer, face_up, cards_of(talon)))
        self.phase = EXCHANGE_PHASE
        self.to_act = declarer
        opponents = tuple([s for s in self.active if s != declarer])
        if self.rules.players == 2:
            polish = self.rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2
            self.gives_left = () if polish else opponents
            self.discards_left = 2 if polish else 1
        else:
            self.gives_left = opponents

    def _give_card(self, seat: int, index: int, to: int | None, events: list[Event]) -> None:
        """T-14 (and T-5's discards when ``to`` is None); the last card given ends the exchange."""
        bit = 1 << index
        self.hands[seat] &= ~bit
        if to is None:
            self.discards_left -= 1
            other = 1 - (self.talon_index or 0)
            self.talons[other] |= bit
        else:
            self.gives_left = tuple([s for s in self.gives_left if s != to])
            self.hands[to] |= bit
            self.given[to] = index
            hand = self.hands[to]
            if self.rules.redeal_four_nines and bit & NINES_MASK and hand & NINES_MASK == NINES_MASK:
                self.four_nines_receivers |= 1 << to
        events.append(CardGiven(seat, to, CARDS[index]))
        if self.gives_left or self.discards_left:
            return
        if self.kind is _NORMAL and not self.doubled:
            self.phase = CONTRACT_PHASE
            return
        self.contract = self.bid  # golden, dark and obligatory contracts are fixed
        events.append(ContractNamed(seat, self.bid))
        self._begin_play()

    def _begin_play(self) -> None:
        """T-17: the declarer leads the first trick."""
        self.phase = PLAY_PHASE
        self.leader = self.to_act = self.declarer
        self.trick_count = self.hands[self.active[0]].bit_count()
        if self.kind is not _NORMAL and self.rules.redeal_four_nines:
            # T-11: without an auction a defender dealt four nines had no turn to demand the redeal in; its
            # first card is that turn, as for one whose fourth nine came in the exchange.
            for seat in self.active:
                if seat != self.declarer and self.hands[seat] & NINES_MASK == NINES_MASK:
                    self.four_nines_receivers |= 1 << seat
