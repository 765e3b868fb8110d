"""1000 Blagogo as a Gymnasium environment for one seat against chosen bots: :class:`BlagogoSingleSeatEnv`.

As :mod:`bots.envs.single` for Thousand (one base, :mod:`bots.envs.single_base`): the learner plays
``seat``; the other seats are played by strategies of :data:`bots.blagogo.BLAGOGO` (by name, ``opponents``),
each choosing from its view and its Turn's actions (the simple legal actions, then the candidate melds,
B-22) as at a table. An observation is :func:`engine.blagogo.encoding.observation` of the learner's view;
``info["action_mask"]`` holds the legal ids (:mod:`engine.blagogo.encoding`). The reward of a step is the
learner's score change on the sheet, so an episode's return is its score over ``max_rounds`` rounds (0: the
whole game). ``turnover_limit`` defaults to :data:`~bots.envs.blagogo_episode.TURNOVER_LIMIT` so that every
round ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.envs.observers import BLAGOGO
from bots.envs.single_base import SingleSeatBase
from bots.strategy import StrategyOptions
from engine.blagogo import view


class BlagogoSingleSeatEnv(SingleSeatBase):
    """See the module docstring. Keyword arguments besides these are the variants of ``BlagogoRules`` (its
    ``players`` one more than the opponents unless given) and the episode's ``max_rounds`` and
    ``first_dealer`` (:mod:`bots.envs.blagogo_episode`)."""

    def __init__(
        self,
        opponents: Sequence[str] = ("heuristic", "heuristic"),
        seat: int = 0,
        options: StrategyOptions | None = None,
        illegal_penalty: float = 10.0,
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        params.setdefault("players", len(opponents) + 1)
        super().__init__(
            BLAGOGO,
            opponents,
            seat,
            options=options,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
            params=params,
        )

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        v = view(self.episode.game, self.seat)
        return f"round {v.round_number}; hand {' '.join(str(c) for c in v.hand)}; scores {list(v.scores)}"
