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
    record: list[int] | None = None,
) -> Any:
    """Play the bots' game until it is over or ``until(game)`` holds after a step; returns the game.
    ``record`` collects each decision as its index among the legal actions (for :func:`replay_choices`)."""
    adapter = _adapter(rules)
    players = [adapter.new_bot(strategy) for strategy in strategies]
    rngs = [random.Random(f"{seed}:bot:{seat}") for seat in range(len(strategies))]

    def decide(game: Any, seat: int) -> Any:
        action = players[seat].decide(game, seat, rngs[seat])
        if record is not None:
            record.append(list(game.legal_actions()).index(action))
        return action

    return _play(adapter.new_game(rules, seed, first_dealer), decide, players, until)


def replay_choices(
    rules: Any,
    seed: int,
    choices: Sequence[int],
    first_dealer: int | None = None,
    *,
    until: Callable[[Any], bool] = lambda game: False,
) -> Any:
    """A reported game replayed from its recorded decisions (``replay_bots(..., record=...)``), not from its
    bots: the bots get better and play other games, and the reported game must stay the one reported."""
    decisions = iter(choices)

    def decide(game: Any, seat: int) -> Any:
        return list(game.legal_actions())[next(decisions)]

    return _play(_adapter(rules).new_game(rules, seed, first_dealer), decide, [], until)


def _adapter(rules: Any) -> AnyAdapter:
    return BLAGOGO if isinstance(rules, BLAGOGO.rules_type) else THOUSAND


def _play(
    game: Any, decide: Callable[[Any, int], Any], players: Sequence[Any], until: Callable[[Any], bool]
) -> Any:
    """The server's order of steps: chance, a decision, then every observing bot shown its seat's view (not
    between the end of a deal and the next deal's dealing, which the server does before its bots see it)."""
    while not game.is_over and not until(game):
        if game.is_chance_node:
            game.apply_chance()
            if game.is_chance_node:
                continue
        else:
            seat = game.to_act
            game.apply(seat, decide(game, seat))
            if game.is_chance_node and not game.is_over:
                continue  # the server deals the next deal before its bots see the change
        for s, player in enumerate(players):
            if player.observes:
                player.observe(game, s)
    return game
