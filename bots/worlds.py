"""Determinizations: complete deals consistent with all one seat knows, as live ``engine.Deal`` objects.

A world is sampled from what the seat knows (:class:`~bots.world_facts.WorldFacts`, read from its
:class:`~bots.belief.Belief` and current view): the unseen cards are dealt to the other hands, the
hidden plays (:mod:`bots.hidden_plays`) and the talons, respecting its hand, the talon if shown, the
cards it gave or received, every card seen played, the voids shown by failing to follow suit or to trump,
the winner and worth of every trick, the marriages declared and the bid caps of T-9 and T-31 that the bids
and the contract imply. From the sampled cards this module derives the deck order (the hands as dealt and
the talons, laid out as :func:`engine.layout.deal_layout` deals them), builds an ``engine.Deal`` and
*replays* the deal's public history on it. The engine is the judge of a world's consistency: a replay it
rejects, or one that ends in another state than the view's, is thrown away and sampled again. So the
simulated rules are always the engine's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bots.belief import Belief
from bots.cardlib import MARRIAGE_MASKS, MARRIAGE_POINTS, indices, marriage_points_of
from bots.hidden_plays import Placement, search_hidden_plays
from bots.world_facts import WorldFacts, voluntary_auction
from engine import (
    Action,
    ActionError,
    DealKind,
    DealSetup,
    Game,
    Phase,
    Shuffle,
    View,
)
from engine.actions import DECLARE_DARK, DECLINE_DARK, PASS, PLAY, PLAY_MARRIAGE
from engine.cards import CARDS, points_of
from engine.deal import Deal
from engine.legal_tables import DISCARDS, TALON_CHOICES, bid_action, contract_action, gives_by_card

MAX_ATTEMPTS = 40
"""Sampling attempts per world before giving up (the caller then falls back on its heuristic)."""


def clone_deal(deal: Deal) -> Deal:
    """An independent copy of a live deal (``Deal.copy``), to play one of its futures."""
    return deal.copy()


_Step = tuple[int, Action | tuple[tuple[int, int], bool]]
"""An action of :meth:`WorldSampler._template` after the exchange: (seat, action) or, for a play the seat
did not see, (seat, ((trick, position), whether it declares a marriage))."""
PLAY_FOR = (PLAY, PLAY_MARRIAGE)
"""The engine's interned plays, by whether they declare a marriage, then by card index."""


@dataclass(slots=True)
class _World:
    order: list[int]
    plays: dict[tuple[int, int], int]
    gifts: list[tuple[int, int | None, int]]


class WorldSampler:
    """Samples worlds for one decision of one seat (build it afresh for every decision)."""

    def __init__(self, view: View, belief: Belief) -> None:
        self.facts = WorldFacts(view, belief)
        self.failures: dict[str, int] = {}
        """Why sampling attempts failed, by reason (for diagnostics and tests)."""
        self._steps: tuple[list[tuple[int, Action]], list[_Step]] | None = None
        """:meth:`_template`'s, once worked out."""
        self._setup: DealSetup | None = None
        """The deal's setup, the same for every world (a frozen value)."""

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

    def sample_game(self, rng: random.Random, attempts: int = MAX_ATTEMPTS) -> Game | None:
        """A whole :class:`engine.Game` in the view's state, or None if no consistent world was found.

        The game's score sheet is the view's (every public line of it), its current deal is a sampled world
        dealt by ``apply_chance`` from the world's deck and replayed action by action through ``Game.apply``,
        so its ``history`` and ``events`` are a real game's and it can be copied (``Game.copy``) and played
        on past this deal: later deals follow from ``seed``, not from the real table's. What a view does not
        say is set to what a game in this state can hold: the deals before this one are counted as dealt
        and played, and golden deals (T-30) as all played unless this one is golden.
        """
        for _ in range(attempts):
            world = self._attempt(rng)
            if world is None:
                continue
            game = self._game(world, rng.randrange(1 << 62))
            if game is not None:
                return game
        return None

    def _game(self, world: _World, seed: int) -> Game | None:
        facts = self.facts
        view = facts.view
        rules = facts.rules
        game = Game(rules, seed, first_dealer=view.dealer)
        for line in view.scores:
            record = game.records[line.seat]
            record.score, record.bolts, record.on_barrel = line.score, line.bolts, line.on_barrel
            record.barrel_deals, record.barrel_visits, record.falls = (
                line.barrel_deals,
                line.barrel_visits,
                line.falls,
            )
        game.deals_dealt = game.deals_played = view.deal_number - 1
        game.golden_played = 0 if view.kind is DealKind.GOLDEN else rules.players
        if game.next_setup().kind is not view.kind:
            self._fail("deal kind")
            return None
        try:
            game.apply_chance(Shuffle(tuple(CARDS[i] for i in world.order)))
            for seat, action in self.history(world):
                game.apply(seat, action)
        except ActionError:
            self._fail("replay rejected")
            return None
        deal = game.deal
        if deal is None or not self._matches(deal):
            self._fail("replay differs")
            return None
        return game

    def _attempt(self, rng: random.Random) -> _World | None:
        """Sample the cards of one world, or None when this attempt ran into a contradiction."""
        facts = self.facts
        state = Placement(facts.base_free, dict(facts.owner), facts.talon_up, dict(facts.gift_known), {}, {})
        state.forbidden = {s: 0 for s in facts.active}
        reserved = self._reserve_marriages(rng, state)
        if reserved is None:
            self._fail("bid caps")
            return None
        found = search_hidden_plays(facts, rng, state)
        if found is None:
            self._fail("hidden plays")
            return None
        state = found
        for seat, mask in facts.live_forbidden.items():
            state.forbidden[seat] |= mask
        placed = self._place(rng, state)
        if placed is None:
            return None
        hands, talons = placed
        return self._order(rng, hands, talons, state, reserved)

    def _reserve_marriages(self, rng: random.Random, state: Placement) -> dict[int, int] | None:
        """Give each bidder the marriages its bids need (card -> seat), or None if none is possible."""
        facts = self.facts
        reserved: dict[int, int] = {}
        for seat, need in facts.requirements.items():
            have = facts.known_marriage_points(seat, state.owner)
            if have >= need:
                continue
            usable = [
                s
                for s in range(4)
                if all(
                    state.free >> c & 1 or _owner_of(state.owner, c) == seat or facts.known_by(seat, c)
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

    def _place(self, rng: random.Random, state: Placement) -> tuple[dict[int, int], list[int]] | None:
        """Deal the cards left to the other hands and the talons: (hands, talons) or None."""
        facts = self.facts
        counts = facts.view.card_counts
        forbidden = state.forbidden
        others = [s for s in facts.active if s != facts.me or facts.my_hidden]
        hands = dict.fromkeys(others, 0)
        room = {s: counts[s] for s in others}
        for c, (seat, _) in state.owner.items():
            if seat == facts.me:
                continue
            if forbidden[seat] >> c & 1 or room[seat] <= 0:
                self._fail("owned cards")
                return None
            hands[seat] |= 1 << c
            room[seat] -= 1
        talon_room = facts.talon_room()
        talons = [0] * len(talon_room)
        other = 1 - (facts.talon_index or 0)
        discards_left = facts.unknown_discards
        # Face-up talon cards: kept by the declarer, given to a receiver of an unknown gift (one each), or
        # discarded into the other talon (two players).
        for c in indices(state.talon_up):
            places: list[tuple[str, int]] = []
            weights: list[float] = []
            decl = facts.declarer
            assert decl is not None
            if room.get(decl, 0) > 0 and not forbidden[decl] >> c & 1:
                places.append(("hand", decl))
                weights.append(8.0)  # the declarer keeps 8 of its 10 cards (T-14)
            for r in facts.unknown_gift_to:
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
        # The free cards, most constrained first, each to a place with probability by its room. A place is a
        # hand (a seat) or a talon; parallel lists keep each place's cards, room and forbidden cards.
        spots = [s for s in others if room[s] > 0]
        in_hand = len(spots)
        spots += [t for t, r in enumerate(talon_room) if r > 0]
        rooms = [room[s] for s in spots[:in_hand]] + [talon_room[t] for t in spots[in_hand:]]
        bans = [forbidden[s] for s in spots[:in_hand]] + [0] * (len(spots) - in_hand)
        free_cards = indices(state.free)
        rng.shuffle(free_cards)
        open_to = dict.fromkeys(free_cards, len(bans))  # how many places each card may go to
        for ban in bans:
            for c in indices(ban & state.free):
                open_to[c] -= 1
        free_cards.sort(key=open_to.__getitem__)
        random = rng.random
        for c in free_cards:
            # rng.choices(options, weights=rooms)[0] spelled out as CPython 3.11 computes it (one random()
            # draw, the first cumulative weight above random() * total), without its lists and checks.
            total = 0
            for k, ban in enumerate(bans):
                if not ban >> c & 1:
                    total += rooms[k]
            if not total:
                self._fail("voids")
                return None
            x = random() * total
            acc = 0
            pick = -1  # the last place open to the card if rounding left x at the total, as bisect has it
            for k, ban in enumerate(bans):
                if not ban >> c & 1 and rooms[k]:
                    pick = k
                    acc += rooms[k]
                    if x < acc:
                        break
            rooms[pick] -= 1
            if pick < in_hand:
                hands[spots[pick]] |= 1 << c
            else:
                talons[spots[pick]] |= 1 << c
        for k, left in enumerate(rooms):
            if k < in_hand:
                room[spots[k]] = left
            else:
                talon_room[spots[k]] = left
        if any(room.values()) or any(talon_room):
            self._fail("counts")
            return None
        return hands, talons

    def _order(
        self,
        rng: random.Random,
        hands: dict[int, int],
        talons: list[int],
        state: Placement,
        reserved: dict[int, int],
    ) -> _World | None:
        """The deck order this world was dealt from, its exchange and its hidden plays."""
        facts = self.facts
        held: dict[int, int] = {s: hands.get(s, 0) for s in facts.active}
        if not facts.my_hidden:
            held[facts.me] = facts.my_hand
        for seat, plays in facts.known_by_seat.items():
            for _, c in plays:
                held[seat] |= 1 << c
        for (k, p), c in state.plays.items():
            held[facts.tricks[k][0][p]] |= 1 << c
        dealt = dict(held)
        talons = list(talons)
        gifts: list[tuple[int, int | None, int]] = []
        if facts.talon_taken:
            declarer = facts.declarer
            assert declarer is not None
            other = 1 - (facts.talon_index or 0)
            discards = indices(facts.my_discards)
            if facts.unknown_discards:
                pool = talons[other]
                up = indices(pool & facts.known_talon)
                rest = indices(pool & ~facts.known_talon)
                rng.shuffle(rest)
                discards = (up + rest)[: facts.unknown_discards]
                if len(discards) < facts.unknown_discards:
                    self._fail("discards")
                    return None
            for d in discards:
                talons[other] &= ~(1 << d)
                dealt[declarer] |= 1 << d
            pending = list(discards)
            # Undo the exchange: every card given goes back to the declarer.
            for giver, to, given in facts.gifts:
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
                        pool = held[to] & ~keep & ~facts.known_talon or held[to] & ~keep or held[to]
                        card = rng.choice(indices(pool))
                dealt[to] &= ~(1 << card)
                dealt[giver] |= 1 << card
                gifts.append((giver, to, card))
            # Take the talon back out of the declarer's hand.
            if facts.talon_known:
                taken = facts.known_talon
            else:
                size = facts.talon_sizes[facts.talon_index or 0]
                keep = sum(1 << x for x, s in reserved.items() if s == declarer)
                cands = indices(dealt[declarer] & ~keep)
                if len(cands) < size:
                    cands = indices(dealt[declarer])
                taken = sum(1 << c for c in rng.sample(cands, size))
            dealt[declarer] &= ~taken
            talons[facts.talon_index or 0] = taken
        # Bid caps (T-9, T-31) on the hands as dealt; the contract's cap (T-15) after the exchange.
        for seat, need in facts.bid_needs.items():
            if marriage_points_of(dealt[seat]) < need:
                self._fail("bid caps")
                return None
        need = facts.contract_need
        if need and facts.declarer is not None and marriage_points_of(held[facts.declarer]) < need:
            self._fail("contract cap")
            return None
        order: list[int] = []
        for seat in facts.active:
            if dealt[seat].bit_count() != facts.hand_size:
                self._fail("hand sizes")
                return None
            order.extend(indices(dealt[seat]))
        for t, size in enumerate(facts.talon_sizes):
            if talons[t].bit_count() != size:
                self._fail("talon sizes")
                return None
            order.extend(indices(talons[t]))
        return _World(order, state.plays, gifts)

    def _replay(self, world: _World) -> Deal | None:
        facts = self.facts
        view = facts.view
        assert view.kind is not None
        kind = view.kind
        setup = self._setup
        if setup is None:
            declarer = view.declarer if kind is not DealKind.NORMAL else None
            setup = self._setup = DealSetup(view.deal_number, view.dealer, kind, declarer)
        deal = Deal(facts.rules, setup, tuple([CARDS[i] for i in world.order]))
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
        """The deal's actions so far, with this world's cards where the seat did not see them.

        The actions are the engine's interned ones (those its legal lists hold), so a replay finds each by
        identity; what does not depend on the world is worked out once per sampler (:meth:`_template`).
        """
        before, after = self._steps or self._template()
        steps = before.copy()
        for giver, to, c in world.gifts:
            steps.append((giver, DISCARDS[c] if to is None else gives_by_card((to,))[c][0]))
        plays = world.plays
        for seat, step in after:
            if isinstance(step, tuple):  # a hidden play: this world's card
                hidden, declares = step
                steps.append((seat, PLAY_FOR[declares][plays[hidden]]))
            else:
                steps.append((seat, step))
        return steps

    def _template(self) -> tuple[list[tuple[int, Action]], list[_Step]]:
        """The actions before the exchange, and those after it with a placeholder for each hidden play: the
        same for every world of this decision."""
        facts = self.facts
        view = facts.view
        before: list[tuple[int, Action]] = []
        after: list[_Step] = []
        opener = facts.active[0]
        if view.kind is DealKind.NORMAL:
            if facts.rules.dark and view.phase is not Phase.DARK:
                before.append((opener, DECLARE_DARK if view.dark_seat is not None else DECLINE_DARK))
            for seat, bid in voluntary_auction(view):
                before.append((seat, PASS if bid is None else bid_action(bid)))
            if facts.talon_taken and facts.rules.players == 2 and facts.declarer is not None:
                before.append((facts.declarer, TALON_CHOICES[facts.talon_index or 0]))
        if view.phase in (Phase.PLAY, Phase.OVER):
            if view.kind is DealKind.NORMAL and not view.doubled:
                assert facts.declarer is not None and view.contract is not None
                after.append((facts.declarer, contract_action(view.contract)))
            for k, (seats, cards, _, _, marriage) in enumerate(facts.tricks):
                for p, (seat, x) in enumerate(zip(seats, cards, strict=True)):
                    declares = marriage and p == 0
                    after.append((seat, ((k, p), declares) if x is None else PLAY_FOR[declares][x]))
            for p, (seat, c) in enumerate(facts.live):
                after.append((seat, PLAY_FOR[facts.live_marriage and p == 0][c]))
        self._steps = (before, after)
        return before, after

    def _matches(self, deal: Deal) -> bool:
        facts = self.facts
        view = facts.view
        return (
            deal.phase is view.phase
            and deal.to_act == view.to_act
            and tuple(deal.tricks_won) == view.tricks_won
            and tuple(points_of(m) for m in deal.won) == view.trick_points
            and tuple(m.bit_count() for m in deal.hands) == view.card_counts
            and (facts.my_hidden or deal.hands[facts.me] == facts.my_hand)
            and deal.trump == view.trump
            and deal.trick == facts.live  # (seat, card index) in play order, both
        )


def _owner_of(owner: dict[int, tuple[int, int]], card: int) -> int | None:
    entry = owner.get(card)
    return None if entry is None else entry[0]


__all__ = ["MAX_ATTEMPTS", "WorldSampler", "clone_deal"]
