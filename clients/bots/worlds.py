"""Determinizations: complete deals consistent with all one seat knows, as live ``engine.Deal`` objects.

A world is sampled from a seat's :class:`~clients.bots.belief.Belief` and current view: the unseen cards
are dealt to the other hands, the hidden plays and the talons, respecting what the seat knows (its hand,
the talon if shown, the cards it gave or received, every card seen played, the ranks of the hidden plays,
the voids shown by failing to follow suit or to trump, the winner and worth of every trick, the marriages
declared, the bid caps of T-9 and T-31 that the bids and the contract imply). From the sampled cards this
module derives the deck order (the hands as dealt and the talons, laid out as
:func:`engine.layout.deal_layout` deals them), builds an ``engine.Deal`` and *replays* the deal's public
history on it. The engine is the
judge of a world's consistency: a replay it rejects, or one that ends in another state than the view's, is
thrown away and sampled again. So the simulated rules are always the engine's.

The hidden plays are chosen trick by trick by a depth-first search; a hidden play that needs a void is
weighed down (:data:`VOID_WEIGHT`), so that the pick comes closer to the true posterior, in which following
suit is the likelier explanation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from clients.bots.belief import Belief
from clients.bots.cardlib import (
    CARD_POINTS,
    MARRIAGE_MASKS,
    MARRIAGE_POINTS,
    implied_forbidden,
    indices,
    marriage_points_of,
    trick_winner,
)
from engine import (
    Action,
    ActionError,
    Bid,
    BidCap,
    ChooseTalon,
    DealKind,
    DealSetup,
    DeclareDark,
    DeclineDark,
    DiscardCard,
    GiveCard,
    NameContract,
    OpeningBid,
    Pass,
    Phase,
    PlayCard,
    View,
)
from engine.cards import CARDS, FULL_MASK, points_of
from engine.deal import Deal
from engine.layout import deal_layout

VOID_WEIGHT = 0.25
"""Relative weight of a hidden play that shows a void (per suit shown void) against one that follows."""
MAX_ATTEMPTS = 40
"""Sampling attempts per world before giving up (the caller then falls back on its heuristic)."""
SEARCH_BUDGET = 300
"""Nodes of the depth-first search for the hidden plays, per attempt."""

_Trick = tuple[tuple[int, ...], list[int | None], int | None, int | None, bool]
"""(seats in playing order, card or None per position, winner, card points, a marriage was declared)."""


def clone_deal(deal: Deal) -> Deal:
    """An independent copy of a live deal (``Deal.copy``), to play one of its futures."""
    return deal.copy()


def voluntary_auction(view: View) -> list[tuple[int, int | None]]:
    """The auction's spoken bids and passes, without the automatic opening 100 (T-7) or dark 120 (T-31)."""
    auction = list(view.auction)
    if auction and (view.dark_seat is not None or view.rules.opening_bid is OpeningBid.FORCED_100):
        return auction[1:]
    return auction


@dataclass(slots=True)
class _State:
    """Cards still to place while one world is sampled."""

    free: int
    """Cards with no known owner."""
    owner: dict[int, tuple[int, int]]
    """Card -> (seat, trick): a card the seat holds now or played (hidden) after that trick."""
    talon_up: int
    """Face-up talon cards whose place is unknown (the declarer's, or given away)."""
    gift_taken: dict[int, int]
    """Receiver -> the face-up talon card it holds, which is then the card it was given."""
    forbidden: dict[int, int]
    """Cards each seat has shown it does not hold (voids)."""
    plays: dict[tuple[int, int], int]
    """(trick, position) -> card of a hidden play."""

    def take(self, card: int, seat: int, declarer: int | None) -> None:
        """``card`` was placed with ``seat`` (in a hidden play)."""
        bit = 1 << card
        if self.free & bit:
            self.free &= ~bit
        elif self.talon_up & bit:
            self.talon_up &= ~bit
            if seat != declarer:
                self.gift_taken[seat] = card
        else:
            self.owner.pop(card, None)

    def copy(self) -> _State:
        return _State(
            self.free,
            dict(self.owner),
            self.talon_up,
            dict(self.gift_taken),
            dict(self.forbidden),
            dict(self.plays),
        )


@dataclass(slots=True)
class _World:
    order: list[int]
    plays: dict[tuple[int, int], int]
    gifts: list[tuple[int, int | None, int]]


class WorldSampler:
    """Samples worlds for one decision of one seat (build it afresh for every decision)."""

    def __init__(self, view: View, belief: Belief) -> None:
        assert view.viewer is not None and view.phase is not None and view.kind is not None
        self.view = view
        self.rules = view.rules
        self.me = view.viewer
        self.active = view.active
        self.declarer = view.declarer
        self.failures: dict[str, int] = {}
        """Why sampling attempts failed, by reason (for diagnostics and tests)."""
        self.hand_size, self.talon_sizes = deal_layout(self.rules)
        self.my_hidden = view.phase is Phase.DARK and view.to_act == self.me
        self.my_hand = 0 if self.my_hidden else sum(1 << c.index for c in view.hand)
        self.talon_taken = view.phase not in (Phase.DARK, Phase.AUCTION, Phase.TALON_CHOICE)
        self.talon_index = self._talon_index()
        self.known_talon = sum(1 << c.index for c in view.talon) if view.talon is not None else 0
        self.talon_known = view.talon is not None

        self.tricks: list[_Trick] = [
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

    # ------------------------------------------------------------------ sampling

    def _fail(self, why: str) -> None:
        self.failures[why] = self.failures.get(why, 0) + 1

    def sample(self, rng: random.Random, attempts: int = MAX_ATTEMPTS) -> Deal | None:
        """A live deal in the view's state, or None if no consistent world was found."""
        for _ in range(attempts):
            world = self._attempt(rng)
            if world is None:
                continue
            deal = self._replay(world)
            if deal is not None:
                return deal
        return None

    def _attempt(self, rng: random.Random) -> _World | None:
        """Sample the cards of one world, or None when this attempt ran into a contradiction."""
        state = _State(self.base_free, dict(self.owner), self.talon_up, dict(self.gift_known), {}, {})
        state.forbidden = {s: 0 for s in self.active}
        reserved = self._reserve_marriages(rng, state)
        if reserved is None:
            self._fail("bid caps")
            return None
        found = self._hidden(rng, 0, state, [SEARCH_BUDGET])
        if found is None:
            self._fail("hidden plays")
            return None
        state = found
        for seat, mask in self.live_forbidden.items():
            state.forbidden[seat] |= mask
        placed = self._place(rng, state)
        if placed is None:
            return None
        hands, talons = placed
        return self._order(rng, hands, talons, state, reserved)

    def _reserve_marriages(self, rng: random.Random, state: _State) -> dict[int, int] | None:
        """Give each bidder the marriages its bids need (card -> seat), or None if none is possible."""
        reserved: dict[int, int] = {}
        for seat, need in self.requirements.items():
            have = self._known_marriage_points(seat, state.owner)
            if have >= need:
                continue
            usable = [
                s
                for s in range(4)
                if all(
                    state.free >> c & 1 or _owner_of(state.owner, c) == seat or self._known_by(seat, c)
                    for c in indices(MARRIAGE_MASKS[s])
                )
            ]
            suits = [s for s in usable if MARRIAGE_POINTS[s] + have >= need] or usable
            if not suits:
                return None
            suit = rng.choice(suits)
            for c in indices(MARRIAGE_MASKS[suit]):
                if state.free >> c & 1:
                    state.free &= ~(1 << c)
                    state.owner[c] = (seat, -1)
                reserved[c] = seat
        return reserved

    def _place(self, rng: random.Random, state: _State) -> tuple[dict[int, int], list[int]] | None:
        """Deal the cards left to the other hands and the talons: (hands, talons) or None."""
        counts = self.view.card_counts
        forbidden = state.forbidden
        others = [s for s in self.active if s != self.me or self.my_hidden]
        hands = dict.fromkeys(others, 0)
        room = {s: counts[s] for s in others}
        for c, (seat, _) in state.owner.items():
            if seat == self.me:
                continue
            if forbidden[seat] >> c & 1 or room[seat] <= 0:
                self._fail("owned cards")
                return None
            hands[seat] |= 1 << c
            room[seat] -= 1
        talon_room = self._talon_room()
        talons = [0] * len(talon_room)
        other = 1 - (self.talon_index or 0)
        discards_left = self.unknown_discards
        # Face-up talon cards: kept by the declarer, given to a receiver of an unknown gift (one each), or
        # discarded into the other talon (two players).
        for c in indices(state.talon_up):
            places: list[tuple[str, int]] = []
            weights: list[float] = []
            decl = self.declarer
            assert decl is not None
            if room.get(decl, 0) > 0 and not forbidden[decl] >> c & 1:
                places.append(("hand", decl))
                weights.append(8.0)  # the declarer keeps 8 of its 10 cards (T-14)
            for r in self.unknown_gift_to:
                if r not in state.gift_taken and room.get(r, 0) > 0 and not forbidden[r] >> c & 1:
                    places.append(("gift", r))
                    weights.append(1.0)
            if discards_left > 0 and talon_room[other] > 0:
                places.append(("discard", other))
                weights.append(1.0)
            if not places:
                self._fail("face-up talon")
                return None
            kind, where = rng.choices(places, weights=weights)[0]
            if kind == "discard":
                talon_room[where] -= 1
                talons[where] |= 1 << c
                discards_left -= 1
            else:
                hands[where] |= 1 << c
                room[where] -= 1
                if kind == "gift":
                    state.gift_taken[where] = c
        # The free cards, most constrained first, each to a place with probability by its room.
        buckets = [("hand", s) for s in others if room[s] > 0]
        buckets += [("talon", t) for t, r in enumerate(talon_room) if r > 0]

        def allowed(c: int) -> list[tuple[str, int]]:
            return [b for b in buckets if b[0] == "talon" or not forbidden[b[1]] >> c & 1]

        free_cards = indices(state.free)
        rng.shuffle(free_cards)
        free_cards.sort(key=lambda c: len(allowed(c)))
        for c in free_cards:
            options = [b for b in allowed(c) if (room[b[1]] if b[0] == "hand" else talon_room[b[1]]) > 0]
            if not options:
                self._fail("voids")
                return None
            sizes = [room[b[1]] if b[0] == "hand" else talon_room[b[1]] for b in options]
            kind, where = rng.choices(options, weights=sizes)[0]
            if kind == "hand":
                hands[where] |= 1 << c
                room[where] -= 1
            else:
                talons[where] |= 1 << c
                talon_room[where] -= 1
        if any(room.values()) or any(talon_room):
            self._fail("counts")
            return None
        return hands, talons

    def _known_by(self, seat: int, c: int) -> bool:
        return any(card == c for _, card in self.known_by_seat.get(seat, ()))

    def _known_marriage_points(self, seat: int, owner: dict[int, tuple[int, int]]) -> int:
        held = sum(1 << c for _, c in self.known_by_seat.get(seat, ()))
        held |= sum(1 << c for c, (s, _) in owner.items() if s == seat)
        if self.talon_taken and seat == self.declarer:
            held &= ~self.known_talon
        return marriage_points_of(held)

    def _talon_room(self) -> list[int]:
        """Unknown cards each talon still has to receive in this world."""
        if not self.talon_taken:
            return list(self.talon_sizes)
        if self.rules.players != 2:
            return [0]
        room = [0, 0]
        other = 1 - (self.talon_index or 0)
        room[other] = self.view.talon_counts[other] - self.my_discards.bit_count()
        return room

    # ------------------------------------------------------------------ hidden plays

    def _hidden(self, rng: random.Random, k: int, state: _State, budget: list[int]) -> _State | None:
        """Cards for the hidden plays of tricks ``k`` on, or None; ``budget`` bounds the search."""
        if k == len(self.tricks):
            return state if self._room_for_hands(state) else None
        seats, cards, _, _, _ = self.tricks[k]
        trump = self.trumps[k]
        hidden = [p for p, c in enumerate(cards) if c is None]
        combos = self._hidden_combos(rng, k, state) if hidden else [()]
        for combo in combos:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            branch = state.copy() if combo else state
            full = list(cards)
            for p, c in zip(hidden, combo, strict=True):
                full[p] = c
                branch.plays[(k, p)] = c
                branch.take(c, seats[p], self.declarer)
            before: list[tuple[int, int]] = []
            for seat, x in zip(seats, full, strict=True):
                assert x is not None
                if before:
                    branch.forbidden[seat] |= implied_forbidden(before, trump, x, self.rules.must_beat)
                before.append((seat, x))
            found = self._hidden(rng, k + 1, branch, budget)
            if found is not None:
                return found
        return None

    def _room_for_hands(self, state: _State) -> bool:
        """A quick necessary check: each hand can still be filled with cards its voids allow."""
        counts = self.view.card_counts
        for s in self.active:
            if s == self.me and not self.my_hidden:
                continue
            owned = sum(1 for seat, _ in state.owner.values() if seat == s)
            bad = state.forbidden[s] | self.live_forbidden.get(s, 0)
            pool = state.free & ~bad
            if s == self.declarer or s in self.unknown_gift_to:
                pool |= state.talon_up & ~bad
            if pool.bit_count() < counts[s] - owned:
                return False
        return True

    def _hidden_combos(self, rng: random.Random, k: int, state: _State) -> list[tuple[int, ...]]:
        """The choices of cards for trick ``k``'s hidden plays that fit what is known, in weighted order."""
        seats, cards, winner, points, marriage = self.tricks[k]
        trump = self.trumps[k]
        hidden = [p for p, c in enumerate(cards) if c is None]
        need = None if points is None else points - sum(CARD_POINTS[c] for c in cards if c is not None)
        candidates: list[list[int]] = []
        for p in hidden:
            seat = seats[p]
            pool = state.free
            for c, (s, since) in state.owner.items():
                if s == seat and since < k:
                    pool |= 1 << c
            if seat == self.declarer or (seat in self.unknown_gift_to and seat not in state.gift_taken):
                pool |= state.talon_up
            pool &= ~state.forbidden[seat]
            if p == 0 and marriage and trump is not None:
                pool &= MARRIAGE_MASKS[trump]
            single = len(hidden) == 1 and need is not None
            candidates.append([c for c in indices(pool) if not single or CARD_POINTS[c] == need])
        combos: set[tuple[int, ...]] = set()
        if len(hidden) == 1:
            combos = {(c,) for c in candidates[0]}
        elif len(hidden) == 2:
            for c0 in candidates[0]:
                for c1 in candidates[1]:
                    if c0 != c1 and (need is None or CARD_POINTS[c0] + CARD_POINTS[c1] == need):
                        combos.add((c0, c1))
        elif all(candidates):
            for _ in range(200):
                pick = tuple(rng.choice(cs) for cs in candidates)
                if len(set(pick)) == len(pick) and (
                    need is None or sum(CARD_POINTS[c] for c in pick) == need
                ):
                    combos.add(pick)
        valid: list[tuple[float, tuple[int, ...]]] = []
        for combo in sorted(combos):
            full = list(cards)
            for p, c in zip(hidden, combo, strict=True):
                full[p] = c
            plays = [(s, c) for s, c in zip(seats, full, strict=True) if c is not None]
            if winner is not None and seats[trick_winner(plays, trump)] != winner:
                continue
            if not self._consistent(k, full, hidden, state.owner):
                continue
            first = full[0]
            assert first is not None
            weight = 1.0
            for p, c in zip(hidden, combo, strict=True):
                if p and c // 6 != first // 6:
                    weight *= VOID_WEIGHT if c // 6 == trump else VOID_WEIGHT * VOID_WEIGHT
            valid.append((rng.random() ** (1.0 / weight), combo))
        valid.sort(reverse=True)
        return [combo for _, combo in valid]

    def _held_later(self, seat: int, k: int, owner: dict[int, tuple[int, int]]) -> int:
        """Cards ``seat`` must still have held after trick ``k``: its later seen plays and owned cards."""
        mask = sum(1 << c for t, c in self.known_by_seat.get(seat, ()) if t > k)
        return mask | sum(1 << c for c, (s, _) in owner.items() if s == seat)

    def _consistent(
        self, k: int, full: list[int | None], hidden: list[int], owner: dict[int, tuple[int, int]]
    ) -> bool:
        """The voids the hidden cards show do not contradict cards their seats played or held afterwards."""
        seats = self.tricks[k][0]
        trump = self.trumps[k]
        for p in hidden:
            c = full[p]
            assert c is not None
            before = [(s, x) for s, x in zip(seats[:p], full[:p], strict=True) if x is not None]
            implied = implied_forbidden(before, trump, c, self.rules.must_beat)
            if implied & self._held_later(seats[p], k, owner):
                return False
        return True

    # ------------------------------------------------------------------ rebuilding the deal

    def _order(
        self,
        rng: random.Random,
        hands: dict[int, int],
        talons: list[int],
        state: _State,
        reserved: dict[int, int],
    ) -> _World | None:
        """The deck order this world was dealt from, its exchange and its hidden plays."""
        held: dict[int, int] = {s: hands.get(s, 0) for s in self.active}
        if not self.my_hidden:
            held[self.me] = self.my_hand
        for seat, plays in self.known_by_seat.items():
            for _, c in plays:
                held[seat] |= 1 << c
        for (k, p), c in state.plays.items():
            held[self.tricks[k][0][p]] |= 1 << c
        dealt = dict(held)
        talons = list(talons)
        gifts: list[tuple[int, int | None, int]] = []
        if self.talon_taken:
            declarer = self.declarer
            assert declarer is not None
            other = 1 - (self.talon_index or 0)
            discards = indices(self.my_discards)
            if self.unknown_discards:
                pool = talons[other]
                up = indices(pool & self.known_talon)
                rest = indices(pool & ~self.known_talon)
                rng.shuffle(rest)
                discards = (up + rest)[: self.unknown_discards]
                if len(discards) < self.unknown_discards:
                    self._fail("discards")
                    return None
            for d in discards:
                talons[other] &= ~(1 << d)
                dealt[declarer] |= 1 << d
            pending = list(discards)
            # Undo the exchange: every card given goes back to the declarer.
            for giver, to, given in self.gifts:
                card = given
                if to is None:
                    if card is None:
                        card = pending.pop(0)
                    gifts.append((giver, None, card))
                    continue
                if card is None:
                    if to in state.gift_taken:
                        card = state.gift_taken[to]
                    else:
                        keep = sum(1 << x for x, s in reserved.items() if s == to)
                        pool = held[to] & ~keep & ~self.known_talon or held[to] & ~keep or held[to]
                        card = rng.choice(indices(pool))
                dealt[to] &= ~(1 << card)
                dealt[giver] |= 1 << card
                gifts.append((giver, to, card))
            # Take the talon back out of the declarer's hand.
            if self.talon_known:
                taken = self.known_talon
            else:
                size = self.talon_sizes[self.talon_index or 0]
                keep = sum(1 << x for x, s in reserved.items() if s == declarer)
                cands = indices(dealt[declarer] & ~keep)
                if len(cands) < size:
                    cands = indices(dealt[declarer])
                taken = sum(1 << c for c in rng.sample(cands, size))
            dealt[declarer] &= ~taken
            talons[self.talon_index or 0] = taken
        # Bid caps (T-9, T-31) on the hands as dealt; the contract's cap (T-15) after the exchange.
        for seat, need in self.bid_needs.items():
            if marriage_points_of(dealt[seat]) < need:
                self._fail("bid caps")
                return None
        need = self.contract_need
        if need and self.declarer is not None and marriage_points_of(held[self.declarer]) < need:
            self._fail("contract cap")
            return None
        order: list[int] = []
        for seat in self.active:
            if dealt[seat].bit_count() != self.hand_size:
                self._fail("hand sizes")
                return None
            order.extend(indices(dealt[seat]))
        for t, size in enumerate(self.talon_sizes):
            if talons[t].bit_count() != size:
                self._fail("talon sizes")
                return None
            order.extend(indices(talons[t]))
        return _World(order, state.plays, gifts)

    def _replay(self, world: _World) -> Deal | None:
        view = self.view
        assert view.kind is not None
        kind = view.kind
        setup = DealSetup(
            view.deal_number, view.dealer, kind, view.declarer if kind is not DealKind.NORMAL else None
        )
        deal = Deal(self.rules, setup, tuple(CARDS[i] for i in world.order))
        deal.start()
        try:
            for seat, action in self.history(world):
                deal.apply(seat, action)
        except ActionError:
            self._fail("replay rejected")
            return None
        if not self._matches(deal):
            self._fail("replay differs")
            return None
        return deal

    def history(self, world: _World) -> list[tuple[int, Action]]:
        """The deal's actions so far, with this world's cards where the seat did not see them."""
        view = self.view
        steps: list[tuple[int, Action]] = []
        opener = self.active[0]
        if view.kind is DealKind.NORMAL:
            if self.rules.dark and view.phase is not Phase.DARK:
                steps.append((opener, DeclareDark() if view.dark_seat is not None else DeclineDark()))
            for seat, bid in voluntary_auction(view):
                steps.append((seat, Pass() if bid is None else Bid(bid)))
            if self.talon_taken and self.rules.players == 2 and self.declarer is not None:
                steps.append((self.declarer, ChooseTalon(self.talon_index or 0)))
        for giver, to, c in world.gifts:
            steps.append((giver, DiscardCard(CARDS[c]) if to is None else GiveCard(CARDS[c], to)))
        if view.phase in (Phase.PLAY, Phase.OVER):
            if view.kind is DealKind.NORMAL and not view.doubled:
                assert self.declarer is not None and view.contract is not None
                steps.append((self.declarer, NameContract(view.contract)))
            for k, (seats, cards, _, _, marriage) in enumerate(self.tricks):
                for p, (seat, x) in enumerate(zip(seats, cards, strict=True)):
                    card = world.plays[(k, p)] if x is None else x
                    steps.append((seat, PlayCard(CARDS[card], marriage and p == 0)))
            for p, (seat, c) in enumerate(self.live):
                steps.append((seat, PlayCard(CARDS[c], self.live_marriage and p == 0)))
        return steps

    def _matches(self, deal: Deal) -> bool:
        view = self.view
        return (
            deal.phase is view.phase
            and deal.to_act == view.to_act
            and tuple(deal.tricks_won) == view.tricks_won
            and tuple(points_of(m) for m in deal.won) == view.trick_points
            and tuple(m.bit_count() for m in deal.hands) == view.card_counts
            and (self.my_hidden or deal.hands[self.me] == self.my_hand)
            and deal.trump == view.trump
            and [(s, c.index) for s, c in deal.trick_cards()] == self.live
        )


def _owner_of(owner: dict[int, tuple[int, int]], card: int) -> int | None:
    entry = owner.get(card)
    return None if entry is None else entry[0]


__all__ = ["MAX_ATTEMPTS", "WorldSampler", "clone_deal", "voluntary_auction"]
