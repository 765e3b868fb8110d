"""The strategy interface every bot implements, its options, a game's registry and the two simplest bots.

A strategy is an object with a ``name`` and two methods:

- ``choose(view, rng)``: the seat's decision. ``view.legal_actions`` is the seat's complete list of legal
  actions (T-34) and the strategy returns one of them. ``rng`` is the caller's seeded generator: a strategy
  reads no global randomness.
- ``observe(view)``: the seat's view after something happened (any seat's action). Calling it is optional:
  a runner that can (the local tournament, an SDK that receives every event batch) calls it after every
  change, so that a strategy with memory sees every card that is shown (the server does it for its bot
  seats); a strategy must still play legally and sensibly from ``choose`` alone.

A strategy sees only the seat's :class:`engine.View` (T-33), never the game, so it can run in a remote
client unchanged. One strategy object plays one seat; it may keep per-deal memory, and it must notice a new
deal (or a new game) by itself from the views it is given.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

from engine import Action, Bid, Card, DeclineDark, DiscardCard, GiveCard, NameContract, Pass, PlayCard, View
from engine.cards import MARRIAGE_MASKS, marriage_points_in, mask_of, points_of


@runtime_checkable
class Strategy(Protocol):
    """A bot: the seat's decisions from the seat's views alone."""

    name: str

    def choose(self, view: View, rng: random.Random) -> Action:
        """One of ``view.legal_actions`` (never called with an empty list)."""
        ...

    def observe(self, view: View) -> None:
        """Take note of the seat's view after any action; optional for runners, a no-op for stateless bots."""
        ...


@runtime_checkable
class TimedStrategy(Protocol):
    """A strategy that can be told when its decision is due (the Turn's deadline): a search fits its
    thinking into ``min(budget, deadline)``."""

    def choose_by(self, view: View, rng: random.Random, deadline: float) -> Action:
        """As ``choose``, ready by ``deadline`` (a ``time.monotonic()`` instant)."""
        ...


def decide(strategy: Strategy, view: View, rng: random.Random, deadline: float | None = None) -> Action:
    """Ask ``strategy`` for its decision, handing it the ``deadline`` (``time.monotonic()``; None: none)
    when it can take one (:class:`TimedStrategy`): what the SDK and the server's bot seats call."""
    if deadline is not None and isinstance(strategy, TimedStrategy):
        return strategy.choose_by(view, rng, deadline)
    return strategy.choose(view, rng)


@dataclass(frozen=True, slots=True)
class StrategyOptions:
    """Options shared by the strategies; each uses the ones that concern it.

    ``budget_ms`` is the thinking time per decision of the search strategies (0 or less: no time limit,
    which needs ``iterations``), ``iterations`` caps the iterations of one decision (None: only the time
    limits), and ``seed``, when set, makes a strategy use its own generator seeded with it instead of the
    caller's ``rng``.
    ``relative`` weighs the other seats' scores in what a strategy maximises: its own score of the deal
    minus ``relative`` times the mean score of the other seats that play the deal (0: only its own score;
    1: its lead over the average opponent, which is what wins a game).
    """

    budget_ms: float = 50.0
    iterations: int | None = None
    seed: int | None = None
    relative: float = 0.5

    def __post_init__(self) -> None:
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")
        if self.budget_ms <= 0 and self.iterations is None:
            raise ValueError("a strategy without a time budget needs an iteration cap")
        if not 0.0 <= self.relative <= 1.0:
            raise ValueError(f"relative must be between 0 and 1, got {self.relative}")


S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class GameStrategies(Generic[S]):
    """One game's registry of strategies: each built by name, and what a runner must know of them.

    The local tournaments, the SDK's command line and the server's bot seats all build their bots here, so a
    strategy added to a game's registry plays everywhere at once.
    """

    title: str
    """The game's name in messages."""
    factories: Mapping[str, Callable[[StrategyOptions], S]]
    """Strategy name to the factory of a new strategy object (one per seat)."""
    searching: frozenset[str] = frozenset()
    """The strategies that think for a while (``budget_ms`` a decision): a runner with an event loop runs
    them in a worker thread."""
    stateless: frozenset[str] = frozenset()
    """The strategies whose ``observe`` does nothing (they decide from each view alone): a runner may skip
    building views for them. Every other strategy is shown its seat's view after each change."""

    def names(self) -> list[str]:
        return sorted(self.factories)

    def make(self, name: str, options: StrategyOptions | None = None) -> S:
        """A new strategy object for one seat; KeyError names the known strategies."""
        try:
            factory = self.factories[name]
        except KeyError:
            known = ", ".join(self.names())
            raise KeyError(f"no {self.title} strategy {name!r} (known: {known})") from None
        return factory(options or StrategyOptions())


# ------------------------------------------------------------------------------------ the simplest players


def random_player(view: View, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(view.legal_actions)


def greedy_player(view: View, rng: random.Random) -> Action:
    """Bid what the hand is worth, give away the cheapest cards, take tricks as cheaply as possible."""
    legal = view.legal_actions
    hand = mask_of(view.hand)
    kinds = {type(a) for a in legal}
    if DeclineDark in kinds:
        return next(a for a in legal if isinstance(a, DeclineDark))
    if Bid in kinds or Pass in kinds:
        worth = points_of(hand) + marriage_points_in(hand) + 25
        bids = [a for a in legal if isinstance(a, Bid) and a.value <= worth]
        return bids[0] if bids else next((a for a in legal if isinstance(a, Pass)), legal[0])
    if GiveCard in kinds or DiscardCard in kinds:
        gives = [a for a in legal if isinstance(a, GiveCard | DiscardCard)]

        def cost(a: GiveCard | DiscardCard) -> tuple[bool, int]:
            pair = MARRIAGE_MASKS[a.card.suit]
            return (hand & pair == pair, a.card.points)

        return min(gives, key=cost)
    if NameContract in kinds:
        return next(a for a in legal if isinstance(a, NameContract))
    plays = [a for a in legal if isinstance(a, PlayCard)]
    if not plays:
        return rng.choice(legal)
    if not view.trick:
        marriages = [a for a in plays if a.marriage]
        if marriages:
            return max(marriages, key=lambda a: a.card.suit)
        return max(plays, key=lambda a: (a.card.rank, -a.card.suit))
    winning = [a for a in plays if _wins(view, a)]
    if winning:
        return min(winning, key=lambda a: a.card.rank)
    return min(plays, key=lambda a: (a.card.points, a.card.rank))


def _wins(view: View, action: PlayCard) -> bool:
    """Whether ``action`` would beat every card now in the trick."""
    best = view.trick[0][1]
    for _, c in view.trick[1:]:
        if _beats(c, best, view):
            best = c
    return _beats(action.card, best, view)


def _beats(card: Card, best: Card, view: View) -> bool:
    if card.suit == best.suit:
        return card.rank > best.rank
    return card.suit == view.trump


class RandomStrategy:
    """A uniformly random legal action."""

    name = "random"

    def __init__(self, options: StrategyOptions | None = None) -> None:
        options = options or StrategyOptions()
        self._rng = random.Random(options.seed) if options.seed is not None else None

    def choose(self, view: View, rng: random.Random) -> Action:
        return random_player(view, self._rng or rng)

    def observe(self, view: View) -> None:
        return None


class GreedyStrategy:
    """:func:`greedy_player` as a strategy: a yardstick, and what plays a seat taken over on time."""

    name = "greedy"

    def __init__(self, options: StrategyOptions | None = None) -> None:
        options = options or StrategyOptions()
        self._rng = random.Random(options.seed) if options.seed is not None else None

    def choose(self, view: View, rng: random.Random) -> Action:
        return greedy_player(view, self._rng or rng)

    def observe(self, view: View) -> None:
        return None
