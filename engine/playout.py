"""Seeded playouts, shared by both games' random players: one step, and a game played out state by state.

Both engines answer the same small contract (:class:`Playable`): a chance node is resolved by the game's own
seeded shuffle, a decision by whatever ``choose`` picks for the seat to act. The players differ (uniform for
Thousand in ``tests/randomplay.py``, weighted for 1000 Blagogo in :mod:`engine.blagogo.randomplay`); the
loop does not, so it is written once here. The random key is always passed in: nothing reads the global
generator, so a seeded playout is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar


class Playable(Protocol):
    """What a playout needs of a game (both engines' ``Game`` answer it)."""

    @property
    def is_over(self) -> bool: ...

    @property
    def is_chance_node(self) -> bool: ...

    @property
    def to_act(self) -> int | None: ...

    def apply_chance(self) -> object: ...

    def apply(self, seat: int, action: Any) -> object: ...


G = TypeVar("G", bound=Playable)


def step(game: G, choose: Callable[[G, random.Random], object], rng: random.Random) -> None:
    """One step: the seeded shuffle at a chance node, else ``choose``'s action for the seat to act."""
    if game.is_chance_node:
        game.apply_chance()
        return
    seat = game.to_act
    assert seat is not None
    game.apply(seat, choose(game, rng))


def playout(
    game: G, choose: Callable[[G, random.Random], object], rng: random.Random, go_on: Callable[[G], bool]
) -> Iterator[G]:
    """Play ``game`` step by step, yielding the (same, mutable) game first and after every step, while it is
    not over and ``go_on(game)`` holds."""
    yield game
    while not game.is_over and go_on(game):
        step(game, choose, rng)
        yield game
