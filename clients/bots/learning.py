"""The learning codec for bot authors, as the SDK offers it: a strategy trained in OpenSpiel, PettingZoo or
Gymnasium (:mod:`bots.envs`) plays a live table through the same ids and tensors it learned on.

:func:`encode` turns the view a strategy is handed (``choose(view, rng)``) into the observation tensor and
the legal mask, and :func:`decode` a chosen id back into the action to return. Both are
:mod:`engine.encoding`'s (its docstring gives the layout), named here so that a bot needs no other import.
"""

from __future__ import annotations

from engine import Action, View
from engine.encoding import (
    LAYOUT,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    EncodingError,
    action_id,
    action_of,
    legal_mask,
    observation,
)


def encode(view: View) -> tuple[list[float], list[int]]:
    """The view's observation tensor and its legal-action mask (all zeros when the seat is not to act)."""
    return observation(view), legal_mask(view.legal_actions)


def decode(view: View, chosen: int) -> Action:
    """The action of id ``chosen``, which must be legal in ``view``.

    :raises EncodingError: for an id outside the action space or one not legal now.
    """
    action = action_of(chosen)
    if action not in view.legal_actions:
        raise EncodingError(f"action id {chosen} ({action!r}) is not legal now")
    return action


__all__ = [
    "LAYOUT",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "EncodingError",
    "action_id",
    "action_of",
    "decode",
    "encode",
    "legal_mask",
    "observation",
]
