"""What one seat knows of a deal, as masks and maps: the facts every sampled world must agree with.

Read once per decision from the seat's view and its :class:`~bots.belief.Belief`: its hand, the talon
if shown, the cards it gave or received, every card seen played and the hidden plays still to fill, the
voids shown by the live trick, the marriages declared, and the marriage points the bids and the contract
imply (T-9, T-15, T-31). :mod:`bots.worlds` deals the unknown cards around them and
:mod:`bots.hidden_plays` fills the hidden plays.
"""

from __future__ import annotations

from bots.belief import Belief
from bots.cardlib import MARRIAGE_MASKS, implied_forbidden, indices, marriage_points_of
from engine import BidCap, DealKind, OpeningBid, Phase, View
from engine.cards import FULL_MASK
from engine.layout import deal_layout

Trick = tuple[tuple[int, ...], list[int | None], int | None, int | None, bool]
"""(seats in playing order, card or None per position, winner, card points, a marriage was declared)."""


def voluntary_auction(view: View) -> list[tuple[int, int | None]]:
    """The auction's spoken bids and passes, without the automatic opening 100 (T-7) or dark 120 (T-31)."""
    auction = list(view.auction)
    if auction and (view.dark_seat is not None or view.rules.opening_bid is OpeningBid.FORCED_100):
        return auction[1:]
    return auction


class WorldFacts:
    """The facts of one decision of one seat (read afresh for every decision)."""

    def __init__(self, view: View, belief: Belief) -> None:
        assert view.viewer is not None and view.phase is not None and view.kind is not None
        self.view = view
        self.rules = view.rules
        self.me = view.viewer
        self.active = view.active
        self.declarer = view.declarer
        self.hand_size, self.talon_sizes = deal_layout(self.rules)
        self.my_hidden = view.phase is Phase.DARK and view.to_act == self.me
        self.my_hand = 0 if self.my_hidden else sum(1 << c.index for c in view.hand)
        self.talon_taken = view.phase not in (Phase.DARK, Phase.AUCTION, Phase.TALON_CHOICE)
        self.talon_index = self._talon_index()
        self.known_talon = sum(1 << c.index for c in view.talon) if view.talon is not None else 0
        self.talon_known = view.talon is not None

        self.tricks: list[Trick] = [
            (rec.seats, list(rec.cards), rec.winner, rec.points, rec.marriage) for rec in belief.tricks
        ]
        self.live = list(belief.live)
        self.live_marriage = belief.live_marriage()
        self.trumps = [belief.trump_at(k) for k in range(len(self.tricks) + 1)]
        known_played = 0
        self.known_by_seat: dict[int, list[tuple[int, int]]] = {s: [] for s in self.active}
        for k, (seats, cards, _, _, _) in enumerate(self.tricks):
            for seat, c in zip(seats, cards, strict=True):
                if c is not None:
                    known_played |= 1 << c
                    self.known_by_seat[seat].append((k, c))
        for seat, c in self.live:
            known_played |= 1 << c
            self.known_by_seat[seat].append((len(self.tricks), c))

        # The exchange as this seat knows it: (giver, receiver or None for the other talon, card or None).
        self.gifts = [(ex.giver, ex.to, None if ex.card is None else ex.card.index) for ex in view.exchange]
        self.owner: dict[int, tuple[int, int]] = {}
        for giver, to, c in self.gifts:
            if giver == self.me and to is not None and c is not None and not known_played >> c & 1:
                self.owner[c] = (to, -1)
        for k, seat, suit in belief.marriage_tricks:
            if seat != self.me:
                for c in indices(MARRIAGE_MASKS[suit]):
                    if not known_played >> c & 1 and c not in self.owner:
                        self.owner[c] = (seat, k)  # the marriage's other card was in that hand (T-20)
        owned = sum(1 << c for c in self.owner)
        self.my_discards = sum(
            1 << c for giver, to, c in self.gifts if giver == self.me and to is None and c is not None
        )
        self.talon_up = 0
        if self.talon_taken and self.talon_known and self.declarer != self.me:
            self.talon_up = self.known_talon & ~self.my_hand & ~known_played & ~owned
        self.unknown_gift_to = [
            to for giver, to, c in self.gifts if giver != self.me and to not in (None, self.me) and c is None
        ]
        self.unknown_discards = sum(1 for giver, to, c in self.gifts if giver != self.me and to is None)
        # A face-up talon card that a receiver played or must hold can only have come to it as its gift.
        self.gift_known: dict[int, int] = {}
        for r in self.unknown_gift_to:
            for _, c in self.known_by_seat.get(r, ()):
                if self.known_talon >> c & 1:
                    self.gift_known[r] = c
            for c, (s, _) in self.owner.items():
                if s == r and self.known_talon >> c & 1:
                    self.gift_known[r] = c
        self.bid_needs = {s: n for s, n in self._bid_needs().items() if s != self.me}
        self.contract_need = self._contract_need() if self.declarer != self.me else 0
        self.requirements = dict(self.bid_needs)
        if self.contract_need and self.declarer is not None:
            need = max(self.requirements.get(self.declarer, 0), self.contract_need)
            self.requirements[self.declarer] = need
        free = FULL_MASK & ~self.my_hand & ~known_played & ~owned & ~self.my_discards & ~self.talon_up
        if self.talon_taken and self.declarer == self.me:
            free &= ~self.known_talon
        self.base_free = free
        live_forbidden: dict[int, int] = {}
        before: list[tuple[int, int]] = []
        for seat, c in self.live:
            if before:
                live_forbidden[seat] = implied_forbidden(before, self.trumps[-1], c, self.rules.must_beat)
            before.append((seat, c))
        self.live_forbidden = live_forbidden

    # ------------------------------------------------------------------ what the auction and contract imply

    def _talon_index(self) -> int | None:
        if not self.talon_taken:
            return None
        if self.rules.players != 2:
            return 0
        counts = self.view.talon_counts
        return 0 if counts[0] == 0 else 1 if counts[1] == 0 else None

    def _contract_need(self) -> int:
        """Marriage points the declarer's hand after the exchange must hold for its contract (T-15, T-9)."""
        view = self.view
        contract, bid = view.contract, view.bid or 0
        if contract is None or view.kind is not DealKind.NORMAL or view.doubled:
            return 0
        if view.rules.bid_cap is not BidCap.MARRIAGES_IN_HAND or contract <= max(bid, 120):
            return 0
        return contract - 120

    def _bid_needs(self) -> dict[int, int]:
        """Marriage points each bidder's dealt hand must hold for its bids (T-9, and T-31 against a dark)."""
        view = self.view
        need: dict[int, int] = {}
        for seat, bid in voluntary_auction(view):
            if bid is None or bid <= 120:
                continue
            if view.rules.bid_cap is BidCap.MARRIAGES_IN_HAND:
                need[seat] = max(need.get(seat, 0), bid - 120)
            elif view.dark_seat is not None and seat != view.dark_seat:
                need[seat] = max(need.get(seat, 0), 1)
        return need

    # ------------------------------------------------------------------ queries of the samplers

    def known_by(self, seat: int, c: int) -> bool:
        return any(card == c for _, card in self.known_by_seat.get(seat, ()))

    def known_marriage_points(self, seat: int, owner: dict[int, tuple[int, int]]) -> int:
        held = sum(1 << c for _, c in self.known_by_seat.get(seat, ()))
        held |= sum(1 << c for c, (s, _) in owner.items() if s == seat)
        if self.talon_taken and seat == self.declarer:
            held &= ~self.known_talon
        return marriage_points_of(held)

    def talon_room(self) -> list[int]:
        """Unknown cards each talon still has to receive in this world."""
        if not self.talon_taken:
            return list(self.talon_sizes)
        if self.rules.players != 2:
            return [0]
        room = [0, 0]
        other = 1 - (self.talon_index or 0)
        room[other] = self.view.talon_counts[other] - self.my_discards.bit_count()
        return room

    def held_later(self, seat: int, k: int, owner: dict[int, tuple[int, int]]) -> int:
        """Cards ``seat`` must still have held after trick ``k``: its later seen plays and owned cards."""
        mask = sum(1 << c for t, c in self.known_by_seat.get(seat, ()) if t > k)
        return mask | sum(1 << c for c, (s, _) in owner.items() if s == seat)
