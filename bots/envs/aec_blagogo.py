"""1000 Blagogo as a PettingZoo AEC environment: :class:`BlagogoEnv` (``env()`` for the wrapped one).

As :mod:`bots.envs.aec` for Thousand: agents ``player_0`` .. are the seats; an observation is a dict of
``observation`` (:func:`engine.blagogo.encoding.observation` of the agent's view) and ``action_mask``
(the turn's simple actions and candidate melds, B-22, as :mod:`engine.blagogo.encoding` ids); rewards are the
score changes on the sheet; the deck of every round is shuffled by the generator ``reset(seed=...)`` seeds;
an episode lasts ``max_rounds`` rounds (0: the game), with ``turnover_limit`` defaulting to
:data:`~bots.envs.blagogo_episode.TURNOVER_LIMIT` so that every round ends.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo.utils import wrappers

from bots.envs.aec_base import CardGameAEC
from bots.envs.observers import BLAGOGO


class BlagogoEnv(CardGameAEC):
    """See the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "blagogo_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        super().__init__(BLAGOGO, render_mode, params)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self.episode.game
        return f"round {game.rounds_dealt}; scores {game.scores}"


def env(**kwargs: Any) -> Any:
    """A :class:`BlagogoEnv` wrapped as PettingZoo's classic environments are."""
    wrapped: Any = BlagogoEnv(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
