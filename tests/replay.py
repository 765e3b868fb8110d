"""A table of server bots replayed in-process, so a game reported by its seed can become a rule test.

A server table of bots is a pure function of its rules, seed, first dealer and strategies: each bot seat
has one player of its game's adapter for the whole game (server/bots.py), draws from
``random.Random(f"{seed}:bot:{seat}")``, decides from what the seat may see and, when its strategy keeps
memory, is shown its seat's view after every change. Playing the same steps here reproduces the reported game
event for event, without a server.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from server.games import BLAGOGO, THOUSAND, AnyAdapter


def replay_bots(
    rules: Any,
    seed: int,
    strategies: Sequence[str],
    first_dealer: int | None = None,
    *,
    until: Callable[[Any], bool] = lambda game: False,
) -> Any:
    """Play the bots' game until it is over or ``until(game)`` holds after a step; returns the game."""
    adapter: AnyAdapter = BLAGOGO if isinstance(rules, BLAGOGO.rules_type) else THOUSAND
    game: Any = adapter.new_game(rules, seed, first_dealer)
    players = [adapter.new_bot(strategy) for strategy in strategies]
    rngs = [random.Random(f"{seed}:bot:{seat}") for seat in range(len(strategies))]
    while not game.is_over and not until(game):
        if game.is_chance_node:
            game.apply_chance()
            if game.is_chance_node:
                continue
        else:
            seat = game.to_act
            game.apply(seat, players[seat].decide(game, seat, rngs[seat]))
            if game.is_chance_node and not game.is_over:
                continue  # the server deals the next deal before its bots see the change
        for s, player in enumerate(players):
            if player.observes:
                player.observe(game, s)
    return game
