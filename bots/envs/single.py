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

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bots.envs.aec import shuffled
from bots.envs.episode import Episode, rules_from
from bots.registry import make_strategy
from bots.strategy import Strategy, StrategyOptions
from engine import view
from engine.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_of, legal_ids, legal_mask, observation


class SingleSeatEnv(gym.Env[np.ndarray[Any, Any], int]):
    """See the module docstring. Keyword arguments besides these are the variants of :class:`engine.Rules`
    and the episode's ``max_deals`` and ``first_dealer`` (:mod:`bots.envs.episode`)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - an instance variable of gymnasium.Env

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
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat {seat} is not a seat of {self.rules.players} players")
        if self.rules.players == 4 and self.first_dealer == seat:
            raise ValueError("with four players the first dealer sits the first deal out (T-6): pick another")
        self.opponent_names = tuple(opponents)
        self.seat = seat
        self.options = options or StrategyOptions()
        self.illegal_penalty = illegal_penalty
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)  # type: ignore[assignment]
        self._rng = random.Random()
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)
        self._bots: dict[int, Strategy] = {}
        self._score = 0

    def _obs(self) -> np.ndarray[Any, Any]:
        return np.asarray(observation(view(self.episode.game, self.seat)), np.float32)

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        game = self.episode.game
        legal = game.legal_actions() if game.to_act == self.seat and not self.episode.is_over else ()
        return {"action_mask": np.asarray(legal_mask(legal), np.int8), "illegal": illegal}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self.episode = Episode(self.rules, self.max_deals, self.first_dealer)
        others = [s for s in range(self.rules.players) if s != self.seat]
        self._bots = {
            s: make_strategy(n, self.options) for s, n in zip(others, self.opponent_names, strict=True)
        }
        self._score = 0
        self._play_others()
        return self._obs(), self._info()

    def _play_others(self) -> None:
        """Deal and let the bots act until the learner must decide or the episode ends."""
        episode = self.episode
        game = episode.game
        while not episode.is_over:
            if game.is_chance_node:
                game.apply_chance(shuffled(self._rng))
            elif game.to_act == self.seat:
                return
            else:
                actor = game.to_act
                assert actor is not None
                game.apply(actor, self._bots[actor].choose(view(game, actor), self._rng))
            for s, bot in self._bots.items():
                bot.observe(view(game, s))

    def step(self, action: int) -> tuple[np.ndarray[Any, Any], float, bool, bool, dict[str, Any]]:
        game = self.episode.game
        if self.episode.is_over:
            raise RuntimeError("the episode is over: call reset()")
        if int(action) not in legal_ids(game.legal_actions()):
            return self._obs(), -self.illegal_penalty, False, False, self._info(illegal=True)
        game.apply(self.seat, action_of(int(action)))
        for s, bot in self._bots.items():
            bot.observe(view(game, s))
        self._play_others()
        score = game.records[self.seat].score
        reward = float(score - self._score)
        self._score = score
        return self._obs(), reward, self.episode.is_over, False, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        v = view(self.episode.game, self.seat)
        return f"hand {' '.join(str(c) for c in v.hand)}; scores {[s.score for s in v.scores]}"
