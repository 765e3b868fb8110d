"""The strategy interface every bot implements, its options, and the two simplest strategies.

A strategy is an object with a ``name`` and two methods:

- ``choose(view, rng)``: the seat's decision. ``view.legal_actions`` is the seat's complete list of legal
  actions (T-34) and the strategy returns one of them. ``rng`` is the caller's seeded generator: a strategy
  reads no global randomness.
- ``observe(view)``: the seat's view after something happened (any seat's action). Calling it is optional:
  a runner that can (the local tournament, an SDK that receives every event batch) calls it after every
  change, so that a strategy with memory sees every card that is shown; a strategy must still play legally
  and sensibly from ``choose`` alone (a server's bot seat only calls ``choose``).

A strategy sees only the seat's :class:`engine.View` (T-33), never the game, so it can run in a remote
client unchanged. One strategy object plays one seat; it may keep per-deal memory, and it must notice a new
deal (or a new game) by itself from the views it is given.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from engine import Action, View
from engine.selfplay import greedy_player


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


class RandomStrategy:
    """A uniformly random legal action."""

    name = "random"

    def __init__(self, options: StrategyOptions | None = None) -> None:
        options = options or StrategyOptions()
        self._rng = random.Random(options.seed) if options.seed is not None else None

    def choose(self, view: View, rng: random.Random) -> Action:
        return (self._rng or rng).choice(view.legal_actions)

    def observe(self, view: View) -> None:
        return None


class GreedyStrategy:
    """The engine's demonstration player (:func:`engine.selfplay.greedy_player`), as a strategy."""

    name = "greedy"

    def __init__(self, options: StrategyOptions | None = None) -> None:
        options = options or StrategyOptions()
        self._rng = random.Random(options.seed) if options.seed is not None else None

    def choose(self, view: View, rng: random.Random) -> Action:
        return greedy_player(view, self._rng or rng)

    def observe(self, view: View) -> None:
        return None
