"""One deal of Thousand, from the dealt cards to the last trick (T-4 to T-21): how actions change it.

A :class:`Deal` is a state machine over phases (dark decision, auction, talon, exchange, contract, play). At
every decision it names the seat to act and lists that seat's complete legal actions (T-34); ``apply``
checks an action against that list before touching anything, so a rejected action leaves the deal exactly
as it was, and the reason is worked out only on the (rare) rejection path (:mod:`engine.rejections`).

The state, the queries and the legal lists are :class:`engine.deal_state.DealState`'s; the steps from the
auction to the first card (bids, the talon, the exchange) are :class:`engine.deal_auction.DealAuction`'s,
which this module's entry points call once an action is checked; the cards' layout is :mod:`engine.layout`'s.
Scoring is not done here: what a deal is worth depends on the score sheet (the barrel, bolts), which the game
owns. A finished deal exposes what happened; :mod:`engine.scoring` and :mod:`engine.game` value it.
"""

from __future__ import annotations

from typing import Final

from engine.actions import (
    PLAY,
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
)
from engine.cards import CARDS, MARRIAGE_POINTS, Card, cards_of, points_of
from engine.deal_auction import DealAuction
from engine.errors import IllegalActionError, Reason
from engine.events import (
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
    TrickTaken,
)
from engine.layout import DealSetup
from engine.phases import (
    AUCTION_PHASE,
    DARK_BID,
    DARK_PHASE,
    GOLDEN_CONTRACT,
    OBLIGATORY_CONTRACT,
    OVER_PHASE,
    PLAY_PHASE,
)
from engine.rejections import why_illegal

_NORMAL: Final = DealKind.NORMAL

_CARD_PLAYED: Final = tuple(tuple(CardPlayed(seat, c) for c in CARDS) for seat in range(4))
_PASSED: Final = tuple(Passed(seat) for seat in range(4))


def trick_winner(trick: list[tuple[int, int]], trump: int | None) -> int:
    """T-19: the position (0-based, in playing order) of the card that takes a trick of (seat, card index)
    plays; the bots read tricks with it too (bots/cardlib.py)."""
    lead_suit = trick[0][1] // 6
    best_pos = 0
    best = trick[0][1]
    best_trump = trump is not None and lead_suit == trump
    for pos in range(1, len(trick)):
        i = trick[pos][1]
        suit = i // 6
        if suit == trump:
            if not best_trump or i > best:
                best_pos, best, best_trump = pos, i, True
        elif suit == lead_suit and not best_trump and i > best:
            best_pos, best = pos, i
    return best_pos


class Deal(DealAuction):
    """One deal: cards dealt from ``order`` and played to the end or annulled."""

    # Slots keep attribute access and construction cheap: a deal has more attributes than CPython shares
    # keys for in an instance dict. They are DealState's attributes (created in its __init__), stored here on
    # the class that is built, beside copy(), which names every one of them too.
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
            self.phase = DARK_PHASE
            self.to_act = opener
        else:
            self._open_auction(events)
        return events

    # ------------------------------------------------------------------ apply

    def validate(self, seat: int, action: object) -> None:
        """Raise why ``action`` is illegal for ``seat`` now, exactly as :meth:`apply` would; return None if
        it is legal (T-34: the legal list is complete, so legal means listed, by identity or equality).

        :raises IllegalActionError: with the reason :meth:`apply` gives (engine.rejections).
        :raises InvalidActionError: for a malformed action.
        """
        self.checked(seat, action)

    def checked(self, seat: int, action: object) -> Action:
        """The engine's own action equal to ``action``, legal for ``seat`` now; raise as :meth:`validate`
        does if there is none.

        ``Bid(105.0)`` equals the legal ``Bid(105)`` and ``PlayCard(card, 0)`` the legal play of ``card``, and
        :meth:`apply` applies them as those; this gives the one it applies, well typed, for a record of the
        game (``Game.history``) that holds what the events say was done.
        """
        self._need_turn(seat)
        # Fast path for the commonest action, a card played without a marriage: against the cards the seat
        # may play, without building the legal list (a replayed history applies cards by the thousand). The
        # fields are read untyped: compiled code would check their declared types on reading and answer a
        # malformed PlayCard("x") or PlayCard(card, 1) with a TypeError (T-34 wants the interpreted answer).
        if type(action) is PlayCard and self.phase is PLAY_PHASE:
            found: object = getattr(action, "card")  # noqa: B009
            if type(found) is Card and getattr(action, "marriage") is False:  # noqa: B009
                index = found.index
                mask = self._play_mask if self._legal is not None else self.play_masks()[0]
                if (mask >> index) & 1:
                    return PLAY[index]
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        for candidate in legal:  # legal lists hand out interned actions: identity first, equality if need be
            if candidate is action:
                return candidate
        for candidate in legal:
            if candidate == action:
                return candidate
        raise why_illegal(self, seat, action)

    def _need_turn(self, seat: int) -> None:
        if self.phase is OVER_PHASE:
            raise IllegalActionError(Reason.GAME_OVER, "the deal is over")
        if seat != self.to_act:
            raise IllegalActionError(
                Reason.NOT_YOUR_TURN, f"it is seat {self.to_act}'s turn, not seat {seat}'s"
            )

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action and return the events it produced.

        Raises IllegalActionError (or InvalidActionError) with the state unchanged if it is not legal.
        """
        return self._apply_checked(seat, self.checked(seat, action))

    def _apply_checked(self, seat: int, action: Action) -> list[Event]:
        """Apply an action :meth:`checked` returned: the engine's own, so only its well-typed fields reach
        the events and the score (a ``Bid(105.0)`` given is applied as the legal ``Bid(105)``)."""
        events: list[Event] = []
        self._legal = None
        if type(action) is PlayCard:  # the commonest action first
            card = action.card
            self._play(seat, card, card.index, action.marriage, events)
            return events
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
            case DeclareDark():
                self.dark_seat = seat
                self.spoken |= 1 << seat
                events.append(DarkDeclared(seat))
                events.append(HandDealt(seat, self.hands[seat].bit_count(), cards_of(self.hands[seat])))
                self.phase = AUCTION_PHASE
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

    def apply_legal(self, seat: int, action: Action, *, events: bool = True) -> list[Event]:
        """:meth:`apply` for an action the caller knows is legal now: one of :meth:`legal_actions` or a play
        of a card of :meth:`play_masks` (a search, which plays many futures of a deal and picks each action
        from those); the same change and events, without looking the action up among the legal ones.

        A card play is applied at once (the check of it is skipped); any other action goes through
        :meth:`apply` and its checks. An action that is not legal corrupts the deal: use :meth:`apply` for
        anything that did not come from the deal itself. With ``events=False`` a card play builds no events
        (a search reads the state, not them) and the list returned is always empty.

        :raises IllegalActionError: when it is not ``seat``'s turn or the deal is over.
        """
        if type(action) is PlayCard and self.phase is PLAY_PHASE and seat == self.to_act:
            self._legal = None
            card = action.card
            if not events:
                self._play(seat, card, card.index, action.marriage, None)
                return []
            out: list[Event] = []
            self._play(seat, card, card.index, action.marriage, out)
            return out
        done = self.apply(seat, action)
        return done if events else []

    def _play(self, seat: int, card: Card, index: int, marriage: bool, events: list[Event] | None) -> None:
        """Play a card already checked; its events go to ``events`` unless it is None (a quiet search)."""
        self.hands[seat] &= ~(1 << index)
        self.four_nines_receivers &= ~(1 << seat)
        if marriage:
            suit = card.suit
            points = MARRIAGE_POINTS[suit]
            self.marriage_points[seat] += points
            self.marriages.append((seat, suit))
            self.trump = suit
            if events is not None:
                events.append(MarriageDeclared(seat, suit, points))
        trick = self.trick
        trick.append((seat, index))
        if events is not None:
            events.append(_CARD_PLAYED[seat][index] if type(seat) is int else CardPlayed(seat, card))
        if len(trick) < len(self.active):
            self.to_act = self._following[seat]
            return
        winner = trick[trick_winner(trick, self.trump)][0]
        trick_mask = 0
        for _, i in trick:
            trick_mask |= 1 << i
        self.won[winner] |= trick_mask
        self.tricks_won[winner] += 1
        self.tricks_played += 1
        points = points_of(trick_mask)
        self.taken_tricks.append((winner, trick, points))  # the list is done with: a new trick gets a new one
        if events is not None:
            events.append(TrickTaken(winner, self.tricks_played, tuple([CARDS[i] for _, i in trick]), points))
        self.trick = []
        if self.tricks_played < self.trick_count:
            self.leader = self.to_act = winner
            return
        if self.rules.players == 2:  # T-21
            other = self.talons[1 - (self.talon_index or 0)]
            self.talons[1 - (self.talon_index or 0)] = 0
            self.won[winner] |= other
            if events is not None:
                events.append(LastTalonTaken(winner, cards_of(other), points_of(other)))
        declarer = self.declarer
        assert declarer is not None and self.contract is not None
        self.outcome = Outcome.MADE if self.deal_points(declarer) >= self.contract else Outcome.FAILED
        self._finish(events)

    def _finish(self, events: list[Event] | None) -> None:
        self.phase = OVER_PHASE
        self.to_act = None
        if events is None:
            return
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
