"""Thousand as a Gymnasium environment for one seat against chosen bots: :class:`SingleSeatEnv`.

The learner plays ``seat``; the other seats are played by strategies of :mod:`bots.registry` (by name,
``opponents``), each shown its seat's view after every action as at a table. An observation is
:func:`engine.encoding.observation` of the learner's view; ``info["action_mask"]`` holds the legal mask
(:func:`engine.encoding.legal_mask`). The reward of a step is the learner's score change on the sheet since
its previous step, so an episode's return is its score. An action that is not legal changes nothing: its
reward is ``-illegal_penalty`` and ``info["illegal"]`` is True (a policy is expected to mask). The decks, and
the bots' decisions, follow from the generator ``reset(seed=...)`` seeds, so an episode is a function of the
seed and the learner's actions (bots with a time budget aside: give searching bots an ``iterations`` cap
and no budget for that).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.envs.observers import THOUSAND
from bots.envs.single_base import SingleSeatBase
from bots.strategy import StrategyOptions
from engine import view


class SingleSeatEnv(SingleSeatBase):
    """See the module docstring. Keyword arguments besides these are the variants of :class:`engine.Rules`
    and the episode's ``max_deals`` and ``first_dealer`` (:mod:`bots.envs.episode`)."""

    def __init__(
        self,
        opponents: Sequence[str] = ("heuristic", "heuristic"),
        seat: int = 0,
        options: StrategyOptions | None = None,
        illegal_penalty: float = 10.0,
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        super().__init__(
            THOUSAND,
            opponents,
            seat,
            options=options,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
            params=params,
        )
        if self.rules.players == 4 and self.first_dealer == seat:
            raise ValueError("with four players the first dealer sits the first deal out (T-6): pick another")

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        v = view(self.episode.game, self.seat)
        return f"hand {' '.join(str(c) for c in v.hand)}; scores {[s.score for s in v.scores]}"
