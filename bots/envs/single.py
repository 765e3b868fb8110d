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

import random
from collections.abc import Sequence
from typing import Any

from bots.envs.aec import shuffled
from bots.envs.episode import Episode, rules_from
from bots.envs.single_base import SingleSeatBase
from bots.registry import make_strategy
from bots.strategy import Strategy, StrategyOptions
from engine import view
from engine.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, legal_ids, observation


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
        self.max_deals = int(params.pop("max_deals", 1))
        self.first_dealer = int(params.pop("first_dealer", 0))
        self.rules = rules_from(params)
        if len(opponents) != self.rules.players - 1:
            raise ValueError(f"{self.rules.players} players need {self.rules.players - 1} opponents")
        super().__init__(
            seat,
            self.rules.players,
            num_actions=NUM_ACTIONS,
            observation_size=OBSERVATION_SIZE,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )
        if self.rules.players == 4 and self.first_dealer == seat:
            raise ValueError("with four players the first dealer sits the first deal out (T-6): pick another")
        self.opponent_names = tuple(opponents)
        self.options = options or StrategyOptions()
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)
        self._bots: dict[int, Strategy] = {}

    def _start(self) -> None:
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)
        others = [s for s in range(self.rules.players) if s != self.seat]
        self._bots = {
            s: make_strategy(n, self.options) for s, n in zip(others, self.opponent_names, strict=True)
        }

    def _over(self) -> bool:
        return self.episode.is_over

    def _chance(self) -> bool:
        return self.episode.game.is_chance_node

    def _deal(self, rng: random.Random) -> None:
        self.episode.game.apply_chance(shuffled(rng))

    def _to_act(self) -> int | None:
        return self.episode.game.to_act

    def _legal_ids(self) -> list[int]:
        return legal_ids(self.episode.game.legal_actions())

    def _apply(self, chosen: int) -> None:
        self.episode.game.apply(self.seat, action_of(chosen))

    def _bot_move(self, seat: int, rng: random.Random) -> None:
        game = self.episode.game
        game.apply(seat, self._bots[seat].choose(view(game, seat), rng))

    def _observe_all(self) -> None:
        game = self.episode.game
        for s, bot in self._bots.items():
            bot.observe(view(game, s))

    def _observation(self) -> list[float]:
        return observation(view(self.episode.game, self.seat))

    def _learner_score(self) -> int:
        return self.episode.game.records[self.seat].score

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        v = view(self.episode.game, self.seat)
        return f"hand {' '.join(str(c) for c in v.hand)}; scores {[s.score for s in v.scores]}"
