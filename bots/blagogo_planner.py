"""``planner``: a 1000 Blagogo bot that plans its draws and discards over sampled worlds (determinised
search, Perfect Information Monte Carlo), stronger than ``heuristic`` in whole games (bench/README.md).

At the two decisions that shape a round, it weighs its options by playing them out:

- **the draw** (B-8, B-9): drawing from the deck, and every take from the bridge whose deepest card it
  could meld (the heuristic's measure), the heuristic's choice included;
- **the discard** (B-13): each face it may throw, the heuristic's choice and the next best by its measure.

For each option it plays the round on, in worlds drawn by :func:`bots.blagogo_worlds.sample_game` (the
hidden cards dealt at random around what the seat has seen and remembers): the option applied to a
:meth:`engine.blagogo.Game.copy` of the world, then every seat, itself included, played by the heuristic to
the round's end (or :data:`HORIZON` actions, then the table's value as it stands). Every option is played in
the same worlds (common random numbers) and valued by the seat's round score less ``relative`` times the
others' mean (B-17 to B-19: melds, the hand's penalty, going out, kantrame); the heuristic's choice stands
unless another option beats it world by world by more than :data:`MARGIN` standard errors.
Melding is left to the heuristic (it lays and adds what it can, jokers last).

It thinks for ``budget_ms`` a decision, or until the Turn's deadline if that is sooner
(:meth:`choose_by`, :func:`bots.ismcts.search_deadline`), and at least one world: with no time for one it
plays the heuristic's choice. ``iterations`` caps the worlds (deterministic play, for tests).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bots.blagogo import BlagogoHeuristicStrategy
from bots.blagogo_worlds import RoundMemory, sample_game
from bots.ismcts import search_deadline
from bots.strategy import StrategyOptions
from engine.blagogo import Action, Discard, Game, Phase, TakeFromBridge, View, view
from engine.blagogo.actions import DRAW
from engine.blagogo.cards import CARD_FACE, hand_penalty
from engine.blagogo.scoring import meld_points

HORIZON: Final = 400
"""Actions a playout goes on before the table is valued as it stands (a round rarely lasts that long)."""
TAKES: Final = 4
"""Takes from the bridge weighed besides the draw."""
DISCARDS: Final = 5
"""Discards weighed (by face), the heuristic's first."""
MARGIN: Final = 1.0
"""Standard errors by which an option must beat the heuristic's choice to be played instead."""
MIN_WORLDS: Final = 3
"""Worlds below which the heuristic's choice stands."""


@dataclass(slots=True)
class PlanStats:
    """What the last decision did: worlds played, options weighed, seconds."""

    worlds: int = 0
    options: int = 0
    seconds: float = 0.0
    searched: bool = False


class BlagogoPlannerStrategy:
    """See the module docstring."""

    name = "planner"

    def __init__(self, options: StrategyOptions | None = None) -> None:
        self.options = options or StrategyOptions()
        self._rng = random.Random(self.options.seed) if self.options.seed is not None else None
        self._heuristic = BlagogoHeuristicStrategy()
        self._memory: RoundMemory | None = None
        self._due: float | None = None
        self.stats = PlanStats()

    def observe(self, view: View) -> None:
        if view.viewer is None:
            return
        if self._memory is None or self._memory.seat != view.viewer:
            self._memory = RoundMemory(view.viewer)
        self._memory.update(view)

    def choose_by(self, view: View, actions: Sequence[Action], rng: random.Random, deadline: float) -> Action:
        """``choose``, ready by ``deadline`` (``time.monotonic()``) or within the budget, if sooner."""
        self._due = deadline
        try:
            return self.choose(view, actions, rng)
        finally:
            self._due = None

    def choose(self, view: View, actions: Sequence[Action], rng: random.Random) -> Action:
        begun = time.perf_counter()
        if not actions:
            raise ValueError(f"seat {view.viewer} has no action to choose from")
        self.observe(view)
        rng = self._rng or rng
        self.stats = PlanStats()
        default = self._heuristic.choose(view, actions, rng)
        options = self._options(view, actions, default)
        if len(options) < 2:
            return default
        stop = search_deadline(begun, self.options.budget_ms, self._due)
        cap = self.options.iterations
        values: list[list[float]] = [[] for _ in options]
        worlds = 0
        seat = view.viewer
        assert seat is not None
        while (cap is None or worlds < cap) and time.perf_counter() < stop:
            world = sample_game(view, self._memory, rng)
            played: list[float] = []
            for option in options:
                game = world.copy()
                game.apply(seat, option)
                value = self._playout(game, seat, rng, stop)
                if value is None:
                    break  # the clock ran out mid-world: the world is left out
                played.append(value)
            if len(played) < len(options):
                break
            for k, value in enumerate(played):
                values[k].append(value)
            worlds += 1
        self.stats = PlanStats(worlds, len(options), time.perf_counter() - begun, worlds > 0)
        return options[_best(values)]

    # ------------------------------------------------------------------------------------------ options

    def _options(self, v: View, actions: Sequence[Action], default: Action) -> list[Action]:
        """The options weighed, the heuristic's choice first; one or none: nothing to weigh."""
        if v.phase is Phase.DRAW:
            takes = [a for a in actions if isinstance(a, TakeFromBridge)]
            valued = []
            for take in takes:
                value = self._heuristic._take_value(v, take.position)
                if value is not None:
                    valued.append((value, take))
            valued.sort(key=lambda pair: -pair[0])
            options: list[Action] = [default]
            weighed: list[Action] = [DRAW, *(t for _, t in valued[:TAKES])]
            for option in weighed:
                if option in actions and option not in options:
                    options.append(option)
            return options
        if not isinstance(default, Discard) or v.must_meld is not None:
            return [default]  # melding: the heuristic lays what it can
        by_face: dict[int, Discard] = {CARD_FACE[default.card.index]: default}
        discards = [a for a in actions if isinstance(a, Discard)]
        ranked = sorted(discards, key=lambda a: self._heuristic.discard_cost(v, a.card))
        for a in ranked:
            by_face.setdefault(CARD_FACE[a.card.index], a)
            if len(by_face) >= DISCARDS:
                break
        return list(by_face.values())

    # ------------------------------------------------------------------------------------------ playouts

    def _playout(self, game: Game, seat: int, rng: random.Random, stop: float) -> float | None:
        """Play the round on with the heuristic in every seat; the seat's value of how it ends (None: the
        clock reached ``stop``, a ``perf_counter()`` instant, first)."""
        before = list(game.scores)
        heuristic = self._heuristic
        for step in range(HORIZON):
            if game.is_chance_node or game.is_over:
                break
            if step % 8 == 0 and time.perf_counter() >= stop:
                return None
            actor = game.to_act
            assert actor is not None
            rnd = game.round
            assert rnd is not None
            legal = game.legal_actions()
            actions = legal if rnd.phase is Phase.DRAW else (*legal, *game.candidate_melds())
            game.apply(actor, heuristic.choose(view(game, actor), actions, rng))
        rnd = game.round
        assert rnd is not None
        if rnd.is_over:
            deltas = [after - b for after, b in zip(game.scores, before, strict=True)]
        else:
            melds = meld_points(game.rules, rnd.melds)
            ace = game.rules.ace_in_hand
            deltas = [melds[s] - hand_penalty(rnd.hands[s], ace) for s in range(game.rules.players)]
        others = [d for s, d in enumerate(deltas) if s != seat]
        return deltas[seat] - self.options.relative * (sum(others) / len(others))


def _best(values: list[list[float]]) -> int:
    """The option to play: the heuristic's (0) unless another beats it, world by world, by more than
    :data:`MARGIN` standard errors of the paired difference (few worlds are noisy: a deviation on noise
    alone plays worse than the heuristic); then the one that beats it by the most."""
    worlds = len(values[0])
    if worlds < MIN_WORLDS:
        return 0
    best, best_gain = 0, 0.0
    for k in range(1, len(values)):
        diffs = [a - b for a, b in zip(values[k], values[0], strict=True)]
        mean = sum(diffs) / worlds
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (worlds - 1) / worlds)
        if mean - MARGIN * spread > 0 and mean > best_gain:
            best, best_gain = k, mean
    return best


__all__ = ["BlagogoPlannerStrategy", "PlanStats"]
