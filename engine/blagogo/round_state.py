"""Where every card of one round of 1000 Blagogo lies, and whose turn it is (B-1, B-5 to B-7).

:class:`RoundState` deals the shuffle and holds the round's state: the hands, the deck, the bridge, the melds
on the table, who has opened and the turn. How actions change it is :class:`engine.blagogo.round.Round`'s
business (the turn's draw and discard) and :mod:`engine.blagogo.melding`'s (the meld actions); both read and
change this one state, which is why it lives apart from either.

The deal (B-5), where the specification leaves room: the shuffle is dealt in blocks, 13 cards to the player
left of the dealer, then 12 to each next player clockwise (the dealer last), then one card face up to start
the bridge; the rest is the deck, the next card of the shuffle on top.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Final, Self

from engine.blagogo.actions import Action
from engine.blagogo.cards import CARDS, DECK_SIZE, FULL_MASK, Card, cards_of
from engine.blagogo.events import Event
from engine.blagogo.melds import TableMeld
from engine.blagogo.placing import can_meld_this_turn
from engine.blagogo.rules import BlagogoRules
from engine.errors import IllegalActionError, InvalidActionError, Reason

FIRST_HAND: Final = 13
HAND: Final = 12

_LISTS: Final = ("hands", "bridge", "deck", "melds", "opened", "turns", "opened_on_turn", "known")
"""The round's attributes that are lists an action changes in place (:meth:`RoundState.copy`)."""

Commit = Callable[[list[Event]], None]
"""The change an accepted action makes, planned once it has been checked completely: nothing is touched
until it runs (and appends the action's events to the list it is given)."""


class Phase(Enum):
    DRAW = "draw"
    """B-8, B-9: the turn starts with a draw from the deck or a take from the bridge."""
    PLAY = "play"
    """B-11 to B-16 meld actions, then B-13 the discard that ends the turn."""
    OVER = "over"


def deal_order(players: int, dealer: int) -> tuple[int, ...]:
    """Seats in the order they are dealt to and play: from the dealer's left, the dealer last (B-5, B-7)."""
    return tuple((dealer + i) % players for i in range(1, players + 1))


class RoundState:
    """One round's cards, dealt from ``order`` (the 108 cards in dealing order) by ``dealer``."""

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
        self.quiet_turns = 0
        """Turns begun since a card was last placed on the table (:mod:`engine.blagogo.dead_round`)."""
        self.placed_since_turnover = False
        """Whether a card was placed on the table since the bridge was last turned over."""
        self.go_out_draws: dict[tuple[int, int], dict[int, bool]] = {}
        """(seat, hand) -> face drawn -> could the seat go out (:mod:`engine.blagogo.dead_round`), as far as
        asked; valid while the table does not change, so emptied whenever a card is placed."""
        self.must_meld: int | None = None
        """B-9 ``bridge_take_must_meld``: the card the acting seat took from the bridge and must meld."""
        self.winner: int | None = None
        self.kantrame = False
        self._legal: tuple[Action, ...] | None = None

    def copy(self) -> Self:
        """An independent copy of the round as it stands (for :meth:`engine.blagogo.Game.copy`): its lists
        and the go-out cache copied, their immutable values (card indices, frozen melds, the cached legal
        actions) shared, which is what makes it tens of times faster than ``copy.deepcopy``."""
        twin = object.__new__(type(self))
        state = self.__dict__.copy()
        for name in _LISTS:
            state[name] = state[name].copy()
        state["go_out_draws"] = {key: known.copy() for key, known in self.go_out_draws.items()}
        twin.__dict__.update(state)
        return twin

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

    # ------------------------------------------------------------- checks shared by the turn and the melds

    def need_play_phase(self, what: str) -> None:
        if self.phase is not Phase.PLAY:
            raise IllegalActionError(
                Reason.WRONG_PHASE, f"draw from the deck (or take from the bridge) before you {what} (B-8)"
            )

    def playable(self, seat: int, melds: list[TableMeld]) -> list[TableMeld]:
        """The melds ``seat`` may add to and swap jokers in (B-12, ``play_on_own_melds``)."""
        if self.rules.play_on_own_melds:
            return melds
        return [m for m in melds if m.owner != seat]

    def can_meld(self, seat: int, card: int, hand: int, melds: list[TableMeld]) -> bool:
        """B-9 ``bridge_take_must_meld``: can ``card`` still reach the table this turn, under this table's
        other variants (B-12, B-14)?"""
        return can_meld_this_turn(card, hand, self.playable(seat, melds), self.rules.max_jokers_per_meld)

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
