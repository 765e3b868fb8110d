"""1000 Blagogo strategies (``../shared/rules/blagogo.md``): the interface, the random and heuristic bots
(the ``planner``, a determinised search, is :mod:`bots.blagogo_planner`).

A Blagogo strategy sees what a client of the seat sees, and nothing more (B-21): the seat's
:class:`engine.blagogo.View` and the actions its Turn carries (B-22): the complete list of *simple* actions
(draw, takes, discards, joker swaps, single-card additions) followed by some candidate melds
(:class:`~engine.blagogo.LayMelds`; not every legal one). It returns one of those actions. That is what a
server's Turn holds for Blagogo (its description's ``turn_actions``, :mod:`games.blagogo`), so the same object
plays locally (:mod:`games.tournament`) and over gRPC.

- ``random``: the seeded random player of :mod:`engine.blagogo.randomplay`, from the view: at the draw a
  random take with probability 0.2, else the draw; in the play phase a random meld action (candidate meld,
  addition or swap) with probability 0.9 while there is one, else a random discard. Weighted so rounds end.
- ``heuristic``: opens as soon as a candidate reaches the opening minimum; swaps jokers out whenever it can;
  lays melds and adds to melds rather than holding cards (biggest first); takes from the bridge when the
  deepest card taken completes a meld (with the hand, the other cards taken or a meld on the table) and the
  take brings few useless cards; discards the highest-penalty card that helps no meld of its own and would
  not feed the next player (who could take it from the bridge once opened).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final, Protocol, runtime_checkable

from bots.strategy import GameStrategies, StrategyOptions
from engine.blagogo import (
    Action,
    AddToMeld,
    Card,
    Discard,
    LayMelds,
    MeldKind,
    Phase,
    SwapJoker,
    TableMeld,
    TakeFromBridge,
    View,
)
from engine.blagogo.actions import DRAW
from engine.blagogo.cards import CARD_RANK, CARD_SUIT, FIRST_JOKER, RANKS, hand_value
from engine.blagogo.melds import can_place

TAKE_CHANCE: Final = 0.2
MELD_CHANCE: Final = 0.9
MAX_SET: Final = 4


@runtime_checkable
class BlagogoStrategy(Protocol):
    """A 1000 Blagogo bot: the seat's decisions from its view and its Turn's actions alone."""

    name: str

    def choose(self, view: View, actions: Sequence[Action], rng: random.Random) -> Action:
        """One of ``actions`` (the Turn's simple legal actions, then candidate melds; never empty)."""
        ...

    def observe(self, view: View) -> None:
        """Take note of the seat's view after any action (optional for runners)."""
        ...


@runtime_checkable
class TimedBlagogoStrategy(BlagogoStrategy, Protocol):
    """A Blagogo strategy that can be told when its decision is due (the Turn's deadline): a search fits its
    thinking into ``min(budget, deadline)``."""

    def choose_by(self, view: View, actions: Sequence[Action], rng: random.Random, deadline: float) -> Action:
        """As ``choose``, ready by ``deadline`` (a ``time.monotonic()`` instant)."""
        ...


def decide_blagogo(
    strategy: BlagogoStrategy,
    view: View,
    actions: Sequence[Action],
    rng: random.Random,
    deadline: float | None = None,
) -> Action:
    """Ask ``strategy`` for its decision, handing it the ``deadline`` (``time.monotonic()``; None: none)
    when it can take one: what the SDK, the server's bot seats and the tournaments call."""
    if deadline is not None and isinstance(strategy, TimedBlagogoStrategy):
        return strategy.choose_by(view, actions, rng, deadline)
    return strategy.choose(view, actions, rng)


# ----------------------------------------------------------------------------------------------------- random


class BlagogoRandomStrategy:
    """Random legal actions, weighted as :mod:`engine.blagogo.randomplay` weighs them, so rounds end."""

    name = "random"

    def __init__(self, options: StrategyOptions | None = None) -> None:
        options = options or StrategyOptions()
        self._rng = random.Random(options.seed) if options.seed is not None else None

    def choose(self, view: View, actions: Sequence[Action], rng: random.Random) -> Action:
        if not actions:
            raise ValueError(f"seat {view.viewer} has no action to choose from")
        r = self._rng or rng
        if view.phase is Phase.DRAW:
            takes = [a for a in actions if type(a) is TakeFromBridge]
            if takes and r.random() < TAKE_CHANCE:
                return r.choice(takes)
            return DRAW if DRAW in actions else r.choice(actions)
        discards: list[Action] = []
        melds: list[Action] = []
        for a in actions:
            (discards if type(a) is Discard else melds).append(a)
        if melds and (not discards or r.random() < MELD_CHANCE):
            return r.choice(melds)
        return r.choice(discards)

    def observe(self, view: View) -> None:
        return None


# -------------------------------------------------------------------------------------------------- heuristic


def _mask(cards: Sequence[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


def fits_meld(card: Card, melds: Sequence[TableMeld]) -> bool:
    """Whether ``card`` alone can be added to some open meld on the table (B-15), or swapped for a joker."""
    i = card.index
    for m in melds:
        if m.closed:
            continue
        length = len(m.cards)
        if i >= FIRST_JOKER:
            if (m.kind is MeldKind.SET and length < MAX_SET) or (m.kind is MeldKind.RUN and length < RANKS):
                return True
            continue
        rank, suit = CARD_RANK[i], CARD_SUIT[i]
        if m.kind is MeldKind.SET:
            if rank != m.rank:
                continue
            suits = {CARD_SUIT[c.index] for c in m.cards if c.index < FIRST_JOKER}
            if suit not in suits and (length < MAX_SET or len(suits) == MAX_SET - 1):
                return True
            continue
        if suit != m.suit:
            continue
        pos = (rank - m.rank) % RANKS
        if pos < length:
            if m.cards[pos].index >= FIRST_JOKER:
                return True  # the natural card of a joker: a swap
            continue
        if length < RANKS and pos in (length, RANKS - 1):  # one past the high end, or one before the low end
            return True
    return False


def _faces(cards: Sequence[Card]) -> set[tuple[int, int]]:
    return {(CARD_RANK[c.index], CARD_SUIT[c.index]) for c in cards if c.index < FIRST_JOKER}


def helpfulness(card: Card, others: Sequence[Card]) -> int:
    """How much ``card`` helps a meld of its own with ``others`` (cards held besides it): 0 for nothing.

    A joker always helps. For a natural card: other suits of its rank (set partners) and cards of its suit one
    rank away (2 each) or two ranks away (1 each); a second copy of a face held already helps nothing more.
    """
    i = card.index
    if i >= FIRST_JOKER:
        return 100
    rank, suit = CARD_RANK[i], CARD_SUIT[i]
    faces = _faces([c for c in others if c.index != i])
    if (rank, suit) in faces:
        return 0  # a double: the other copy does the same work
    score = 2 * sum(1 for s in range(4) if s != suit and (rank, s) in faces)
    for d, w in ((1, 3), (2, 1)):
        score += w * ((((rank + d) % RANKS, suit) in faces) + (((rank - d) % RANKS, suit) in faces))
    if any(c.index >= FIRST_JOKER for c in others) and score:
        score += 1
    return score


def _meld_size(action: Action) -> int:
    if isinstance(action, LayMelds):
        return sum(len(m.cards) for m in action.melds)
    if isinstance(action, AddToMeld):
        return len(action.cards)
    return 1


def _points(action: LayMelds) -> int:
    total = 0
    for spec in action.melds:
        naturals = [c for c in spec.cards if c.index < FIRST_JOKER]
        set_like = len({CARD_RANK[c.index] for c in naturals}) == 1 and all(
            s.suit is None for s in spec.jokers
        )
        for c in spec.cards:
            rank = CARD_RANK[c.index]
            if rank < 0:
                total += 10
            elif rank == RANKS - 1:
                total += 25 if set_like else 10
            else:
                total += 5 if rank <= 7 else 10
    return total


class BlagogoHeuristicStrategy:
    """Rule-of-thumb play: open early, meld everything, take the bridge for melds, discard safely."""

    name = "heuristic"

    def __init__(self, options: StrategyOptions | None = None) -> None:
        options = options or StrategyOptions()
        self._rng = random.Random(options.seed) if options.seed is not None else None

    def observe(self, view: View) -> None:
        return None

    def choose(self, view: View, actions: Sequence[Action], rng: random.Random) -> Action:
        if not actions:
            raise ValueError(f"seat {view.viewer} has no action to choose from")
        if view.phase is Phase.DRAW:
            return self._draw(view, actions)
        return self._play(view, actions)

    # ---------------------------------------------------------------------------------------------- the draw

    def _draw(self, view: View, actions: Sequence[Action]) -> Action:
        takes = [a for a in actions if isinstance(a, TakeFromBridge)]
        best: tuple[float, int] | None = None
        choice: Action | None = None
        for take in takes:
            score = self._take_value(view, take.position)
            if score is not None and (best is None or (score, take.position) > best):
                best, choice = (score, take.position), take
        if choice is not None:
            return choice
        return DRAW if DRAW in actions else actions[0]

    def _take_value(self, view: View, position: int) -> float | None:
        """What taking from ``position`` is worth, or None when the deepest card completes no meld."""
        taken = view.bridge[position:]
        hand = (*view.hand, *taken)
        mask = _mask(hand)
        deepest = taken[0]
        if not (fits_meld(deepest, view.melds) or can_place(deepest.index, mask, view.melds)):
            return None
        useful = 0
        useless = 0.0
        for c in taken:
            if c.index >= FIRST_JOKER or fits_meld(c, view.melds) or helpfulness(c, hand) >= 2:
                useful += 1
            else:
                useless += hand_value(c.index, view.rules.ace_in_hand) / 5
        score = useful - 0.75 * useless
        return score if score > 0 else None

    # ----------------------------------------------------------------------------------------- the meld phase

    def _play(self, view: View, actions: Sequence[Action]) -> Action:
        pending = view.must_meld
        discards: list[Discard] = []
        swaps: list[SwapJoker] = []
        lays: list[LayMelds] = []
        adds: list[AddToMeld] = []
        for a in actions:
            if isinstance(a, Discard):
                discards.append(a)
            elif isinstance(a, SwapJoker):
                swaps.append(a)
            elif isinstance(a, LayMelds):
                lays.append(a)
            elif isinstance(a, AddToMeld):
                adds.append(a)
        if pending is not None:  # B-9: the card taken must go on the table first
            placing = [
                a
                for a in (*swaps, *lays, *adds)
                if (isinstance(a, SwapJoker) and a.card == pending)
                or (isinstance(a, LayMelds) and any(pending in m.cards for m in a.melds))
                or (isinstance(a, AddToMeld) and pending in a.cards)
            ]
            if placing:
                return max(placing, key=_meld_size)
        if swaps:
            return swaps[0]  # a joker in hand is worth more than the natural card it stands for
        if lays:  # the opening as soon as there is one, then every meld: the most cards, then the most points
            return max(lays, key=lambda a: (_meld_size(a), _points(a)))
        if adds:
            own = [a for a in adds if self._owner(view, a.meld_id) == view.viewer]
            naturals = [a for a in adds if all(c.index < FIRST_JOKER for c in a.cards)]
            small_hand = len(view.hand) <= 3
            for group in (own, naturals, adds if small_hand else []):
                if group:
                    return group[0]
        if discards:
            return self._discard(view, discards)
        # Nothing but melds that hold jokers: play one rather than nothing.
        return actions[0]

    @staticmethod
    def _owner(view: View, meld_id: int) -> int | None:
        for m in view.melds:
            if m.id == meld_id:
                return m.owner
        return None

    def _discard(self, view: View, discards: Sequence[Discard]) -> Discard:
        return min(discards, key=lambda action: self.discard_cost(view, action.card))

    @staticmethod
    def discard_cost(view: View, card: Card) -> tuple[float, int]:
        """What throwing ``card`` costs by the heuristic's measure (the cheapest is thrown): the help it gives
        the hand's melds and the next player, less its penalty in hand; a joker last of all."""
        if card.index >= FIRST_JOKER:
            return (1000.0, card.index)  # never throw a joker while anything else can go
        n = view.rules.players
        nxt = ((view.viewer or 0) + 1) % n
        others = [c for c in view.hand if c.index != card.index]
        help_score = helpfulness(card, others)
        feeds = view.opened[nxt] and (
            fits_meld(card, view.melds) or helpfulness(card, view.known_cards[nxt]) >= 2
        )
        penalty = hand_value(card.index, view.rules.ace_in_hand)
        return (6.0 * help_score + 25.0 * feeds - penalty, card.index)


# --------------------------------------------------------------------------------------------------- registry


def _planner(options: StrategyOptions) -> BlagogoStrategy:
    """The determinised search of :mod:`bots.blagogo_planner` (imported here: it builds on this module)."""
    from bots.blagogo_planner import BlagogoPlannerStrategy  # noqa: PLC0415

    return BlagogoPlannerStrategy(options)


BLAGOGO_STRATEGIES: dict[str, Callable[[StrategyOptions], BlagogoStrategy]] = {
    "random": BlagogoRandomStrategy,
    "heuristic": BlagogoHeuristicStrategy,
    "planner": _planner,
}
"""1000 Blagogo's strategies by name: ``BLAGOGO_STRATEGIES[name](options)`` builds one for one seat."""

BLAGOGO: Final = GameStrategies(
    "1000 Blagogo",
    BLAGOGO_STRATEGIES,
    searching=frozenset({"planner"}),
    stateless=frozenset({"random", "heuristic"}),
)
"""1000 Blagogo's registry (:mod:`bots.registry`): the planner searches and remembers the round from view to
view; the others decide from each view alone."""


def make_blagogo_strategy(name: str, options: StrategyOptions | None = None) -> BlagogoStrategy:
    """A new Blagogo strategy object for one seat; KeyError names the known strategies."""
    return BLAGOGO.make(name, options)
