"""Thousand as a PettingZoo AEC environment: :class:`ThousandEnv` (``env()`` for the wrapped one).

Agents ``player_0`` .. ``player_{n-1}`` are the seats. Each agent's observation is a dict of
``observation`` (:func:`engine.encoding.observation` of its view: float32, seats relative to the agent) and
``action_mask`` (int8 over :data:`engine.encoding.NUM_ACTIONS`, ones only for the agent to act); actions are
:mod:`engine.encoding`'s ids. The deck of every deal is shuffled by the environment's generator, seeded by
``reset(seed=...)``, so an episode is a function of its seed and the actions. Rewards are the score changes
on the sheet after each action (T-23 to T-29), so an agent's cumulative reward is its score; an episode
lasts ``max_deals`` deals (0: the whole game to 1000). Keyword arguments are the variants of
:class:`engine.Rules` and the episode's parameters (:mod:`bots.envs.episode`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo.utils import wrappers

from bots.envs.aec_base import CardGameAEC
from bots.envs.observers import THOUSAND


class ThousandEnv(CardGameAEC):
    """See the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "thousand_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        super().__init__(THOUSAND, render_mode, params)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self.episode.game
        deal = game.deal
        lines = [f"scores {[r.score for r in game.records]}"]
        if deal is not None:
            for s in range(self.rules.players):
                lines.append(f"seat {s}: {' '.join(str(c) for c in deal.hand(s))}")
        return "\n".join(lines)


def env(**kwargs: Any) -> Any:
    """A :class:`ThousandEnv` wrapped as PettingZoo's classic environments are (order enforcing, an
    out-of-bounds check)."""
    wrapped: Any = ThousandEnv(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
