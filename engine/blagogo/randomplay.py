"""A seeded random player for 1000 Blagogo, used by the property tests and the benchmark.

It plays only legal actions: a random simple action from ``legal_actions()`` or a random proposal of
``candidate_melds()``. Pure uniform choice would almost never meld (a turn offers a dozen discards and a
handful of melds) and would take half the bridge every turn, so the choice is weighted: at the draw it takes
from the bridge with probability ``take_chance`` (a uniformly random position), and in the meld phase it
makes a meld action (a candidate meld, an addition or a swap, uniformly) with probability ``meld_chance``
while there is one, else discards a random card.

The random key is always passed in (a ``random.Random``); nothing here reads the global generator, and the
engine lists actions in a deterministic order, so a seeded game is reproducible (B-23).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import playout
from engine.blagogo.actions import DRAW, Action, Discard, TakeFromBridge
from engine.blagogo.game import Game
from engine.blagogo.round import Phase
from engine.blagogo.rules import BlagogoRules


def random_action(
    game: Game, rng: random.Random, meld_chance: float = 0.9, take_chance: float = 0.2
) -> Action:
    """A random legal action of the seat to act."""
    rnd = game.round
    assert rnd is not None and not rnd.is_over
    legal = game.legal_actions()
    if rnd.phase is Phase.DRAW:
        takes = [a for a in legal if type(a) is TakeFromBridge]
        if takes and rng.random() < take_chance:
            return rng.choice(takes)
        if DRAW in legal:
            return DRAW
        return rng.choice(legal)
    discards: list[Action] = []
    melds: list[Action] = []
    for a in legal:
        (discards if type(a) is Discard else melds).append(a)
    melds.extend(game.candidate_melds())
    if melds and (not discards or rng.random() < meld_chance):
        return rng.choice(melds)
    if not discards:
        raise AssertionError(f"seat {game.to_act} has nothing to do (a bridge card it cannot meld?)")
    return rng.choice(discards)


def step(game: Game, rng: random.Random) -> None:
    """The seeded shuffle at a chance node, else a random legal action (:func:`engine.playout.step`)."""
    playout.step(game, random_action, rng)


def states(rules: BlagogoRules, seed: int, max_rounds: int, max_actions: int = 100_000) -> Iterator[Game]:
    """Play a game with random players, yielding the (same, mutable) game after every step.

    Play stops when the game is over, when ``max_rounds`` rounds have been dealt and the last is over, or
    after ``max_actions`` actions. ``seed`` seeds both the game and the players.
    """
    steps = 0

    def go_on(game: Game) -> bool:
        nonlocal steps
        steps += 1
        return steps <= max_actions and not (game.is_chance_node and game.rounds_dealt >= max_rounds)

    return playout.playout(Game(rules, seed), random_action, random.Random(seed), go_on)


def play(rules: BlagogoRules, seed: int, max_rounds: int, max_actions: int = 100_000) -> Game:
    """The game after :func:`states` has run to its end."""
    game = Game(rules, seed)
    for game in states(rules, seed, max_rounds, max_actions):  # noqa: B007 - the last state is the result
        pass
    return game
