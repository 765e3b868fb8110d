"""The bot strategies the server can run in a table's bot seats, by game and name.

A strategy sees exactly what its seat may see (the engine's observer view: T-33, B-21) plus its own seeded
random generator, and returns one of its seat's legal actions. A Blagogo strategy is also handed the seat's
Turn actions (the simple legal actions and the candidate melds, B-22), which follow from its own hand and the
table alone: a view cannot list melds, which are too many.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from clients.bots.registry import make_strategy
from clients.bots.strategy import StrategyOptions
from engine import Action, View
from engine.blagogo import Action as BlagogoAction
from engine.blagogo import Discard, Phase, TakeFromBridge
from engine.blagogo import View as BlagogoView
from engine.blagogo.actions import DRAW
from engine.selfplay import greedy_player, random_player

Strategy = Callable[[View, random.Random], Action]
"""A Thousand strategy: the seat's view (its legal actions included, T-34) to an action."""


def _bot(name: str) -> Strategy:
    """A strategy of :mod:`clients.bots`, asked afresh at each decision (it plays soundly from one view)."""

    def decide(view: View, rng: random.Random) -> Action:
        return make_strategy(name, StrategyOptions()).choose(view, rng)

    decide.__name__ = f"{name}_player"
    return decide


STRATEGIES: dict[str, Strategy] = {
    "random": random_player,
    "greedy": greedy_player,
    "heuristic": _bot("heuristic"),
    "ismcts": _bot("ismcts"),
}
"""Thousand's strategies."""

SEARCHING: Final = frozenset({"ismcts"})
"""Strategies that think for a while (50 ms a decision): the server runs them off its event loop."""

BlagogoStrategy = Callable[[BlagogoView, Sequence[BlagogoAction], random.Random], BlagogoAction]
"""A 1000 Blagogo strategy: the seat's view and its Turn actions (legal actions, then candidate melds)."""

TAKE_CHANCE: Final = 0.2
MELD_CHANCE: Final = 0.9


def blagogo_random_player(
    view: BlagogoView, choices: Sequence[BlagogoAction], rng: random.Random
) -> BlagogoAction:
    """A random legal action, weighted as ``engine.blagogo.randomplay`` weighs it, from what the seat sees.

    Uniform choice would almost never meld and would take half the bridge every turn, so: at the draw, take
    from the bridge (a random position) with probability 0.2, else draw; in the play phase, a meld action
    (a candidate meld, an addition or a joker swap) with probability 0.9 while there is one, else a random
    discard.
    """
    if not choices:
        raise ValueError(f"seat {view.viewer} has no action to choose from")
    if view.phase is Phase.DRAW:
        takes = [a for a in choices if type(a) is TakeFromBridge]
        if takes and rng.random() < TAKE_CHANCE:
            return rng.choice(takes)
        return DRAW if DRAW in choices else rng.choice(choices)
    discards: list[BlagogoAction] = []
    melds: list[BlagogoAction] = []
    for a in choices:
        (discards if type(a) is Discard else melds).append(a)
    if melds and (not discards or rng.random() < MELD_CHANCE):
        return rng.choice(melds)
    return rng.choice(discards)


BLAGOGO_STRATEGIES: dict[str, BlagogoStrategy] = {
    "random": blagogo_random_player,
}
"""1000 Blagogo's strategies."""
