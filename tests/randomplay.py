"""Seeded, uniformly random players for property and golden tests.

The random key is always passed in (a ``random.Random``); nothing here reads the global generator. Legal
actions are put in a canonical order before choosing, so the choice depends on the *set* of legal actions and
not on the order the engine lists them in: reordering the legal list inside the engine leaves every seeded
game (and so every golden transcript) unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import Action, Game, Rules, playout
from engine.deal import Deal


def action_key(action: Action) -> tuple[str, str]:
    return type(action).__name__, repr(action)


def random_action(game: Game, rng: random.Random) -> Action:
    """A uniformly random legal action of the seat to act."""
    return rng.choice(sorted(game.legal_actions(), key=action_key))


def first_deal(rules: Rules, seed: int) -> Deal:
    """The seeded game's first deal, its cards dealt: what the tests that walk one deal step by step start
    from."""
    game = Game(rules, seed)
    game.apply_chance()
    deal = game.deal
    assert deal is not None
    return deal


def turns(deal: Deal) -> Iterator[int]:
    """The seat to act at each step of ``deal`` until it is over; the caller applies that seat's action
    before asking for the next."""
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None
        yield seat


def step(game: Game, rng: random.Random) -> None:
    """The seeded shuffle at a chance node, else a random legal action (:func:`engine.playout.step`)."""
    playout.step(game, random_action, rng)


def states(rules: Rules, seed: int, max_deals: int) -> Iterator[Game]:
    """Play a game with random players, yielding the (same, mutable) game after every step.

    The first yield is the fresh game; play stops when the game is over or when ``max_deals`` deals (redeals
    included) have been dealt and the last of them is over. ``seed`` seeds both the game and the players.
    """
    return playout.playout(
        Game(rules, seed),
        random_action,
        random.Random(seed),
        lambda game: not (game.is_chance_node and game.deals_dealt >= max_deals),
    )


def play(rules: Rules, seed: int, max_deals: int) -> Game:
    """The game after :func:`states` has run to its end."""
    game = Game(rules, seed)
    for game in states(rules, seed, max_deals):  # noqa: B007 - the last state is the result
        pass
    return game
