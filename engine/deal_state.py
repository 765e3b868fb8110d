"""What a deal of Thousand holds at any moment, and what its acting seat may do there (T-34).

:class:`DealState` deals the cards and keeps the state of a deal (hands and talons as bit masks, the auction,
the exchange, the tricks); it answers the read-only queries and computes the acting seat's complete legal
list. How an action changes the state is :class:`engine.deal.Deal`'s business: the deal a game plays is a
``Deal``, and a ``DealState`` is never built alone. Split this way, the legal lists and the explanations of
a rejection (:mod:`engine.rejections`) read the state without importing the module that changes it.

The attributes are created here and stored in ``Deal.__slots__``, on the class that is instantiated.
"""

from __future__ import annotations

from typing import Final

from engine.actions import CONCEDE, DECLARE_DARK, DECLINE_DARK, PASS, Action, RedealReason
from engine.cards import (
    CARDS,
    NINES_MASK,
    QUEENS_MASK,
    SUIT_MASKS,
    Card,
    Rank,
    Suit,
    cards_of,
    marriage_points_in,
    points_of,
)
from engine.events import DealKind, Outcome
from engine.layout import DealSetup, dealt_masks, seating
from engine.legal_tables import (
    AUCTION_LEGAL,
    CONTRACT_LEGAL,
    DISCARDS,
    REDEAL_FOUR_NINES,
    REDEALS,
    SUIT_PLAYS,
    TALON_CHOICES,
    bid_action,
    contract_action,
    gives_by_card,
    play_actions,
)
from engine.phases import (
    AUCTION_PHASE,
    CONTRACT_PHASE,
    CONTRACT_STEP,
    DARK_BID,
    DARK_PHASE,
    EXCHANGE_PHASE,
    OPENING_BID,
    OVER_PHASE,
    PLAY_PHASE,
    TALON_CHOICE_PHASE,
)
from engine.rules import MAX_POSSIBLE_POINTS, BidCap, Rules, WeakTalon

_BID_CAP_NONE: Final = BidCap.NONE

_JACKS_MASK: Final = sum(1 << (6 * s + Rank.JACK) for s in range(4))


def _above(index: int) -> int:
    """Cards of the same suit stronger than ``index``."""
    suit_mask = SUIT_MASKS[index // 6]
    return suit_mask & ~((1 << (index + 1)) - 1)


class DealState:
    """One deal's cards dealt from ``order`` and its state; see the module docstring."""

    # The attributes created below are slots of Deal, the class that is built, beside copy(), which names
    # every one of them too (tests/test_engine_tables.py holds copy() to Deal.__slots__). The empty tuple
    # keeps instances without a __dict__; it is a call, not a literal, because mypy would take a literal for
    # this class's complete list and refuse every attribute __init__ creates.
    __slots__ = tuple()

    def __init__(self, rules: Rules, setup: DealSetup, order: tuple[Card, ...]) -> None:
        n = rules.players
        self.active, self._following = seating(n, setup.dealer)
        masks = dealt_masks(rules, len(self.active), order)
        self.rules = rules
        self.number = setup.number
        self.dealer = setup.dealer
        self.kind = setup.kind
        self.order = order
        self.salt = ""
        self.deal_seed: int | None = None
        """Set by the game: what its commitment (engine.verify) reveals at the end of the deal."""
        self.client_seeds: tuple[str, ...] = ()
        self.sitter: int | None = setup.dealer if n == 4 else None

        self.hands: list[int] = [0] * n
        for seat, mask in zip(self.active, masks, strict=False):
            self.hands[seat] = mask
        self.talons: list[int] = masks[len(self.active) :]
        self.dealt: tuple[int, ...] = tuple(self.hands)
        self.dealt_talons: tuple[int, ...] = tuple(self.talons)

        self.phase = AUCTION_PHASE
        self.to_act: int | None = None
        # Auction.
        self.high_bid: int | None = None
        self.high_bidder: int | None = None
        self.passed = 0
        """Bit per seat that passed."""
        self.spoken = 0
        """Bit per seat that made a voluntary bid or pass (no more T-11/T-13 redeal before the auction)."""
        self.auction: list[tuple[int, int | None]] = []
        """(seat, bid) in order; None is a pass."""
        self.dark_seat: int | None = None
        # Talon, exchange and contract.
        self.declarer: int | None = setup.declarer
        self.bid = 0
        self.contract: int | None = None
        self.doubled = setup.kind is DealKind.GOLDEN
        self.talon_index: int | None = None
        self.talon_face_up: bool | None = None
        self.taken_talon = 0
        self.gives_left: tuple[int, ...] = ()
        self.discards_left = 0
        self.given: list[int | None] = [None] * n
        """Card index each seat received in the exchange."""
        self.four_nines_receivers = 0
        """Bit per defender who may demand the T-11 redeal at their first card: the card they received made a
        fourth nine, or (a deal without an auction) they were dealt all four; cleared when they play."""
        # Play.
        self.trump: Suit | None = None
        self.leader: int | None = None
        self.trick: list[tuple[int, int]] = []
        self.taken_tricks: list[tuple[int, list[tuple[int, int]], int]] = []
        """(winner, [(seat, card index), ...] in play order, card points) of each completed trick: public
        (T-33)."""
        self.tricks_played = 0
        self.trick_count = 0
        self.tricks_won: list[int] = [0] * n
        self.won: list[int] = [0] * n
        """Cards each seat took in tricks (and the last talon with two players)."""
        self.marriage_points: list[int] = [0] * n
        self.marriages: list[tuple[int, Suit]] = []
        self.outcome: Outcome | None = None
        self.redeal: RedealReason | None = None
        self._legal: tuple[Action, ...] | None = None
        self._play_mask = 0
        self._marriage_mask = 0
        self._weak_talon = False
        """T-12 for the taken talon, worked out once when it is taken."""
        self._active_mask = 0
        for seat in self.active:
            self._active_mask |= 1 << seat

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is OVER_PHASE

    def legal_actions(self) -> tuple[Action, ...]:
        """The acting seat's complete list of legal actions (T-34); empty once the deal is over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def hand(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.hands[seat])

    def deal_points(self, seat: int) -> int:
        """T-22: card points of the seat's tricks plus its declared marriages."""
        return points_of(self.won[seat]) + self.marriage_points[seat]

    def trick_cards(self) -> tuple[tuple[int, Card], ...]:
        return tuple((seat, CARDS[i]) for seat, i in self.trick)

    def cap(self, seat: int) -> int:
        """T-9: the most ``seat`` may bid (or contract) with the cards it holds now."""
        if self.rules.bid_cap is _BID_CAP_NONE:
            return MAX_POSSIBLE_POINTS
        return 120 + marriage_points_in(self.hands[seat])

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self) -> tuple[Action, ...]:
        seat = self.to_act
        if seat is None:
            return ()
        phase = self.phase
        if phase is PLAY_PHASE:
            return self._play_legal(seat)
        if phase is AUCTION_PHASE:
            return self._auction_legal(seat)
        if phase is DARK_PHASE:
            return (DECLARE_DARK, DECLINE_DARK)
        if phase is TALON_CHOICE_PHASE:
            return TALON_CHOICES
        if phase is EXCHANGE_PHASE:
            return self._exchange_legal(seat)
        if phase is CONTRACT_PHASE:
            bid = self.bid
            cap = max(bid, self.cap(seat))
            key = (bid, cap, self._post_talon_redeal_flags(seat))
            legal = CONTRACT_LEGAL.get(key)
            if legal is None:
                contracts = tuple(contract_action(v) for v in range(bid, cap + 1, CONTRACT_STEP))
                legal = CONTRACT_LEGAL[key] = (*contracts, CONCEDE, *REDEALS[key[2]])
            return legal
        return ()

    def auction_cap(self, seat: int) -> int:
        """The most ``seat`` may bid now: its cap (T-9), held to 120 over a dark bid without a marriage."""
        cap = self.cap(seat)
        if self.dark_seat is not None and seat != self.dark_seat and not marriage_points_in(self.hands[seat]):
            cap = min(cap, DARK_BID)  # T-31: only a marriage lets an opponent outbid the dark 120
        return cap

    def lowest_bid(self) -> int:
        """The lowest bid the auction accepts now: 100 to open, else a step above the high bid."""
        return OPENING_BID if self.high_bid is None else self.high_bid + self.rules.bid_step

    def _auction_legal(self, seat: int) -> tuple[Action, ...]:
        rules = self.rules
        high_bid = self.high_bid
        step = rules.bid_step
        must_bid = high_bid is None  # T-7 AT_LEAST_100: the opener may not pass
        lowest = OPENING_BID if high_bid is None else high_bid + step
        hand = self.hands[seat]
        marriages = marriage_points_in(hand)
        cap = MAX_POSSIBLE_POINTS if rules.bid_cap is _BID_CAP_NONE else 120 + marriages  # T-9
        if self.dark_seat is not None and seat != self.dark_seat and not marriages and cap > DARK_BID:
            cap = DARK_BID  # T-31: only a marriage lets an opponent outbid the dark 120
        redeals = 0
        if not self.spoken >> seat & 1:  # T-11 and T-13 before the seat takes part in the auction
            if rules.redeal_four_nines and hand & NINES_MASK == NINES_MASK:
                redeals = 1
            if rules.weak_hand_max_points and points_of(hand) <= rules.weak_hand_max_points:
                redeals |= 2
        key = (lowest, cap, step, must_bid, redeals)
        legal = AUCTION_LEGAL.get(key)
        if legal is None:
            bids = tuple(bid_action(v) for v in range(lowest, cap + 1, step))
            actions: tuple[Action, ...] = bids if must_bid else (*bids, PASS)
            legal = AUCTION_LEGAL[key] = actions + REDEALS[redeals]
        return legal

    def _post_talon_redeal_flags(self, seat: int) -> int:
        """T-11 and T-12 for the declarer once the talon is taken and before the first card."""
        flags = 0
        if self.rules.redeal_four_nines and self.hands[seat] & NINES_MASK == NINES_MASK:
            flags = 1
        if self._weak_talon:
            flags |= 4
        return flags

    def talon_is_weak(self) -> bool:
        """T-12 for the talon the declarer took."""
        talon = self.taken_talon
        nines = (talon & NINES_MASK).bit_count()
        rule = self.rules.weak_talon
        if rule is WeakTalon.TWO_NINES_OR_TWO_JACKS_AND_NINE:
            jacks = (talon & _JACKS_MASK).bit_count()
            return nines >= 2 or (jacks == 2 and nines == 1)
        if rule is WeakTalon.BELOW_POINTS:
            return points_of(talon) < self.rules.weak_talon_below_points
        return False

    def _exchange_legal(self, seat: int) -> tuple[Action, ...]:
        actions: list[Action] = []
        gives = gives_by_card(self.gives_left)
        discards = self.discards_left
        m = self.hands[seat]
        while m:
            low = m & -m
            i = low.bit_length() - 1
            actions += gives[i]
            if discards:
                actions.append(DISCARDS[i])
            m ^= low
        actions.append(CONCEDE)
        actions += REDEALS[self._post_talon_redeal_flags(seat)]
        return tuple(actions)

    def play_masks(self) -> tuple[int, int]:
        """(cards the seat to act may play, the K and Q it may lead declaring their marriage), as bit masks
        by card index (T-18 to T-20); (0, 0) outside card play.

        The plays of :meth:`legal_actions` without building its list: a search that picks a card by the
        masks (bots/heuristic.py's rollouts) and applies it with :meth:`engine.deal.Deal.apply` skips that
        work on every card of every simulated deal. ``legal_actions`` may add a concession (T-16) and a
        redeal (T-11) to the plays; those are not cards and are not in the masks.
        """
        seat = self.to_act
        if self.phase is not PLAY_PHASE or seat is None:
            return 0, 0
        trick = self.trick
        if not trick or self.rules.must_beat:
            return self._play_options(seat)
        # Following without must_beat, as _play_legal has it inline: the same six lines on purpose. A helper
        # both called (tried) made play_masks 1.8 times slower compiled by mypyc (a follow position: 145 ->
        # 263 ns; interpreted 246 -> 269 ns) and _play_legal's follow case 5 to 10 % slower.
        hand = self.hands[seat]
        mask = hand & SUIT_MASKS[trick[0][1] // 6]
        if not mask:  # no card of the suit led: a trump if any, else any card
            trump = self.trump
            mask = hand & SUIT_MASKS[trump] if trump is not None else 0
            if not mask:
                mask = hand
        return mask, 0

    def _play_legal(self, seat: int) -> tuple[Action, ...]:
        actions: tuple[Action, ...]
        trick = self.trick
        if not trick or self.rules.must_beat:
            mask, marriage_mask = self._play_options(seat)
            self._play_mask = mask
            self._marriage_mask = marriage_mask
            actions = play_actions(mask, marriage_mask)
            if not self.tricks_played and not trick:
                actions = (*actions, CONCEDE)  # T-16: rospis until the first card is played
        else:
            # _play_options inlined for the commonest case, following without must_beat (T-18).
            hand = self.hands[seat]
            mask = hand & SUIT_MASKS[trick[0][1] // 6]
            if not mask:  # no card of the suit led: a trump if any, else any card
                trump = self.trump
                mask = hand & SUIT_MASKS[trump] if trump is not None else 0
                if not mask:
                    mask = hand
            self._play_mask = mask
            self._marriage_mask = 0
            s, c, d, h = SUIT_PLAYS
            actions = s[mask & 63] + c[mask >> 6 & 63] + d[mask >> 12 & 63] + h[mask >> 18 & 63]
        if self.four_nines_receivers >> seat & 1:
            actions = (*actions, REDEAL_FOUR_NINES)
        return actions

    def _play_options(self, seat: int) -> tuple[int, int]:
        """(cards the seat may play, K/Q cards it may lead declaring their marriage): T-18 and T-20."""
        hand = self.hands[seat]
        trick = self.trick
        if not trick:
            marriage_mask = 0
            if self.tricks_played or self.rules.marriage_on_first_trick:
                queens = hand & hand >> 1 & QUEENS_MASK  # a king's bit sits right above its queen's
                marriage_mask = queens | queens << 1
            return hand, marriage_mask
        lead_suit = trick[0][1] // 6
        follow = hand & SUIT_MASKS[lead_suit]
        trump = self.trump
        must_beat = self.rules.must_beat
        if follow:
            if must_beat:
                trumped = trump is not None and trump != lead_suit and any(i // 6 == trump for _, i in trick)
                if not trumped:
                    best = max(i for _, i in trick if i // 6 == lead_suit)
                    higher = follow & _above(best)
                    if higher:
                        return higher, 0
            return follow, 0
        if trump is not None:
            trumps = hand & SUIT_MASKS[trump]
            if trumps:
                if must_beat:
                    played = [i for _, i in trick if i // 6 == trump]
                    if played:
                        higher = trumps & _above(max(played))
                        if higher:
                            return higher, 0
                return trumps, 0
        return hand, 0
