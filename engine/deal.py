"""One deal of Thousand, from the dealt cards to the last trick (T-4 to T-21).

A :class:`Deal` is a state machine over phases (dark decision, auction, talon, exchange, contract, play). At
every decision it names the seat to act and lists that seat's complete legal actions (T-34); ``apply``
checks an action against that list before touching anything, so a rejected action leaves the deal exactly
as it was, and the reason is worked out only on the (rare) rejection path.

Scoring is not done here: what a deal is worth depends on the score sheet (the barrel, bolts), which the
game owns. A finished deal exposes what happened; :mod:`engine.scoring` and :mod:`engine.game` value it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine.actions import (
    CONCEDE,
    DECLARE_DARK,
    DECLINE_DARK,
    PASS,
    PLAY,
    PLAY_MARRIAGE,
    REDEAL,
    Action,
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
    RedealReason,
)
from engine.cards import (
    CARDS,
    DECK_SIZE,
    FULL_MASK,
    MARRIAGE_POINTS,
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
from engine.errors import IllegalActionError, InvalidActionError, Reason
from engine.events import (
    AuctionWon,
    BidMade,
    CardGiven,
    CardPlayed,
    Conceded,
    ContractNamed,
    DarkDeclared,
    DarkDeclined,
    DealKind,
    DealRevealed,
    Event,
    HandDealt,
    LastTalonTaken,
    MarriageDeclared,
    Outcome,
    Passed,
    RedealDemanded,
    TalonChosen,
    TalonTaken,
    TrickTaken,
)
from engine.phases import (
    CONTRACT_STEP,
    DARK_BID,
    GOLDEN_CONTRACT,
    OBLIGATORY_CONTRACT,
    OPENING_BID,
    Phase,
)
from engine.rejections import why_illegal
from engine.rules import MAX_POSSIBLE_POINTS, BidCap, OpeningBid, Rules, TwoPlayerDeal, WeakTalon

# Enum members used on the hot path, as module constants: looking a member up on its Enum class costs
# several times a global lookup.
_DARK: Final = Phase.DARK
_AUCTION: Final = Phase.AUCTION
_TALON_CHOICE: Final = Phase.TALON_CHOICE
_EXCHANGE: Final = Phase.EXCHANGE
_CONTRACT: Final = Phase.CONTRACT
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER
_NORMAL: Final = DealKind.NORMAL
_BID_CAP_NONE: Final = BidCap.NONE


@dataclass(frozen=True, slots=True)
class DealSetup:
    """What the game decides before a deal: its number, the dealer, its kind, a fixed declarer."""

    number: int
    dealer: int
    kind: DealKind = DealKind.NORMAL
    declarer: int | None = None


_ACTIVE_SEATS: dict[tuple[int, int], tuple[int, ...]] = {}


def active_seats(players: int, dealer: int) -> tuple[int, ...]:
    """Seats that play, in turn order from the dealer's left; with four the dealer sits out (T-6)."""
    seats = _ACTIVE_SEATS.get((players, dealer))
    if seats is None:
        seats = tuple((dealer + i) % players for i in range(1, players + 1))
        if players == 4:
            seats = seats[:3]
        _ACTIVE_SEATS[(players, dealer)] = seats
    return seats


_SEATING: dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def _seating(players: int, dealer: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The active seats and, indexed by seat, the next active seat in turn order (-1 for a sitter)."""
    seating = _SEATING.get((players, dealer))
    if seating is None:
        active = active_seats(players, dealer)
        following = [-1] * players
        for i, seat in enumerate(active):
            following[seat] = active[(i + 1) % len(active)]
        seating = _SEATING[(players, dealer)] = (active, tuple(following))
    return seating


def deal_layout(rules: Rules) -> tuple[int, tuple[int, ...]]:
    """Cards per hand and the talon sizes (T-4, T-5, T-6)."""
    if rules.players != 2:
        return 7, (3,)
    if rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2:
        return 10, (2, 2)
    return 9, (3, 3)


_BIDS: dict[int, Bid] = {}
_CONTRACTS: dict[int, NameContract] = {}
_GIVES: dict[tuple[int, int], GiveCard] = {}
_DISCARDS: Final = tuple(DiscardCard(c) for c in CARDS)
_TALON_CHOICES: Final = (ChooseTalon(0), ChooseTalon(1))


def _bid(value: int) -> Bid:
    action = _BIDS.get(value)
    if action is None:
        action = _BIDS[value] = Bid(value)
    return action


def _contract(value: int) -> NameContract:
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


def _gives_by_card(recipients: tuple[int, ...]) -> tuple[tuple[GiveCard, ...], ...]:
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


_SUIT_PLAYS: Final = _suit_plays()


def _play_actions(mask: int, marriage_mask: int) -> tuple[PlayCard, ...]:
    """Interned plays of the cards in ``mask``, in index order; each K and Q of ``marriage_mask`` (whole
    marriages only) is followed by its marriage declaration."""
    s, c, d, h = _SUIT_PLAYS
    return (
        s[mask & 63 | (marriage_mask & 4) << 4]  # bit 2 of a suit is its queen
        + c[mask >> 6 & 63 | (marriage_mask >> 6 & 4) << 4]
        + d[mask >> 12 & 63 | (marriage_mask >> 12 & 4) << 4]
        + h[mask >> 18 & 63 | (marriage_mask >> 18 & 4) << 4]
    )


_AUCTION_LEGAL: dict[tuple[int, int, int, bool, int], tuple[Action, ...]] = {}
_CONTRACT_LEGAL: dict[tuple[int, int, int], tuple[Action, ...]] = {}
_REDEALS: Final[tuple[tuple[DemandRedeal, ...], ...]] = (
    (),
    (REDEAL[RedealReason.FOUR_NINES],),
    (REDEAL[RedealReason.WEAK_HAND],),
    (REDEAL[RedealReason.FOUR_NINES], REDEAL[RedealReason.WEAK_HAND]),
    (REDEAL[RedealReason.WEAK_TALON],),
    (REDEAL[RedealReason.FOUR_NINES], REDEAL[RedealReason.WEAK_TALON]),
)
"""Redeal options by flags: 1 four nines (T-11), 2 weak hand (T-13), 4 weak talon (T-12)."""

_JACKS_MASK: Final = sum(1 << (6 * s + Rank.JACK) for s in range(4))
_REDEAL_FOUR_NINES: Final = REDEAL[RedealReason.FOUR_NINES]

_CARD_PLAYED: Final = tuple(tuple(CardPlayed(seat, c) for c in CARDS) for seat in range(4))
_PASSED: Final = tuple(Passed(seat) for seat in range(4))
_BID_MADE: dict[tuple[int, int, bool], BidMade] = {}


def _best_index(mask: int) -> int:
    """Index of the strongest card of a single-suit mask."""
    return mask.bit_length() - 1


def _above(index: int) -> int:
    """Cards of the same suit stronger than ``index``."""
    suit_mask = SUIT_MASKS[index // 6]
    return suit_mask & ~((1 << (index + 1)) - 1)


class Deal:
    """One deal: cards dealt from ``order`` and played to the end or annulled."""

    # Slots keep attribute access and construction cheap: a deal has more attributes than CPython shares
    # keys for in an instance dict.
    __slots__ = (
        "_active_mask",
        "_following",
        "_legal",
        "_marriage_mask",
        "_play_mask",
        "_weak_talon",
        "active",
        "auction",
        "bid",
        "client_seeds",
        "contract",
        "dark_seat",
        "deal_seed",
        "dealer",
        "dealt",
        "dealt_talons",
        "declarer",
        "discards_left",
        "doubled",
        "four_nines_receivers",
        "given",
        "gives_left",
        "hands",
        "high_bid",
        "high_bidder",
        "kind",
        "leader",
        "marriage_points",
        "marriages",
        "number",
        "order",
        "outcome",
        "passed",
        "phase",
        "redeal",
        "rules",
        "salt",
        "sitter",
        "spoken",
        "taken_talon",
        "taken_tricks",
        "talon_face_up",
        "talon_index",
        "talons",
        "to_act",
        "trick",
        "trick_count",
        "tricks_played",
        "tricks_won",
        "trump",
        "won",
    )

    def __init__(self, rules: Rules, setup: DealSetup, order: tuple[Card, ...]) -> None:
        n = rules.players
        self.active, self._following = _seating(n, setup.dealer)
        hand_size, talon_sizes = deal_layout(rules)
        # The masks of the hands and talons, in dealing order, and of the whole deck to check the shuffle.
        masks: list[int] = []
        full = 0
        if len(order) == DECK_SIZE:
            pos = 0
            for size in (hand_size,) * len(self.active) + talon_sizes:
                mask = 0
                for c in order[pos : pos + size]:
                    mask |= 1 << c.index
                masks.append(mask)
                full |= mask
                pos += size
            # A repeated card leaves some card out, so the union falls short of the full deck.
        if full != FULL_MASK:
            raise InvalidActionError("a shuffle must order each of the 24 cards exactly once")
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

        self.phase = _AUCTION
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

    def copy(self) -> Deal:
        """An independent copy of this deal as it stands, for search (bots play many futures of one deal).

        Mutable containers are copied and immutable values shared. Spelled out attribute by attribute because
        a compiled Deal has no generic way to be created without dealing; tests/test_engine_tables.py checks
        that every attribute is copied.
        """
        new = Deal(self.rules, DealSetup(self.number, self.dealer, self.kind), self.order)
        new._active_mask = self._active_mask
        new._following = self._following
        new._legal = self._legal
        new._marriage_mask = self._marriage_mask
        new._play_mask = self._play_mask
        new._weak_talon = self._weak_talon
        new.active = self.active
        new.auction = self.auction.copy()
        new.bid = self.bid
        new.contract = self.contract
        new.dark_seat = self.dark_seat
        new.client_seeds = self.client_seeds
        new.deal_seed = self.deal_seed
        new.dealer = self.dealer
        new.dealt = self.dealt
        new.dealt_talons = self.dealt_talons
        new.declarer = self.declarer
        new.discards_left = self.discards_left
        new.doubled = self.doubled
        new.four_nines_receivers = self.four_nines_receivers
        new.given = self.given.copy()
        new.gives_left = self.gives_left
        new.hands = self.hands.copy()
        new.high_bid = self.high_bid
        new.high_bidder = self.high_bidder
        new.kind = self.kind
        new.leader = self.leader
        new.marriage_points = self.marriage_points.copy()
        new.marriages = self.marriages.copy()
        new.number = self.number
        new.order = self.order
        new.outcome = self.outcome
        new.passed = self.passed
        new.phase = self.phase
        new.redeal = self.redeal
        new.rules = self.rules
        new.salt = self.salt
        new.sitter = self.sitter
        new.spoken = self.spoken
        new.taken_talon = self.taken_talon
        new.talon_face_up = self.talon_face_up
        new.talon_index = self.talon_index
        new.talons = self.talons.copy()
        new.to_act = self.to_act
        new.trick = self.trick.copy()
        new.taken_tricks = self.taken_tricks.copy()  # completed tricks' lists are never changed again
        new.trick_count = self.trick_count
        new.tricks_played = self.tricks_played
        new.tricks_won = self.tricks_won.copy()
        new.trump = self.trump
        new.won = self.won.copy()
        return new

    # ------------------------------------------------------------------ start

    def start(self) -> list[Event]:
        """Deal the cards and open the first decision; returns the events of the deal's start."""
        events: list[Event] = []
        opener = self.active[0]
        dark_decision = self.rules.dark and self.kind is _NORMAL
        for seat in self.active:
            if not (dark_decision and seat == opener):
                events.append(HandDealt(seat, self.hands[seat].bit_count(), cards_of(self.hands[seat])))
        if self.kind is not _NORMAL:
            assert self.declarer is not None
            self.bid = OBLIGATORY_CONTRACT if self.kind is DealKind.OBLIGATORY else GOLDEN_CONTRACT
            self._take_talon(0 if self.rules.players != 2 else None, events)
        elif dark_decision:
            self.phase = _DARK
            self.to_act = opener
        else:
            self._open_auction(events)
        return events

    def _open_auction(self, events: list[Event]) -> None:
        opener = self.active[0]
        self.phase = _AUCTION
        if self.rules.opening_bid is OpeningBid.FORCED_100:
            self._record_bid(opener, OPENING_BID, forced=True, events=events)
            self.to_act = self.active[1]
        else:
            self.to_act = opener

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

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
        if phase is _PLAY:
            return self._play_legal(seat)
        if phase is _AUCTION:
            return self._auction_legal(seat)
        if phase is _DARK:
            return (DECLARE_DARK, DECLINE_DARK)
        if phase is _TALON_CHOICE:
            return _TALON_CHOICES
        if phase is _EXCHANGE:
            return self._exchange_legal(seat)
        if phase is _CONTRACT:
            bid = self.bid
            cap = max(bid, self.cap(seat))
            key = (bid, cap, self._post_talon_redeal_flags(seat))
            legal = _CONTRACT_LEGAL.get(key)
            if legal is None:
                contracts = tuple(_contract(v) for v in range(bid, cap + 1, CONTRACT_STEP))
                legal = _CONTRACT_LEGAL[key] = (*contracts, CONCEDE, *_REDEALS[key[2]])
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

    def _must_bid(self) -> bool:
        return self.high_bid is None  # T-7 AT_LEAST_100: the opener may not pass

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
        legal = _AUCTION_LEGAL.get(key)
        if legal is None:
            bids = tuple(_bid(v) for v in range(lowest, cap + 1, step))
            actions: tuple[Action, ...] = bids if must_bid else (*bids, PASS)
            legal = _AUCTION_LEGAL[key] = actions + _REDEALS[redeals]
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
        gives = _gives_by_card(self.gives_left)
        discards = self.discards_left
        m = self.hands[seat]
        while m:
            low = m & -m
            i = low.bit_length() - 1
            actions += gives[i]
            if discards:
                actions.append(_DISCARDS[i])
            m ^= low
        actions.append(CONCEDE)
        actions += _REDEALS[self._post_talon_redeal_flags(seat)]
        return tuple(actions)

    def _play_legal(self, seat: int) -> tuple[Action, ...]:
        actions: tuple[Action, ...]
        trick = self.trick
        if not trick or self.rules.must_beat:
            mask, marriage_mask = self._play_options(seat)
            self._play_mask = mask
            self._marriage_mask = marriage_mask
            actions = _play_actions(mask, marriage_mask)
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
            s, c, d, h = _SUIT_PLAYS
            actions = s[mask & 63] + c[mask >> 6 & 63] + d[mask >> 12 & 63] + h[mask >> 18 & 63]
        if self.four_nines_receivers >> seat & 1:
            actions = (*actions, _REDEAL_FOUR_NINES)
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

    # ------------------------------------------------------------------ apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action and return the events it produced.

        Raises IllegalActionError (or InvalidActionError) with the state unchanged if it is not legal.
        """
        if self.phase is _OVER:
            raise IllegalActionError(Reason.GAME_OVER, "the deal is over")
        if seat != self.to_act:
            raise IllegalActionError(
                Reason.NOT_YOUR_TURN, f"it is seat {self.to_act}'s turn, not seat {seat}'s"
            )
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        events: list[Event] = []
        # Fast path for the commonest action: a card played without a marriage.
        if type(action) is PlayCard and type(action.card) is Card and not action.marriage:
            card = action.card
            index = card.index
            if self.phase is not _PLAY or not (self._play_mask >> index) & 1:
                raise why_illegal(self, seat, action)
            self._legal = None
            self._play(seat, card, index, False, events)
            return events
        for candidate in legal:  # legal lists hand out interned actions: identity first, equality if need be
            if candidate is action:
                break
        else:
            for candidate in legal:
                if candidate == action:
                    # Apply the engine's own value: Bid(105.0) or GiveCard(c, True) compare equal to a legal
                    # action, but only the legal one's well-typed fields may reach events and the score.
                    action = candidate
                    break
            else:
                raise why_illegal(self, seat, action)
        self._legal = None
        if type(action) is Pass:
            self.spoken |= 1 << seat
            self.passed |= 1 << seat
            self.auction.append((seat, None))
            events.append(_PASSED[seat] if type(seat) is int else Passed(seat))
            self._advance_auction(seat, events)
            return events
        if type(action) is Bid:
            self.spoken |= 1 << seat
            self._record_bid(seat, action.value, forced=False, events=events)
            self._advance_auction(seat, events)
            return events
        match action:
            case PlayCard(card, marriage):
                self._play(seat, card, card.index, marriage, events)
            case Bid(value):
                self.spoken |= 1 << seat
                self._record_bid(seat, value, forced=False, events=events)
                self._advance_auction(seat, events)
            case Pass():
                self.spoken |= 1 << seat
                self.passed |= 1 << seat
                self.auction.append((seat, None))
                events.append(Passed(seat))
                self._advance_auction(seat, events)
            case DeclareDark():
                self.dark_seat = seat
                self.spoken |= 1 << seat
                events.append(DarkDeclared(seat))
                events.append(HandDealt(seat, self.hands[seat].bit_count(), cards_of(self.hands[seat])))
                self.phase = _AUCTION
                self._record_bid(seat, DARK_BID, forced=True, events=events)
                self._advance_auction(seat, events)
            case DeclineDark():
                events.append(DarkDeclined(seat))
                events.append(HandDealt(seat, self.hands[seat].bit_count(), cards_of(self.hands[seat])))
                self._open_auction(events)
            case DemandRedeal(reason):
                self.redeal = reason
                events.append(RedealDemanded(seat, reason))
                self._finish(events)
            case ChooseTalon(index):
                self.talon_index = index
                events.append(TalonChosen(seat, index))
                self._take_talon(index, events)
            case GiveCard(card, to):
                self._give_card(seat, card.index, to, events)
            case DiscardCard(card):
                self._give_card(seat, card.index, None, events)
            case NameContract(value):
                self.contract = value
                events.append(ContractNamed(seat, value))
                self._begin_play()
            case Concede():
                self.outcome = Outcome.CONCEDED
                if self.contract is None:
                    self.contract = self.bid
                events.append(Conceded(seat, self.contract))
                self._finish(events)
        return events

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
            self.phase = _TALON_CHOICE
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
        self.phase = _EXCHANGE
        self.to_act = declarer
        opponents = tuple([s for s in self.active if s != declarer])
        if self.rules.players == 2:
            polish = self.rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2
            self.gives_left = () if polish else opponents
            self.discards_left = 2 if polish else 1
        else:
            self.gives_left = opponents

    def _give_card(self, seat: int, index: int, to: int | None, events: list[Event]) -> None:
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
            self.phase = _CONTRACT
            return
        self.contract = self.bid  # golden, dark and obligatory contracts are fixed
        events.append(ContractNamed(seat, self.bid))
        self._begin_play()

    def _begin_play(self) -> None:
        self.phase = _PLAY
        self.leader = self.to_act = self.declarer
        self.trick_count = self.hands[self.active[0]].bit_count()
        if self.kind is not _NORMAL and self.rules.redeal_four_nines:
            # T-11: without an auction a defender dealt four nines had no turn to demand the redeal in; its
            # first card is that turn, as for one whose fourth nine came in the exchange.
            for seat in self.active:
                if seat != self.declarer and self.hands[seat] & NINES_MASK == NINES_MASK:
                    self.four_nines_receivers |= 1 << seat

    def _play(self, seat: int, card: Card, index: int, marriage: bool, events: list[Event]) -> None:
        self.hands[seat] &= ~(1 << index)
        self.four_nines_receivers &= ~(1 << seat)
        if marriage:
            suit = card.suit
            points = MARRIAGE_POINTS[suit]
            self.marriage_points[seat] += points
            self.marriages.append((seat, suit))
            self.trump = suit
            events.append(MarriageDeclared(seat, suit, points))
        trick = self.trick
        trick.append((seat, index))
        events.append(_CARD_PLAYED[seat][index] if type(seat) is int else CardPlayed(seat, card))
        if len(trick) < len(self.active):
            self.to_act = self._following[seat]
            return
        winner = self._trick_winner()
        trick_mask = 0
        for _, i in trick:
            trick_mask |= 1 << i
        self.won[winner] |= trick_mask
        self.tricks_won[winner] += 1
        self.tricks_played += 1
        points = points_of(trick_mask)
        self.taken_tricks.append((winner, trick, points))  # the list is done with: a new trick gets a new one
        events.append(TrickTaken(winner, self.tricks_played, tuple([CARDS[i] for _, i in trick]), points))
        self.trick = []
        if self.tricks_played < self.trick_count:
            self.leader = self.to_act = winner
            return
        if self.rules.players == 2:  # T-21
            other = self.talons[1 - (self.talon_index or 0)]
            self.talons[1 - (self.talon_index or 0)] = 0
            self.won[winner] |= other
            events.append(LastTalonTaken(winner, cards_of(other), points_of(other)))
        declarer = self.declarer
        assert declarer is not None and self.contract is not None
        self.outcome = Outcome.MADE if self.deal_points(declarer) >= self.contract else Outcome.FAILED
        self._finish(events)

    def _trick_winner(self) -> int:
        trick = self.trick
        trump = self.trump
        lead_suit = trick[0][1] // 6
        best_seat, best = trick[0]
        best_trump = trump is not None and lead_suit == trump
        for seat, i in trick[1:]:
            suit = i // 6
            if suit == trump:
                if not best_trump or i > best:
                    best_seat, best, best_trump = seat, i, True
            elif suit == lead_suit and not best_trump and i > best:
                best_seat, best = seat, i
        return best_seat

    def _finish(self, events: list[Event]) -> None:
        self.phase = _OVER
        self.to_act = None
        events.append(
            DealRevealed(
                self.number,
                self.order,
                tuple(cards_of(m) for m in self.dealt),
                tuple(cards_of(m) for m in self.dealt_talons),
                self.salt,
                self.deal_seed,
                self.client_seeds,
            )
        )
