"""Thousand's information-state tensor: the observation (:mod:`engine.encoding`) and the deal's actions as
the seat saw them, in order, which the observation alone folds away (who bid what when, who led each trick,
the order of the play).

Layout (:data:`INFORMATION_STATE_SIZE` floats)::

    observation (engine.encoding.OBSERVATION_SIZE) ·
    MAX_MOVES slots of the current deal's actions, the earliest first, each:
        actor 4 (relative to the viewer) · action id 283 (one-hot; blank for a hidden one) ·
        hidden card given 5 (one-hot: to a seat relative to the viewer 0..3, or discarded 4)

A card another seat gave to a third seat, or discarded (T-16, T-17), is hidden from the viewer (T-33): its
slot says who gave a card to whom, not which. A Thousand deal holds at most about a hundred actions (dark
decisions, a rising auction of 61 values at most, talon, exchange, contract, 24 plays), so
:data:`MAX_MOVES` holds every one: within a deal the tensor is perfect recall. Earlier deals are summarised by
the score sheet the observation holds (scores, barrel, bolts), not replayed: across deals it is not strictly
perfect recall (two sheets reached by different past deals look the same), which does not change a decision
since every deal is shuffled afresh and only the sheet carries over.
"""

from __future__ import annotations

from typing import Final

from engine.actions import Action, DiscardCard, GiveCard, Shuffle
from engine.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_id, observation
from engine.game import Game
from engine.observer import view

MAX_MOVES: Final = 112
SEATS: Final = 4
SLOT: Final = SEATS + NUM_ACTIONS + SEATS + 1
INFORMATION_STATE_SIZE: Final = OBSERVATION_SIZE + MAX_MOVES * SLOT


def deal_moves(game: Game) -> list[tuple[int, Action]]:
    """The current deal's actions (after its last shuffle), each with its seat."""
    moves: list[tuple[int, Action]] = []
    for seat, action in reversed(game.history):
        if seat is None or isinstance(action, Shuffle):
            break
        moves.append((seat, action))
    moves.reverse()
    return moves


def information_state_tensor(game: Game, seat: int) -> list[float]:
    """What ``seat`` has seen of ``game``'s current deal, as floats (layout in the module docstring)."""
    out = observation(view(game, seat))
    out.extend([0.0] * (MAX_MOVES * SLOT))
    n = game.rules.players
    for k, (actor, action) in enumerate(deal_moves(game)[:MAX_MOVES]):
        base = OBSERVATION_SIZE + k * SLOT
        out[base + (actor - seat) % n] = 1.0
        hidden = actor != seat and (
            isinstance(action, DiscardCard) or (isinstance(action, GiveCard) and action.to != seat)
        )
        if not hidden:
            out[base + SEATS + action_id(action)] = 1.0
        elif isinstance(action, GiveCard):
            out[base + SEATS + NUM_ACTIONS + (action.to - seat) % n] = 1.0
        else:
            out[base + SEATS + NUM_ACTIONS + SEATS] = 1.0
    return out


__all__ = ["INFORMATION_STATE_SIZE", "MAX_MOVES", "deal_moves", "information_state_tensor"]
