"""A 1000 Blagogo world sampler: a whole :class:`engine.blagogo.Game` consistent with what one seat has seen
(B-21), for a search to play futures in (:mod:`bots.blagogo_planner`).

What a seat has seen is its view (its hand, the bridge, the table, each seat's card count and the cards
everyone knows a seat holds) plus what it can remember from view to view, which :class:`RoundMemory` keeps:

- the deck's order after the bridge is turned over (B-10: the deck becomes the bridge face down, the
  earliest-laid card on top, so every card of it is known but the discard that turned it, unless the seat
  made that discard itself), and so which card each later draw from that deck gave to whom;
- how often the deck was turned over this round (``turnover_limit``), and whether the seat opened in the
  turn under way (kantrame, B-19).

:func:`sample_game` deals the cards the seat cannot place (those no one has shown) at random into the other
hands (each to its count, around the cards known to be there) and the unknown places of the deck. The
sampled game holds the seat's whole public state (sheet, dealer, round number, bridge, melds, who opened,
the turn and its phase, the card to meld) and so gives the seat the same legal actions; it has no history
(a search plays forward from it, never replays it). Where the view cannot say (how many turns each seat has
had, how long the table has been quiet), the world takes the reading under which the round goes on
(:mod:`engine.blagogo.dead_round` may end it later than the real one would).
"""

from __future__ import annotations

import random

from engine.blagogo import CARDS, Game, Phase, View
from engine.blagogo.cards import FULL_MASK, indices_of, mask_of
from engine.blagogo.round import Round

UNKNOWN = -1
"""A place in the remembered deck whose card the seat never saw."""


class RoundMemory:
    """What one seat remembers of the round under way from its successive views (see the module docstring).

    Views must come after every action (as a table shows them); a gap (a view missed, a seat taken over
    mid-round) is noticed by the deck's count and forgets the deck's order rather than trust it.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.round_number = -1
        self.turnovers = 0
        self.deck: list[int] | None = None
        """The deck (top last) since the last turnover, :data:`UNKNOWN` where unseen; None: not known."""
        self.holds: list[int] = []
        """Per seat: cards the seat saw go into that hand from the remembered deck (a mask)."""
        self.opened_this_turn = False
        self._last: View | None = None

    def update(self, view: View) -> None:
        last = self._last
        self._last = view
        n = view.rules.players
        if view.phase is None or view.round_number != self.round_number or last is None:
            self.round_number = view.round_number
            self.turnovers = 0
            self.deck = None
            self.holds = [0] * n
            self.opened_this_turn = False
            return
        if view.to_act != last.to_act:
            self.opened_this_turn = False
        if view.to_act == self.seat and view.opened[self.seat] and not last.opened[self.seat]:
            self.opened_this_turn = True
        if view.deck_count > last.deck_count:  # B-10: the bridge was turned over by the last discard
            self.turnovers += 1
            discard = UNKNOWN
            if last.to_act == self.seat:
                gone = mask_of(last.hand) & ~mask_of(view.hand)
                discard = next(iter(indices_of(gone)), UNKNOWN)
            deck = [c.index for c in last.bridge] + [discard]
            self.deck = deck[::-1] if len(deck) == view.deck_count else None
        elif view.deck_count == last.deck_count - 1 and self.deck is not None and last.to_act is not None:
            card = self.deck.pop()
            if card != UNKNOWN and last.to_act != self.seat:
                self.holds[last.to_act] |= 1 << card
        elif view.deck_count != last.deck_count:
            self.deck = None
        if self.deck is not None and len(self.deck) != view.deck_count:
            self.deck = None
        shown = mask_of(view.bridge) | mask_of([c for m in view.melds for c in m.cards])
        self.holds = [h & ~shown for h in self.holds]


def sample_game(view: View, memory: RoundMemory | None, rng: random.Random) -> Game:
    """A game in the position ``view`` shows, the cards its seat cannot see dealt at random (see the module
    docstring). ``view`` must be a seat's view of a round in progress."""
    rules = view.rules
    me = view.viewer
    if me is None or view.phase is None or view.phase is Phase.OVER:
        raise ValueError("a world is sampled for a seat's view of a round in progress")
    n = rules.players
    hand = mask_of(view.hand)
    public = mask_of(view.bridge) | mask_of([c for m in view.melds for c in m.cards])
    known = [mask_of(cards) & ~public for cards in view.known_cards]
    known[me] = hand
    deck_known: list[int] | None = None
    if memory is not None and memory.deck is not None and len(memory.deck) == view.deck_count:
        deck_known = memory.deck
        for s in range(n):
            if s != me:
                known[s] |= memory.holds[s] & ~public & ~hand
    fixed = hand | public
    for s in range(n):
        fixed |= known[s]
    if deck_known is not None:
        fixed |= mask_of([CARDS[i] for i in deck_known if i != UNKNOWN])
    pool = [i for i in range(len(CARDS)) if not fixed >> i & 1]
    missing = [view.card_counts[s] - known[s].bit_count() for s in range(n)]
    places = view.deck_count if deck_known is None else deck_known.count(UNKNOWN)
    if any(m < 0 for m in missing) or sum(missing) + places != len(pool) or fixed & ~FULL_MASK:
        return sample_game(view, None, rng) if memory is not None else _inconsistent(view)
    rng.shuffle(pool)
    hands = list(known)
    at = 0
    for s in range(n):
        for i in pool[at : at + missing[s]]:
            hands[s] |= 1 << i
        at += missing[s]
    rest = iter(pool[at:])
    deck = (
        [next(rest) for _ in range(view.deck_count)]
        if deck_known is None
        else [next(rest) if i == UNKNOWN else i for i in deck_known]
    )
    return _game(view, hands, deck, memory)


def _inconsistent(view: View) -> Game:
    raise ValueError(f"seat {view.viewer}'s view cannot be dealt out (card counts do not add up)")


def _game(view: View, hands: list[int], deck: list[int], memory: RoundMemory | None) -> Game:
    rules = view.rules
    n = rules.players
    game = Game(rules, 0, view.dealer)
    game.scores = list(view.scores)
    game.rounds_dealt = view.round_number
    rnd = Round(rules, view.round_number, view.dealer, CARDS)
    rnd.hands = hands
    rnd.dealt = tuple(hands)
    rnd.bridge = [c.index for c in view.bridge]
    rnd.deck = deck
    rnd.melds = list(view.melds)
    rnd.opened = list(view.opened)
    rnd.known = [mask_of(cards) for cards in view.known_cards]
    rnd.phase = view.phase if view.phase is not None else Phase.PLAY
    rnd.to_act = view.to_act
    # Turns each seat has had are not shown: every seat is in its second turn or later (no kantrame for a
    # seat that opened before this turn), and the seat to act opened in this turn if it remembers so.
    rnd.turns = [2] * n
    rnd.opened_on_turn = [1 if o else 0 for o in view.opened]
    me = view.viewer
    if memory is not None and memory.opened_this_turn and me is not None and view.to_act == me:
        rnd.opened_on_turn[me] = 2
    rnd.turnovers = 0 if memory is None else memory.turnovers
    rnd.quiet_turns = 0
    rnd.placed_since_turnover = True
    rnd.must_meld = None if view.must_meld is None else view.must_meld.index
    game.round = rnd
    return game


__all__ = ["UNKNOWN", "RoundMemory", "sample_game"]
