"""What the two games' Gymnasium single-seat environments share: one learning seat against bots of the
game's registry (by name, ``opponents``, each shown its seat's view after every action as at a table), the
observation and legal mask of the game's codec, rewards as the learner's score change on the sheet, an
illegal action that changes nothing and costs ``illegal_penalty``, and decks and bots' choices from the
generator ``reset(seed=...)`` seeds. What differs between the games is their observer
(:class:`bots.envs.observers.GameObserver`, the same the PettingZoo environments use); a game's environment
is its observer, its constructor's defaults and its ``render``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bots.envs.observers import GameObserver
from bots.strategy import StrategyOptions


class SingleSeatBase(gym.Env[np.ndarray[Any, Any], int]):
    """One seat of a card game of the family as a Gymnasium environment (see the module docstring).
    ``params`` are the variants of the game's rules and the episode's length (``max_deals``/``max_rounds``,
    one by default) and ``first_dealer``."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - an instance variable of gymnasium.Env

    def __init__(
        self,
        observer: GameObserver,
        opponents: Sequence[str],
        seat: int,
        *,
        options: StrategyOptions | None,
        illegal_penalty: float,
        render_mode: str | None,
        params: dict[str, Any],
    ) -> None:
        self.observer = observer
        self.length = int(params.pop(observer.length, 1))
        """The episode's deals or rounds (0: the whole game)."""
        self.first_dealer = int(params.pop("first_dealer", 0))
        self.rules = observer.rules_from(params)
        players = self.rules.players
        if len(opponents) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents")
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of {players} players")
        self.seat = seat
        self.num_actions = observer.num_actions
        self.illegal_penalty = illegal_penalty
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-np.inf, np.inf, (observer.observation_size,), np.float32)
        self.action_space = spaces.Discrete(self.num_actions)  # type: ignore[assignment]
        self.opponent_names = tuple(opponents)
        self.options = options or StrategyOptions()
        self.episode = observer.episode(self.rules, self.length, self.first_dealer)
        self._bots: dict[int, Any] = {}
        self._rng = random.Random()
        self._score = 0

    def _start(self) -> None:
        """A new episode (no deal yet) and fresh bots for the other seats."""
        self.episode = self.observer.episode(self.rules, self.length, self.first_dealer)
        others = [s for s in range(self.rules.players) if s != self.seat]
        self._bots = {
            s: self.observer.make_bot(n, self.options)
            for s, n in zip(others, self.opponent_names, strict=True)
        }

    def _observe_all(self) -> None:
        """Show every bot its seat's view (as a table does after each action)."""
        game = self.episode.game
        for s, bot in self._bots.items():
            bot.observe(self.observer.view(game, s))

    # ------------------------------------------------------------------ Gymnasium

    def _obs(self) -> np.ndarray[Any, Any]:
        return np.asarray(self.observer.observation(self.episode.game, self.seat), np.float32)

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        mask = np.zeros(self.num_actions, np.int8)
        if self.episode.game.to_act == self.seat and not self.episode.is_over:
            mask[self.observer.legal_ids(self.episode.game)] = 1
        return {"action_mask": mask, "illegal": illegal}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self._start()
        self._score = 0
        self._play_others()
        return self._obs(), self._info()

    def _play_others(self) -> None:
        """Deal and let the bots act until the learner must decide or the episode ends."""
        while not self.episode.is_over:
            game = self.episode.game
            if game.is_chance_node:
                self.observer.deal(game, self._rng)
            elif game.to_act == self.seat:
                return
            else:
                actor = game.to_act
                assert actor is not None
                self.observer.bot_move(game, actor, self._bots[actor], self._rng)
            self._observe_all()

    def step(self, action: int) -> tuple[np.ndarray[Any, Any], float, bool, bool, dict[str, Any]]:
        if self.episode.is_over:
            raise RuntimeError("the episode is over: call reset()")
        if int(action) not in self.observer.legal_ids(self.episode.game):
            return self._obs(), -self.illegal_penalty, False, False, self._info(illegal=True)
        self.observer.apply(self.episode.game, self.seat, int(action))
        self._observe_all()
        self._play_others()
        score = self.observer.sheet(self.episode.game)[self.seat]
        reward = float(score - self._score)
        self._score = score
        return self._obs(), reward, self.episode.is_over, False, self._info()
