"""One round of 1000 Blagogo, from the deal to the discard that goes out (B-5 to B-19).

A :class:`Round` is a state machine over two phases per turn: ``DRAW`` (draw from the deck, or take from the
bridge once opened) and ``PLAY`` (any number of meld actions, then one discard that ends the turn). The
first player's first turn starts in ``PLAY`` (B-8).

Every action goes through one planner (``_plan``) that checks it completely and returns the change as a
closure; nothing is touched until the closure runs. So a rejected action leaves the round exactly as it was,
and :meth:`Round.validate` (the check alone) and :meth:`Round.apply` (check and change) can never disagree.

Legal actions (B-22) come in two kinds:

- :meth:`Round.legal_actions` is the **complete** list of the acting seat's *simple* actions: the draw,
  every bridge position it may take from, every discard, every joker swap and every single-card
  :class:`AddToMeld` (each card, in every meaning and at every end it fits).
- :class:`LayMelds` and multi-card :class:`AddToMeld` are too many to list. :meth:`Round.validate` is an
  **exact** validator for every action (it accepts exactly the legal ones and rejects anything else with a
  specific reason, the state unchanged), and :func:`engine.blagogo.candidates.candidate_melds` lists a
  useful, **non-exhaustive** set of legal ones for bots.

Choices where the specification leaves room (all of them are listed in this package's README.md):

- The deal (B-5): the shuffle is dealt in blocks: 13 cards to the player left of the dealer, then 12 to each
  next player clockwise (the dealer last), then one card face up to start the bridge; the rest is the deck,
  the next card of the shuffle on top.
- The deck is turned over (B-10) at the start of the turn of the player who must draw from an empty deck,
  before they decide; so the bridge they could have taken from is now the deck. At the start of every turn
  the bridge holds at least the last discard, so B-10's "bridge empty too" never happens: a round in which
  every card left is dead would go on for ever. The variant ``turnover_limit`` (off by default; not in the
  source) ends the round with no winner when the deck runs out after that many turnovers.
- The opening (B-11) is one :class:`LayMelds` action holding every opening meld; adding to other players'
  melds does not count towards it. In the same turn, after it, the player may lay, add and swap freely.
- B-9 ``bridge_take_must_meld``: taking is allowed when some sequence of the turn's meld actions can put the
  deepest card taken on the table (a joker swapped out first, then laid with it, counts:
  :func:`engine.blagogo.placing.can_meld_this_turn`); until it is on the table the player may not discard,
  nor take a meld action after which no sequence could meld it any more.
- Discarding the card just taken from the bridge is allowed (the source does not forbid it).
- A joker swapped out of a meld goes to the hand with no obligation to use it this turn (B-16 says no more).
- A set with two jokers among four cards can never free its jokers: a swap frees one joker for the fourth
  natural suit once three natural suits are there, and such a set is already full.
- Kantrame (B-19): the player went out in the same turn as their opening, i.e. had no meld on the table at
  the start of that turn; with ``kantrame_first_turn_only`` it must also be their first turn of the round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from enum import Enum
from typing import Final

from engine.blagogo.actions import (
    DISCARDS,
    DRAW,
    STANDS_RUN,
    STANDS_SET,
    Action,
    AddToMeld,
    Discard,
    DrawFromDeck,
    End,
    LayMelds,
    MeldSpec,
    SwapJoker,
    TakeFromBridge,
    take,
)
from engine.blagogo.cards import (
    CARD_FACE,
    CARD_SUIT,
    CARDS,
    DECK_SIZE,
    FIRST_JOKER,
    FULL_MASK,
    RANKS,
    Card,
    cards_of,
    indices_of,
)
from engine.blagogo.errors import BlagogoReason, illegal
from engine.blagogo.events import (
    BridgeStarted,
    BridgeTaken,
    BridgeTurnedOver,
    CardDrawn,
    DeckExhausted,
    Discarded,
    Event,
    HandDealt,
    JokerSwapped,
    MeldClosed,
    MeldExtended,
    MeldsLaid,
    RoundRevealed,
    WentOut,
)
from engine.blagogo.melds import (
    MAX_SET,
    MeldKind,
    TableMeld,
    check_cards,
    check_meanings,
    extend_meld,
    form_meld,
    swap_joker,
)
from engine.blagogo.placing import can_meld_this_turn
from engine.blagogo.rules import BlagogoRules, CompletedSetKeeper
from engine.errors import IllegalActionError, InvalidActionError, Reason

FIRST_HAND: Final = 13
HAND: Final = 12

_Commit = Callable[[list[Event]], None]
_COMPLETER: Final = CompletedSetKeeper.COMPLETER


class Phase(Enum):
    DRAW = "draw"
    """B-8, B-9: the turn starts with a draw from the deck or a take from the bridge."""
    PLAY = "play"
    """B-11 to B-16 meld actions, then B-13 the discard that ends the turn."""
    OVER = "over"


def deal_order(players: int, dealer: int) -> tuple[int, ...]:
    """Seats in the order they are dealt to and play: from the dealer's left, the dealer last (B-5, B-7)."""
    return tuple((dealer + i) % players for i in range(1, players + 1))


class Round:
    """One round, dealt from ``order`` (the 108 cards in dealing order) by ``dealer``."""

    def __init__(self, rules: BlagogoRules, number: int, dealer: int, order: tuple[Card, ...]) -> None:
        if (
            not isinstance(order, tuple)
            or len(order) != DECK_SIZE
            or not all(type(c) is Card and type(c.index) is int and 0 <= c.index < DECK_SIZE for c in order)
            or sum(1 << c.index for c in set(order)) != FULL_MASK
        ):
            raise InvalidActionError("a shuffle must order each of the 108 cards exactly once")
        self.rules = rules
        self.number = number
        self.dealer = dealer
        self.order = order
        self.salt = ""
        self.client_seeds: tuple[str, ...] = ()
        """Set by the game for a fair round: what RoundRevealed discloses of its derivation."""
        n = rules.players
        self.seats = deal_order(n, dealer)
        self.first = self.seats[0]
        self.hands: list[int] = [0] * n
        pos = 0
        for i, seat in enumerate(self.seats):
            size = FIRST_HAND if i == 0 else HAND
            for c in order[pos : pos + size]:
                self.hands[seat] |= 1 << c.index
            pos += size
        self.dealt: tuple[int, ...] = tuple(self.hands)
        self.bridge: list[int] = [order[pos].index]
        """B-6: card indices in the order laid; 0 is the earliest."""
        self.deck: list[int] = [c.index for c in reversed(order[pos + 1 :])]
        """Card indices, the top of the deck last."""
        self.melds: list[TableMeld] = []
        """Every meld laid this round; a meld's id is its index here."""
        self.opened: list[bool] = [False] * n
        self.turns: list[int] = [0] * n
        """Turns each seat has begun this round."""
        self.opened_on_turn: list[int] = [0] * n
        """The seat's turn number in which it opened (0: not yet)."""
        self.known: list[int] = [0] * n
        """Cards every seat knows to be in each hand: taken from the bridge or swapped out of a meld."""
        self.phase = Phase.PLAY
        self.to_act: int | None = self.first
        self.turns[self.first] = 1
        self.turnovers = 0
        """B-10: times the bridge was turned over into the deck this round."""
        self.must_meld: int | None = None
        """B-9 ``bridge_take_must_meld``: the card the acting seat took from the bridge and must meld."""
        self.winner: int | None = None
        self.kantrame = False
        self._legal: tuple[Action, ...] | None = None

    def start(self) -> list[Event]:
        """The deal's events: each hand, then the first card of the bridge."""
        events: list[Event] = [
            HandDealt(seat, self.hands[seat].bit_count(), cards_of(self.hands[seat])) for seat in self.seats
        ]
        events.append(BridgeStarted(CARDS[self.bridge[0]], len(self.deck)))
        return events

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def hand(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.hands[seat])

    def card_count(self) -> int:
        """Every card of the round, wherever it is (always 108)."""
        return (
            sum(h.bit_count() for h in self.hands)
            + len(self.deck)
            + len(self.bridge)
            + sum(len(m.cards) for m in self.melds)
        )

    def legal_actions(self) -> tuple[Action, ...]:
        """The acting seat's complete list of *simple* legal actions (see the module docstring).

        Empty once the round is over. :class:`LayMelds` and multi-card :class:`AddToMeld` are never listed:
        check them with :meth:`validate`, and find some with ``candidate_melds``.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def validate(self, seat: int, action: object) -> None:
        """Raise why ``action`` is illegal for ``seat`` now; return None if it is legal. Exact (B-22)."""
        self._plan(seat, action)

    def is_legal(self, seat: int, action: object) -> bool:
        try:
            self._plan(seat, action)
        except (IllegalActionError, InvalidActionError):
            return False
        return True

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self) -> tuple[Action, ...]:
        seat = self.to_act
        if seat is None:
            return ()
        if self.phase is Phase.DRAW:
            actions: list[Action] = [DRAW]
            if self.opened[seat]:
                actions.extend(take(p) for p in range(len(self.bridge)))
            if self.rules.bridge_take_must_meld:
                return tuple(a for a in actions if self.is_legal(seat, a))
            return tuple(actions)
        hand = self.hands[seat]
        actions = []
        if self.opened[seat]:
            actions.extend(self._table_actions(seat, hand))
        if self.must_meld is not None:
            return tuple(a for a in actions if self.is_legal(seat, a))
        actions.extend(DISCARDS[i] for i in indices_of(hand))
        return tuple(actions)

    def _table_actions(self, seat: int, hand: int) -> list[Action]:
        """Every joker swap and single-card addition ``seat`` can make (it has opened)."""
        by_face: dict[int, list[Card]] = {}
        jokers: list[Card] = []
        for i in indices_of(hand):
            if i >= FIRST_JOKER:
                jokers.append(CARDS[i])
            else:
                by_face.setdefault(CARD_FACE[i], []).append(CARDS[i])
        may_add = hand.bit_count() >= 2  # B-13: never add away the last card
        limit = self.rules.max_jokers_per_meld
        actions: list[Action] = []
        for m in self._playable(seat, self.melds):
            if m.closed:
                continue
            length = len(m.cards)
            room = not limit or m.jokers < limit  # B-14 variant: another joker fits
            if m.kind is MeldKind.SET:
                suits = 0
                for c in m.cards:
                    if c.index < FIRST_JOKER:
                        suits |= 1 << CARD_SUIT[c.index]
                missing = [s for s in range(4) if not suits >> s & 1]
                if length < MAX_SET and may_add:
                    for s in missing:
                        for c in by_face.get(s * RANKS + m.rank, ()):
                            actions.append(AddToMeld(m.id, (c,)))
                    for j in jokers if room else ():
                        actions.append(AddToMeld(m.id, (j,), (STANDS_SET[m.rank],)))
                if length == MAX_SET and len(missing) == 1:  # three natural suits and a joker (B-16)
                    for c in by_face.get(missing[0] * RANKS + m.rank, ()):
                        actions.append(SwapJoker(m.id, c))
                continue
            suit = m.suit
            assert suit is not None
            base = suit * RANKS
            for pos, c in enumerate(m.cards):
                if c.index >= FIRST_JOKER:
                    for natural in by_face.get(base + (m.rank + pos) % RANKS, ()):
                        actions.append(SwapJoker(m.id, natural))
            if length < RANKS and may_add:
                high = base + (m.high + 1) % RANKS
                low = base + (m.rank - 1) % RANKS
                for c in by_face.get(high, ()):
                    actions.append(AddToMeld(m.id, (c,), (), End.HIGH))
                for c in by_face.get(low, ()):
                    actions.append(AddToMeld(m.id, (c,), (), End.LOW))
                for j in jokers if room else ():
                    actions.append(AddToMeld(m.id, (j,), (STANDS_RUN[high],), End.HIGH))
                    actions.append(AddToMeld(m.id, (j,), (STANDS_RUN[low],), End.LOW))
        return actions

    # ------------------------------------------------------------------ apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action and return its events; on rejection raise with the round unchanged."""
        commit = self._plan(seat, action)
        self._legal = None
        events: list[Event] = []
        commit(events)
        return events

    def _plan(self, seat: int, action: object) -> _Commit:
        if self.phase is Phase.OVER:
            raise IllegalActionError(Reason.GAME_OVER, "the round is over")
        if seat != self.to_act:
            raise IllegalActionError(
                Reason.NOT_YOUR_TURN, f"it is seat {self.to_act}'s turn, not seat {seat}'s"
            )
        kind = type(action)
        if kind is Discard:
            assert isinstance(action, Discard)
            return self._plan_discard(seat, action.card)
        if kind is DrawFromDeck:
            return self._plan_draw(seat)
        if kind is TakeFromBridge:
            assert isinstance(action, TakeFromBridge)
            return self._plan_take(seat, action.position)
        if kind is LayMelds:
            assert isinstance(action, LayMelds)
            return self._plan_lay(seat, action.melds)
        if kind is AddToMeld:
            assert isinstance(action, AddToMeld)
            return self._plan_add(seat, action)
        if kind is SwapJoker:
            assert isinstance(action, SwapJoker)
            return self._plan_swap(seat, action.meld_id, action.card)
        raise InvalidActionError(f"{action!r} is not an action of 1000 Blagogo")

    # -- the draw

    def _need_draw_phase(self, what: str) -> None:
        if self.phase is not Phase.DRAW:
            raise IllegalActionError(
                Reason.WRONG_PHASE, f"{what} starts a turn; this turn's draw is done, now meld or discard"
            )

    def _need_play_phase(self, what: str) -> None:
        if self.phase is not Phase.PLAY:
            raise IllegalActionError(
                Reason.WRONG_PHASE, f"draw from the deck (or take from the bridge) before you {what} (B-8)"
            )

    def _plan_draw(self, seat: int) -> _Commit:
        self._need_draw_phase("drawing")

        def commit(events: list[Event]) -> None:
            index = self.deck.pop()
            self.hands[seat] |= 1 << index
            self.phase = Phase.PLAY
            events.append(CardDrawn(seat, CARDS[index]))

        return commit

    def _plan_take(self, seat: int, position: object) -> _Commit:
        if not isinstance(position, int) or isinstance(position, bool):
            raise InvalidActionError(f"bridge position {position!r} is not a number")
        self._need_draw_phase("taking from the bridge")
        if not self.opened[seat]:
            raise illegal(
                BlagogoReason.NOT_OPENED, "only a player who has opened may take from the bridge (B-9)"
            )
        bridge = self.bridge
        if not 0 <= position < len(bridge):
            raise illegal(
                BlagogoReason.NO_SUCH_POSITION,
                f"the bridge has positions 0 to {len(bridge) - 1}, not {position}",
            )
        taken = bridge[position:]
        deepest = taken[0]
        must_meld = self.rules.bridge_take_must_meld
        if must_meld:
            hand = self.hands[seat]
            for i in taken:
                hand |= 1 << i
            if not self._can_meld(seat, deepest, hand, self.melds):
                raise illegal(
                    BlagogoReason.BRIDGE_CARD_NOT_MELDABLE,
                    f"{CARDS[deepest]} could not be melded this turn, by any sequence of meld actions "
                    "(bridge_take_must_meld)",
                )

        def commit(events: list[Event]) -> None:
            del self.bridge[position:]
            mask = 0
            for i in taken:
                mask |= 1 << i
            self.hands[seat] |= mask
            self.known[seat] |= mask
            if must_meld:
                self.must_meld = deepest
            self.phase = Phase.PLAY
            events.append(BridgeTaken(seat, position, tuple(CARDS[i] for i in taken)))

        return commit

    # -- meld actions

    def _in_hand(self, seat: int, cards: tuple[Card, ...], used: int = 0) -> int:
        hand = self.hands[seat]
        mask = 0
        for c in cards:
            bit = 1 << c.index
            if used & bit or mask & bit:
                raise illegal(BlagogoReason.CARD_USED_TWICE, f"{c} is named twice")
            if not hand & bit:
                raise IllegalActionError(Reason.NO_SUCH_CARD, f"{c} is not in your hand")
            mask |= bit
        return mask

    def _check_left(self, seat: int, removed: int) -> int:
        left = self.hands[seat] & ~removed
        if not left:
            raise illegal(
                BlagogoReason.LAST_CARD_MUST_BE_DISCARDED,
                "you may not meld or add away your last card: it must be discarded (B-13)",
            )
        return left

    def _check_pending(self, seat: int, hand: int, melds: list[TableMeld]) -> bool:
        """B-9 variant: whether the pending bridge card is now on the table (True) or can still be melded this
        turn (False); an action after which no sequence of the turn could meld it is refused."""
        pending = self.must_meld
        if pending is None:
            return False
        if not hand >> pending & 1:
            return True
        if not self._can_meld(seat, pending, hand, melds):
            raise illegal(
                BlagogoReason.MUST_MELD_BRIDGE_CARD,
                f"after this {CARDS[pending]}, taken from the bridge, could no longer be melded this turn",
            )
        return False

    def _plan_lay(self, seat: int, specs: object) -> _Commit:
        if not isinstance(specs, tuple) or not specs:
            raise InvalidActionError(f"LayMelds needs a non-empty tuple of MeldSpec, got {specs!r}")
        for spec in specs:
            if not isinstance(spec, MeldSpec):
                raise InvalidActionError(f"{spec!r} is not a MeldSpec")
        self._need_play_phase("meld")
        used = 0
        new: list[TableMeld] = []
        next_id = len(self.melds)
        for spec in specs:
            cards = check_cards(spec.cards, "a meld")
            jokers = check_meanings(spec.jokers, cards)
            used |= self._in_hand(seat, cards, used)
            meld = form_meld(next_id + len(new), seat, cards, jokers)
            self._check_jokers(meld)
            new.append(meld)
        points = sum(m.points for m in new)
        opening = not self.opened[seat]
        minimum = self.rules.opening_min_points
        if opening and self.rules.opening_one_meld:
            best = max(m.points for m in new)
            if best < minimum:
                raise illegal(
                    BlagogoReason.OPENING_TOO_LOW,
                    f"an opening needs one meld worth at least {minimum} on its own (opening_one_meld); "
                    f"the best of these is worth {best} (B-11)",
                )
        elif opening and points < minimum:
            raise illegal(
                BlagogoReason.OPENING_TOO_LOW,
                f"an opening must be worth at least {minimum}; these melds are worth {points} (B-11)",
            )
        left = self._check_left(seat, used)
        melds_after = self.melds + new
        placed = self._check_pending(seat, left, melds_after)
        laid = tuple(new)

        def commit(events: list[Event]) -> None:
            self.melds.extend(laid)
            self.hands[seat] = left
            self.known[seat] &= ~used
            if opening:
                self.opened[seat] = True
                self.opened_on_turn[seat] = self.turns[seat]
            if placed:
                self.must_meld = None
            events.append(MeldsLaid(seat, laid, points, opening))
            events.extend(MeldClosed(m.id, m.owner) for m in laid if m.closed)  # B-15

        return commit

    def _meld(self, meld_id: object) -> TableMeld:
        if not isinstance(meld_id, int) or isinstance(meld_id, bool):
            raise InvalidActionError(f"meld id {meld_id!r} is not a number")
        if not 0 <= meld_id < len(self.melds):
            raise illegal(BlagogoReason.NO_SUCH_MELD, f"there is no meld {meld_id} on the table")
        return self.melds[meld_id]

    def _need_opened(self, seat: int, what: str) -> None:
        if not self.opened[seat]:
            raise illegal(BlagogoReason.NOT_OPENED, f"only a player who has opened may {what} (B-12)")

    def _need_others(self, seat: int, meld: TableMeld, what: str) -> None:
        if meld.owner == seat and not self.rules.play_on_own_melds:
            raise illegal(
                BlagogoReason.OWN_MELD,
                f"meld {meld.id} is your own; at this table you {what} other players' melds only "
                "(play_on_own_melds, B-12)",
            )

    def _check_jokers(self, meld: TableMeld) -> None:
        limit = self.rules.max_jokers_per_meld
        if limit and meld.jokers > limit:
            raise illegal(
                BlagogoReason.TOO_MANY_JOKERS,
                f"a meld holds at most {limit} joker(s) at this table, not {meld.jokers} "
                "(max_jokers_per_meld, B-14)",
            )

    def _playable(self, seat: int, melds: list[TableMeld]) -> list[TableMeld]:
        """The melds ``seat`` may add to and swap jokers in (B-12, ``play_on_own_melds``)."""
        if self.rules.play_on_own_melds:
            return melds
        return [m for m in melds if m.owner != seat]

    def _can_meld(self, seat: int, card: int, hand: int, melds: list[TableMeld]) -> bool:
        """B-9 ``bridge_take_must_meld``: can ``card`` still reach the table this turn, under this table's
        other variants (B-12, B-14)?"""
        return can_meld_this_turn(card, hand, self._playable(seat, melds), self.rules.max_jokers_per_meld)

    def _plan_add(self, seat: int, action: AddToMeld) -> _Commit:
        cards = check_cards(action.cards, "the cards added")
        jokers = check_meanings(action.jokers, cards)
        end = action.end
        if end is not None and not isinstance(end, End):
            raise InvalidActionError(f"end {end!r} is not End.LOW, End.HIGH or None")
        meld = self._meld(action.meld_id)
        self._need_play_phase("add to a meld")
        self._need_opened(seat, "add to melds")
        self._need_others(seat, meld, "add to")
        used = self._in_hand(seat, cards)
        after = extend_meld(meld, seat, cards, jokers, end)
        self._check_jokers(after)
        if after.closed and seat != meld.owner and self.rules.completed_set_keeper is _COMPLETER:
            after = replace(after, owner=seat)  # B-15: laid "рядом с собой", beside the one who completed it
        left = self._check_left(seat, used)
        melds_after = list(self.melds)
        melds_after[meld.id] = after
        placed = self._check_pending(seat, left, melds_after)

        def commit(events: list[Event]) -> None:
            self.melds[meld.id] = after
            self.hands[seat] = left
            self.known[seat] &= ~used
            if placed:
                self.must_meld = None
            events.append(MeldExtended(seat, after, cards, end))
            if after.closed:
                events.append(MeldClosed(after.id, after.owner))

        return commit

    def _plan_swap(self, seat: int, meld_id: object, card: object) -> _Commit:
        if not isinstance(card, Card):
            raise InvalidActionError(f"{card!r} is not a card")
        meld = self._meld(meld_id)
        self._need_play_phase("swap a joker")
        self._need_opened(seat, "swap jokers")
        self._need_others(seat, meld, "swap a joker out of")
        used = self._in_hand(seat, (card,))
        after, joker = swap_joker(meld, seat, card)
        hand = (self.hands[seat] & ~used) | joker.bit
        melds_after = list(self.melds)
        melds_after[meld.id] = after
        placed = self._check_pending(seat, hand, melds_after)

        def commit(events: list[Event]) -> None:
            self.melds[meld.id] = after
            self.hands[seat] = hand
            self.known[seat] = (self.known[seat] & ~used) | joker.bit
            if placed:
                self.must_meld = None
            events.append(JokerSwapped(seat, after, card, joker))
            if after.closed:
                events.append(MeldClosed(after.id, after.owner))

        return commit

    # -- the discard

    def _plan_discard(self, seat: int, card: object) -> _Commit:
        if not isinstance(card, Card):
            raise InvalidActionError(f"{card!r} is not a card")
        self._need_play_phase("discard")
        index = card.index
        if not self.hands[seat] >> index & 1:
            raise IllegalActionError(Reason.NO_SUCH_CARD, f"{card} is not in your hand")
        if self.must_meld is not None:
            raise illegal(
                BlagogoReason.MUST_MELD_BRIDGE_CARD,
                f"meld {CARDS[self.must_meld]}, taken from the bridge, before discarding (B-9)",
            )

        def commit(events: list[Event]) -> None:
            bit = 1 << index
            self.hands[seat] &= ~bit
            self.known[seat] &= ~bit
            self.bridge.append(index)
            events.append(Discarded(seat, card))
            if not self.hands[seat]:
                self._go_out(seat, events)
            else:
                self._next_turn(seat, events)

        return commit

    def _go_out(self, seat: int, events: list[Event]) -> None:
        """B-18, B-19."""
        turn = self.turns[seat]
        kantrame = self.opened_on_turn[seat] == turn
        if self.rules.kantrame_first_turn_only and turn != 1:
            kantrame = False
        self.winner = seat
        self.kantrame = kantrame
        events.append(WentOut(seat, kantrame))
        self._finish(events)

    def _next_turn(self, seat: int, events: list[Event]) -> None:
        n = self.rules.players
        nxt = (seat + 1) % n
        self.to_act = nxt
        self.turns[nxt] += 1
        self.phase = Phase.DRAW
        if self.deck:
            return
        limit = self.rules.turnover_limit
        if not self.bridge or (limit and self.turnovers >= limit):  # B-10: the round ends with no winner
            events.append(DeckExhausted(self.turnovers))
            self._finish(events)
            return
        self.deck = self.bridge[::-1]  # B-10: face down, the earliest-laid card on top
        self.bridge = []
        self.turnovers += 1
        events.append(BridgeTurnedOver(len(self.deck)))

    def _finish(self, events: list[Event]) -> None:
        self.phase = Phase.OVER
        self.to_act = None
        self.must_meld = None
        events.append(
            RoundRevealed(
                self.number,
                self.order,
                tuple(cards_of(m) for m in self.dealt),
                tuple(cards_of(m) for m in self.hands),
                self.salt,
                self.client_seeds,
            )
        )

    # ------------------------------------------------------------------ checks used by tests

    def check_invariants(self) -> None:
        """Every card exactly once somewhere (B-1); raises AssertionError otherwise."""
        seen = 0
        total = 0
        for h in self.hands:
            if seen & h:
                raise AssertionError("a card in two hands")
            seen |= h
            total += h.bit_count()
        for i in (*self.deck, *self.bridge):
            bit = 1 << i
            if seen & bit:
                raise AssertionError(f"{CARDS[i]} twice")
            seen |= bit
            total += 1
        for m in self.melds:
            for c in m.cards:
                if seen & c.bit:
                    raise AssertionError(f"{c} twice")
                seen |= c.bit
                total += 1
        if seen != FULL_MASK or total != DECK_SIZE:
            raise AssertionError(f"{total} cards instead of 108")
